//! The HTML export: one file, nothing fetched. Its style and its one small script are inline
//! and allowed by their SHA-256 in a Content-Security-Policy that allows nothing else (no
//! other script, no inline handler, no request), so even a transcript that got past the
//! escaping could not run. Every byte of the transcript is HTML-escaped as text; nothing from
//! it becomes markup, a link or an attribute except images, and those only as `data:` URLs of
//! checked characters, and the Markdown of messages, which becomes only its own elements
//! (`md_html`). The page reads without JavaScript (tool calls and results are
//! `<details>`, the table of contents is links); the script adds search, also from the
//! address (`page.html#search=word`).

use base64::Engine;
use sha2::{Digest, Sha256};

use super::{Doc, Entry, Image, Msg, Part, Summary};
use crate::output::sanitize::escape_str;

const CSS: &str = r#"
:root{color-scheme:light dark;--fg:#1d1f21;--bg:#fff;--muted:#6a737d;--user:#e8f0fe;--asst:#f6f8fa;--tool:#fff8e6;--line:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;--user:#132339;--asst:#161b22;--tool:#2a2212;--line:#30363d}}
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header,main,nav{max-width:60rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem}
h1{font-size:1.4rem;margin:.5rem 0}
.meta{color:var(--muted);font-size:.85rem;font-weight:normal}
#search{position:sticky;top:0;background:var(--bg);padding:.5rem 0;border-bottom:1px solid var(--line)}
#q{width:60%;font:inherit;padding:.25rem .5rem}
nav ol{padding-left:1.5rem;max-height:20rem;overflow:auto}
.msg{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.5rem .75rem;background:var(--asst)}
.msg.user{background:var(--user)}
.msg.tool{background:var(--tool)}
.msg h3{margin:0 0 .25rem;font-size:.95rem}
.text,pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0}
.md{overflow-wrap:anywhere}
.md>:first-child{margin-top:.25rem}
.md h1,.md h2,.md h3,.md h4{font-size:1rem;margin:.75rem 0 .25rem}
.md table{border-collapse:collapse;display:block;overflow:auto}
.md th,.md td{border:1px solid var(--line);padding:.2rem .5rem}
.md code{font:13px/1.4 ui-monospace,monospace}
pre{font:13px/1.4 ui-monospace,monospace;background:var(--bg);border:1px solid var(--line);padding:.5rem;max-height:40rem;overflow:auto}
details>summary{cursor:pointer;color:var(--muted)}
.mark{border-top:3px double var(--line);margin:1.5rem 0;padding-top:.5rem}
.mark h2{font-size:1.05rem}
img{max-width:100%;height:auto;border:1px solid var(--line)}
.note{color:var(--muted);font-style:italic}
.nomatch{display:none}
"#;

const SCRIPT: &str = r#"
(function () {
  var box = document.getElementById('search');
  var q = document.getElementById('q');
  var hits = document.getElementById('hits');
  if (!box || !q || !hits) { return; }
  var msgs = Array.prototype.slice.call(document.querySelectorAll('.msg'));
  box.hidden = false;
  function run() {
    var t = q.value.trim().toLowerCase();
    var n = 0;
    msgs.forEach(function (m) {
      var ok = !t || m.textContent.toLowerCase().indexOf(t) >= 0;
      m.classList.toggle('nomatch', !ok);
      if (ok && t) {
        n += 1;
        m.querySelectorAll('details').forEach(function (d) {
          if (d.textContent.toLowerCase().indexOf(t) >= 0) { d.open = true; }
        });
      }
    });
    hits.textContent = t ? n + ' of ' + msgs.length + ' messages' : '';
  }
  q.addEventListener('input', run);
  var h = /^#search=(.*)$/.exec(location.hash);
  if (h) {
    try { q.value = decodeURIComponent(h[1]); } catch (e) { q.value = h[1]; }
    run();
  }
})();
"#;

fn sha256_b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s.as_bytes()))
}

/// The page's Content-Security-Policy: its own style and script, `data:` images, nothing else.
pub(crate) fn csp(script: bool) -> String {
    format!(
        "default-src 'none'; img-src data:; style-src 'sha256-{}'; script-src {}; base-uri 'none'; form-action 'none'",
        sha256_b64(CSS),
        if script {
            format!("'sha256-{}'", sha256_b64(SCRIPT))
        } else {
            "'none'".to_string()
        }
    )
}

/// Text as HTML text: markup characters escaped, control characters shown as escapes.
pub(crate) fn esc(s: &str) -> String {
    let s = escape_str(s);
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn head(title: &str, script: bool) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"cctool export\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        csp(script),
        esc(title)
    )
}

fn image(img: &Image, out: &mut String) {
    match img.data_url() {
        Some(url) => out.push_str(&format!("<img alt=\"image\" src=\"{}\">\n", esc(&url))),
        None => out.push_str("<p class=\"note\">[image not shown: not an inline image]</p>\n"),
    }
}

/// The class of a message's box, from its role (never the role's text itself).
fn class_of(role: &str) -> &'static str {
    if role == "user" {
        "user"
    } else if role == "tool" || role.starts_with("attachment") || role.starts_with("system") {
        "tool"
    } else {
        "assistant"
    }
}

fn message(m: &Msg, id: usize, out: &mut String) {
    let mut meta = Vec::new();
    if let Some(t) = &m.time {
        meta.push(t.clone());
    }
    if let Some(l) = m.line {
        meta.push(format!("line {l}"));
    }
    out.push_str(&format!(
        "<article class=\"msg {}\" id=\"m{id}\">\n<h3>{} <span class=\"meta\">{}</span></h3>\n",
        class_of(&m.role),
        esc(&m.role),
        esc(&meta.join(" · "))
    ));
    for p in &m.parts {
        match p {
            Part::Text(t) => {
                // The conversation's text is Markdown: shown as its headings, lists, tables
                // and code, with everything else kept as text (`md_html`).
                if !t.trim().is_empty() {
                    out.push_str(&format!("<div class=\"md\">{}</div>\n", super::md_html::render(t.trim_end())));
                }
            }
            Part::Thinking(t) => out.push_str(&format!(
                "<details class=\"thinking\"><summary>Thinking</summary><pre>{}</pre></details>\n",
                esc(t)
            )),
            Part::ToolCall { name, id, input } => out.push_str(&format!(
                "<details class=\"call\"><summary>Tool call: {} <span class=\"meta\">{}</span></summary><pre>{}</pre></details>\n",
                esc(name),
                esc(id),
                esc(input)
            )),
            Part::ToolResult { id, error, text, images } => {
                out.push_str(&format!(
                    "<details class=\"result\"><summary>Tool result{} <span class=\"meta\">{}</span></summary><pre>{}</pre>\n",
                    if *error { " (error)" } else { "" },
                    esc(id),
                    esc(text)
                ));
                for i in images {
                    image(i, out);
                }
                out.push_str("</details>\n");
            }
            Part::Image(i) => image(i, out),
            Part::Note(t) => out.push_str(&format!("<p class=\"note\">{}</p>\n", esc(t))),
        }
    }
    out.push_str("</article>\n");
}

/// One line of the table of contents for a message: the start of a user's prompt.
fn toc_line(m: &Msg) -> Option<String> {
    if m.role != "user" {
        return None;
    }
    let text = m.parts.iter().find_map(|p| match p {
        Part::Text(t) if !t.trim().is_empty() && !t.trim_start().starts_with('<') => Some(t.trim()),
        _ => None,
    })?;
    let first = text.lines().next().unwrap_or(text);
    let cut: String = first.chars().take(90).collect();
    Some(if cut.len() < first.len() {
        format!("{cut}…")
    } else {
        cut
    })
}

/// Messages of a document, numbered from `*next`; the table of contents grows alongside.
fn body(doc: &Doc, next: &mut usize, toc: &mut String, out: &mut String) {
    for e in &doc.entries {
        match e {
            Entry::Msg(m) => {
                *next += 1;
                if let Some(line) = toc_line(m) {
                    toc.push_str(&format!("<li><a href=\"#m{next}\">{}</a></li>\n", esc(&line)));
                }
                message(m, *next, out);
            }
            Entry::Mark { title, summary } => {
                *next += 1;
                toc.push_str(&format!(
                    "<li><a href=\"#c{next}\"><strong>{}</strong></a></li>\n",
                    esc(title)
                ));
                out.push_str(&format!(
                    "<section class=\"mark\" id=\"c{next}\">\n<h2>{}</h2>\n",
                    esc(title)
                ));
                if let Some(s) = summary {
                    out.push_str(&format!(
                        "<details open><summary>Summary the agent was given</summary><pre>{}</pre></details>\n",
                        esc(s)
                    ));
                }
                out.push_str("</section>\n");
            }
        }
    }
}

/// The whole page.
pub fn render(doc: &Doc, redacted: bool) -> String {
    let mut main = String::new();
    let mut toc = String::new();
    let mut next = 0;
    body(doc, &mut next, &mut toc, &mut main);
    for (i, sub) in doc.subagents.iter().enumerate() {
        toc.push_str(&format!(
            "<li><a href=\"#s{}\"><strong>Subagent: {}</strong></a></li>\n",
            i + 1,
            esc(&sub.title)
        ));
        main.push_str(&format!(
            "<section class=\"mark subagent\" id=\"s{}\">\n<h2>Subagent: {}</h2>\n<p class=\"meta\">{}</p>\n</section>\n",
            i + 1,
            esc(&sub.title),
            esc(&sub.file)
        ));
        body(sub, &mut next, &mut toc, &mut main);
    }
    let mut out = head(&doc.title, true);
    out.push_str(&format!(
        "<header>\n<h1>{}</h1>\n<p class=\"meta\">{}{} session {} · {} messages · exported by cctool{}</p>\n</header>\n",
        esc(&doc.title),
        doc.project
            .as_deref()
            .map(|p| format!("project {} · ", esc(p)))
            .unwrap_or_default(),
        esc(doc.agent),
        esc(&doc.file),
        doc.messages(),
        if redacted { " · secrets redacted" } else { "" }
    ));
    out.push_str(
        "<nav id=\"search\" hidden><input id=\"q\" type=\"search\" placeholder=\"Search messages\" aria-label=\"Search messages\"> <span id=\"hits\" class=\"meta\"></span></nav>\n",
    );
    out.push_str(&format!(
        "<nav id=\"toc\">\n<details open><summary>Contents</summary>\n<ol>\n{toc}</ol>\n</details>\n</nav>\n<main>\n{main}</main>\n"
    ));
    out.push_str(&format!("<script>{SCRIPT}</script>\n</body>\n</html>\n"));
    out
}

/// The index page of a folder of exports: the sessions by project, newest first.
pub fn index(items: &[(String, Summary)]) -> String {
    let mut out = head("Exported sessions", false);
    out.push_str("<header><h1>Exported sessions</h1></header>\n<main>\n");
    for (project, group) in super::by_project(items) {
        out.push_str(&format!(
            "<h2>{}</h2>\n<ol>\n",
            esc(project.as_deref().unwrap_or("No project"))
        ));
        for (file, doc) in group {
            out.push_str(&format!(
                "<li><a href=\"{}\">{}</a> <span class=\"meta\">{} · {} messages{}</span></li>\n",
                esc(&href(file)),
                esc(&doc.title),
                esc(doc.agent),
                doc.messages,
                doc.first_time
                    .as_deref()
                    .map(|t| format!(" · {}", esc(t)))
                    .unwrap_or_default()
            ));
        }
        out.push_str("</ol>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// A file name as a relative link: every byte outside a safe set percent-encoded, so a name
/// can never become a scheme (`javascript:`) or leave the folder.
fn href(file: &str) -> String {
    let mut out = String::from("./");
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_from_the_transcript_is_text() {
        assert_eq!(
            esc("</textarea><script>alert('x')</script>&\u{1b}"),
            "&lt;/textarea&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\\x1b"
        );
        assert_eq!(href("javascript:alert(1).html"), "./javascript%3Aalert%281%29.html");
    }

    #[test]
    fn the_policy_names_the_inline_style_and_script() {
        let p = csp(true);
        assert!(p.contains(&format!("'sha256-{}'", sha256_b64(SCRIPT))), "{p}");
        assert!(p.starts_with("default-src 'none';"));
    }
}
