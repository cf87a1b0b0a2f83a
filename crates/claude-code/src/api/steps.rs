//! The steps before and after the merge: which rows are sent (A4, A5, A6, A1a), whether a
//! sentinel reply is due (A7/F5), and the repairs of the merged messages (A10, A11, F4, C8,
//! the prompt, C13).

use serde_json::json;

use super::Pipeline;
use super::blocks::{Block, Content, Msg, Role, block_type, blocks, is_thinking, text_of};
use super::load::Row;
use super::merge::merge_user;
use super::rules::{EMPTY_REMOVED, INTERRUPTED, NO_CONTENT, ORPHANED, REMINDER_OPEN, Rule, SENTINEL};

/// Text the client treats as no content at all (`KJe`).
fn is_blank_text(b: &Block) -> bool {
    text_of(b).is_some_and(|t| matches!(t.trim(), "" | NO_CONTENT | EMPTY_REMOVED))
}

/// Item 4: A6 and A1a, repeated until nothing changes.
pub(super) fn filter_rows(rows: &mut Vec<Row>, p: &mut Pipeline) {
    loop {
        let mut drop = vec![false; rows.len()];
        let group_has = |id: &Option<String>, pred: &dyn Fn(&Block) -> bool| {
            id.as_ref().is_some_and(|id| {
                rows.iter().any(|r| {
                    r.role == Role::Assistant
                        && r.msg_id.as_ref() == Some(id)
                        && r.content.as_array().is_some_and(|a| a.iter().any(pred))
                })
            })
        };
        for (i, r) in rows.iter().enumerate() {
            if r.role != Role::Assistant {
                continue;
            }
            let a = r.content.as_array().map(Vec::as_slice).unwrap_or(&[]);
            if a.is_empty() {
                continue;
            }
            if a.iter().all(is_thinking) {
                if !group_has(&r.msg_id, &|b| !is_thinking(b)) {
                    drop[i] = true;
                    p.fire(Rule::A6);
                }
                continue;
            }
            let lead = a.iter().take_while(|b| is_thinking(b)).count();
            let rest = &a[lead..];
            if !rest.is_empty()
                && rest.iter().all(is_blank_text)
                && !group_has(&r.msg_id, &|b| !is_thinking(b) && !is_blank_text(b))
            {
                drop[i] = true;
                p.fire(Rule::A1);
            }
        }
        if !drop.contains(&true) {
            return;
        }
        let mut i = 0;
        rows.retain(|_| {
            i += 1;
            !drop[i - 1]
        });
    }
}

/// How `E6` classifies a user row by the start of its last text.
#[derive(PartialEq, Eq)]
enum Local {
    Record,
    Output,
    Caveat,
    Other,
}

fn classify_local(r: &Row) -> Local {
    let last = match &r.content {
        Content::Str(s) => Some(s.as_str()),
        Content::Blocks(a) => a.iter().rev().find_map(text_of),
    };
    let Some(t) = last else { return Local::Other };
    if t.starts_with("<command-name>") {
        Local::Record
    } else if t.starts_with("<local-command-stdout>") || t.starts_with("<local-command-stderr>") {
        Local::Output
    } else if t.starts_with("<local-command-caveat>") && r.is_meta {
        Local::Caveat
    } else if t.starts_with('/') && !r.is_meta {
        Local::Record
    } else {
        Local::Other
    }
}

/// Item 5 (A7): the sentinel is added when the last conversation row is a user row, unless
/// the history ends in a local command written as [caveat (meta), command, output].
pub(super) fn needs_sentinel(rows: &[Row], p: &mut Pipeline) -> bool {
    // Attachment rows do not count: the client looks at the last user or assistant row.
    let convo: Vec<&Row> = rows.iter().filter(|r| !r.local_command && !r.is_attachment()).collect();
    let Some(last) = convo.last() else { return false };
    if last.role != Role::User {
        return false;
    }
    let mut passed = false;
    for r in convo.iter().rev() {
        if r.role != Role::User {
            break;
        }
        match classify_local(r) {
            Local::Output | Local::Record => passed = true,
            Local::Caveat if passed => {
                p.fire(Rule::A7);
                return false;
            }
            _ => break,
        }
    }
    true
}

/// Item 7 (A10): empty text blocks leave assistant messages; between two thinking blocks one
/// becomes a marker; an emptied message that is not last says "(no content)".
pub(super) fn remove_empty_text(msgs: &mut [Msg], p: &mut Pipeline) {
    let n = msgs.len();
    for (i, m) in msgs.iter_mut().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let Content::Blocks(a) = &m.content else { continue };
        let mut out = Vec::with_capacity(a.len());
        let mut changed = false;
        for (k, b) in a.iter().enumerate() {
            if text_of(b) == Some("") {
                changed = true;
                let between = k > 0 && is_thinking(&a[k - 1]) && a.get(k + 1).is_some_and(is_thinking);
                if between {
                    // The client builds this block fresh, with an empty citation list.
                    out.push(Block::from_value(
                        json!({"type": "text", "text": EMPTY_REMOVED, "citations": []}),
                    ));
                }
                continue;
            }
            out.push(b.clone());
        }
        if out.is_empty() && i + 1 != n {
            out.push(Block::text_block(NO_CONTENT));
            changed = true;
        }
        if changed {
            p.fire(Rule::A10);
            m.content = Content::Blocks(out);
        }
    }
}

fn tool_use_ids(m: &Msg) -> Vec<String> {
    m.content
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|b| block_type(b) == "tool_use")
                .filter_map(|b| b.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Item 8 (A11, `ensureToolResultPairing`).
pub(super) fn pair_tool_results(msgs: &mut Vec<Msg>, p: &mut Pipeline) {
    let mut out: Vec<Msg> = Vec::with_capacity(msgs.len());
    let mut gap = false;
    for (i, mut m) in std::mem::take(msgs).into_iter().enumerate() {
        m.gap_before |= std::mem::take(&mut gap);
        if m.role == Role::User
            && let Content::Blocks(a) = &m.content
            && a.iter().any(|b| block_type(b) == "tool_result")
        {
            // A set: a turn of many calls costs no more than its calls and results.
            let allowed: std::collections::HashSet<String> = match out.last() {
                Some(prev) if prev.role == Role::Assistant => tool_use_ids(prev).into_iter().collect(),
                _ => std::collections::HashSet::new(),
            };
            let kept: Vec<Block> = a
                .iter()
                .filter(|b| {
                    block_type(b) != "tool_result" || b.tool_use_id.as_deref().is_some_and(|id| allowed.contains(id))
                })
                .cloned()
                .collect();
            if kept.len() != a.len() {
                p.fire(Rule::A11);
                if kept.is_empty() {
                    if i == 0 {
                        m.content = Content::Blocks(vec![Block::text_block(ORPHANED)]);
                        out.push(m);
                    } else {
                        gap = true;
                    }
                    continue;
                }
                m.content = Content::Blocks(kept);
            }
        }
        out.push(m);
    }
    *msgs = out;
}

/// Item 9 (F4): a tool call without its result is closed with an error result when it is in
/// the last message, and removed elsewhere (with its message, if nothing else is left).
/// Returns whether the history now ends in such a closing result.
pub(super) fn close_tool_calls(msgs: &mut Vec<Msg>, p: &mut Pipeline) -> bool {
    let n = msgs.len();
    let mut drop = vec![false; n];
    let mut closing: Option<Vec<String>> = None;
    for i in 0..n {
        if msgs[i].role != Role::Assistant {
            continue;
        }
        // A set: a turn of many calls costs no more than its calls and results.
        let answered: std::collections::HashSet<String> = msgs
            .get(i + 1)
            .filter(|m| m.role == Role::User)
            .and_then(|m| m.content.as_array())
            .map(|a| {
                a.iter()
                    .filter(|b| block_type(b) == "tool_result")
                    .filter_map(|b| b.tool_use_id.clone())
                    .collect()
            })
            .unwrap_or_default();
        let open: Vec<String> = tool_use_ids(&msgs[i])
            .into_iter()
            .filter(|id| !answered.contains(id))
            .collect();
        if open.is_empty() {
            continue;
        }
        p.fire(Rule::F4);
        if i + 1 == n {
            closing = Some(open);
            continue;
        }
        if let Content::Blocks(a) = &mut msgs[i].content {
            let open: std::collections::HashSet<&str> = open.iter().map(String::as_str).collect();
            a.retain(|b| !(block_type(b) == "tool_use" && b.id.as_deref().is_some_and(|id| open.contains(id))));
            if a.iter().all(is_thinking) {
                drop[i] = true;
            }
        }
    }
    if drop.contains(&true) {
        for i in 1..n {
            if drop[i - 1] {
                msgs[i].gap_before = true;
            }
        }
        let mut k = 0;
        msgs.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
    }
    let Some(open) = closing else { return false };
    {
        let results: Vec<Block> = open
            .iter()
            .map(|id| {
                Block::from_value(
                    json!({"type": "tool_result", "content": INTERRUPTED, "is_error": true, "tool_use_id": id}),
                )
            })
            .collect();
        msgs.push(Msg::user(Content::Blocks(results)));
    }
    true
}

/// Messages left next to one of the same role where A11 or F4 removed what stood between them
/// are merged as rows are: user messages with the newline seam and tool results first,
/// assistant messages by concatenation. Messages next to each other from the start (the
/// several messages of one attachment) stay apart, as the client sends them.
pub(super) fn merge_adjacent(msgs: &mut Vec<Msg>, p: &mut Pipeline) {
    let mut out: Vec<Msg> = Vec::with_capacity(msgs.len());
    for m in std::mem::take(msgs) {
        match out.last_mut() {
            // Messages that were next to each other from the start stay apart.
            Some(last) if last.role == m.role && m.role == Role::User && m.gap_before => {
                p.fire(Rule::Merge);
                merge_user(last, &m.content, p);
            }
            Some(last) if last.role == m.role && m.gap_before => {
                let mut merged = blocks(&last.content);
                merged.extend(blocks(&m.content));
                last.content = Content::Blocks(merged);
            }
            _ => out.push(m),
        }
    }
    *msgs = out;
}

/// Item 9, end (F5 as refined by A7): the sentinel reply, then the prompt — merged into a
/// final user message when there is no sentinel.
pub(super) fn add_prompt(msgs: &mut Vec<Msg>, prompt: &str, sentinel: bool, p: &mut Pipeline) {
    let ends_with_user = msgs.last().is_some_and(|m| m.role == Role::User);
    let prompt_block = Content::Blocks(vec![Block::text_block(prompt)]);
    if ends_with_user && sentinel {
        p.fire(Rule::F5);
        msgs.push(Msg::new(
            Role::Assistant,
            Content::Blocks(vec![Block::text_block(SENTINEL)]),
        ));
    } else if ends_with_user && let Some(last) = msgs.last_mut() {
        merge_user(last, &prompt_block, p);
        return;
    }
    msgs.push(Msg::user(prompt_block));
}

/// C8: model fallback blocks are not sent to a proxy (Anthropic's own API gets them); a
/// message left without blocks says "(no content)".
pub(super) fn drop_fallback_blocks(msgs: &mut [Msg], p: &mut Pipeline) {
    for m in msgs.iter_mut().filter(|m| m.role == Role::Assistant) {
        let Content::Blocks(a) = &mut m.content else { continue };
        let before = a.len();
        a.retain(|b| block_type(b) != "fallback");
        if a.len() == before {
            continue;
        }
        p.fire(Rule::C8);
        if a.is_empty() {
            a.push(Block::from_value(
                json!({"type": "text", "text": NO_CONTENT, "citations": []}),
            ));
        }
    }
}

/// C13: the text blocks of the last user message that are reminders are the client's own
/// per-turn context (environment, date, tool changes) and are left out, as the harness that
/// checks the view leaves them out; reminders the transcript put there go with them.
pub(super) fn drop_last_reminders(msgs: &mut [Msg], p: &mut Pipeline) {
    let Some(last) = msgs.last_mut().filter(|m| m.role == Role::User) else {
        return;
    };
    let Content::Blocks(a) = &mut last.content else { return };
    let before = a.len();
    a.retain(|b| !text_of(b).is_some_and(|t| t.starts_with(REMINDER_OPEN)));
    for _ in a.len()..before {
        p.fire(Rule::C13);
    }
}
