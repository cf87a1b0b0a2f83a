//! The request Claude Code 2.1.332 sends after a resume: the send-time pipeline applied to the
//! loaded chain (`docs/claude-code-request.md`).
//!
//! The chain on disk is not what the model receives. From the last compact boundary on, the
//! client keeps user and assistant rows (and `local_command` system rows, as user text),
//! renders attachment rows as `<system-reminder>` text (or system messages, for models that
//! take them), drops synthetic API-error rows, strips thinking written by another model,
//! filters thinking-only and whitespace-only assistant rows, moves attachments before the
//! prompts they follow, merges consecutive user rows with a newline seam (tool results
//! first), regroups an assistant message split over several rows, reorders tool uses after
//! text, removes empty text and fallback blocks, repairs tool-result pairing, closes
//! unanswered tool calls, and adds "No response requested." before a new prompt unless the
//! history ends in a local command. Every rule that changes the request is counted, so a
//! user can see why the request differs from the file.
//!
//! Everything that belongs to one client version is in `rules.rs` (rule ids, texts, model
//! and tool tables) and `attachments/` (attachment texts).

mod attachments;
mod blocks;
mod load;
mod merge;
pub mod rules;
mod steps;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use self::blocks::{Content, Msg, Role, is_thinking, msg_json, msg_json_len};
use self::load::{Row, Turn, row_of};
use self::merge::Target;
pub use self::rules::{INTERRUPTED, ORPHANED, Rule, SENTINEL};
use super::claude::{Chain, Kind, Sub, Transcript};
use crate::io::Source;
use crate::model::diag::{Diagnostic, Severity};

/// Rules with counts, in report order, with what each does and where it is documented.
pub fn rules_of(fired: &BTreeMap<&'static str, usize>) -> Vec<Value> {
    Rule::ALL
        .iter()
        .filter_map(|r| {
            fired
                .get(r.id())
                .map(|n| json!({"rule": r.id(), "count": n, "what": r.what(), "doc": r.doc()}))
        })
        .collect()
}

/// The emulated request.
#[derive(Debug, Default)]
pub struct ApiView {
    msgs: Vec<Msg>,
    /// How often each rule changed something, by rule id (the loader's B rules are added by
    /// the caller).
    pub fired: BTreeMap<&'static str, usize>,
    /// `message.model` of the last non-synthetic assistant row: the model the request names.
    pub model: Option<String>,
    /// Attachment rows the client renders from fields this emulation does not reproduce:
    /// (line, attachment type). Where there are any, the request may differ.
    pub not_emulated: Vec<(u64, String)>,
}

impl ApiView {
    /// ceil(bytes / 4) of the `messages` JSON sent.
    pub fn tokens(&self) -> usize {
        let body: usize = self.msgs.iter().map(msg_json_len).sum();
        (body + 2 + self.msgs.len().saturating_sub(1)).div_ceil(4)
    }

    /// How many messages the request holds.
    pub fn len(&self) -> usize {
        self.msgs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.msgs.is_empty()
    }

    /// Each message as the JSON text the client sends.
    pub fn messages(&self) -> impl Iterator<Item = String> + '_ {
        self.msgs.iter().map(msg_json)
    }

    /// The fired rules in report order, with counts and descriptions.
    pub fn rules(&self) -> Vec<Value> {
        rules_of(&self.fired)
    }

    /// One warning per attachment row whose text is not emulated, for `file`.
    pub fn diagnostics(&self, file: &str) -> Vec<Diagnostic> {
        self.not_emulated
            .iter()
            .map(|(line, ty)| {
                Diagnostic::new(
                    file,
                    Some(*line),
                    "api-view-not-emulated",
                    Severity::Warning,
                    format!(
                        "attachment `{ty}`: Claude Code 2.1.332 sends text for it that cctool does not reproduce; the request shown leaves it out"
                    ),
                )
            })
            .collect()
    }
}

struct Pipeline {
    fired: BTreeMap<&'static str, usize>,
}

impl Pipeline {
    fn fire(&mut self, rule: Rule) {
        *self.fired.entry(rule.id()).or_default() += 1;
    }
}

/// Builds the request for the loaded `chain` of `t`; `prompt` adds what a resume with that
/// prompt adds.
pub fn api_view(t: &Transcript, chain: &Chain, src: &Source, prompt: Option<&str>) -> std::io::Result<ApiView> {
    let mut p = Pipeline { fired: BTreeMap::new() };
    let start = chain
        .positions
        .iter()
        .rposition(|&pos| t.node(pos).is_boundary())
        .map_or(0, |i| i + 1);
    let mut rows = Vec::new();
    let mut turn = Turn::default();
    for &pos in &chain.positions[start..] {
        let node = t.node(pos);
        let sendable = matches!(node.kind, Kind::User | Kind::Assistant | Kind::Attachment)
            || (node.kind == Kind::System && node.sub == Sub::LocalCommand);
        if !sendable {
            continue;
        }
        let bytes = src.read_range(node.offset, node.len as usize)?;
        if let Some(row) = row_of(&bytes, node.kind, node.line, &mut turn, &mut p) {
            rows.push(row);
        }
    }
    let model = drop_api_errors_and_find_model(&mut rows, &mut p);
    strip_other_models_thinking(&mut rows, model.as_deref(), &mut p);
    let target = Target::new(model.as_deref());
    steps::filter_rows(&mut rows, &mut p);
    let sentinel = steps::needs_sentinel(&rows, &mut p);
    let rows = merge::hoist_attachments(rows, &mut p);
    let mut not_emulated = Vec::new();
    let mut msgs = merge::merge(rows, &target, &mut p, &mut not_emulated);
    steps::remove_empty_text(&mut msgs, &mut p);
    steps::pair_tool_results(&mut msgs, &mut p);
    // A history that now ends in an interrupted call's result gets the sentinel as well.
    let closed = steps::close_tool_calls(&mut msgs, &mut p);
    steps::merge_adjacent(&mut msgs, &mut p);
    steps::drop_fallback_blocks(&mut msgs, &mut p);
    if let Some(prompt) = prompt {
        steps::add_prompt(&mut msgs, prompt, sentinel || closed, &mut p);
        steps::drop_last_reminders(&mut msgs, &mut p);
    }
    Ok(ApiView {
        msgs,
        fired: p.fired,
        model,
        not_emulated,
    })
}

/// Items 2 and 3: A4 drops synthetic API-error rows; the request model is the model of the
/// last non-synthetic assistant row.
fn drop_api_errors_and_find_model(rows: &mut Vec<Row>, p: &mut Pipeline) -> Option<String> {
    let before = rows.len();
    rows.retain(|r| !(r.role == Role::Assistant && r.api_error && r.model.as_deref() == Some("<synthetic>")));
    for _ in rows.len()..before {
        p.fire(Rule::A4);
    }
    rows.iter()
        .rev()
        .filter(|r| r.role == Role::Assistant)
        .find_map(|r| r.model.clone().filter(|m| m != "<synthetic>"))
}

/// A5: assistant rows of another model lose their thinking; a row emptied so vanishes.
fn strip_other_models_thinking(rows: &mut Vec<Row>, model: Option<&str>, p: &mut Pipeline) {
    let Some(model) = model else { return };
    for r in rows.iter_mut() {
        let other = r.role == Role::Assistant && r.model.as_deref().is_some_and(|m| m != model && m != "<synthetic>");
        if !other {
            continue;
        }
        if let Content::Blocks(a) = &mut r.content {
            let before = a.len();
            a.retain(|b| !is_thinking(b));
            if a.len() != before {
                p.fire(Rule::A5);
            }
        }
    }
    rows.retain(|r| r.role != Role::Assistant || r.content.as_array().is_some_and(|a| !a.is_empty()));
}
