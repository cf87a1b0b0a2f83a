//! Rendering records for people (`--format text|markdown`).
//!
//! One block per message: a header naming the role, the file line and the time, then the
//! readable content — text in full, tool calls as name plus compact input, tool results and
//! thinking shortened unless `--full-output`, each cut saying how much it left out.
//!
//! Everything taken from the transcript is escaped ([`super::sanitize::escape_str`]) piece by
//! piece as the block is built, and colour (text on a terminal only) is added after, so
//! transcript content can never drive the terminal while cctool's own styles can. In
//! Markdown, code goes in a fence longer than any run of backticks inside it, so a tool
//! result that holds a fence of its own cannot end the block early.

use serde_json::Value;

use super::sanitize::escape_str;
use super::style::{self, Paint};

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
    fn code(&self, s: &str) -> String {
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
    fn marker(&self, text: &str) -> String {
        self.paint.paint(style::TOOL, &escape_str(text))
    }

    /// Short text that is cut on one line (`[thinking] …`).
    fn short(&self, s: &str) -> String {
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

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i.get("text").and_then(Value::as_str) {
                Some(t) => t.to_string(),
                None => format!("[{}]", i.get("type").and_then(Value::as_str).unwrap_or("?")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The readable content of Anthropic-style content (a string or a list of blocks), escaped.
fn anthropic_content(content: &Value, r: &Render) -> String {
    match content {
        Value::String(s) => escape_str(s),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => escape_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
                "thinking" => format!(
                    "{} {}",
                    r.marker("[thinking]"),
                    r.short(b.get("thinking").and_then(Value::as_str).unwrap_or(""))
                ),
                "redacted_thinking" => r.marker("[redacted thinking]"),
                "tool_use" => format!(
                    "{}\n{}",
                    r.marker(&format!(
                        "[tool_use {} {}]",
                        b.get("name").and_then(Value::as_str).unwrap_or("?"),
                        b.get("id").and_then(Value::as_str).unwrap_or("")
                    )),
                    r.code(&b.get("input").map(Value::to_string).unwrap_or_default())
                ),
                "tool_result" => format!(
                    "{}\n{}",
                    r.marker(&format!(
                        "[tool_result {}{}]",
                        b.get("tool_use_id").and_then(Value::as_str).unwrap_or(""),
                        if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                            ", error"
                        } else {
                            ""
                        }
                    )),
                    r.code(&text_of(b.get("content").unwrap_or(&Value::Null)))
                ),
                "image" => r.marker("[image]"),
                other => r.marker(&format!("[{other}]")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A Claude Code record.
pub fn claude_block(v: &Value, line: u64, r: &Render) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let (role, body) = match ty.as_str() {
        "system" => {
            let sub = s(v, "subtype").unwrap_or_default();
            let mut body = escape_str(&text_of(v.get("content").unwrap_or(&Value::Null)));
            if sub == "compact_boundary" {
                let m = v.get("compactMetadata");
                let trigger = m.and_then(|m| s(m, "trigger")).unwrap_or_else(|| "?".into());
                let tokens = m
                    .and_then(|m| m.get("preTokens"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| "?".into());
                body = format!(
                    "{body} {}",
                    r.marker(&format!("(trigger {trigger}, {tokens} tokens before)"))
                );
            }
            (format!("system/{sub}"), body)
        }
        "attachment" => (
            "attachment".to_string(),
            r.code(&v.get("attachment").map(Value::to_string).unwrap_or_default()),
        ),
        _ => {
            let msg = v.get("message").unwrap_or(&Value::Null);
            let mut role = ty.clone();
            if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (compaction summary)");
            } else if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (meta)");
            }
            if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (sidechain)");
            }
            if let Some(model) = s(msg, "model") {
                role.push_str(&format!(" · {model}"));
            }
            (role, anthropic_content(msg.get("content").unwrap_or(&Value::Null), r))
        }
    };
    Block {
        role,
        line: Some(line),
        timestamp: s(v, "timestamp"),
        id: s(v, "uuid"),
        body,
    }
}

/// A message of the API view (`{"role","content"}`).
pub fn api_block(v: &Value, index: usize, r: &Render) -> Block {
    Block {
        role: s(v, "role").unwrap_or_default(),
        line: None,
        timestamp: None,
        id: Some(format!("message {}", index + 1)),
        body: anthropic_content(v.get("content").unwrap_or(&Value::Null), r),
    }
}

/// A Codex ResponseItem.
pub fn codex_block(v: &Value, line: Option<u64>, r: &Render) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let (role, body) = match ty.as_str() {
        "message" => (
            s(v, "role").unwrap_or_else(|| "message".into()),
            escape_str(&text_of(v.get("content").unwrap_or(&Value::Null))),
        ),
        "reasoning" => (
            "reasoning".into(),
            r.short(&v.get("summary").map(text_of).unwrap_or_default()),
        ),
        "function_call" | "custom_tool_call" => (
            format!("{ty} {}", s(v, "name").unwrap_or_default()),
            r.code(&s(v, "arguments").or_else(|| s(v, "input")).unwrap_or_default()),
        ),
        "function_call_output" | "custom_tool_call_output" => (
            format!("{ty} {}", s(v, "call_id").unwrap_or_default()),
            r.code(&text_of(v.get("output").unwrap_or(&Value::Null))),
        ),
        "local_shell_call" => (
            "local_shell_call".into(),
            r.code(&v.get("action").map(Value::to_string).unwrap_or_default()),
        ),
        "compaction" | "compaction_summary" | "context_compaction" => (
            ty.clone(),
            r.marker(&format!(
                "[encrypted compaction summary, {} bytes]",
                v.get("encrypted_content").and_then(Value::as_str).map_or(0, str::len)
            )),
        ),
        _ => (ty.clone(), r.code(&v.to_string())),
    };
    Block {
        role,
        line,
        timestamp: None,
        id: s(v, "call_id"),
        body,
    }
}

/// A cctool session message (any schema version).
pub fn session_block(v: &Value, index: usize, r: &Render) -> Block {
    let role = s(v, "role").unwrap_or_else(|| "?".into());
    let body = if let Some(items) = v.get("items").and_then(Value::as_array) {
        items
            .iter()
            .map(|i| match s(i, "type").as_deref() {
                Some("text" | "reasoning" | "summary") => escape_str(&s(i, "text").unwrap_or_default()),
                Some("tool_call") => format!(
                    "{}\n{}",
                    r.marker(&format!("[tool_call {}]", s(i, "name").unwrap_or_default())),
                    r.code(&i.get("args").map(Value::to_string).unwrap_or_default())
                ),
                Some("tool_result") => format!(
                    "{}\n{}",
                    r.marker("[tool_result]"),
                    r.code(&text_of(i.get("content").unwrap_or(&Value::Null)))
                ),
                Some(other) => r.marker(&format!("[{other}]")),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        escape_str(&text_of(v.get("content").unwrap_or(&Value::Null)))
    };
    Block {
        role,
        line: None,
        timestamp: s(v, "timestamp"),
        id: Some(format!("#{}", index + 1)),
        body,
    }
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
