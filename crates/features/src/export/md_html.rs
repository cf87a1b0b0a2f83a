//! The Markdown of a message as HTML for the page: headings, emphasis, lists, tables and code
//! blocks become their elements, and nothing else does. Raw HTML in the text is shown as text,
//! links and images as their text followed by their address (the page makes nothing from the
//! transcript a link, an image or an attribute), a code block's language is dropped (it would
//! be an attribute), and every text has its control characters shown as escapes, as on the
//! rest of the page.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::html::esc;

/// `text`, read as CommonMark with tables and strikethrough, as HTML.
pub(crate) fn render(text: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    // The address of each open link or image, said after its text.
    let mut targets: Vec<String> = Vec::new();
    let events = Parser::new_ext(text, options).flat_map(|e| -> Vec<Event<'_>> {
        match e {
            // Raw HTML and the blocks it opens are text like the rest.
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => vec![shown(&t)],
            Event::Code(t) => vec![Event::InlineHtml(format!("<code>{}</code>", esc(&t)).into())],
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                targets.push(dest_url.into_string());
                vec![]
            }
            Event::End(TagEnd::Link | TagEnd::Image) => match targets.pop() {
                Some(url) if !url.is_empty() => vec![shown(&format!(" <{url}>"))],
                _ => vec![],
            },
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                vec![Event::Start(Tag::CodeBlock(CodeBlockKind::Indented))]
            }
            other => vec![other],
        }
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// Text as the rest of the page writes it ([`esc`]: markup characters, quotes included,
/// escaped and control characters shown as escapes), handed to the writer as written.
fn shown(t: &str) -> Event<'static> {
    Event::InlineHtml(CowStr::from(esc(t)))
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn markdown_becomes_its_elements() {
        let html = render(
            "# Plan\n\n**bold** and *it*\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn f() {}\n```\n",
        );
        for want in [
            "<h1>Plan</h1>",
            "<strong>bold</strong>",
            "<em>it</em>",
            "<li>one</li>",
            "<table>",
            "<td>2</td>",
            "<pre><code>fn f() {}\n</code></pre>",
        ] {
            assert!(html.contains(want), "{want} in {html}");
        }
    }

    #[test]
    fn raw_html_links_images_and_languages_stay_text() {
        let html = render(
            "<script>alert(1)</script>\n\nsee [here](javascript:alert(1)) and ![x](https://e.test/p.png) <b onclick=x>b</b>\n\n```\"><img src=x>\ncode\n```\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(!html.contains("<a ") && !html.contains("href"), "{html}");
        assert!(html.contains("here &lt;javascript:alert(1)&gt;"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<b "), "{html}");
        assert!(!html.contains("class="), "{html}");
        let escaped = render("a \u{1b}[31mred\u{202e}");
        assert!(
            !escaped.contains('\u{1b}') && escaped.contains("\\x1b[31mred"),
            "{escaped}"
        );
    }
}
