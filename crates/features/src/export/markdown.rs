//! The Markdown export. Text of the conversation is Markdown already and is kept as written
//! (control characters escaped); everything else (tool input and output, thinking, summaries)
//! goes in a fence longer than any backtick run inside it, so a result that holds fences of
//! its own cannot end the block early, and cctool's own words are escaped for Markdown.

use super::{Doc, Entry, Image, Msg, Part, Summary};
use crate::output::sanitize::escape_str;

/// A fenced block whose fence no line of `text` can close.
pub(crate) fn fence(text: &str, info: &str) -> String {
    let text = escape_str(text.trim_end_matches(['\n', '\r']));
    let run = longest_run(&text, '`').max(2) + 1;
    let fence = "`".repeat(run);
    format!("{fence}{info}\n{text}\n{fence}\n")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// cctool's own words about the transcript (names, ids, roles) with Markdown's punctuation
/// escaped, on one line.
pub(crate) fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape_str(s).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '!' | '(' | ')' | '{' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// The fence that closes a code block `text` leaves open, if it leaves one open (CommonMark:
/// a fence of three or more backticks or tildes, indented at most three spaces, closed by a
/// fence of the same character at least as long).
fn open_fence(text: &str) -> Option<String> {
    let mut open: Option<(char, usize)> = None;
    for line in text.lines() {
        let t = line.trim_start_matches(' ');
        if line.len() - t.len() > 3 {
            continue;
        }
        let Some(c) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let n = t.chars().take_while(|&x| x == c).count();
        if n < 3 {
            continue;
        }
        match open {
            None => {
                if !(c == '`' && t[n..].contains('`')) {
                    open = Some((c, n));
                }
            }
            Some((oc, on)) if oc == c && n >= on && t[n..].trim().is_empty() => open = None,
            Some(_) => {}
        }
    }
    open.map(|(c, n)| c.to_string().repeat(n))
}

fn image(img: &Image, out: &mut String) {
    match img.data_url() {
        Some(url) => out.push_str(&format!("![image]({url})\n\n")),
        None => out.push_str("_\\[image not shown: not an inline image\\]_\n\n"),
    }
}

fn message(m: &Msg, n: usize, out: &mut String) {
    let mut meta = Vec::new();
    if let Some(t) = &m.time {
        meta.push(t.clone());
    }
    if let Some(l) = m.line {
        meta.push(format!("line {l}"));
    }
    out.push_str(&format!("### {n}. {}\n", inline(&m.role)));
    if !meta.is_empty() {
        out.push_str(&format!("_{}_\n", inline(&meta.join(" · "))));
    }
    out.push('\n');
    for p in &m.parts {
        match p {
            Part::Text(t) => {
                let t = escape_str(t.trim_end());
                if !t.is_empty() {
                    out.push_str(&t);
                    out.push('\n');
                    // A fence the text opened and never closed would swallow the rest.
                    if let Some(open) = open_fence(&t) {
                        out.push_str(&open);
                        out.push('\n');
                    }
                    out.push('\n');
                }
            }
            Part::Thinking(t) => {
                out.push_str("**Thinking**\n\n");
                out.push_str(&fence(t, ""));
                out.push('\n');
            }
            Part::ToolCall { name, id, input } => {
                out.push_str(&format!("**Tool call** {} `{}`\n\n", inline(name), id.replace('`', "")));
                out.push_str(&fence(input, "json"));
                out.push('\n');
            }
            Part::ToolResult {
                id,
                error,
                text,
                images,
            } => {
                out.push_str(&format!(
                    "**Tool result**{} `{}`\n\n",
                    if *error { " (error)" } else { "" },
                    id.replace('`', "")
                ));
                out.push_str(&fence(text, ""));
                out.push('\n');
                for i in images {
                    image(i, out);
                }
            }
            Part::Image(i) => image(i, out),
            Part::Note(t) => {
                out.push_str(&format!("_{}_\n\n", inline(t)));
            }
        }
    }
}

fn body(doc: &Doc, out: &mut String) {
    let mut n = 0;
    for e in &doc.entries {
        match e {
            Entry::Msg(m) => {
                n += 1;
                message(m, n, out);
            }
            Entry::Mark { title, summary } => {
                out.push_str(&format!("---\n\n**{}**\n\n", inline(title)));
                if let Some(s) = summary {
                    out.push_str(&fence(s, ""));
                    out.push('\n');
                }
            }
        }
    }
}

/// The whole document.
pub fn render(doc: &Doc, redacted: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!("# {}\n\n", inline(&doc.title)));
    out.push_str(&format!(
        "_{}{} session `{}`, {} messages; exported by cctool{}_\n\n",
        doc.project
            .as_deref()
            .map(|p| format!("project `{}`, ", p.replace('`', "")))
            .unwrap_or_default(),
        doc.agent,
        doc.file.replace('`', ""),
        doc.messages(),
        if redacted { ", secrets redacted" } else { "" }
    ));
    body(doc, &mut out);
    for sub in &doc.subagents {
        out.push_str(&format!("---\n\n## Subagent: {}\n\n", inline(&sub.title)));
        out.push_str(&format!("_`{}`_\n\n", sub.file.replace('`', "")));
        body(sub, &mut out);
    }
    out
}

/// The index page of a folder of exports: one line per session, linking its file, under its
/// project; the project with the newest session first, and the newest session first in each.
pub fn index(items: &[(String, Summary)]) -> String {
    let mut out = String::from("# Exported sessions\n");
    for (project, group) in super::by_project(items) {
        out.push_str(&format!(
            "\n## {}\n\n",
            inline(project.as_deref().unwrap_or("No project"))
        ));
        for (file, doc) in group {
            out.push_str(&format!(
                "- [{}](<{}>) — {}, {} messages{}\n",
                inline(&doc.title),
                file.replace(['<', '>'], ""),
                doc.agent,
                doc.messages,
                doc.first_time
                    .as_deref()
                    .map(|t| format!(", {}", inline(t)))
                    .unwrap_or_default()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outlast_the_text() {
        assert_eq!(fence("a\n```\nb", ""), "````\na\n```\nb\n````\n");
        assert_eq!(fence("x", "json"), "```json\nx\n```\n");
        assert_eq!(inline("a_b [c](d)"), "a\\_b \\[c\\]\\(d\\)");
        assert_eq!(open_fence("x\n```rust\nfn f()"), Some("```".into()));
        assert_eq!(open_fence("````\n```\n````"), None);
    }
}
