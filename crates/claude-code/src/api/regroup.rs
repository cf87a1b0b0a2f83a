//! Rule C15: a response whose rows are split by rows delivered in between is put back together
//! when the transcript is read (`XZt`, `Sjn`), before any send-time rule runs.
//!
//! A reply is written one row per content block, all with the reply's `message.id`. When rows
//! that the client delivers beside a reply (attachments such as a Stop hook's context, system
//! rows such as `stop_hook_summary`, user rows tied to a tool call) sit between two rows of the
//! same reply, the client moves the reply's rows to where its first row is and the rows that
//! were between after them, so the reply is sent as one message. Anything else between (a
//! prompt, another reply, a compact boundary, a local command) fences the reply: it stays as
//! written. Tool results written before the first row of the reply that called them (the
//! client recorded them early) are moved after it, with the delivered rows that follow them.

use std::collections::HashMap;

use super::load::Row;
use super::rules::{HOOK_FEEDBACK, NOTICE_HOOKS, NOTICE_PREFIXES, NOTICES};
use crate::chain::{Kind, Sub};

/// What the regrouping needs to know of one row of the loaded chain.
#[derive(Debug, Default)]
pub(super) struct Item {
    pub class: Class,
    /// The reply an assistant row belongs to: its `message.id` (none for a virtual row).
    pub response: Option<String>,
    /// The ids of an assistant row's `tool_use` blocks.
    pub tool_uses: Vec<String>,
    /// The `tool_use_id`s of a user row's `tool_result` blocks (`None`: a result without one).
    pub results: Vec<Option<String>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Class {
    Assistant,
    /// A user row; `delivered`: one the client delivers beside a reply (`turnCompanion`, tied
    /// to a tool call by `sourceToolUseID`, or one of its notices).
    User {
        delivered: bool,
    },
    /// A system row; `fence`: a compact boundary or a local command.
    System {
        fence: bool,
    },
    /// Attachment rows and anything else.
    #[default]
    Other,
}

impl Item {
    /// The item of a chain row of `kind` and `sub`, read as `row` (`None`: a row never sent,
    /// or one the pipeline could not read).
    pub(super) fn of(kind: Kind, sub: Sub, row: Option<&Row>) -> Item {
        let blocks = || row.and_then(|r| r.content.as_array()).into_iter().flatten();
        match kind {
            Kind::Assistant => Item {
                class: Class::Assistant,
                response: row.and_then(|r| r.msg_id.clone()),
                tool_uses: blocks()
                    .filter(|b| b.ty == "tool_use")
                    .filter_map(|b| b.id.clone())
                    .collect(),
                ..Item::default()
            },
            Kind::User => Item {
                class: Class::User {
                    delivered: row.is_some_and(|r| r.delivered),
                },
                results: blocks()
                    .filter(|b| b.ty == "tool_result")
                    .map(|b| b.tool_use_id.clone())
                    .collect(),
                ..Item::default()
            },
            Kind::System => Item {
                class: Class::System {
                    fence: matches!(sub, Sub::CompactBoundary | Sub::LocalCommand),
                },
                ..Item::default()
            },
            Kind::Attachment => Item::default(),
        }
    }
}

/// Whether the first text of a meta user row is one of the client's own notices (`XB`): those
/// are delivered beside a reply, like the rows [`Class::User`] marks `delivered`.
pub(super) fn is_notice(text: &str) -> bool {
    NOTICE_PREFIXES.iter().any(|p| text.starts_with(p))
        || NOTICES.contains(&text)
        || NOTICE_HOOKS
            .iter()
            .any(|h| text.strip_prefix(h).is_some_and(|r| r.starts_with(HOOK_FEEDBACK)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    Block,
    Result,
    Delivery,
    Fence,
}

/// How `item` counts between two rows of `response`.
fn seen(item: &Item, response: &str) -> Seen {
    match item.class {
        Class::Assistant if item.response.as_deref() == Some(response) => Seen::Block,
        Class::Assistant => Seen::Fence,
        Class::User { .. } if !item.results.is_empty() => Seen::Result,
        Class::User { delivered: true } | Class::System { fence: false } | Class::Other => Seen::Delivery,
        Class::User { delivered: false } | Class::System { fence: true } => Seen::Fence,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Whole,
    Fenced,
    Split,
}

/// One reply's rows: where the first and last are, and how many.
struct Span {
    first: usize,
    last: usize,
    rows: usize,
    shape: Shape,
}

/// Each reply's span, with its shape, and the reply each tool call belongs to (`None` for an
/// id two replies use).
type Spans<'a> = (HashMap<&'a str, Span>, HashMap<&'a str, Option<&'a str>>);

fn spans(items: &[Item]) -> Spans<'_> {
    let mut spans: HashMap<&str, Span> = HashMap::new();
    let mut caller: HashMap<&str, Option<&str>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        let Some(r) = it.response.as_deref() else { continue };
        let span = spans.entry(r).or_insert(Span {
            first: i,
            last: i,
            rows: 0,
            shape: Shape::Whole,
        });
        span.last = i;
        span.rows += 1;
        for id in &it.tool_uses {
            caller
                .entry(id)
                .and_modify(|c| {
                    if *c != Some(r) {
                        *c = None;
                    }
                })
                .or_insert(Some(r));
        }
    }
    for (r, span) in spans.iter_mut() {
        if span.last - span.first + 1 == span.rows {
            continue;
        }
        for it in &items[span.first + 1..span.last] {
            match seen(it, r) {
                Seen::Fence => {
                    span.shape = Shape::Fenced;
                    break;
                }
                Seen::Delivery => span.shape = Shape::Split,
                Seen::Block | Seen::Result => {}
            }
        }
    }
    (spans, caller)
}

/// The new order of `items` and how many replies were regrouped, or `None` when nothing moves.
pub(super) fn order(items: &[Item]) -> Option<(Vec<usize>, usize)> {
    let (spans, caller) = spans(items);
    let any_split = spans.values().any(|s| s.shape == Shape::Split);
    let (early, moved) = early_results(items, &spans, &caller);
    if !any_split && early.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut placed = vec![false; items.len()];
    let mut regrouped = 0;
    // The rows each regrouped reply put off, taken up in turn (the client recurses).
    let mut pending: Vec<std::vec::IntoIter<usize>> = Vec::new();
    let mut place = |a: usize, out: &mut Vec<usize>, placed: &mut Vec<bool>| -> Option<Vec<usize>> {
        if placed[a] {
            return None;
        }
        let r = items[a].response.as_deref();
        let span = r.and_then(|r| spans.get(r));
        let early_rows = r.and_then(|r| early.get(r));
        let split = span.is_some_and(|s| s.shape == Shape::Split);
        let (Some(r), Some(span)) = (r, span) else {
            out.push(a);
            placed[a] = true;
            return None;
        };
        if span.first != a || (!split && early_rows.is_none()) {
            out.push(a);
            placed[a] = true;
            return None;
        }
        regrouped += 1;
        let mut put_off = Vec::new();
        for lt in a..=span.last {
            if placed[lt] || moved.contains_key(&lt) {
                continue;
            }
            if !split || items[lt].response.as_deref() == Some(r) {
                out.push(lt);
                placed[lt] = true;
            } else {
                put_off.push(lt);
            }
        }
        for &lt in early_rows.into_iter().flatten() {
            out.push(lt);
            placed[lt] = true;
        }
        Some(put_off)
    };
    for a in 0..items.len() {
        if moved.contains_key(&a) {
            continue;
        }
        if let Some(rows) = place(a, &mut out, &mut placed) {
            pending.push(rows.into_iter());
        }
        while let Some(top) = pending.last_mut() {
            match top.next() {
                Some(lt) => {
                    if let Some(rows) = place(lt, &mut out, &mut placed) {
                        pending.push(rows.into_iter());
                    }
                }
                None => {
                    pending.pop();
                }
            }
        }
    }
    // The client keeps the file order when a row would be lost or doubled.
    if out.len() != items.len() || placed.iter().any(|p| !p) || out.iter().enumerate().all(|(i, &a)| i == a) {
        return None;
    }
    Some((out, regrouped))
}

/// Tool results written before the first row of the reply that made their calls, with the
/// delivered rows right after them: by reply, and which reply each such row is moved after.
fn early_results<'a>(
    items: &[Item],
    spans: &HashMap<&'a str, Span>,
    caller: &HashMap<&str, Option<&'a str>>,
) -> (HashMap<&'a str, Vec<usize>>, HashMap<usize, &'a str>) {
    let mut by_reply: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut moved: HashMap<usize, &str> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if !matches!(it.class, Class::User { .. }) || it.results.is_empty() {
            continue;
        }
        // `Some(None)`: a call two replies share; `None`: a call of no reply here.
        let mut owners = it
            .results
            .iter()
            .map(|id| id.as_deref().and_then(|id| caller.get(id).copied()));
        let Some(first) = owners.next() else { continue };
        if owners.any(|o| o != first) {
            continue;
        }
        let Some(Some(r)) = first else { continue };
        let span = &spans[r];
        if span.shape == Shape::Fenced || i >= span.first {
            continue;
        }
        if items[i + 1..span.first]
            .iter()
            .any(|x| x.class != Class::Assistant && seen(x, r) == Seen::Fence)
        {
            continue;
        }
        let rows = by_reply.entry(r).or_default();
        rows.push(i);
        moved.insert(i, r);
        for (lt, x) in items.iter().enumerate().take(span.first).skip(i + 1) {
            if seen(x, r) != Seen::Delivery {
                break;
            }
            moved.insert(lt, r);
            rows.push(lt);
        }
    }
    (by_reply, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(id: &str, calls: &[&str]) -> Item {
        Item {
            class: Class::Assistant,
            response: Some(id.into()),
            tool_uses: calls.iter().map(|c| c.to_string()).collect(),
            ..Item::default()
        }
    }

    fn system() -> Item {
        Item {
            class: Class::System { fence: false },
            ..Item::default()
        }
    }

    fn prompt() -> Item {
        Item {
            class: Class::User { delivered: false },
            ..Item::default()
        }
    }

    fn result(id: &str) -> Item {
        Item {
            class: Class::User { delivered: false },
            results: vec![Some(id.into())],
            ..Item::default()
        }
    }

    #[test]
    fn a_reply_split_by_delivered_rows_is_put_together() {
        let items = [
            prompt(),
            reply("m1", &[]),
            Item::default(),
            system(),
            reply("m1", &[]),
            reply("m1", &[]),
        ];
        assert_eq!(order(&items), Some((vec![0, 1, 4, 5, 2, 3], 1)));
    }

    #[test]
    fn a_reply_fenced_by_a_prompt_or_another_reply_stays() {
        let fenced = [reply("m1", &[]), Item::default(), prompt(), reply("m1", &[])];
        assert_eq!(order(&fenced), None);
        let other = [reply("m1", &[]), system(), reply("m2", &[]), reply("m1", &[])];
        assert_eq!(order(&other), None);
        let local = [
            reply("m1", &[]),
            Item {
                class: Class::System { fence: true },
                ..Item::default()
            },
            reply("m1", &[]),
        ];
        assert_eq!(order(&local), None);
    }

    #[test]
    fn rows_only_of_results_between_leave_the_reply_as_written() {
        let items = [reply("m1", &["t1"]), result("t1"), reply("m1", &["t2"]), result("t2")];
        assert_eq!(order(&items), None);
    }

    #[test]
    fn the_clients_notices_are_delivered_rows() {
        assert!(is_notice("Stop hook feedback:\n[check.sh]: run it again"));
        assert!(is_notice("TaskCompleted hook feedback:\nx"));
        assert!(!is_notice("Stop hook feedback: without a newline"));
        assert!(is_notice("Goal check-in: \u{ab}tests pass\u{bb}"));
        assert!(is_notice(
            "Your tool call was malformed and could not be parsed. Please retry."
        ));
        assert!(!is_notice(
            "Your tool call was malformed and could not be parsed. Please retry. Now."
        ));
        assert!(!is_notice("fix the tests"));
    }

    #[test]
    fn a_result_written_before_its_call_follows_the_reply() {
        let items = [prompt(), result("t1"), Item::default(), reply("m1", &["t1"]), prompt()];
        assert_eq!(order(&items), Some((vec![0, 3, 1, 2, 4], 1)));
    }

    #[test]
    fn results_in_a_split_reply_go_after_it() {
        let items = [reply("m1", &["t1"]), result("t1"), system(), reply("m1", &[]), prompt()];
        assert_eq!(order(&items), Some((vec![0, 3, 1, 2, 4], 1)));
    }
}
