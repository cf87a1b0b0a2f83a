//! Reading a compacted span into a recap: each record's text, tool calls and their outcomes,
//! the files read and modified, and the progress the span made.

use super::*;

/// What a tool call produced, as far as the recap needs it.
#[derive(Default)]
pub(super) struct Outcome {
    pub(super) text: String,
    pub(super) exit: Option<i64>,
    pub(super) failed: bool,
}

/// Calls kept waiting for their results before being taken without one: a result arrives
/// right after its call, or after a few parallel ones; an unanswered call must not hold the
/// whole rest of a span in memory.
pub(super) const MAX_PENDING: usize = 256;

/// The extractive recap, built one record of the session model at a time so that a span of
/// any length needs memory only for what the recap keeps. A tool call is taken when its result
/// has arrived (its outcome decides whether a file was really read or written, and the exit
/// status), in the order the calls were made.
///
/// Earlier recaps are not read here: a compaction's units carry them ([`super::super::Unit`])
/// and merges them with this one.
pub(crate) struct Extractor {
    /// What the calls are read with.
    tools: Tools,
    segment: Segment,
}

#[derive(Default)]
pub(super) struct Segment {
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
    /// An extractor reading the calls with `tools`.
    pub fn new(tools: Tools) -> Extractor {
        Extractor {
            tools,
            segment: Segment::default(),
        }
    }

    /// Reads the next record of the span.
    pub fn push(&mut self, r: &Record) {
        self.segment.push(r, &self.tools);
    }

    /// The recap of the span read.
    pub fn finish(self) -> Recap {
        self.segment.finish(&self.tools)
    }
}

/// Whether `r` is the user's own words: a user record the client did not write for the
/// model (a reminder, an instruction file, a command's output).
fn from_the_user(r: &Record) -> bool {
    r.role.as_deref() == Some("user") && r.flags.meta != Some(true)
}

impl Segment {
    fn push(&mut self, r: &Record, tools: &Tools) {
        if from_the_user(r) {
            let texts: Vec<&str> = r
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(text) if !tools.injected(text) => Some(text.as_str()),
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
        } else if r.role.as_deref() == Some("assistant") {
            for part in &r.parts {
                if let Part::Text(text) = part {
                    self.decisions.extend(matching_sentences(text, DECISION_WORDS));
                }
            }
        }
        // Only the model calls a tool, whatever role a format writes its call under (Codex's
        // call items have none).
        for c in r.calls() {
            // Arguments written as JSON text are read by `tool_call`.
            let args = c.input.clone().unwrap_or(Value::Null);
            let id = c.id.clone().unwrap_or_default();
            self.pending
                .push_back((id, c.name.clone().unwrap_or_default(), args, None));
        }
        for o in r.outcomes() {
            let id = o.call_id.as_deref().unwrap_or("");
            // The last result of a call counts, as a map by id would have it.
            if let Some(slot) = self.pending.iter_mut().rev().find(|p| p.0 == id) {
                let content = o.output.as_ref().unwrap_or(&Value::Null);
                slot.3 = Some(outcome_of(content, o.is_error, tools));
            }
        }
        self.drain(false, tools);
    }

    /// Takes the calls at the front whose results are in (all of them at the end, or when
    /// too many wait).
    fn drain(&mut self, all: bool, tools: &Tools) {
        while let Some(front) = self.pending.front() {
            if front.3.is_none() && !all && self.pending.len() <= MAX_PENDING {
                break;
            }
            let Some((_, name, args, outcome)) = self.pending.pop_front() else {
                break;
            };
            tool_call(
                tools,
                &name,
                &args,
                outcome.as_ref(),
                &mut self.files,
                &mut self.progress,
                &mut self.todos,
            );
        }
    }

    fn finish(mut self, tools: &Tools) -> Recap {
        self.drain(true, tools);
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

pub(super) fn recent_unique_keep_order(items: Vec<String>) -> Vec<String> {
    let n = items.len();
    recent_unique(items, n)
}

/// A call's input as the recap reads it: an object as written; a string of JSON text (as
/// some formats write arguments) read as the JSON it holds, or else as `{"input": text}`.
pub(crate) fn call_args(input: Option<&Value>) -> std::borrow::Cow<'_, Value> {
    use std::borrow::Cow;
    match input {
        Some(Value::String(s)) => {
            Cow::Owned(serde_json::from_str::<Value>(s).unwrap_or_else(|_| json!({ "input": s })))
        }
        Some(v) => Cow::Borrowed(v),
        None => Cow::Owned(Value::Null),
    }
}

pub(super) fn outcome_of(content: &Value, is_error: Option<bool>, tools: &Tools) -> Outcome {
    let text = content_text(content);
    let exit = tools.stated_exit(&text);
    let failed = is_error == Some(true) || exit.is_some_and(|c| c != 0) || tools.stated_failure(&text);
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

#[derive(Default)]
pub(super) struct Files {
    read: Vec<String>,
    modified: Vec<String>,
    seen_read: HashSet<String>,
    seen_modified: HashSet<String>,
}

impl Files {
    pub(super) fn read(&mut self, path: &str) {
        let p = path.trim();
        if !p.is_empty() && self.seen_read.insert(p.to_string()) {
            self.read.push(p.to_string());
        }
    }

    /// True when the file had not been recorded as modified yet.
    pub(super) fn modified(&mut self, path: &str) -> bool {
        let p = path.trim();
        if p.is_empty() || !self.seen_modified.insert(p.to_string()) {
            return false;
        }
        self.modified.push(p.to_string());
        true
    }
}

pub(super) enum Step {
    Modified(String),
    Command(String),
}

/// Commands keep their most recent run (its status is the one that matters), capped to the
/// most recent ones with a count of the others; a file modified is one item at its first change.
pub(super) fn finish_progress(steps: Vec<Step>) -> Vec<String> {
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
