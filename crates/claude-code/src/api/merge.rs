//! Items 6 and C1–C12: rows become messages. Attachments move before the prompts they
//! follow, then one pass in chain order turns each row into request content the way
//! Claude Code 2.1.332 does (`_ve`): user rows are rewritten and merged into a directly
//! preceding user message, attachments are folded into the message before them or sent as
//! system messages, assistant rows are regrouped by `message.id`.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::Pipeline;
use super::attachments::{Message, reminder, unwrap_reminder};
use super::blocks::{Block, Content, Msg, Role, block_type, blocks, is_thinking, text_of};
use super::load::Row;
use super::rules::{self, NOTIFICATION_HEAD, REMINDER_CLOSE, REMINDER_OPEN, Rule, TOOL_LOADED, TOOLS_GONE};

/// What the rows are rendered for: the request model's capabilities.
pub(super) struct Target<'a> {
    pub model: &'a str,
    /// Attachments go to system messages (C4) instead of user text (C1).
    pub system_messages: bool,
}

impl Target<'_> {
    pub fn new(model: Option<&str>) -> Target<'_> {
        match model {
            Some(m) => Target {
                model: m,
                system_messages: rules::takes_system_messages(m),
            },
            // No model: the client sends no system messages mid-conversation.
            None => Target {
                model: "",
                system_messages: false,
            },
        }
    }
}

/// Whether the client treats the row as the end of a stretch that attachments may not cross
/// when they move up (`rZo`): an assistant row or a user row that starts with a tool result.
fn holds_attachments(r: &Row) -> bool {
    match r.role {
        Role::Assistant => true,
        Role::User if r.is_attachment() || r.local_command => false,
        Role::User => r
            .content
            .as_array()
            .and_then(|a| a.first())
            .is_some_and(|b| block_type(b) == "tool_result"),
    }
}

/// C2: attachments move up over user prompts (and local-command rows) to just after the
/// nearest assistant row or tool-result row before them, keeping their order.
pub(super) fn hoist_attachments(rows: Vec<Row>, p: &mut Pipeline) -> Vec<Row> {
    if !rows.iter().any(Row::is_attachment) {
        return rows;
    }
    let mut out: Vec<Row> = Vec::with_capacity(rows.len());
    // Collected attachments, newest first, each with whether it passed a user row.
    let mut held: Vec<(Row, bool)> = Vec::new();
    for r in rows.into_iter().rev() {
        if r.is_attachment() {
            held.push((r, false));
            continue;
        }
        if holds_attachments(&r) {
            flush_held(&mut out, &mut held, p);
            out.push(r);
            continue;
        }
        if r.is_user() {
            for h in &mut held {
                h.1 = true;
            }
        }
        out.push(r);
    }
    flush_held(&mut out, &mut held, p);
    out.reverse();
    out
}

fn flush_held(out: &mut Vec<Row>, held: &mut Vec<(Row, bool)>, p: &mut Pipeline) {
    for (r, moved) in held.drain(..) {
        if moved {
            p.fire(Rule::C2);
        }
        out.push(r);
    }
}

/// The pass over the rows. Attachments whose text is not reproduced and that reach the
/// messages are listed in `not_emulated` as (line, type).
pub(super) fn merge(
    rows: Vec<Row>,
    target: &Target<'_>,
    p: &mut Pipeline,
    not_emulated: &mut Vec<(u64, String)>,
) -> Vec<Msg> {
    let mut msgs: Vec<Msg> = Vec::new();
    // Attachment text waiting for its system message (C4); `None` for text not reproduced.
    let mut pending: Vec<Pending> = Vec::new();
    let mut assistants = Assistants::default();
    for mut r in rows {
        if let Some(att) = r.attachment.take() {
            let Some(messages) = att.messages else {
                if target.system_messages && att.to_system {
                    p.fire(Rule::C4);
                    pending.push(Pending {
                        text: None,
                        line: att.line,
                        ty: att.ty,
                    });
                } else {
                    not_emulated.push((att.line, att.ty));
                }
                continue;
            };
            if target.system_messages
                && att.to_system
                && let Some(text) = plain_text(&messages)
            {
                p.fire(Rule::C4);
                pending.push(Pending {
                    text: Some(text),
                    line: att.line,
                    ty: att.ty,
                });
                continue;
            }
            p.fire(Rule::C1);
            if att.ty == "directory" {
                p.fire(Rule::C14);
            }
            match msgs.last_mut() {
                Some(last) if last.role == Role::User => {
                    for m in &messages {
                        fold_attachment(last, m, p);
                    }
                }
                _ => msgs.extend(messages.iter().map(|m| Msg::user(message_content(m)))),
            }
            continue;
        }
        match r.role {
            Role::User => {
                let content = rewrite_user(r, target, p);
                match msgs.last_mut() {
                    Some(last) if last.role == Role::User => {
                        p.fire(Rule::Merge);
                        merge_user(last, &content, p);
                    }
                    _ => msgs.push(Msg::user(content)),
                }
            }
            Role::Assistant => {
                let mut content = blocks(&r.content);
                rewrite_assistant(&mut content, p);
                let target_msg = r.msg_id.as_ref().and_then(|id| assistants.find(&msgs, id));
                match target_msg {
                    Some(j) => {
                        p.fire(Rule::F1);
                        let mut merged = blocks(&msgs[j].content);
                        merged.extend(content);
                        let merged = drop_inner_whitespace(merged, p);
                        msgs[j].content = Content::Blocks(tool_uses_last(merged, p));
                    }
                    None => {
                        flush_pending(&mut msgs, &mut pending, target, not_emulated);
                        msgs.push(Msg {
                            msg_id: r.msg_id,
                            ..Msg::new(Role::Assistant, Content::Blocks(tool_uses_last(content, p)))
                        });
                    }
                }
            }
        }
    }
    // What is still waiting becomes a system message after the prompt: not part of `messages`.
    msgs
}

/// The assistant message an assistant row of a message id joins (F1), as the client finds it
/// searching back from the last message: the latest of that id, unless a user message that holds
/// no tool result comes after it. Every message but the last keeps its role and (a user's)
/// whether it holds a tool result, since rows join the last message only: each is looked at once,
/// as it is appended, so a session of many turns costs no more than its messages.
#[derive(Default)]
struct Assistants {
    /// The latest assistant message of each id, among the messages looked at.
    by_id: HashMap<String, usize>,
    /// How many messages `by_id` has looked at.
    indexed: usize,
    /// The latest user message with no tool result before `settled`.
    barrier: Option<usize>,
    /// How many messages `barrier` has looked at.
    settled: usize,
}

impl Assistants {
    fn find(&mut self, msgs: &[Msg], id: &str) -> Option<usize> {
        for (k, m) in msgs.iter().enumerate().skip(self.indexed) {
            if let (Role::Assistant, Some(mid)) = (m.role, &m.msg_id) {
                self.by_id.insert(mid.clone(), k);
            }
        }
        self.indexed = msgs.len();
        let last = msgs.len().checked_sub(1)?;
        let plain_user = |m: &Msg| m.role == Role::User && !has_tool_result(&m.content);
        for (k, m) in msgs.iter().enumerate().take(last).skip(self.settled) {
            if plain_user(m) {
                self.barrier = Some(k);
            }
        }
        self.settled = self.settled.max(last);
        let barrier = if plain_user(&msgs[last]) {
            Some(last)
        } else {
            self.barrier
        };
        self.by_id.get(id).copied().filter(|&j| barrier.is_none_or(|b| j > b))
    }
}

fn message_content(m: &Message) -> Content {
    match m {
        Message::Str(s) => Content::Str(s.clone()),
        Message::Texts(t) => Content::Blocks(t.iter().map(|x| Block::text_block(x)).collect()),
        Message::Image(v) => Content::Blocks(vec![Block::from_value(v.clone())]),
    }
}

/// Attachment text waiting for the system message it goes to.
struct Pending {
    /// `None`: text the client renders that this table does not reproduce.
    text: Option<String>,
    line: u64,
    ty: String,
}

/// The text of plain-text messages as one system message holds it (`wve`), or `None`.
fn plain_text(messages: &[Message]) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for m in messages {
        parts.extend(m.texts()?.into_iter().map(unwrap_reminder));
    }
    let joined = parts.join("\n");
    (!joined.trim().is_empty()).then_some(joined)
}

/// Waiting attachment text goes out before the next new assistant message: as a system message
/// after a user message, or as a user message of its own after an assistant message (`Gl`).
fn flush_pending(
    msgs: &mut Vec<Msg>,
    pending: &mut Vec<Pending>,
    target: &Target<'_>,
    not_emulated: &mut Vec<(u64, String)>,
) {
    if pending.is_empty() {
        return;
    }
    let waiting = std::mem::take(pending);
    if msgs.last().is_some_and(|m| m.role == Role::User) {
        return;
    }
    let mut texts = Vec::with_capacity(waiting.len());
    for w in waiting {
        match w.text {
            Some(t) => texts.push(t),
            None => not_emulated.push((w.line, w.ty)),
        }
    }
    if texts.is_empty() {
        return;
    }
    // Sonnet 5 gets each text in a reminder of its own, the others one reminder for all.
    let body = if rules::canonical_model(target.model) == "claude-sonnet-5" {
        texts.iter().map(|t| reminder(t)).collect::<Vec<_>>().join("\n\n")
    } else {
        reminder(&texts.join("\n\n"))
    };
    msgs.push(Msg::user(Content::Str(body)));
}

/// An attachment message joins the user message before it without a seam (`kve`): its text
/// goes into the last tool result when the message ends in one (C3), else after the blocks.
fn fold_attachment(last: &mut Msg, m: &Message, p: &mut Pipeline) {
    let add: Vec<Block> = blocks(&message_content(m));
    if let Content::Str(s) = &last.content {
        last.content = Content::Blocks(vec![Block::text_block(s)]);
    }
    let Content::Blocks(have) = &mut last.content else {
        return;
    };
    let folded = have
        .last_mut()
        .filter(|b| block_type(b) == "tool_result")
        .is_some_and(|b| fold_into_result(b, &add));
    if folded {
        p.fire(Rule::C3);
        return;
    }
    have.extend(add);
    let taken = std::mem::take(have);
    *have = results_first(taken, p);
}

/// Text appended to a tool result's content (`E6t`/`qJe`): a string content is trimmed and
/// joined with the texts by blank lines; a list of text blocks gets a newline and the blocks.
/// Results that hold tool references or search results take nothing.
fn fold_into_result(result: &mut Block, add: &[Block]) -> bool {
    if !add.iter().all(|b| block_type(b) == "text") {
        return false;
    }
    let v = result.value_mut();
    match v.get("content") {
        None | Some(Value::String(_)) => {
            let head = v
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string();
            let parts: Vec<String> = std::iter::once(head)
                .chain(add.iter().map(|b| b.text.as_deref().unwrap_or("").trim().to_string()))
                .filter(|s| !s.is_empty())
                .collect();
            v["content"] = Value::String(parts.join("\n\n"));
        }
        Some(Value::Array(items))
            if !items.iter().any(|i| {
                matches!(
                    i.get("type").and_then(Value::as_str),
                    Some("tool_reference" | "search_result")
                )
            }) =>
        {
            let mut items = items.clone();
            if let Some(lastb) = items.last_mut()
                && lastb.get("type").and_then(Value::as_str) == Some("text")
                && let Some(t) = lastb.get("text").and_then(Value::as_str)
            {
                lastb["text"] = Value::String(format!("{t}\n"));
            }
            items.extend(
                add.iter()
                    .map(|b| json!({"type": "text", "text": b.text.as_deref().unwrap_or("")})),
            );
            v["content"] = Value::Array(items);
        }
        _ => return false,
    }
    // Only `content` changed: the fields the pipeline reads stay as they were.
    true
}

fn has_tool_result(content: &Content) -> bool {
    content
        .as_array()
        .is_some_and(|a| a.iter().any(|b| block_type(b) == "tool_result"))
}

/// A8: tool results first, each group in its order (`Eer`).
fn results_first(merged: Vec<Block>, p: &mut Pipeline) -> Vec<Block> {
    let moved = merged
        .iter()
        .skip_while(|b| block_type(b) == "tool_result")
        .any(|b| block_type(b) == "tool_result");
    if moved {
        p.fire(Rule::A8);
    }
    let (mut hoisted, others): (Vec<Block>, Vec<Block>) =
        merged.into_iter().partition(|b| block_type(b) == "tool_result");
    hoisted.extend(others);
    hoisted
}

/// User rows merge with a newline seam (`wj`): when the message so far ends with a text block
/// and the new content starts with one, the former gets "\n"; then tool results go first.
pub(super) fn merge_user(last: &mut Msg, next: &Content, p: &mut Pipeline) {
    let mut merged = blocks(&last.content);
    let add = blocks(next);
    if let (Some(prev), Some(first)) = (merged.last_mut(), add.first())
        && block_type(prev) == "text"
        && block_type(first) == "text"
    {
        let t = format!("{}\n", prev.text.as_deref().unwrap_or(""));
        prev.set_text(t);
    }
    merged.extend(add);
    last.content = Content::Blocks(results_first(merged, p));
}

// ---- user rows ----------------------------------------------------------------------------------

fn rewrite_user(r: Row, target: &Target<'_>, p: &mut Pipeline) -> Content {
    let mut content = r.content;
    if let Some((kind, sub)) = &r.origin
        && kind == "task-notification"
        && !matches!(sub.as_deref(), Some("scheduled-trigger" | "projects-relay"))
    {
        p.fire(Rule::C7);
        content = match content {
            Content::Str(s) => Content::Str(notification(&s)),
            Content::Blocks(b) => {
                let texts: Vec<&str> = b.iter().filter_map(text_of).collect();
                let mut out = vec![Block::text_block(&notification(&texts.join("\n")))];
                out.extend(b.iter().filter(|x| block_type(x) != "text").cloned());
                Content::Blocks(out)
            }
        };
    }
    if let Content::Blocks(b) = &mut content {
        drop_missing_tool_references(b, target, p);
        tool_loaded_text(b, target, p);
    }
    escape_reminder_lookalikes(&mut content, p);
    content
}

/// C7: a task notification as a system notification (`nji`): its closing reminder tags
/// escaped, the notification head put first, the whole in one reminder.
fn notification(text: &str) -> String {
    let open = format!("{REMINDER_OPEN}\n{NOTIFICATION_HEAD}");
    let close = format!("\n{REMINDER_CLOSE}");
    if text.starts_with(&open) && text.ends_with(&close) {
        return text.to_string();
    }
    let body = super::attachments::escape_reminder_close(text);
    let body = if body.starts_with(NOTIFICATION_HEAD) {
        body
    } else {
        format!("{NOTIFICATION_HEAD}{body}")
    };
    format!("{REMINDER_OPEN}\n{body}{close}")
}

fn tool_reference_name(item: &Value) -> Option<&str> {
    (item.get("type").and_then(Value::as_str) == Some("tool_reference"))
        .then(|| item.get("tool_name").and_then(Value::as_str).unwrap_or(""))
}

fn has_tool_reference(b: &Block) -> bool {
    if block_type(b) != "tool_result" || !b.json_contains("\"tool_reference\"") {
        return false;
    }
    b.value()
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|i| tool_reference_name(i).is_some()))
}

/// C6: references to tools the resume does not have are removed (`mZi`); a result left with
/// none says so.
fn drop_missing_tool_references(b: &mut [Block], target: &Target<'_>, p: &mut Pipeline) {
    for block in b.iter_mut().filter(|x| has_tool_reference(x)) {
        let mut v = block.value();
        let Some(items) = v.get("content").and_then(Value::as_array) else {
            continue;
        };
        let kept: Vec<Value> = items
            .iter()
            .filter(|i| match tool_reference_name(i) {
                Some(name) if !name.is_empty() => rules::has_tool(name, target.model),
                _ => true,
            })
            .cloned()
            .collect();
        if kept.len() == items.len() {
            continue;
        }
        p.fire(Rule::C6);
        v["content"] = if kept.is_empty() {
            json!([{"type": "text", "text": TOOLS_GONE}])
        } else {
            Value::Array(kept)
        };
        block.replace(v);
    }
}

/// Whether a text is the client's own "Tool loaded." line, with optional id lines.
fn is_tool_loaded_line(t: &str) -> bool {
    let Some(rest) = t.strip_prefix(TOOL_LOADED) else {
        return false;
    };
    let mut rest = rest;
    while let Some(r) = rest.strip_prefix("\n[id:") {
        let Some(end) = r.find(']') else { return false };
        if r[..end].contains('\n') || end == 0 {
            return false;
        }
        rest = &r[end + 1..];
    }
    rest.is_empty() || rest == "\n"
}

/// C5: after a tool result that loaded tools the client adds "Tool loaded." (once); for a
/// model without that text, lines of it are removed instead.
fn tool_loaded_text(b: &mut Vec<Block>, target: &Target<'_>, p: &mut Pipeline) {
    if !b.iter().any(has_tool_reference) {
        return;
    }
    if target.system_messages && !rules::gets_tool_loaded_text(target.model) {
        let before = b.len();
        b.retain(|x| !text_of(x).is_some_and(is_tool_loaded_line));
        if b.len() != before {
            p.fire(Rule::C5);
        }
    } else if !b.iter().any(|x| text_of(x).is_some_and(|t| t.starts_with(TOOL_LOADED))) {
        p.fire(Rule::C5);
        b.push(Block::text_block(TOOL_LOADED));
    }
}

/// C11: a text starting with `<system-reminder` and a blank (not the tag itself) gets its `<`
/// escaped (`aZo`).
fn escape_lookalike(t: &str) -> Option<String> {
    let rest = t.strip_prefix("<system-reminder")?;
    let c = rest.chars().next()?;
    (c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}' | '\u{85}')).then(|| format!("&lt;{}", &t[1..]))
}

fn escape_reminder_lookalikes(content: &mut Content, p: &mut Pipeline) {
    match content {
        Content::Str(s) => {
            if let Some(e) = escape_lookalike(s) {
                p.fire(Rule::C11);
                *s = e;
            }
        }
        Content::Blocks(b) => {
            for x in b.iter_mut() {
                if let Some(e) = text_of(x).and_then(escape_lookalike) {
                    p.fire(Rule::C11);
                    x.set_text(e);
                }
            }
        }
    }
}

// ---- assistant rows -----------------------------------------------------------------------------

/// F2, C9 and C12 on one assistant row.
fn rewrite_assistant(content: &mut [Block], p: &mut Pipeline) {
    for b in content.iter_mut() {
        match block_type(b) {
            "tool_use" => {
                if let Some(new) = b.name.as_deref().and_then(rules::canonical_tool_name) {
                    b.set_name(new);
                    p.fire(Rule::F2);
                }
                let name = b.name.clone().unwrap_or_default();
                if !matches!(name.as_str(), "Edit" | "SendMessage") {
                    continue;
                }
                let mut v = b.value();
                if let Some(input) = v.get("input")
                    && let Some(new) = rules::rewritten_tool_input(&name, input)
                {
                    v["input"] = new;
                    b.replace(v);
                    p.fire(Rule::C9);
                }
            }
            "text"
                if b.json_contains("\"citations\"")
                    && b.value().get("citations").and_then(Value::as_array).is_some_and(|c| {
                        c.iter()
                            .any(|x| x.get("type").and_then(Value::as_str) != Some("web_search_result_location"))
                    }) =>
            {
                let mut v = b.value();
                let kept: Vec<Value> = v["citations"]
                    .as_array()
                    .map(|c| {
                        c.iter()
                            .filter(|x| x.get("type").and_then(Value::as_str) == Some("web_search_result_location"))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                v["citations"] = Value::Array(kept);
                b.replace(v);
                p.fire(Rule::C12);
            }
            _ => {}
        }
    }
}

/// A1b: whitespace-only text inside a regrouped message goes, unless it sits between two
/// thinking blocks; if nothing but thinking would remain, the list is kept as it was.
fn drop_inner_whitespace(blocks: Vec<Block>, p: &mut Pipeline) -> Vec<Block> {
    let keep: Vec<bool> = (0..blocks.len())
        .map(|i| {
            let b = &blocks[i];
            let ws = text_of(b).is_some_and(|t| !t.is_empty() && t.trim().is_empty());
            if !ws {
                return true;
            }
            let before = i > 0 && is_thinking(&blocks[i - 1]);
            let after = blocks.get(i + 1).is_some_and(is_thinking);
            before && after
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return blocks;
    }
    let filtered: Vec<Block> = blocks
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(b, _)| b.clone())
        .collect();
    if !filtered.iter().any(|b| !is_thinking(b)) {
        return blocks;
    }
    p.fire(Rule::A1);
    filtered
}

/// A9 (`Ter`): when anything but a tool use follows a tool use, all tool uses move to the
/// end in their order — except a thinking block that follows [thinking, tool_use…].
fn tool_uses_last(blocks: Vec<Block>, p: &mut Pipeline) -> Vec<Block> {
    let is_tu = |b: &Block| block_type(b) == "tool_use";
    let mut seen_tu = false;
    let mut trigger = false;
    for (j, b) in blocks.iter().enumerate() {
        if is_tu(b) {
            seen_tu = true;
            continue;
        }
        if !seen_tu {
            continue;
        }
        if is_thinking(b) {
            let run = blocks[..j].iter().rev().take_while(|x| is_tu(x)).count();
            if run > 0 && j > run && is_thinking(&blocks[j - run - 1]) {
                continue;
            }
        }
        trigger = true;
        break;
    }
    if !trigger {
        return blocks;
    }
    p.fire(Rule::A9);
    let (tus, others): (Vec<Block>, Vec<Block>) = blocks.into_iter().partition(|b| is_tu(b));
    let mut out = others;
    out.extend(tus);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_loaded_lines_are_recognised_with_their_ids() {
        assert!(is_tool_loaded_line("Tool loaded."));
        assert!(is_tool_loaded_line("Tool loaded.\n"));
        assert!(is_tool_loaded_line("Tool loaded.\n[id:abc]\n[id:d]"));
        assert!(!is_tool_loaded_line("Tool loaded. More"));
        assert!(!is_tool_loaded_line("Tool loaded.\n[id:]"));
    }

    #[test]
    fn only_a_blank_after_the_tag_name_is_escaped() {
        assert_eq!(
            escape_lookalike("<system-reminder is odd").as_deref(),
            Some("&lt;system-reminder is odd")
        );
        assert_eq!(escape_lookalike("<system-reminder>\nx"), None);
        assert_eq!(escape_lookalike("<system-reminder"), None);
    }

    #[test]
    fn notifications_are_wrapped_once() {
        let once = notification("<task-notification>x</task-notification>");
        assert!(once.starts_with("<system-reminder>\n[SYSTEM NOTIFICATION"));
        assert_eq!(notification(&once), once);
        assert!(notification("a </system-reminder> b").contains("&lt;/system-reminder&gt;"));
    }
}
