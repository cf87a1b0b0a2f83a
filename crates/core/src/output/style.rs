//! Colour for the text views: roles and tool calls in rendered transcripts, severities in
//! diagnostics and doctor findings, the scan table's header.
//!
//! Colour is decided once per stream from `--color` ([`ColorChoice`]): `auto` colours a
//! terminal unless `NO_COLOR` is set or `TERM=dumb`, `always` colours even a pipe, `never`
//! colours nothing. Only styles are added: the text is the same with colour or without, so
//! anything that reads it (a pager, a test) sees the same words.

use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};

use super::ColorChoice;
use crate::model::diag::{Diagnostic, Severity};

const ERROR: Style = AnsiColor::Red.on_default().bold();
/// Warnings: bold yellow.
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const INFO: Style = AnsiColor::Cyan.on_default();
/// Secondary text: codes, metadata, notes of what was cut.
pub const DIM: Style = Style::new().dimmed();
/// Headings: a file's name, a section's title.
pub const BOLD: Style = Style::new().bold();
/// A table's header row.
pub const HEADER: Style = Style::new().bold().underline();
const USER: Style = AnsiColor::Green.on_default().bold();
const ASSISTANT: Style = AnsiColor::Blue.on_default().bold();
const SYSTEM: Style = AnsiColor::Magenta.on_default().bold();
/// Tool calls and results, and cctool's own markers in transcripts.
pub const TOOL: Style = AnsiColor::Yellow.on_default();
/// What a search matched, in the text shown of a hit: bold red, as grep and ripgrep mark it.
pub const MATCH: Style = AnsiColor::Red.on_default().bold();

/// Whether one output stream gets colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// No colour: Markdown, or a stream that is not coloured.
    pub const OFF: Paint = Paint { on: false };

    /// Colours only when `on`; [`stderr`](Self::stderr) and `Out::paint` decide it from
    /// `--color`.
    pub fn new(on: bool) -> Paint {
        Paint { on }
    }

    /// For standard error, which may be a terminal when stdout is not.
    pub fn stderr(choice: ColorChoice) -> Paint {
        Paint::new(choice.enabled(std::io::stderr().is_terminal()))
    }

    /// Whether this stream is coloured.
    pub fn is_on(self) -> bool {
        self.on
    }

    /// `text` in `style` (which must not hold newlines: a pager resets styles per line).
    pub fn paint(self, style: Style, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }

    /// The severity's name, in its colour.
    pub fn severity(self, s: Severity) -> String {
        self.paint(severity_style(s), s.name())
    }

    /// A diagnostic as one line for people, control characters escaped:
    /// `file:line: severity: message [code]`.
    pub fn diagnostic(self, d: &Diagnostic) -> String {
        use super::sanitize::escape_str;
        let at = match d.line {
            Some(l) => format!("{}:{l}", escape_str(&d.file)),
            None => escape_str(&d.file),
        };
        format!(
            "{at}: {}: {} {}",
            self.severity(d.severity),
            escape_str(&d.message),
            self.paint(DIM, &format!("[{}]", d.code))
        )
    }
}

/// The colour of a severity: bold red for errors, bold yellow for warnings, cyan for info.
pub fn severity_style(s: Severity) -> Style {
    match s {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
        Severity::Info => INFO,
    }
}

/// The style of a conversation role in rendered transcripts.
pub fn role_style(role: &str) -> Style {
    let head = role.split([' ', '/']).next().unwrap_or("");
    match head {
        "user" => USER,
        "assistant" => ASSISTANT,
        "system" | "developer" => SYSTEM,
        "function_call"
        | "custom_tool_call"
        | "local_shell_call"
        | "function_call_output"
        | "custom_tool_call_output" => TOOL,
        _ => BOLD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_adds_only_styles() {
        let on = Paint::new(true).paint(ERROR, "error");
        assert!(on.starts_with('\u{1b}') && on.contains("error") && on.ends_with('m'));
        assert_eq!(Paint::OFF.paint(ERROR, "error"), "error");
        let strip = |s: &str| {
            let mut out = String::new();
            let mut it = s.chars();
            while let Some(c) = it.next() {
                if c == '\u{1b}' {
                    for d in it.by_ref() {
                        if d == 'm' {
                            break;
                        }
                    }
                } else {
                    out.push(c);
                }
            }
            out
        };
        assert_eq!(strip(&on), "error");
    }
}
