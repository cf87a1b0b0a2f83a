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

use crate::agents::cctool::schema::{Item, MessageV3};

/// Files the span touched, in first-seen order; a file both read and modified is only modified.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileTracking {
    pub read: Vec<String>,
    pub modified: Vec<String>,
}

/// The structured recap of a span of conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Recap {
    pub goal: String,
    pub constraints: Vec<String>,
    pub progress: Vec<String>,
    pub key_decisions: Vec<String>,
    pub next_steps: Vec<String>,
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
const INJECTED_PREFIXES: &[&str] = &[
    "<system-reminder>",
    "<command-",
    "<local-command-",
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "[Request interrupted by user",
];

impl Recap {
    /// The extractive recap of `span`: quotes, paths and commands taken from it, nothing invented.
    ///
    /// A structured summary item inside the span (an earlier recap) is merged with what follows
    /// it, so an existing recap is updated rather than lost; merging the same recap again
    /// afterwards changes nothing.
    pub fn extract(span: &[MessageV3]) -> Recap {
        Recap::extract_refs(&span.iter().collect::<Vec<_>>())
    }

    /// [`Recap::extract`] over messages held elsewhere (the units of a cut), not copied.
    pub fn extract_refs(span: &[&MessageV3]) -> Recap {
        let mut x = Extractor::default();
        for m in span {
            x.push(m);
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

fn merge_nonempty(acc: Recap, new: Recap) -> Recap {
    // An empty stretch (nothing between two summaries) must not wipe the next steps.
    if new.is_empty() {
        acc
    } else if acc.is_empty() {
        new
    } else {
        Recap::merge(&acc, &new)
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

// ---------------------------------------------------------------------------------------------
// Extraction

/// What a tool call produced, as far as the recap needs it.
#[derive(Default)]
struct Outcome {
    text: String,
    exit: Option<i64>,
    failed: bool,
}

/// Calls kept waiting for their results before being taken without one: a result arrives
/// right after its call, or after a few parallel ones; an unanswered call must not hold the
/// whole rest of a span in memory.
const MAX_PENDING: usize = 256;

/// The extractive recap, built one message at a time so that a span of any length needs
/// memory only for what the recap keeps. A tool call is taken when its result has arrived
/// (its outcome decides whether a file was really read or written, and the exit status), in
/// the order the calls were made.
#[derive(Default)]
pub struct Extractor {
    /// Earlier recaps and finished segments, merged.
    acc: Recap,
    segment: Segment,
}

#[derive(Default)]
struct Segment {
    first_request: Option<String>,
    last_request: Option<String>,
    constraints: Vec<String>,
    decisions: Vec<String>,
    files: Files,
    progress: Vec<Step>,
    todos: Option<Vec<(String, String)>>,
    /// Calls in the order made, with the outcome once their result is in.
    pending: std::collections::VecDeque<(String, String, Value, Option<Outcome>)>,
}

impl Extractor {
    pub fn push(&mut self, m: &MessageV3) {
        // A structured summary (an earlier recap) closes the segment before it.
        let earlier = m.items.iter().rev().find_map(|it| match it {
            Item::Other(v) => Recap::from_item(v),
            _ => None,
        });
        if let Some(earlier) = earlier {
            let seg = std::mem::take(&mut self.segment).finish();
            let acc = std::mem::take(&mut self.acc);
            self.acc = merge_nonempty(merge_nonempty(acc, seg), earlier);
            return;
        }
        self.segment.push(m);
    }

    pub fn finish(self) -> Recap {
        merge_nonempty(self.acc, self.segment.finish())
    }
}

impl Segment {
    fn push(&mut self, m: &MessageV3) {
        match m.role.as_str() {
            "user" => {
                let texts: Vec<&str> = m
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        Item::Text { text, .. } if !is_injected(text) => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                let request = texts.join("\n");
                if !request.trim().is_empty() {
                    self.constraints.extend(matching_sentences(&request, CONSTRAINT_WORDS));
                    if self.first_request.is_none() {
                        self.first_request = Some(request.clone());
                    }
                    self.last_request = Some(request);
                }
            }
            "assistant" => {
                for item in &m.items {
                    match item {
                        Item::Text { text, .. } => self.decisions.extend(matching_sentences(text, DECISION_WORDS)),
                        Item::ToolCall { id, name, args, .. } => {
                            self.pending.push_back((id.clone(), name.clone(), args.clone(), None));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if let Some(id) = m.tool_call_id.as_deref() {
            for item in &m.items {
                if let Item::ToolResult { content, extra, .. } = item {
                    let is_error = extra
                        .get("is_error")
                        .or_else(|| m.extra.get("is_error"))
                        .and_then(Value::as_bool);
                    // The last result of a call counts, as a map by id would have it.
                    if let Some(slot) = self.pending.iter_mut().rev().find(|p| p.0 == id) {
                        slot.3 = Some(outcome_of(content, is_error));
                    }
                }
            }
        }
        self.drain(false);
    }

    /// Takes the calls at the front whose results are in (all of them at the end, or when
    /// too many wait).
    fn drain(&mut self, all: bool) {
        while let Some(front) = self.pending.front() {
            if front.3.is_none() && !all && self.pending.len() <= MAX_PENDING {
                break;
            }
            let Some((_, name, args, outcome)) = self.pending.pop_front() else {
                break;
            };
            tool_call(
                &name,
                &args,
                outcome.as_ref(),
                &mut self.files,
                &mut self.progress,
                &mut self.todos,
            );
        }
    }

    fn finish(mut self) -> Recap {
        self.drain(true);
        let mut progress = finish_progress(self.progress);
        let mut next_steps = Vec::new();
        for (status, content) in self.todos.unwrap_or_default() {
            match status.as_str() {
                "completed" => progress.push(format!("Completed: {content}")),
                "in_progress" => next_steps.push(format!("In progress: {content}")),
                "pending" => next_steps.push(format!("Pending: {content}")),
                _ => {}
            }
        }
        if let Some(last) = &self.last_request {
            next_steps.push(format!("Last request: {}", quote(last, GOAL_CAP)));
        }
        let modified = self.files.modified;
        let read = self.files.read.into_iter().filter(|f| !modified.contains(f)).collect();
        Recap {
            goal: self
                .first_request
                .as_deref()
                .map(|g| quote(g, GOAL_CAP))
                .unwrap_or_default(),
            constraints: recent_unique(self.constraints, MAX_QUOTES),
            progress: recent_unique_keep_order(progress),
            key_decisions: recent_unique(self.decisions, MAX_QUOTES),
            next_steps: recent_unique_keep_order(next_steps),
            files: FileTracking { read, modified },
        }
        .normalized()
    }
}

fn recent_unique_keep_order(items: Vec<String>) -> Vec<String> {
    let n = items.len();
    recent_unique(items, n)
}

fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    INJECTED_PREFIXES.iter().any(|p| t.starts_with(p))
}

fn outcome_of(content: &Value, is_error: Option<bool>) -> Outcome {
    let text = content_text(content);
    // Codex wraps shell output as JSON with the exit code in its metadata.
    let json_exit = serde_json::from_str::<Value>(text.trim())
        .ok()
        .and_then(|v| v.pointer("/metadata/exit_code").and_then(Value::as_i64));
    let exit = json_exit.or_else(|| exit_line(&text));
    let failed =
        is_error == Some(true) || exit.is_some_and(|c| c != 0) || text.trim_start().starts_with("<tool_use_error>");
    Outcome { text, exit, failed }
}

/// The text of a tool result: a string, or the text blocks of an array.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.as_str()),
                _ => b.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The exit status stated on a line of its own, as Claude Code (`Exit code 1`) and Codex
/// (`Exit code: 0`, `Process exited with code 0`) write it. Only line starts count, so a
/// program's own output mentioning an exit code further on is not taken for the status.
fn exit_line(text: &str) -> Option<i64> {
    const HEADS: [&str; 3] = ["exit code", "process exited with code", "exit status"];
    text.lines().find_map(|line| {
        let lower = line.trim_start().to_ascii_lowercase();
        let rest = HEADS.iter().find_map(|h| lower.strip_prefix(h))?;
        let rest = rest.trim_start_matches([':', ' ', '=']);
        let digits_end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        rest[..digits_end].parse().ok()
    })
}

#[derive(Default)]
struct Files {
    read: Vec<String>,
    modified: Vec<String>,
    seen_read: HashSet<String>,
    seen_modified: HashSet<String>,
}

impl Files {
    fn read(&mut self, path: &str) {
        let p = path.trim();
        if !p.is_empty() && self.seen_read.insert(p.to_string()) {
            self.read.push(p.to_string());
        }
    }

    /// True when the file had not been recorded as modified yet.
    fn modified(&mut self, path: &str) -> bool {
        let p = path.trim();
        if p.is_empty() || !self.seen_modified.insert(p.to_string()) {
            return false;
        }
        self.modified.push(p.to_string());
        true
    }
}

enum Step {
    Modified(String),
    Command(String),
}

/// Commands keep their most recent run (its status is the one that matters), capped to the
/// most recent ones with a count of the others; a file modified is one item at its first change.
fn finish_progress(steps: Vec<Step>) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut keep = vec![false; steps.len()];
    for (i, s) in steps.iter().enumerate().rev() {
        match s {
            Step::Command(c) if seen.insert(c.as_str()) => keep[i] = true,
            Step::Modified(_) => keep[i] = true,
            Step::Command(_) => {}
        }
    }
    let commands = steps
        .iter()
        .zip(&keep)
        .filter(|(s, k)| **k && matches!(s, Step::Command(_)))
        .count();
    let mut omit = commands.saturating_sub(MAX_COMMANDS);
    let omitted = omit;
    let mut out = Vec::new();
    for (s, k) in steps.iter().zip(keep) {
        if !k {
            continue;
        }
        match s {
            Step::Command(_) if omit > 0 => {
                if omit == omitted {
                    let noun = if omitted == 1 { "command" } else { "commands" };
                    out.push(format!("({omitted} earlier {noun} omitted)"));
                }
                omit -= 1;
            }
            Step::Command(c) => out.push(c.clone()),
            Step::Modified(f) => out.push(format!("Modified `{f}`")),
        }
    }
    out
}

const READ_TOOLS: [&str; 4] = ["Read", "NotebookRead", "Grep", "Glob"];
const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
const NEUTRAL_READ: [&str; 4] = ["read_file", "view_file", "open_file", "read"];
const NEUTRAL_WRITE: [&str; 6] = [
    "write_file",
    "edit_file",
    "create_file",
    "str_replace",
    "replace_in_file",
    "write",
];

fn tool_call(
    name: &str,
    args: &Value,
    outcome: Option<&Outcome>,
    files: &mut Files,
    progress: &mut Vec<Step>,
    todos: &mut Option<Vec<(String, String)>>,
) {
    let parsed;
    // Arguments that were not valid JSON arrive as `{"_raw": text}`; a string may still hold JSON.
    let args = match args.get("_raw").or(Some(args)).and_then(Value::as_str) {
        Some(s) => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or_else(|_| json!({"input": s}));
            &parsed
        }
        None => args,
    };
    let failed = outcome.is_some_and(|o| o.failed);
    let arg = |k: &str| args.get(k).and_then(Value::as_str);

    if READ_TOOLS.contains(&name) {
        let key = match name {
            "Read" => "file_path",
            "NotebookRead" => "notebook_path",
            _ => "path",
        };
        if let (Some(p), false) = (arg(key), failed) {
            files.read(p);
        }
        return;
    }
    if WRITE_TOOLS.contains(&name) {
        let p = if name == "NotebookEdit" {
            arg("notebook_path")
        } else {
            arg("file_path")
        };
        if let (Some(p), false) = (p, failed)
            && files.modified(p)
        {
            progress.push(Step::Modified(p.trim().to_string()));
        }
        return;
    }
    // Harness-neutral names (the v5 spec's own example is `read_file {path}`).
    let neutral_path = || arg("path").or_else(|| arg("file_path")).or_else(|| arg("filename"));
    if NEUTRAL_READ.contains(&name) {
        if let (Some(p), false) = (neutral_path(), failed) {
            files.read(p);
        }
        return;
    }
    if NEUTRAL_WRITE.contains(&name) {
        if let (Some(p), false) = (neutral_path(), failed)
            && files.modified(p)
        {
            progress.push(Step::Modified(p.trim().to_string()));
        }
        return;
    }
    if name == "TodoWrite" || name == "update_plan" {
        if let Some(list) = todo_list(args) {
            *todos = Some(list);
        }
        return;
    }

    let command = shell_command(name, args);
    if let Some(cmd) = &command {
        if !failed {
            for p in cmd.reads() {
                files.read(&p);
            }
        }
        let status = match outcome {
            Some(o) => o.exit.or(claude_bash_success(name, o)),
            None => None,
        };
        let status = status.map_or_else(|| "?".to_string(), |c| c.to_string());
        progress.push(Step::Command(format!("Ran `{}` (exit {status})", cmd.display())));
    }
    if !failed {
        let mut patched = Vec::new();
        patch_paths(args, &mut patched, 0);
        for p in patched {
            if files.modified(&p) {
                progress.push(Step::Modified(p));
            }
        }
    }
}

/// Interrupted, timed-out and background commands have no status yet.
const UNFINISHED: [&str; 3] = [
    "[Request interrupted",
    "Command timed out",
    "Command running in background",
];

/// Claude Code reports a failing command as `Exit code N` and a successful one by its output
/// alone: a result without that line, and not an error, is a success.
fn claude_bash_success(name: &str, o: &Outcome) -> Option<i64> {
    let finished = !UNFINISHED.iter().any(|u| o.text.contains(u));
    (name == "Bash" && !o.failed && finished).then_some(0)
}

/// `(status, content)` of each entry of a TodoWrite list or an update_plan plan.
fn todo_list(args: &Value) -> Option<Vec<(String, String)>> {
    let (list, key) = match args.get("todos").and_then(Value::as_array) {
        Some(l) => (l, "content"),
        None => (args.get("plan").and_then(Value::as_array)?, "step"),
    };
    Some(
        list.iter()
            .filter_map(|t| {
                let content = t.get(key).or_else(|| t.get("content")).and_then(Value::as_str)?;
                let status = t.get("status").and_then(Value::as_str).unwrap_or_default();
                Some((status.to_string(), content.to_string()))
            })
            .collect(),
    )
}

/// The files named by the headers of every `apply_patch` patch inside `v`.
fn patch_paths(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::String(s) if s.contains("*** Begin Patch") => {
            const HEADS: [&str; 4] = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"];
            for line in s.lines() {
                let line = line.trim_start();
                if let Some(p) = HEADS.iter().find_map(|h| line.strip_prefix(h)) {
                    let p = p.trim();
                    if !p.is_empty() && !out.iter().any(|f| f == p) {
                        out.push(p.to_string());
                    }
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| patch_paths(x, out, depth + 1)),
        Value::Object(m) => m.values().for_each(|x| patch_paths(x, out, depth + 1)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Shell commands

const SHELL_TOOLS: [&str; 7] = [
    "Bash",
    "bash",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
    "container.exec",
];

/// A command as the agent gave it: one shell string, or an argument vector run without a shell.
enum Command {
    Script(String),
    Argv(Vec<String>),
}

fn shell_command(name: &str, args: &Value) -> Option<Command> {
    if !SHELL_TOOLS.contains(&name) {
        return None;
    }
    let action = args.get("action").unwrap_or(args);
    let v = ["command", "cmd"]
        .iter()
        .find_map(|k| action.get(*k).or_else(|| args.get(*k)))?;
    match v {
        Value::String(s) => Some(Command::Script(s.clone())),
        Value::Array(a) => {
            let argv: Vec<String> = a.iter().filter_map(Value::as_str).map(str::to_string).collect();
            if argv.is_empty() {
                return None;
            }
            Some(match unwrap_shell(&argv) {
                Some(script) => Command::Script(script.to_string()),
                None => Command::Argv(argv),
            })
        }
        _ => None,
    }
}

/// The script of `bash -lc SCRIPT` (or `sh -c`, `zsh -lc`, …), the way Codex wraps commands.
fn unwrap_shell(argv: &[String]) -> Option<&str> {
    let [prog, flags, script] = argv else { return None };
    let base = prog.rsplit('/').next().unwrap_or(prog);
    let is_shell = matches!(base, "bash" | "sh" | "zsh" | "dash");
    (is_shell && flags.starts_with('-') && flags.ends_with('c')).then_some(script.as_str())
}

impl Command {
    /// What the recap quotes: the command as given, its first line only when it has several.
    fn display(&self) -> String {
        let full = match self {
            Command::Script(s) => s.trim().to_string(),
            Command::Argv(a) => a.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" "),
        };
        let mut lines = full.lines();
        let first = lines.next().unwrap_or_default().trim_end();
        let more = lines.next().is_some();
        let shown = cap(first, COMMAND_CAP);
        if more && !shown.ends_with('…') {
            format!("{shown} …")
        } else {
            shown
        }
    }

    /// Files the command reads, when that is unambiguous.
    fn reads(&self) -> Vec<String> {
        let words = match self {
            Command::Script(s) => simple_command(s, 0),
            Command::Argv(a) => match unwrap_shell(a) {
                Some(s) => simple_command(s, 0),
                None => Some(
                    a.iter()
                        .map(|w| Word {
                            text: w.clone(),
                            literal: true,
                        })
                        .collect(),
                ),
            },
        };
        words.map(|w| read_operands(&w)).unwrap_or_default()
    }
}

fn shell_quote(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || "-_./=:,+@%^".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A word of a shell command; `literal` is false when the shell would expand it (globs, `~`).
struct Word {
    text: String,
    literal: bool,
}

/// The words of a single simple command, `None` for anything else (pipes, lists, redirections,
/// substitutions, variables, several lines): only then is what it reads certain.
fn simple_command(script: &str, depth: usize) -> Option<Vec<Word>> {
    let words = split_words(script)?;
    let argv: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    if depth < 3
        && let Some(inner) = unwrap_shell(&argv)
        && words.iter().all(|w| w.literal)
    {
        return simple_command(inner, depth + 1);
    }
    Some(words)
}

fn split_words(s: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut literal = true;
    let mut chars = s.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        x => cur.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' => return None,
                        '\\' => {
                            let x = chars.next()?;
                            if !matches!(x, '"' | '\\' | '$' | '`') {
                                cur.push('\\');
                            }
                            cur.push(x);
                        }
                        x => cur.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next()? {
                    '\n' => {}
                    x => cur.push(x),
                }
            }
            '|' | ';' | '&' | '<' | '>' | '`' | '$' | '(' | ')' | '\n' | '\r' => return None,
            // A comment ends the command; what follows is not an operand.
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(Word {
                        text: std::mem::take(&mut cur),
                        literal,
                    });
                    in_word = false;
                    literal = true;
                }
            }
            c => {
                if matches!(c, '*' | '?' | '[' | '{') || (c == '~' && !in_word) {
                    literal = false;
                }
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(Word { text: cur, literal });
    }
    Some(words)
}

/// The file operands of a reading program: `cat`, `sed -n`, `head`, `tail`, `nl`, `less`, and
/// the files after the pattern of `rg` / `grep`.
fn read_operands(words: &[Word]) -> Vec<String> {
    let Some((prog, rest)) = words.split_first() else {
        return Vec::new();
    };
    if !prog.literal {
        return Vec::new();
    }
    let base = prog.text.rsplit('/').next().unwrap_or(&prog.text);
    // Options that take the next word as their value, per program.
    let (valued, long_valued, pattern_first): (&str, &[&str], bool) = match base {
        "cat" | "less" => ("", &[], false),
        "head" | "tail" => ("nc", &["--lines", "--bytes"], false),
        "nl" => ("bdfhilnsvw", &[], false),
        "sed" => {
            let quiet = rest
                .iter()
                .any(|w| w.text == "-n" || w.text == "--quiet" || w.text == "--silent");
            let edits = rest
                .iter()
                .any(|w| w.text.starts_with("-i") || w.text.starts_with("--in-place"));
            if !quiet || edits {
                return Vec::new();
            }
            ("ef", &["--expression", "--file"], true)
        }
        "rg" => (
            "efgtTABCmjMrE",
            &[
                "--regexp",
                "--file",
                "--glob",
                "--iglob",
                "--type",
                "--type-not",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--threads",
                "--max-columns",
                "--replace",
                "--encoding",
                "--max-depth",
                "--type-add",
            ],
            true,
        ),
        "grep" => (
            "efABCmd",
            &[
                "--regexp",
                "--file",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--include",
                "--exclude",
                "--exclude-dir",
            ],
            true,
        ),
        _ => return Vec::new(),
    };
    let mut operands: Vec<&Word> = Vec::new();
    let mut pattern_given = false;
    let mut i = 0;
    let mut options_done = false;
    while i < rest.len() {
        let w = &rest[i];
        let t = w.text.as_str();
        i += 1;
        if options_done || !t.starts_with('-') || t == "-" {
            operands.push(w);
        } else if t == "--" {
            options_done = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let takes = long_valued.iter().any(|l| l.trim_start_matches('-') == name);
            if takes && !long.contains('=') {
                i += 1;
            }
            if matches!(name, "regexp" | "file" | "expression") {
                pattern_given = true;
            }
        } else {
            // A cluster of short options; the first valued one takes the rest of the word or
            // the next word.
            for (j, c) in t.char_indices().skip(1) {
                if valued.contains(c) {
                    if matches!(c, 'e' | 'f') {
                        pattern_given = true;
                    }
                    if j + c.len_utf8() == t.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
    }
    let files = if pattern_first && !pattern_given {
        operands.get(1..).unwrap_or_default()
    } else {
        &operands[..]
    };
    files
        .iter()
        .filter(|w| w.literal && w.text != "-" && !w.text.is_empty())
        .map(|w| w.text.clone())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Sentences

/// The sentences of `text` containing one of `words` (whole words, any case), quoted. Code
/// blocks are skipped: code is not a statement of intent.
fn matching_sentences(text: &str, words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for sentence in sentences(strip_marker(trimmed.trim_start_matches('#').trim_start())) {
            if has_word(sentence, words) {
                out.push(quote(sentence, SENTENCE_CAP));
            }
        }
    }
    out
}

/// A line without its list marker (`- `, `* `, `+ `, `• `, `1. `, `2) `).
pub(crate) fn strip_marker(t: &str) -> &str {
    for m in ["- ", "* ", "+ ", "• "] {
        if let Some(r) = t.strip_prefix(m) {
            return r.trim_start();
        }
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let after = &t[digits..];
        if let Some(r) = after.strip_prefix(". ").or_else(|| after.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    t
}

/// Splits after `.`, `!` or `?` followed by a space.
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev_end = false;
    for (i, c) in line.char_indices() {
        if prev_end && c.is_whitespace() {
            let s = line[start..i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i;
        }
        prev_end = matches!(c, '.' | '!' | '?');
    }
    let s = line[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

fn has_word(sentence: &str, words: &[&str]) -> bool {
    let lower = collapse(&sentence.to_lowercase().replace('\u{2019}', "'"));
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    words.iter().any(|w| {
        lower
            .match_indices(w)
            .any(|(i, _)| boundary(lower[..i].chars().next_back()) && boundary(lower[i + w.len()..].chars().next()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn msg(role: &str, items: Vec<Item>) -> MessageV3 {
        MessageV3::new(role, items)
    }

    fn text(t: &str) -> Item {
        Item::text(t)
    }

    fn user(t: &str) -> MessageV3 {
        msg("user", vec![text(t)])
    }

    fn call(id: &str, name: &str, args: Value) -> Item {
        Item::tool_call(id, name, args)
    }

    fn calls(items: Vec<Item>) -> MessageV3 {
        msg("assistant", items)
    }

    fn result(id: &str, content: Value) -> MessageV3 {
        MessageV3::tool(id, vec![Item::tool_result(content)])
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn session() -> Vec<MessageV3> {
        vec![
            user("Refactor   module A\nfor me. You must keep the public API. Never touch module B."),
            msg(
                "system",
                vec![text("<environment_context>cwd must be /x</environment_context>")],
            ),
            msg(
                "assistant",
                vec![
                    text("I'll use a trait object rather than generics. Let me look."),
                    call("c1", "Read", json!({"file_path": "src/a.rs"})),
                ],
            ),
            result("c1", json!("fn a() {}")),
            calls(vec![
                call(
                    "c2",
                    "Edit",
                    json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
                ),
                call("c3", "MultiEdit", json!({"file_path": "src/a.rs", "edits": []})),
                call("c4", "Edit", json!({"file_path": "src/z.rs"})),
            ]),
            result("c2", json!("ok")),
            result("c3", json!("ok")),
            result(
                "c4",
                json!("<tool_use_error>String to replace not found</tool_use_error>"),
            ),
            calls(vec![
                call("c5", "Read", json!({"file_path": "src/a.rs"})),
                call("c6", "Grep", json!({"pattern": "fn", "path": "src/mod.rs"})),
                call("c7", "Glob", json!({"pattern": "**/*.rs"})),
                call("c8", "Bash", json!({"command": "cargo test"})),
                call("c9", "Bash", json!({"command": "cargo clippy"})),
            ]),
            result("c5", json!([{"type": "text", "text": "fn b() {}"}])),
            result("c8", json!("test result: ok. 3 passed")),
            result("c9", json!("Exit code 1\nerror: unused variable")),
            user("```\nlet must = 1; // never\n```\nlooks fine"),
            msg(
                "assistant",
                vec![
                    text("We decided to split it.\n```\ninstead();\n```"),
                    call("c10", "shell", json!({"command": ["bash", "-lc", "cat src/lib.rs"]})),
                    call("c11", "exec_command", json!({"cmd": "cargo build"})),
                    call("c12", "shell_command", json!({"command": "rg -n foo src/x.rs"})),
                    call("c13", "shell", json!({"command": ["sed", "-n", "1,5p", "src/y.rs"]})),
                    call(
                        "c14",
                        "apply_patch",
                        json!({"input": "*** Begin Patch\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Add File: src/d.rs\n+new\n*** End Patch\n"}),
                    ),
                    call("c15", "Bash", json!({"command": "cd x\nmake"})),
                ],
            ),
            result(
                "c10",
                json!(r#"{"output":"pub mod a;","metadata":{"exit_code":0,"duration_seconds":0.1}}"#),
            ),
            result(
                "c11",
                json!("Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 1\nOutput:\nerror"),
            ),
            result("c12", json!("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n1:foo")),
            result("c13", json!("Exit code: 0\nOutput:\nline")),
            result("c14", json!(r#"{"output":"Success.","metadata":{"exit_code":0}}"#)),
            calls(vec![call(
                "t1",
                "TodoWrite",
                json!({"todos": [{"content": "Old item", "status": "pending"}]}),
            )]),
            calls(vec![call(
                "t2",
                "TodoWrite",
                json!({"todos": [
                    {"content": "Extract trait", "status": "completed", "activeForm": "Extracting"},
                    {"content": "Adapt module B", "status": "in_progress"},
                    {"content": "Write docs", "status": "pending"}
                ]}),
            )]),
            user("<system-reminder>you must obey</system-reminder>"),
            user("Now add tests, and don't use unwrap."),
        ]
    }

    #[test]
    fn extracts_every_field_literally() {
        let r = Recap::extract(&session());
        assert_eq!(
            r.goal,
            "\"Refactor module A for me. You must keep the public API. Never touch module B.\""
        );
        assert_eq!(
            r.constraints,
            strings(&[
                "\"You must keep the public API.\"",
                "\"Never touch module B.\"",
                "\"Now add tests, and don't use unwrap.\"",
            ])
        );
        assert_eq!(
            r.key_decisions,
            strings(&[
                "\"I'll use a trait object rather than generics.\"",
                "\"We decided to split it.\""
            ])
        );
        assert_eq!(
            r.progress,
            strings(&[
                "Modified `src/a.rs`",
                "Ran `cargo test` (exit 0)",
                "Ran `cargo clippy` (exit 1)",
                "Ran `cat src/lib.rs` (exit 0)",
                "Ran `cargo build` (exit 1)",
                "Ran `rg -n foo src/x.rs` (exit 0)",
                "Ran `sed -n 1,5p src/y.rs` (exit 0)",
                "Modified `src/b.rs`",
                "Modified `src/c.rs`",
                "Modified `src/d.rs`",
                "Ran `cd x …` (exit ?)",
                "Completed: Extract trait",
            ])
        );
        assert_eq!(
            r.next_steps,
            strings(&[
                "In progress: Adapt module B",
                "Pending: Write docs",
                "Last request: \"Now add tests, and don't use unwrap.\"",
            ])
        );
        assert_eq!(
            r.files.read,
            strings(&["src/mod.rs", "src/lib.rs", "src/x.rs", "src/y.rs"])
        );
        assert_eq!(
            r.files.modified,
            strings(&["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs"])
        );
    }

    #[test]
    fn codex_plan_and_shell_patches_are_understood() {
        let span = vec![
            user("Port it"),
            calls(vec![
                call(
                    "p1",
                    "shell",
                    json!({"command": ["bash", "-lc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: old.rs\n*** End Patch\nEOF"]}),
                ),
                call(
                    "p2",
                    "update_plan",
                    json!({"explanation": "x", "plan": [{"step": "Port parser", "status": "completed"}, {"step": "Port writer", "status": "pending"}]}),
                ),
                call(
                    "p3",
                    "local_shell",
                    json!({"type": "exec", "command": ["cat", "a b.txt"]}),
                ),
            ]),
            result("p1", json!("Exit code: 0\nOutput:\nDone!")),
            result("p3", json!(r#"{"output":"x","metadata":{"exit_code":0}}"#)),
        ];
        let r = Recap::extract(&span);
        assert_eq!(
            r.progress,
            strings(&[
                "Ran `apply_patch <<'EOF' …` (exit 0)",
                "Modified `old.rs`",
                "Ran `cat 'a b.txt'` (exit 0)",
                "Completed: Port parser",
            ])
        );
        assert_eq!(
            r.next_steps,
            strings(&["Pending: Port writer", "Last request: \"Port it\""])
        );
        assert_eq!(r.files.read, strings(&["a b.txt"]));
        assert_eq!(r.files.modified, strings(&["old.rs"]));
    }

    #[test]
    fn unfinished_claude_commands_have_no_status() {
        let span = vec![
            user("Build it"),
            calls(vec![
                call(
                    "b1",
                    "Bash",
                    json!({"command": "npm run dev", "run_in_background": true}),
                ),
                call("b2", "Bash", json!({"command": "sleep 999"})),
                call("b3", "Bash", json!({"command": "ls"})),
            ]),
            result("b1", json!("Command running in background with ID: 7")),
            result("b2", json!("Command timed out after 2m 0.0s")),
            result("b3", json!("")),
            user("[Request interrupted by user]"),
        ];
        let r = Recap::extract(&span);
        assert_eq!(
            r.progress,
            strings(&[
                "Ran `npm run dev` (exit ?)",
                "Ran `sleep 999` (exit ?)",
                "Ran `ls` (exit 0)"
            ])
        );
        assert_eq!(r.next_steps, strings(&["Last request: \"Build it\""]));
    }

    #[test]
    fn only_unambiguous_shell_reads_are_tracked() {
        let reads = |cmd: &str| Command::Script(cmd.into()).reads();
        assert_eq!(reads("sed -n '1,20p' src/a.rs"), ["src/a.rs"]);
        assert_eq!(reads("sed -n -e 1p a b"), ["a", "b"]);
        assert_eq!(reads("head -n 5 a b"), ["a", "b"]);
        assert_eq!(reads("tail -20 log.txt"), ["log.txt"]);
        assert_eq!(reads("nl -ba src/x.rs"), ["src/x.rs"]);
        assert_eq!(reads("grep -rn 'x y' src tests"), ["src", "tests"]);
        assert_eq!(reads("rg -g '*.rs' -C 3 pattern src"), ["src"]);
        assert_eq!(reads("rg -e a -e b src"), ["src"]);
        assert_eq!(reads("bash -lc 'cat \"my file\"'"), ["my file"]);
        assert_eq!(reads("/bin/cat -n a # comment"), ["a"]);
        for none in [
            "rg foo",
            "cat a | grep x",
            "cat a && cat b",
            "cat a; cat b",
            "cat a > b",
            "tail -f log 2>/dev/null",
            "cat $HOME/x",
            "cat \"$(ls)\"",
            "cat *.rs",
            "cat ~/x",
            "sed 's/a/b/' f",
            "sed -n -i 's/a/b/p' f",
            "vim f",
            "cat 'unterminated",
            "",
        ] {
            assert!(reads(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn commands_are_capped_to_the_most_recent() {
        let mut span = vec![user("go")];
        for i in 0..35 {
            span.push(calls(vec![call(
                &format!("c{i}"),
                "Bash",
                json!({"command": format!("echo {i}")}),
            )]));
        }
        // A repeated command counts once, at its latest run.
        span.push(calls(vec![call("again", "Bash", json!({"command": "echo 34"}))]));
        let r = Recap::extract(&span);
        assert_eq!(r.progress.len(), 31);
        assert_eq!(r.progress[0], "(5 earlier commands omitted)");
        assert_eq!(r.progress[1], "Ran `echo 5` (exit ?)");
        assert_eq!(r.progress[30], "Ran `echo 34` (exit ?)");
    }

    #[test]
    fn quotes_are_capped_deduplicated_and_one_line() {
        let long = "a".repeat(3000);
        let mut span = vec![user(&format!("{long}\n\n  second   line"))];
        for i in 0..25 {
            span.push(user(&format!("Never do {i}. Never do 0.")));
        }
        let r = Recap::extract(&span);
        assert!(
            r.goal.ends_with("…\"") && r.goal.chars().count() == GOAL_CAP + 3,
            "{}",
            r.goal.len()
        );
        assert_eq!(r.constraints.len(), MAX_QUOTES);
        assert_eq!(r.constraints.last().map(String::as_str), Some("\"Never do 0.\""));
        assert_eq!(r.constraints.iter().filter(|c| *c == "\"Never do 0.\"").count(), 1);
        assert!(!r.constraints.contains(&"\"Never do 1.\"".to_string()));
        // Whole words only: "musty" and "keeper" do not state constraints.
        let r = Recap::extract(&[user("A musty keeper. Don\u{2019}t panic! Make  sure it works")]);
        assert_eq!(
            r.constraints,
            strings(&["\"Don\u{2019}t panic!\"", "\"Make sure it works\""])
        );
    }

    fn example() -> Recap {
        Recap {
            goal: "\"Refactor module A for me\"".into(),
            constraints: strings(&["\"never touch module B\""]),
            progress: strings(&["Modified `src/a.rs`", "Ran `cargo test` (exit 0)"]),
            key_decisions: vec![],
            next_steps: strings(&["Pending: docs"]),
            files: FileTracking {
                read: strings(&["src/mod.rs", "src/interface.rs"]),
                modified: strings(&["src/interface.rs"]),
            },
        }
    }

    #[test]
    fn renders_the_spec_layout() {
        assert_eq!(
            example().render(),
            "[Summary]\nGoal: \"Refactor module A for me\"\nConstraints: \"never touch module B\"\nProgress:\n\
             - Modified `src/a.rs`\n- Ran `cargo test` (exit 0)\nKey Decisions: (none)\nNext Steps: Pending: docs\n\n\
             [File Tracking]\nRead: src/mod.rs, src/interface.rs\nModified: src/interface.rs\n"
        );
        let empty = Recap::default().render();
        assert!(empty.contains("Goal: (none)\n") && empty.contains("Read: (none)\nModified: (none)\n"));
        assert_eq!(Recap::parse(&empty), Some(Recap::default()));
    }

    #[test]
    fn parse_finds_the_block_inside_other_text() {
        let r = example();
        let wrapped = format!(
            "This session continues an earlier one.\r\n\r\n{}\nPlease continue.\n",
            r.render()
        );
        assert_eq!(Recap::parse(&wrapped), Some(r.clone()));
        let crlf = r.render().replace('\n', "\r\n");
        assert_eq!(Recap::parse(&crlf), Some(r));
        assert_eq!(Recap::parse("no summary here"), None);
        assert_eq!(Recap::parse("[Summary]\nnot a goal"), None);
        let partial = Recap::parse("Header: [Summary]\nGoal: x\nConstraints: y\n").expect("partial");
        assert_eq!((partial.goal.as_str(), partial.constraints), ("x", strings(&["y"])));
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ,\\-\n\r()\"`:]{0,12}",
            Just("(none)".to_string()),
            Just("- item".to_string()),
            Just("a, b".to_string()),
            Just("Goal: x".to_string()),
            Just("[File Tracking]".to_string()),
            any::<String>(),
        ]
    }

    fn recap() -> impl Strategy<Value = Recap> {
        let list = || proptest::collection::vec(value(), 0..4);
        (value(), list(), list(), list(), list(), list(), list()).prop_map(|(g, c, p, k, n, r, m)| Recap {
            goal: g,
            constraints: c,
            progress: p,
            key_decisions: k,
            next_steps: n,
            files: FileTracking { read: r, modified: m },
        })
    }

    proptest! {
        #[test]
        fn render_then_parse_round_trips(r in recap()) {
            let n = r.normalized();
            prop_assert_eq!(n.normalized(), n.clone());
            prop_assert_eq!(Recap::parse(&r.render()), Some(n.clone()));
            prop_assert_eq!(Recap::from_item(&r.to_item()), Some(n.clone()));
            let text_only = json!({"type": "summary", "text": r.render()});
            prop_assert_eq!(Recap::from_item(&text_only), Some(n));
        }

        #[test]
        fn extraction_never_panics(cmd in any::<String>(), said in any::<String>(), out in any::<String>()) {
            let span = vec![
                user(&said),
                msg("assistant", vec![text(&said), call("x", "Bash", json!({"command": cmd.clone()})),
                    call("y", "shell", json!({"command": ["bash", "-lc", cmd.clone()]})),
                    call("z", "apply_patch", json!(format!("*** Begin Patch\n{cmd}")))]),
                result("x", json!(out.clone())),
                result("y", json!(out)),
            ];
            let r = Recap::extract(&span);
            prop_assert_eq!(Recap::parse(&r.render()), Some(r));
        }
    }

    #[test]
    fn merge_follows_the_spec() {
        let old = Recap {
            goal: "\"old goal\"".into(),
            constraints: strings(&["a", "b"]),
            progress: strings(&["p1"]),
            key_decisions: strings(&["d1"]),
            next_steps: strings(&["old step"]),
            files: FileTracking {
                read: strings(&["x", "y"]),
                modified: strings(&["z"]),
            },
        };
        let new = Recap {
            goal: String::new(),
            constraints: strings(&["b", "c"]),
            progress: strings(&["p1", "p2"]),
            key_decisions: vec![],
            next_steps: strings(&["new step"]),
            files: FileTracking {
                read: strings(&["z", "w"]),
                modified: strings(&["y"]),
            },
        };
        let m = Recap::merge(&old, &new);
        assert_eq!(m.goal, "\"old goal\"");
        assert_eq!(m.constraints, strings(&["a", "b", "c"]));
        assert_eq!(m.progress, strings(&["p1", "p2"]));
        assert_eq!(m.key_decisions, strings(&["d1"]));
        assert_eq!(m.next_steps, strings(&["new step"]));
        assert_eq!(m.files.read, strings(&["x", "w"]));
        assert_eq!(m.files.modified, strings(&["z", "y"]));
        let newer = Recap {
            goal: "\"new goal\"".into(),
            ..Recap::default()
        };
        let m2 = Recap::merge(&m, &newer);
        assert_eq!(m2.goal, "\"new goal\"");
        assert!(m2.next_steps.is_empty());
        // Merging the same recap again changes nothing.
        assert_eq!(Recap::merge(&old, &Recap::merge(&old, &new)), Recap::merge(&old, &new));
    }

    #[test]
    fn item_keys_are_in_spec_order() {
        let item = example().to_item();
        let keys: Vec<&str> = item
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "type",
                "goal",
                "constraints",
                "progress",
                "key_decisions",
                "next_steps",
                "files",
                "text"
            ]
        );
        assert_eq!(
            item["files"],
            json!({"read": ["src/mod.rs", "src/interface.rs"], "modified": ["src/interface.rs"]})
        );
        assert_eq!(item["text"], json!(example().render()));
        assert_eq!(Recap::from_item(&item), Some(example()));
        assert_eq!(
            Recap::from_item(&json!({"type": "summary", "text": null, "encrypted": true})),
            None
        );
        assert_eq!(
            Recap::from_item(&json!({"type": "summary", "text": "Claude's prose"})),
            None
        );
        assert_eq!(Recap::from_item(&json!({"type": "text", "goal": "x"})), None);
        assert_eq!(Recap::from_item(&json!("summary")), None);
    }

    #[test]
    fn an_earlier_recap_in_the_span_is_updated() {
        let earlier = example();
        let span = vec![
            msg("user", vec![Item::Other(earlier.to_item())]),
            user("Also never break the CLI."),
            calls(vec![call(
                "w",
                "Write",
                json!({"file_path": "src/new.rs", "content": "x"}),
            )]),
        ];
        let r = Recap::extract(&span);
        assert_eq!(r.goal, "\"Also never break the CLI.\"");
        assert_eq!(
            r.constraints,
            strings(&["\"never touch module B\"", "\"Also never break the CLI.\""])
        );
        assert_eq!(
            r.progress,
            strings(&[
                "Modified `src/a.rs`",
                "Ran `cargo test` (exit 0)",
                "Modified `src/new.rs`"
            ])
        );
        assert_eq!(r.next_steps, strings(&["Last request: \"Also never break the CLI.\""]));
        assert_eq!(r.files.modified, strings(&["src/interface.rs", "src/new.rs"]));
        assert_eq!(Recap::merge(&earlier, &r), r);
        // A span holding only the earlier recap gives it back unchanged.
        assert_eq!(Recap::extract(&span[..1]), earlier);
        assert!(Recap::extract(&[]).is_empty());
    }
}
