//! Compacting a Codex rollout: the file is kept as written and a `compacted` record is
//! appended the way Codex's local compaction writes one (`docs/compaction.md#codex`):
//! `message` is `SUMMARY_PREFIX` + newline + recap, and `replacement_history` is the real user
//! messages of the compacted span (newest first within 20,000 tokens, the first that does not
//! fit middle-truncated, then put back in order), the prefixed summary as a user message, then
//! the kept tail items exactly as written. An `event_msg` `context_compacted` follows, and the
//! two are wrapped in `task_started`/`task_complete`, a turn of their own as `/compact` is. Codex
//! resumes from the newest `compacted` with a `replacement_history`, so the resumed history is
//! exactly that list followed by whatever is written later.

use std::io::{self, Write};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::events::item_record;
use crate::history::{USER_MESSAGE_BUDGET_TOKENS, kept_user_messages, reconstruct};
use crate::io::Source;
use crate::io::atomic::Output;
use crate::model::approx_tokens;
use crate::model::time::format_ms;
use crate::rollout::{self as fmt, ItemSrc, SUMMARY_PREFIX};
use crate::v5::build::parse;
use cctool_core::compact::{Earlier, Made, Unit, copy_all, ids};
use cctool_core::model::events::{Part, Record};

/// The history a resume loads, as units (one per item), with where each item is.
pub struct Loaded {
    /// The items of the history, in order.
    pub items: Vec<fmt::Item>,
    /// One unit per item, in the same order.
    pub units: Vec<Unit>,
    /// The line each item is written on; `None` for an item the reconstruction made.
    pub lines: Vec<Option<u64>>,
}

/// An item's JSON text as written.
fn raw_of_item<'s>(src: &'s Source, item: &fmt::Item) -> io::Result<std::borrow::Cow<'s, [u8]>> {
    match &item.src {
        ItemSrc::Raw { offset, len, .. } => src.read_range(*offset, *len as usize),
        ItemSrc::Synth(s) => Ok(std::borrow::Cow::Owned(s.as_bytes().to_vec())),
    }
}

/// Runs `f` over `items`, in order, parsed on every core (see [`cctool_core::compact::batched`]).
fn batched<T: Send>(
    src: &Source,
    items: &[&fmt::Item],
    parse_one: impl Fn(&fmt::Item, &[u8]) -> T + Sync,
    f: impl FnMut(T),
) -> io::Result<()> {
    cctool_core::compact::batched(
        src,
        items,
        |i| raw_of_item(src, i),
        |i| match i.src {
            ItemSrc::Raw { offset, len, .. } => Some((offset, offset + u64::from(len))),
            ItemSrc::Synth(_) => None,
        },
        |i, bytes| parse_one(i, bytes),
        f,
    )
}

/// The history a resume of `src` loads, as units.
pub fn load(src: &Source) -> io::Result<Loaded> {
    let rollout = fmt::read_records(src)?;
    let items = reconstruct(&rollout).items;
    let mut units = Vec::with_capacity(items.len());
    batched(src, &items.iter().collect::<Vec<_>>(), unit, |u| units.push(u))?;
    let lines = items
        .iter()
        .map(|i| match i.src {
            ItemSrc::Raw { line, .. } => Some(line),
            ItemSrc::Synth(_) => None,
        })
        .collect();
    Ok(Loaded { items, units, lines })
}

impl Loaded {
    /// Tokens that replace the span `[0, at)` besides the recap, as a function of `at`: the
    /// user messages Codex keeps (at most its 20,000-token budget) and any carried remote
    /// summary. Summed once as prefixes, since a plan asks for many cuts.
    pub fn overhead(&self) -> impl Fn(usize) -> usize + '_ {
        let mut before = vec![(0usize, 0usize); self.units.len() + 1];
        for (i, (item, u)) in self.items.iter().zip(&self.units).enumerate() {
            let users = item.user_text().map_or(0, |t| approx_tokens(t.len()));
            let carried = if u.carry { u.tokens } else { 0 };
            before[i + 1] = (before[i].0 + users, before[i].1 + carried);
        }
        move |at| before[at].0.min(USER_MESSAGE_BUDGET_TOKENS) + before[at].1
    }

    /// Streams the records of the span `[0, at)` (see [`cctool_core::compact::Feed`]).
    pub fn feed(&self, src: &Source, at: usize, f: &mut dyn FnMut(&Record)) -> io::Result<()> {
        let span: Vec<&fmt::Item> = self.items[..at]
            .iter()
            .zip(&self.units)
            .filter(|(_, u)| u.earlier.is_empty() && !u.carry)
            .map(|(i, _)| i)
            .collect();
        batched(src, &span, span_record, |r| f(&r))
    }
}

/// The session model's record of a history item, as the recap reads it: as the model was
/// sent it.
fn span_record(item: &fmt::Item, raw: &[u8]) -> Record {
    let v = parse(raw);
    // Older rollouts wrote a result as JSON text whose metadata holds the exit status: the
    // model reads that text, and so does the recap.
    let sent = v.get("output").cloned();
    let local_shell = v.get("type").and_then(Value::as_str) == Some("local_shell_call");
    let (mut r, _) = item_record(item, v, None, None);
    // Injected context (instructions, the environment) is not the user's request.
    if item.context {
        r.flags.meta = Some(true);
    }
    // A message's texts are one text to the model: the first takes them all.
    let texts = r.parts.iter().filter(|p| matches!(p, Part::Text(_))).count();
    if texts > 1 {
        let all = r.parts.iter().filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        });
        let mut joined: Option<String> = Some(all.collect());
        r.parts.retain_mut(|p| match p {
            Part::Text(t) => joined.take().map(|j| *t = j).is_some(),
            _ => true,
        });
    }
    for p in &mut r.parts {
        match p {
            Part::Call(c) if local_shell => c.name = Some("local_shell".into()),
            Part::Outcome(o) => o.output = Some(sent.clone().unwrap_or_else(|| Value::String(String::new()))),
            _ => {}
        }
    }
    r
}

#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<std::borrow::Cow<'a, str>>,
}

/// The unit of one history item: a quarter of its JSON bytes (Codex's own estimate), and
/// the call it makes or answers.
fn unit(item: &fmt::Item, raw: &[u8]) -> Unit {
    let mut u = Unit {
        tokens: approx_tokens(raw.len()),
        carry: item.remote_compaction,
        prompt: item.user_text().is_some(),
        ..Unit::default()
    };
    if item.summary {
        let v = parse(raw);
        let text = fmt::message_texts(v.get("content").unwrap_or(&Value::Null)).concat();
        let body = fmt::summary_body(&text).unwrap_or(&text);
        u.earlier = Earlier::from_text(body);
        return u;
    }
    if let Ok(h) = serde_json::from_slice::<Head<'_>>(raw)
        && let (Some(ty), Some(id)) = (h.ty.as_deref(), h.call_id.as_deref())
    {
        if ty.ends_with("_output") {
            u.results.push(id.into());
        } else if ty.ends_with("_call") {
            u.calls.push(id.into());
        }
    }
    u
}

fn user_message(text: &str) -> Box<RawValue> {
    raw_of(&fmt::user_message(text))
}

fn raw_of(v: &Value) -> Box<RawValue> {
    // Serialising a Value cannot fail: its keys are strings.
    serde_json::value::to_raw_value(v).unwrap_or_else(|_| RawValue::from_string("null".into()).unwrap_or_default())
}

/// An item exactly as written, but for lone surrogate escapes, which Codex's strict reader
/// would reject (with the whole `compacted` record): those become U+FFFD, as cctool reads them.
///
/// An item of a pretty-printed document (the 2025 rollouts) spans lines: its whitespace goes,
/// since every record of a rollout is one line.
fn verbatim(raw: &str) -> Box<RawValue> {
    let text = raw.trim();
    let text = match crate::io::json::repair_surrogates(text.as_bytes()) {
        Some(fixed) => String::from_utf8_lossy(&fixed).into_owned(),
        None => text.to_string(),
    };
    let text = if text.contains(['\n', '\r']) {
        String::from_utf8_lossy(&crate::io::json::minify(text.as_bytes())).into_owned()
    } else {
        text
    };
    RawValue::from_string(text).unwrap_or_else(|_| raw_of(&parse(raw.as_bytes())))
}

/// The prefixed summary, as Codex writes it in `message` and in the history.
pub fn summary_text(made: &Made) -> String {
    format!("{SUMMARY_PREFIX}\n{}", made.text())
}

/// The `replacement_history` items for a cut at `at`, and their estimated tokens.
pub fn replacement(
    src: &Source,
    loaded: &Loaded,
    at: usize,
    made: &Made,
    user_budget: usize,
) -> io::Result<(Vec<Box<RawValue>>, usize)> {
    let texts: Vec<&str> = loaded.items[..at].iter().filter_map(|i| i.user_text()).collect();
    let mut items = Vec::new();
    for t in kept_user_messages(&texts, user_budget) {
        items.push(user_message(&t));
    }
    // Remote compactions are opaque: carried as written, before the new summary; one that
    // Codex cannot read (it skipped that line, so its history never held it) is left out, as
    // it would make Codex skip the whole compacted line.
    for (i, u) in loaded.units[..at].iter().enumerate() {
        if u.carry {
            let raw = carried(src, loaded, i)?;
            if let Some(json) = crate::items::replacement_item(&raw, loaded.items[i].inter_agent) {
                items.push(verbatim(&json));
            }
        }
    }
    items.push(user_message(&summary_text(made)));
    // Measured as the units of a loaded rollout are: a quarter of each item's JSON.
    let tokens = items.iter().map(|i| approx_tokens(i.get().len())).sum();
    for i in at..loaded.items.len() {
        let raw = carried(src, loaded, i)?;
        // One item Codex cannot read makes it skip the whole compacted line.
        if let Some(json) = crate::items::replacement_item(&raw, loaded.items[i].inter_agent) {
            items.push(verbatim(&json));
        }
    }
    Ok((items, tokens))
}

/// The text of item `i` as written, for the `replacement_history`.
///
/// Codex reads its rollout with serde_json, which gives up on a line nested 128 levels deep
/// and skips it. In the history an item sits three levels down (record, payload, list): an
/// item that would pass that limit there would make Codex skip the whole `compacted` record,
/// and the compaction would have no effect. Such an item is refused, with its line.
fn carried(src: &Source, loaded: &Loaded, i: usize) -> io::Result<String> {
    let raw = raw_of_item(src, &loaded.items[i])?;
    let depth = 3 + crate::io::json::nesting_depth(&raw);
    if depth > crate::io::json::SERDE_MAX_DEPTH {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            TooDeep {
                line: loaded.lines[i],
                depth,
            },
        ));
    }
    Ok(String::from_utf8_lossy(&raw).into_owned())
}

/// The budget for kept user messages: Codex's own, or less when `--budget` needs the room.
pub fn user_budget(budget: Option<usize>, recap_tokens: usize, tail_tokens: usize) -> usize {
    match budget {
        Some(b) => USER_MESSAGE_BUDGET_TOKENS.min(b.saturating_sub(recap_tokens + tail_tokens)),
        None => USER_MESSAGE_BUDGET_TOKENS,
    }
}

/// Writes the input unchanged, then a turn of its own as a manual `/compact` writes it
/// (`docs/codex.md#local-compaction`):
/// `task_started`, the `compacted` record, the `context_compacted` event, `task_complete`.
///
/// The turn matters: the reverse scan Codex resumes with groups records into turns by their
/// `task_started`, and a `compacted` record without one joins the last turn of the input. When
/// the input ends with a `thread_rolled_back`, that rollback (already applied) would then
/// discard the turn and the new `compacted` record with it, and Codex would resume the
/// history from before the compaction.
pub fn write(src: &Source, history: Vec<Box<RawValue>>, made: &Made, w: &mut Output) -> io::Result<()> {
    copy_all(src, w)?;
    let ts = ids::now_ms();
    let summary = summary_text(made);
    let turn = ids::uuid(&["codex_compact_turn", &summary, &ts.to_string()]);
    // The history's items go out as written (raw), never through a `Value`: an item nested
    // near serde_json's limit of 128 levels could not be turned into one.
    #[derive(serde::Serialize)]
    struct Compacted<'a> {
        message: &'a str,
        replacement_history: &'a [Box<RawValue>],
    }
    let compacted = serde_json::to_vec(&json!({"timestamp": format_ms(ts), "type": "compacted", "payload": null}))?;
    let payload = serde_json::to_vec(&Compacted {
        message: &summary,
        replacement_history: &history,
    })?;
    // `..."payload":null}` with the payload in place of the null.
    let mut line = compacted[..compacted.len() - b"null}".len()].to_vec();
    line.extend_from_slice(&payload);
    line.push(b'}');
    let records = [
        json!({"timestamp": format_ms(ts), "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}}),
        json!({"timestamp": format_ms(ts + 1), "type": "event_msg", "payload": {"type": "context_compacted"}}),
        json!({
            "timestamp": format_ms(ts + 1),
            "type": "event_msg",
            "payload": {"type": "task_complete", "turn_id": turn, "last_agent_message": null},
        }),
    ];
    for (i, r) in records.iter().enumerate() {
        serde_json::to_writer(&mut *w, r)?;
        w.write_all(b"\n")?;
        if i == 0 {
            w.write_all(&line)?;
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// An item kept after the summary that the compacted record would nest deeper than Codex
/// reads: Codex would skip the record, and the compaction would do nothing.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}this item would be nested {depth} levels deep in the compacted record, and Codex reads at most {limit}: it would skip the record, and the compaction would do nothing. Nothing written; a smaller --keep-recent puts the item in the summarised part",
    .line.map_or_else(String::new, |l| format!("line {l}: ")),
    limit = crate::io::json::SERDE_MAX_DEPTH
)]
struct TooDeep {
    /// Its line in the rollout, where it has one.
    line: Option<u64>,
    /// How deep the compacted record would nest it.
    depth: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::compact::recap::{Recap, Tools};

    fn item(v: &Value, context: bool) -> Record {
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        let mut item = fmt::Item::new(
            ItemSrc::Synth(v.to_string().into()),
            ty,
            v.get("role").and_then(Value::as_str),
        );
        item.context = context;
        span_record(&item, v.to_string().as_bytes())
    }

    /// The recap reads a span as Codex sent it: injected context is no request, a message's
    /// texts are one text, a local shell call is Codex's `local_shell`, and an older result's
    /// JSON text keeps the exit status its metadata holds.
    #[test]
    fn the_span_is_read_as_the_model_was_sent_it() {
        let context = item(
            &json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "You must obey AGENTS.md"}]}),
            true,
        );
        assert_eq!(context.flags.meta, Some(true));
        let prompt = item(
            &json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Fix the "}, {"type": "input_text", "text": "build"}]}),
            false,
        );
        assert_eq!(prompt.parts, vec![Part::Text("Fix the build".into())]);
        let call = item(
            &json!({"type": "local_shell_call", "call_id": "s", "action": {"type": "exec", "command": ["make"]}}),
            false,
        );
        assert_eq!(call.calls().next().and_then(|c| c.name.as_deref()), Some("local_shell"));
        let sent = r#"{"output":"boom","metadata":{"exit_code":2}}"#;
        let result = item(
            &json!({"type": "function_call_output", "call_id": "s", "output": sent}),
            false,
        );
        assert_eq!(
            result.outcomes().next().and_then(|o| o.output.clone()),
            Some(json!(sent))
        );
        let tools = Tools::new(&[&crate::tools::CodexTools]);
        let recap = Recap::extract_with(&[context, prompt, call, result], &tools);
        assert_eq!(recap.goal, "\"Fix the build\"");
        assert!(recap.constraints.is_empty(), "{:?}", recap.constraints);
        assert_eq!(recap.progress, vec!["Ran `make` (exit 2)".to_string()]);
    }
}
