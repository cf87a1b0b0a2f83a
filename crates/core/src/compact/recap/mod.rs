//! The recap that replaces a compacted span (`docs/compaction.md#the-recap`): Goal,
//! Constraints, Progress, Key Decisions, Next Steps, and the files read and modified, taken
//! literally from the span.
//!
//! Field values hold the text exactly as it is rendered, quotes included (`"never touch B"`), so
//! that a recap written by an external summarizer, whose items are not quotes, renders and parses
//! back the same way as an extracted one. Every value is one line without surrounding spaces;
//! empty values and the `(none)` marker are not values.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::model::events::{Part, Record};

mod extract;
mod sentences;
mod shell;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
mod tools;

pub(crate) use extract::Extractor;
use extract::*;
pub(crate) use extract::{call_args, content_text};
pub(crate) use sentences::strip_marker;
use sentences::*;
use shell::*;
pub use tools::Tools;
use tools::*;

/// Files the span touched, in first-seen order; a file both read and modified is only modified.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileTracking {
    /// Files only read.
    pub read: Vec<String>,
    /// Files written or edited.
    pub modified: Vec<String>,
}

/// The structured recap of a span of conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Recap {
    /// What the user set out to do.
    pub goal: String,
    /// What the user asked to keep to (rules, preferences, limits).
    pub constraints: Vec<String>,
    /// What was done, in order.
    pub progress: Vec<String>,
    /// Choices made and why.
    pub key_decisions: Vec<String>,
    /// What was left to do.
    pub next_steps: Vec<String>,
    /// The files the span touched.
    pub files: FileTracking,
}

const NONE: &str = "(none)";
const GOAL_CAP: usize = 1000;
const SENTENCE_CAP: usize = 500;
const COMMAND_CAP: usize = 300;
const MAX_QUOTES: usize = 20;
const MAX_COMMANDS: usize = 30;

const CONSTRAINT_WORDS: &[&str] = &[
    "must",
    "never",
    "don't",
    "do not",
    "always",
    "only",
    "keep",
    "without",
    "avoid",
    "make sure",
    "should not",
    "shouldn't",
];
const DECISION_WORDS: &[&str] = &[
    "decided",
    "instead",
    "rather than",
    "chose",
    "will use",
    "i'll use",
    "going to use",
    "opted",
    "switched to",
    "prefer",
];
impl Recap {
    /// The extractive recap of `span`, records of the session model
    /// ([`crate::model::events`]): quotes, paths and commands taken from it, nothing invented.
    ///
    /// Tool calls are read with the installed registry's vocabularies ([`Tools::of`]).
    pub fn extract(span: &[Record]) -> Recap {
        Recap::extract_with(span, &Tools::default())
    }

    /// [`Recap::extract`], the tool calls read with `tools`.
    pub fn extract_with(span: &[Record], tools: &Tools) -> Recap {
        let mut x = Extractor::new(tools.clone());
        for r in span {
            x.push(r);
        }
        x.finish()
    }

    /// True when the recap says nothing at all.
    pub fn is_empty(&self) -> bool {
        self.goal.is_empty()
            && self.constraints.is_empty()
            && self.progress.is_empty()
            && self.key_decisions.is_empty()
            && self.next_steps.is_empty()
            && self.files.read.is_empty()
            && self.files.modified.is_empty()
    }

    /// The rendered text of the spec; [`Recap::parse`] reads it back.
    pub fn render(&self) -> String {
        let r = self.normalized();
        let mut out = String::from("[Summary]\n");
        out.push_str("Goal: ");
        out.push_str(if r.goal.is_empty() { NONE } else { &r.goal });
        out.push('\n');
        render_list(&mut out, "Constraints", &r.constraints);
        render_list(&mut out, "Progress", &r.progress);
        render_list(&mut out, "Key Decisions", &r.key_decisions);
        render_list(&mut out, "Next Steps", &r.next_steps);
        out.push_str("\n[File Tracking]\n");
        render_files(&mut out, "Read", &r.files.read);
        render_files(&mut out, "Modified", &r.files.modified);
        out
    }

    /// The first rendered recap found in `text` (it may follow a header line or precede a
    /// trailer). `None` when there is no `[Summary]` block with a `Goal:` line.
    pub fn parse(text: &str) -> Option<Recap> {
        let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        let start = lines
            .iter()
            .position(|l| l.trim() == "[Summary]")
            .or_else(|| lines.iter().position(|l| l.trim_end().ends_with("[Summary]")))?;
        let mut p = Lines {
            lines: &lines,
            at: start + 1,
        };
        p.skip_blank();
        let goal = p.next_labelled("Goal")?;
        let mut r = Recap {
            goal: if goal == NONE { String::new() } else { goal.to_string() },
            ..Recap::default()
        };
        let fields: [(&str, &mut Vec<String>); 4] = [
            ("Constraints", &mut r.constraints),
            ("Progress", &mut r.progress),
            ("Key Decisions", &mut r.key_decisions),
            ("Next Steps", &mut r.next_steps),
        ];
        let mut complete = true;
        for (label, field) in fields {
            p.skip_blank();
            match p.list(label, false) {
                Some(items) => *field = items,
                None => {
                    complete = false;
                    break;
                }
            }
        }
        if complete {
            p.skip_blank();
            if p.peek().is_some_and(|l| l.trim() == "[File Tracking]") {
                p.at += 1;
                if let Some(read) = p.list("Read", true) {
                    r.files.read = read;
                    if let Some(modified) = p.list("Modified", true) {
                        r.files.modified = modified;
                    }
                }
            }
        }
        Some(r.normalized())
    }

    /// Updates `old` with the recap of a later span (`docs/compaction.md#the-recap`): the new goal if there is
    /// one, old items then new ones without duplicates, the new next steps only, files merged
    /// with a file in both lists kept only as modified.
    pub fn merge(old: &Recap, new: &Recap) -> Recap {
        let goal = if new.goal.is_empty() { &old.goal } else { &new.goal };
        let mut modified = Vec::new();
        push_unique(&mut modified, &old.files.modified);
        push_unique(&mut modified, &new.files.modified);
        let mut read = Vec::new();
        push_unique(&mut read, &old.files.read);
        push_unique(&mut read, &new.files.read);
        read.retain(|f| !modified.contains(f));
        Recap {
            goal: goal.clone(),
            constraints: concat_unique(&old.constraints, &new.constraints),
            progress: concat_unique(&old.progress, &new.progress),
            key_decisions: concat_unique(&old.key_decisions, &new.key_decisions),
            next_steps: concat_unique(&[], &new.next_steps),
            files: FileTracking { read, modified },
        }
        .normalized()
    }

    /// The v5 `summary` item holding this recap and its rendered text.
    pub fn to_item(&self) -> Value {
        let r = self.normalized();
        let text = r.render();
        json!({
            "type": "summary",
            "goal": r.goal,
            "constraints": r.constraints,
            "progress": r.progress,
            "key_decisions": r.key_decisions,
            "next_steps": r.next_steps,
            "files": {"read": r.files.read, "modified": r.files.modified},
            "text": text,
        })
    }

    /// The recap a `summary` item holds: its structured fields when it has any, otherwise its
    /// rendered `text`. Summaries imported from Claude Code or Codex are free prose: `None`.
    pub fn from_item(v: &Value) -> Option<Recap> {
        let obj = v.as_object()?;
        if obj.get("type").and_then(Value::as_str) != Some("summary") {
            return None;
        }
        const STRUCTURED: [&str; 6] = [
            "goal",
            "constraints",
            "progress",
            "key_decisions",
            "next_steps",
            "files",
        ];
        if STRUCTURED.iter().any(|k| obj.contains_key(*k)) {
            let files = obj.get("files").and_then(Value::as_object);
            let from_files = |k: &str| files.map(|f| strings(f.get(k))).unwrap_or_default();
            return Some(
                Recap {
                    goal: obj.get("goal").and_then(Value::as_str).unwrap_or_default().to_string(),
                    constraints: strings(obj.get("constraints")),
                    progress: strings(obj.get("progress")),
                    key_decisions: strings(obj.get("key_decisions")),
                    next_steps: strings(obj.get("next_steps")),
                    files: FileTracking {
                        read: from_files("read"),
                        modified: from_files("modified"),
                    },
                }
                .normalized(),
            );
        }
        Recap::parse(obj.get("text")?.as_str()?)
    }

    /// The recap with every value made renderable: one line, trimmed, no empty or `(none)`
    /// values. Idempotent, and `parse(render(r)) == r.normalized()`.
    pub(crate) fn normalized(&self) -> Recap {
        let goal = one_line(&self.goal);
        Recap {
            goal: if goal == NONE { String::new() } else { goal },
            constraints: normalize_items(&self.constraints),
            progress: normalize_items(&self.progress),
            key_decisions: normalize_items(&self.key_decisions),
            next_steps: normalize_items(&self.next_steps),
            files: FileTracking {
                read: normalize_items(&self.files.read),
                modified: normalize_items(&self.files.modified),
            },
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn normalize_items(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| one_line(s))
        .filter(|s| !s.is_empty() && s != NONE)
        .collect()
}

/// Line breaks become spaces (a value must stay on its line), then the ends are trimmed.
fn one_line(s: &str) -> String {
    if s.contains(['\n', '\r']) {
        s.replace("\r\n", " ").replace(['\n', '\r'], " ").trim().to_string()
    } else {
        s.trim().to_string()
    }
}

/// All whitespace runs as one space: a quote of several lines reads as one.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, with `…` when something was cut.
fn cap(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn quote(s: &str, max: usize) -> String {
    format!("\"{}\"", cap(&collapse(s), max))
}

fn concat_unique(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    push_unique(&mut out, a);
    push_unique(&mut out, b);
    out
}

fn push_unique(out: &mut Vec<String>, items: &[String]) {
    // Recaps merged over many compactions grow; a set keeps this linear.
    let mut seen: HashSet<String> = out.iter().cloned().collect();
    for s in items {
        if seen.insert(s.clone()) {
            out.push(s.clone());
        }
    }
}

/// Keeps the last occurrence of each value, then the `max` most recent values: a statement
/// repeated late is a recent one.
fn recent_unique(items: Vec<String>, max: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for s in items.into_iter().rev() {
        if seen.insert(s.clone()) {
            out.push(s);
        }
    }
    out.truncate(max);
    out.reverse();
    out
}

fn render_list(out: &mut String, label: &str, items: &[String]) {
    match items {
        [] => out.push_str(&format!("{label}: {NONE}\n")),
        [one] => out.push_str(&format!("{label}: {one}\n")),
        many => {
            out.push_str(&format!("{label}:\n"));
            for s in many {
                out.push_str(&format!("- {s}\n"));
            }
        }
    }
}

fn render_files(out: &mut String, label: &str, files: &[String]) {
    // The compact form separates paths by ", "; a path containing that is written as a list.
    if files.iter().any(|f| f.contains(", ")) {
        out.push_str(&format!("{label}:\n"));
        for f in files {
            out.push_str(&format!("- {f}\n"));
        }
    } else if files.is_empty() {
        out.push_str(&format!("{label}: {NONE}\n"));
    } else {
        out.push_str(&format!("{label}: {}\n", files.join(", ")));
    }
}

/// A cursor over the lines of a rendered recap.
struct Lines<'a> {
    lines: &'a [&'a str],
    at: usize,
}

impl<'a> Lines<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(|l| l.trim().is_empty()) {
            self.at += 1;
        }
    }

    /// The rest of the next line after `label:`, consuming the line; `None` if it is another line.
    fn next_labelled(&mut self, label: &str) -> Option<&'a str> {
        let rest = self.peek()?.strip_prefix(label)?.strip_prefix(':')?;
        self.at += 1;
        Some(rest.trim())
    }

    /// A field written inline (`Label: item`, `Label: (none)`) or as `- ` lines under `Label:`.
    fn list(&mut self, label: &str, comma_separated: bool) -> Option<Vec<String>> {
        let rest = self.next_labelled(label)?;
        if rest == NONE {
            return Some(Vec::new());
        }
        if !rest.is_empty() {
            return Some(if comma_separated {
                rest.split(", ").map(str::to_string).collect()
            } else {
                vec![rest.to_string()]
            });
        }
        let mut items = Vec::new();
        while let Some(item) = self.peek().and_then(|l| l.strip_prefix("- ")) {
            items.push(item.to_string());
            self.at += 1;
        }
        Some(items)
    }
}
