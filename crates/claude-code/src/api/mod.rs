//! The request Claude Code 2.1.332 sends after a resume: the send-time pipeline applied to the
//! loaded chain (`docs/claude-code-request.md`).
//!
//! The chain on disk is not what the model receives. From the last compact boundary on, the
//! client puts the rows of a reply split by rows delivered in between back together, keeps
//! user and assistant rows (and `local_command` system rows, as user text),
//! renders attachment rows as `<system-reminder>` text (or system messages, for models that
//! take them), drops synthetic API-error rows, removes the signed thinking of other models
//! than the request model unless the thinking policy keeps it (`docs/claude-code-model.md`),
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
mod regroup;
pub mod rules;
mod steps;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use self::blocks::{Block, Content, Msg, Role, block_type, msg_json, msg_json_len};
pub use self::load::MAX_BLOCKS;
use self::load::{Row, Turn, row_of};
use self::merge::Target;
use self::regroup::Item;
pub use self::rules::{INTERRUPTED, ORPHANED, Rule, SENTINEL};
use super::chain::{Chain, Kind, Sub, Transcript};
use super::model::RequestModel;
use crate::io::Source;
use crate::io::json::LStr;
use cctool_core::model::diag::{Code, Diagnostic, Severity};

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
    /// The model the request names (`claude_model::choose`).
    pub model: Option<String>,
    /// Attachment rows the client renders from fields this emulation does not reproduce:
    /// (line, attachment type). Where there are any, the request may differ.
    pub not_emulated: Vec<(u64, String)>,
}

impl ApiView {
    /// ceil(bytes / 4) of the `messages` JSON sent.
    pub fn tokens(&self) -> usize {
        self.bytes().div_ceil(4)
    }

    /// The bytes of the `messages` JSON sent (an array of [`Self::messages`]), counted
    /// without writing it.
    pub fn bytes(&self) -> usize {
        let body: usize = self.msgs.iter().map(msg_json_len).sum();
        body + 2 + self.msgs.len().saturating_sub(1)
    }

    /// How many messages the request holds.
    pub fn len(&self) -> usize {
        self.msgs.len()
    }

    /// Whether the request holds no message.
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
                    Code::ApiViewNotEmulated,
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

/// Builds the request for the loaded `chain` of `t` to the `request` model; `prompt` adds
/// what a resume with that prompt adds.
pub fn api_view(
    t: &Transcript,
    chain: &Chain,
    src: &Source,
    prompt: Option<&str>,
    request: &RequestModel,
) -> std::io::Result<ApiView> {
    let mut p = Pipeline { fired: BTreeMap::new() };
    let start = chain
        .positions
        .iter()
        .rposition(|&pos| t.node(pos).is_boundary())
        .map_or(0, |i| i + 1);
    let mut rows = Vec::new();
    let mut items = Vec::new();
    let mut turn = Turn::default();
    let mut blocks_held = 0usize;
    for &pos in &chain.positions[start..] {
        let node = t.node(pos);
        let sendable = matches!(node.kind, Kind::User | Kind::Assistant | Kind::Attachment)
            || (node.kind == Kind::System && node.sub == Sub::LocalCommand);
        let mut row = None;
        if sendable {
            let bytes = src.read_range(node.offset, node.len as usize)?;
            row = row_of(&bytes, node.kind, node.line, &mut turn, &mut p).map_err(|n| too_many(node.line, n))?;
        }
        if let Some(r) = &row {
            blocks_held += r.content.as_array().map_or(1, Vec::len);
            if blocks_held > MAX_BLOCKS {
                return Err(too_many(node.line, blocks_held));
            }
        }
        items.push(Item::of(node.kind, node.sub, row.as_ref()));
        rows.push(row);
    }
    let mut rows = regroup_replies(rows, &items, &mut p);
    drop_api_errors(&mut rows, &mut p);
    strip_other_models_thinking(&mut rows, request, &mut p);
    let model = Some(request.model.clone());
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
    if !request.anthropic_api {
        steps::drop_fallback_blocks(&mut msgs, &mut p);
    }
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

/// C15: the rows of a reply split by rows delivered in between, put back together as the
/// client reads the transcript; `rows[i]` is the row of `items[i]`, if it can be sent.
fn regroup_replies(mut rows: Vec<Option<Row>>, items: &[Item], p: &mut Pipeline) -> Vec<Row> {
    match regroup::order(items) {
        Some((order, replies)) => {
            for _ in 0..replies {
                p.fire(Rule::C15);
            }
            order.into_iter().filter_map(|i| rows[i].take()).collect()
        }
        None => rows.into_iter().flatten().collect(),
    }
}

/// The error of a view over [`MAX_BLOCKS`] content blocks, `n` of them by `line`.
fn too_many(line: u64, n: usize) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, TooManyBlocks { line, n })
}

/// A request view refused for holding more than [`MAX_BLOCKS`] content blocks: what a
/// measure of the request can replace by an estimate from the records' size.
#[derive(Debug)]
pub struct TooManyBlocks {
    /// The line of the message by which the request passed the limit.
    pub line: u64,
    /// How many content blocks the request held by then.
    pub n: usize,
}

impl std::fmt::Display for TooManyBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: {} content blocks in the request by this message, more than the {MAX_BLOCKS} cctool holds for a request view (real sessions send a few hundred)",
            self.line, self.n
        )
    }
}

impl std::error::Error for TooManyBlocks {}

impl TooManyBlocks {
    /// Whether `e` is this refusal.
    pub fn is(e: &std::io::Error) -> bool {
        e.get_ref().is_some_and(|inner| inner.is::<TooManyBlocks>())
    }
}

/// Item 2: A4 drops synthetic API-error rows. (The request model is chosen before, by
/// `claude_model::choose`.)
fn drop_api_errors(rows: &mut Vec<Row>, p: &mut Pipeline) {
    let before = rows.len();
    rows.retain(|r| !(r.role == Role::Assistant && r.api_error && r.model.as_deref() == Some("<synthetic>")));
    for _ in rows.len()..before {
        p.fire(Rule::A4);
    }
}

/// Item 3, A5: rows written by another model than the request's (or by none) lose their
/// signed and redacted thinking unless the thinking policy keeps it
/// (`RequestModel::strips_thinking_of`); unsigned thinking stays. A row emptied so vanishes.
fn strip_other_models_thinking(rows: &mut Vec<Row>, request: &RequestModel, p: &mut Pipeline) {
    for r in rows.iter_mut() {
        if r.role != Role::Assistant || !request.strips_thinking_of(r.model.as_deref()) {
            continue;
        }
        if let Content::Blocks(a) = &mut r.content {
            let before = a.len();
            a.retain(|b| !signed_thinking(b));
            if a.len() != before {
                p.fire(Rule::A5);
            }
        }
    }
    rows.retain(|r| r.role != Role::Assistant || r.content.as_array().is_some_and(|a| !a.is_empty()));
}

/// A `redacted_thinking` block, or a `thinking` block with a non-empty `signature`: what
/// another model's request cannot verify.
fn signed_thinking(b: &Block) -> bool {
    #[derive(serde::Deserialize)]
    struct Sig<'a> {
        #[serde(default, borrow)]
        signature: LStr<'a>,
    }
    match block_type(b) {
        "redacted_thinking" => true,
        "thinking" => b.with_json(|text| {
            serde_json::from_str::<Sig<'_>>(text).is_ok_and(|s| s.signature.as_str().is_some_and(|v| !v.is_empty()))
        }),
        _ => false,
    }
}
