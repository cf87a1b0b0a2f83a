//! Rendering records for people (`--format text|markdown`).
//!
//! One block per message: a header naming the role, the file line and the time, then the
//! readable content — text in full, tool calls as name plus compact input, tool results and
//! thinking shortened unless `--full-output`, each cut saying how much it left out. Every
//! agent's records reach it the same way: as records of the session model, made a block by
//! [`record_block`].
//!
//! Everything taken from the transcript is escaped ([`super::sanitize::escape_str`]) piece by
//! piece as the block is built, and colour (text on a terminal only) is added after, so
//! transcript content can never drive the terminal while cctool's own styles can. In
//! Markdown, code goes in a fence longer than any run of backticks inside it, so a tool
//! result that holds a fence of its own cannot end the block early.

use serde_json::Value;

use super::sanitize::escape_str;
use super::style::{self, Paint};

mod kept;
mod record;

pub use record::record_block;

/// Output styles for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Plain text, coloured when the stream allows.
    Text,
    /// Markdown, never coloured.
    Markdown,
}

/// How blocks are rendered.
#[derive(Clone, Copy, Debug)]
pub struct Render {
    /// Text or Markdown.
    pub style: Style,
    /// Colour for the text style (never for Markdown, a document format).
    pub paint: Paint,
    /// Keep tool input, tool output and thinking whole.
    pub full: bool,
}

impl Render {
    /// How to render in `style`; `paint` is ignored for Markdown.
    pub fn new(style: Style, paint: Paint, full: bool) -> Render {
        Render {
            style,
            paint: if style == Style::Text { paint } else { Paint::OFF },
            full,
        }
    }

    /// Tool input or output, or thinking, cut at [`SHORT`] bytes unless `--full-output`, and
    /// escaped: in Markdown inside a fence, in text as it is; a cut is said below it.
    pub fn code(&self, s: &str) -> String {
        let (shown, cut) = if self.full { (s, 0) } else { cut_at(s, SHORT) };
        let shown = escape_str(shown.trim_end_matches(['\n', '\r']));
        let mut out = match self.style {
            Style::Markdown => {
                let fence = "`".repeat(longest_backtick_run(&shown).max(2) + 1);
                format!("{fence}\n{shown}\n{fence}")
            }
            Style::Text => shown,
        };
        if cut > 0 {
            let note = format!("[… {cut} more bytes not shown; --full-output shows all]");
            out.push('\n');
            out.push_str(&match self.style {
                Style::Markdown => format!("_{note}_"),
                Style::Text => self.paint.paint(style::DIM, &note),
            });
        }
        out
    }

    /// A marker of cctool's own (`[tool_use Read toolu_1]`): escaped, then styled.
    pub fn marker(&self, text: &str) -> String {
        self.paint.paint(style::TOOL, &escape_str(text))
    }

    /// Short text that is cut on one line (`[thinking] …`).
    pub fn short(&self, s: &str) -> String {
        let (shown, cut) = if self.full { (s, 0) } else { cut_at(s, SHORT) };
        if cut > 0 {
            format!(
                "{}{}",
                escape_str(shown),
                self.paint.paint(
                    style::DIM,
                    &format!("… [{cut} more bytes not shown; --full-output shows all]")
                )
            )
        } else {
            escape_str(shown)
        }
    }
}

/// The longest tool input, tool result or thinking text shown before it is cut.
pub const SHORT: usize = 600;

/// What a rendered block is about. `body` is already escaped (and styled).
pub struct Block {
    /// The role in the header (`user`, `assistant`, `function_call`…); its first word picks
    /// the colour.
    pub role: String,
    /// 1-based line in the file, when the block comes from one.
    pub line: Option<u64>,
    /// The record's timestamp, as written.
    pub timestamp: Option<String>,
    /// The record's id (uuid, call id), when it has one.
    pub id: Option<String>,
    /// The content, escaped and styled by the caller.
    pub body: String,
}

/// One block: a header line with its role, line, time and id (escaped here), the body,
/// then a blank line.
pub fn render(r: &Render, b: &Block) -> String {
    let mut meta = Vec::new();
    if let Some(l) = b.line {
        meta.push(format!("line {l}"));
    }
    if let Some(t) = &b.timestamp {
        meta.push(t.clone());
    }
    if let Some(i) = &b.id {
        meta.push(i.clone());
    }
    let meta = escape_str(&meta.join(" · "));
    let role = escape_str(&b.role);
    let body = b.body.trim_end();
    match r.style {
        Style::Text => format!(
            "{} {} {}\n{body}\n\n",
            r.paint.paint(style::DIM, "──"),
            r.paint.paint(style::role_style(&b.role), &role),
            r.paint.paint(style::DIM, &format!("· {meta}"))
        ),
        Style::Markdown => format!("### {role}\n_{meta}_\n\n{body}\n\n"),
    }
}

/// A separator for `--full` output between earlier history and what a resume loads.
pub fn separator(r: &Render, text: &str) -> String {
    match r.style {
        Style::Text => format!(
            "{}\n\n",
            r.paint.paint(style::BOLD, &format!("════ {} ════", escape_str(text)))
        ),
        Style::Markdown => format!("---\n\n**{}**\n\n", escape_str(text)),
    }
}

/// `s` cut at `max` bytes (on a character boundary), and how many bytes were left out.
fn cut_at(s: &str, max: usize) -> (&str, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], s.len() - end)
}

/// `s` cut at `max` bytes with a mark saying how many more there were.
pub fn shorten(s: &str, max: usize) -> String {
    match cut_at(s, max) {
        (s, 0) => s.to_string(),
        (shown, cut) => format!("{shown}… [{cut} more bytes]"),
    }
}

fn longest_backtick_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// The text of content: a string, or the texts of a list of content items (an item without
/// text as `[type]`), or any other JSON as its text. A container kept as its text
/// ([`crate::io::json::parse_kept`]) gives what it would as a tree, its items read one at a
/// time from the text.
pub fn text_of(v: &Value) -> String {
    if let Some(text) = crate::io::json::kept_text(v) {
        return kept::text_of(text);
    }
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(item_text).collect::<Vec<_>>().join("\n"),
        Value::Null => String::new(),
        other => crate::io::json::to_json(other),
    }
}

/// A content item's text, or `[type]` (`[?]` without one).
fn item_text(i: &Value) -> String {
    let (text, ty) = match crate::io::json::kept_text(i) {
        Some(t) => kept::text_and_type(t),
        None => (
            i.get("text").and_then(Value::as_str).map(str::to_string),
            i.get("type").and_then(Value::as_str).map(str::to_string),
        ),
    };
    text.unwrap_or_else(|| format!("[{}]", ty.as_deref().unwrap_or("?")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_inside_the_code_cannot_close_it() {
        let r = Render::new(Style::Markdown, Paint::OFF, false);
        assert_eq!(r.code("a\n```\nb"), "````\na\n```\nb\n````");
        assert_eq!(r.code("plain"), "```\nplain\n```");
    }

    #[test]
    fn cuts_say_how_much_and_full_output_keeps_all() {
        let long = "é".repeat(400); // 800 bytes
        let cut = Render::new(Style::Text, Paint::OFF, false).code(&long);
        assert!(
            cut.ends_with("\n[… 200 more bytes not shown; --full-output shows all]"),
            "{cut}"
        );
        assert_eq!(Render::new(Style::Text, Paint::OFF, true).code(&long), long);
    }
}
