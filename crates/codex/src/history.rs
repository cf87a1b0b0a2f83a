//! The history Codex resumes from a rollout.
//!
//! Current Codex (0.171, checked with the real client) reconstructs history by a reverse
//! scan (`docs/codex.md#the-resume-reconstruction`): records are grouped into turn segments
//! closed by `task_started`; a pending `thread_rolled_back` discards whole segments — a
//! compaction inside a discarded turn goes with it — and only surviving records are
//! replayed, from the newest surviving `compacted` that has a `replacement_history`. (The
//! quirk the older source suggested, replaying from a discarded compaction, is *not* what
//! 0.171 does: `docs/codex.md#what-cctool-does-not-emulate`.)
//!
//! `--replay legacy` is the pre-2026-02-27 forward fold: every record in order, a rollback
//! cutting the rebuilt history at the Nth-last user turn
//! (`docs/codex.md#the-older-forward-replay`). The two differ only when a rollback crosses a
//! compaction.

use crate::model::approx_tokens;
use crate::rollout::{Compacted, Era, Event, Item, ItemSrc, Record, Rollout};

/// Tokens of the history a Codex resume sends: the items as a JSON array, as written. `scan`
/// reports the same number as `resume_tokens`: one estimate everywhere.
pub fn history_tokens(items: &[Item]) -> usize {
    crate::model::json_array_tokens(items.iter().map(|i| match &i.src {
        ItemSrc::Raw { len, .. } => *len as usize,
        ItemSrc::Synth(s) => s.len(),
    }))
}

/// [`history_tokens`] of a replacement history as the compacted record writes it.
pub fn replacement_tokens(history: &[Box<serde_json::value::RawValue>]) -> usize {
    crate::model::json_array_tokens(history.iter().map(|h| {
        // Written as a value of the record, so re-encoded compactly.
        serde_json::from_str::<serde_json::Value>(h.get())
            .and_then(|v| serde_json::to_string(&v))
            .map_or(h.get().len(), |s| s.len())
    }))
}

pub use crate::model::resume::Replay;

/// `COMPACT_USER_MESSAGE_MAX_TOKENS`: budget of user messages kept by a legacy rebuild.
pub const USER_MESSAGE_BUDGET_TOKENS: usize = 20_000;

/// The reconstructed history.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The items, in the order a resume sends them.
    pub items: Vec<Item>,
    /// Line of the `compacted` record the history starts from, if any.
    pub base_line: Option<u64>,
    /// Segments discarded by rollbacks (current replay).
    pub discarded_turns: usize,
    /// Records of discarded segments.
    pub discarded_records: usize,
}

/// Current Codex's reconstruction.
pub fn reconstruct(rollout: &Rollout) -> History {
    if rollout.era != Era::Envelope {
        // Formats Codex no longer reads are replayed forward (they have no turns).
        return replay_forward(rollout);
    }
    let recs = &rollout.records;
    let mut survives = vec![true; recs.len()];
    let mut pending: u64 = 0;
    let mut discarded_turns = 0;
    // The open segment: its record indices, turn id, and whether it holds a user turn.
    let mut seg: Vec<usize> = Vec::new();
    let mut seg_open = false;
    let mut seg_turn: Option<&str> = None;
    let mut seg_user = false;

    let compatible = |a: Option<&str>, b: Option<&str>| match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };

    let finalize =
        |seg: &mut Vec<usize>, seg_user: bool, pending: &mut u64, survives: &mut Vec<bool>, discarded: &mut usize| {
            if *pending > 0 {
                if seg_user {
                    *pending -= 1;
                    *discarded += 1;
                }
                for &i in seg.iter() {
                    survives[i] = false;
                }
            }
            seg.clear();
        };

    for i in (0..recs.len()).rev() {
        let rec = &recs[i].1;
        if let Record::Event(Event::RolledBack(n)) = rec {
            pending = pending.saturating_add(*n);
            survives[i] = false; // applied here; never replayed
            continue;
        }
        if !seg_open {
            seg_open = true;
            seg_turn = None;
            seg_user = false;
        }
        seg.push(i);
        match rec {
            Record::Event(Event::TaskComplete(id) | Event::TurnAborted(id)) if seg_turn.is_none() => {
                seg_turn = id.as_deref();
            }
            Record::Event(Event::UserMessage) => seg_user = true,
            Record::Response(item) | Record::InterAgent(item) if item.user_turn => seg_user = true,
            Record::TurnContext { turn_id, .. } if seg_turn.is_none() => seg_turn = turn_id.as_deref(),
            Record::Event(Event::TaskStarted(id)) if compatible(seg_turn, id.as_deref()) => {
                finalize(&mut seg, seg_user, &mut pending, &mut survives, &mut discarded_turns);
                seg_open = false;
            }
            _ => {}
        }
    }
    if seg_open {
        finalize(&mut seg, seg_user, &mut pending, &mut survives, &mut discarded_turns);
    }

    let discarded_records = survives
        .iter()
        .zip(recs)
        .filter(|(s, r)| !**s && !matches!(r.1, Record::Event(Event::RolledBack(_))))
        .count();
    let base = (0..recs.len()).rev().find(|&i| {
        survives[i]
            && matches!(&recs[i].1, Record::Compacted(c) if c.replacement_history.is_some() && !c.skipped_by_codex)
    });
    let mut history = History {
        discarded_turns,
        discarded_records,
        ..History::default()
    };
    let start = match base {
        Some(b) => {
            if let Record::Compacted(c) = &recs[b].1 {
                history.items = c.replacement_history.clone().unwrap_or_default();
                history.base_line = Some(c.line);
            }
            b + 1
        }
        None => 0,
    };
    for i in start..recs.len() {
        if survives[i] {
            apply(&mut history, &recs[i].1, false);
        }
    }
    history
}

/// The pre-2026-02-27 forward fold (`--replay legacy`), also used for the eras current
/// Codex cannot read.
pub fn replay_forward(rollout: &Rollout) -> History {
    let mut history = History::default();
    for (_, rec) in &rollout.records {
        apply(&mut history, rec, true);
    }
    history
}

fn apply(h: &mut History, rec: &Record, rollbacks: bool) {
    match rec {
        Record::Response(item) | Record::InterAgent(item) if item.api => {
            let mut item = item.clone();
            item.recorded = true;
            h.items.push(item);
        }
        Record::Compacted(c) if !c.skipped_by_codex => {
            h.base_line = Some(c.line);
            h.items = match &c.replacement_history {
                Some(rh) => rh.clone(),
                None => rebuild_legacy(&h.items, c),
            };
        }
        Record::Event(Event::RolledBack(n)) if rollbacks => drop_last_user_turns(&mut h.items, *n),
        _ => {}
    }
}

/// `build_compacted_history` for a `compacted` without `replacement_history`: the real user
/// messages, newest first within 20,000 tokens (the first that does not fit is cut to its
/// head), in chronological order, then the summary as a user message.
pub fn rebuild_legacy(history: &[Item], c: &Compacted) -> Vec<Item> {
    let texts: Vec<&str> = history.iter().filter_map(Item::user_text).collect();
    let kept = kept_user_message_parts(&texts, USER_MESSAGE_BUDGET_TOKENS);
    let mut out: Vec<Item> = kept.iter().map(|parts| synth_user(parts, false)).collect();
    let summary = if c.message.is_empty() {
        "(no summary available)".to_string()
    } else {
        c.message.clone()
    };
    out.push(synth_user(&[summary], true));
    out
}

/// The user messages `build_compacted_history` keeps of `texts` (oldest first), each as the
/// text parts Codex 0.171 writes: newest first while they fit `budget` tokens; the first that
/// does not fit is cut in the middle to what is left and written as three parts — head,
/// `…N tokens truncated…`, tail, empty ones left out — and the walk stops; then put back in
/// chronological order. See `docs/codex-request.md` (rebuilt legacy compactions).
pub fn kept_user_message_parts(texts: &[&str], budget: usize) -> Vec<Vec<String>> {
    let mut kept: Vec<Vec<String>> = Vec::new();
    let mut remaining = budget;
    for text in texts.iter().rev() {
        if remaining == 0 {
            break;
        }
        let tokens = approx_tokens(text.len());
        if tokens <= remaining {
            kept.push(vec![(*text).to_string()]);
            remaining -= tokens;
        } else {
            let (head, marker, tail) = super::api::cut_middle_parts(text, remaining.saturating_mul(4), true);
            kept.push(
                [head, marker.as_str(), tail]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect(),
            );
            break;
        }
    }
    kept.reverse();
    kept
}

/// [`kept_user_message_parts`] with each message's parts joined: the single text the
/// pre-0.171 clients wrote (head, marker and tail in one part).
pub fn kept_user_messages(texts: &[&str], budget: usize) -> Vec<String> {
    kept_user_message_parts(texts, budget)
        .into_iter()
        .map(|parts| parts.concat())
        .collect()
}

fn synth_user(parts: &[String], is_summary: bool) -> Item {
    let text = parts.concat();
    let content: Vec<serde_json::Value> = parts
        .iter()
        .map(|p| serde_json::json!({"type": "input_text", "text": p}))
        .collect();
    let src = ItemSrc::Synth(
        serde_json::json!({"type": "message", "role": "user", "content": content})
            .to_string()
            .into(),
    );
    let mut item = Item::new(src, "message", Some("user"));
    item.api = true;
    item.user_turn = true;
    item.summary = is_summary;
    if !is_summary && crate::rollout::summary_body(&text).is_none() {
        item.set_user_text(text.into());
    }
    item
}

/// `drop_last_n_user_turns`: cut at the Nth-last user turn (the first if N exceeds them),
/// together with the contextual messages just above the cut.
pub fn drop_last_user_turns(items: &mut Vec<Item>, n: u64) {
    if n == 0 {
        return;
    }
    let turns: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.user_turn)
        .map(|(k, _)| k)
        .collect();
    if turns.is_empty() {
        return;
    }
    let mut cut = if (n as usize) < turns.len() {
        turns[turns.len() - n as usize]
    } else {
        turns[0]
    };
    while cut > 0 && items[cut - 1].context {
        cut -= 1;
    }
    items.truncate(cut);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Item {
        synth_user(&[text.to_string()], false)
    }

    #[test]
    fn rollback_cuts_at_nth_last_user_turn() {
        let mut items = vec![user("a"), user("b"), user("c")];
        drop_last_user_turns(&mut items, 2);
        assert_eq!(items.len(), 1);
        let mut items = vec![user("a"), user("b")];
        drop_last_user_turns(&mut items, 9);
        assert!(items.is_empty());
        let mut items = vec![user("a")];
        drop_last_user_turns(&mut items, 0);
        assert_eq!(items.len(), 1);
    }

    #[test]
    fn user_messages_newest_first_within_budget() {
        let a = "a".repeat(400);
        let b = "b".repeat(400);
        let c = "c".repeat(40);
        // 100 + 100 + 10 tokens, budget 150: c and b whole are 110, a is cut to 40 tokens:
        // 80 bytes of head and of tail around the marker, as three parts.
        let kept = kept_user_message_parts(&[&a, &b, &c], 150);
        assert_eq!(kept.len(), 3);
        assert_eq!(
            kept[0],
            ["a".repeat(80), "…60 tokens truncated…".into(), "a".repeat(80)]
        );
        assert_eq!(kept[1], [b]);
        assert_eq!(kept[2], [c]);
    }

    #[test]
    fn a_cut_user_message_keeps_char_boundaries_and_drops_empty_parts() {
        let s = format!("{}é{}", "x".repeat(39_999), "y".repeat(60_000));
        let kept = kept_user_message_parts(&[&s], 20_000);
        assert_eq!(kept[0][0], "x".repeat(39_999));
        assert_eq!(kept[0][1], "…5001 tokens truncated…");
        // A budget of one token leaves 2 bytes each side: no whole emoji fits, only the marker.
        let s = "😀".repeat(30_000);
        let kept = kept_user_message_parts(&[&s, &"q".repeat(79_996)], 20_000);
        assert_eq!(kept[0], ["…29999 tokens truncated…"]);
    }

    #[test]
    fn legacy_rebuild_keeps_newest_user_messages_within_budget() {
        let big = "x".repeat(USER_MESSAGE_BUDGET_TOKENS * 4);
        let history = vec![user("oldest"), user(&big), user("newest")];
        let c = Compacted {
            line: 1,
            offset: 0,
            len: 0,
            message: "S".into(),
            replacement_history: None,
            timestamp: None,
            skipped_by_codex: false,
        };
        let out = rebuild_legacy(&history, &c);
        // "newest" (2 tokens) fits, the big one is cut to the head of what is left, "oldest" is
        // dropped.
        assert_eq!(out.len(), 3);
        assert_eq!(out[1].user_text(), Some("newest"));
        let cut = out[0].user_text().unwrap();
        // 19,998 tokens are left: 39,996 bytes each side of the marker.
        assert_eq!(cut, format!("{0}…2 tokens truncated…{0}", "x".repeat(39_996)));
        assert!(matches!(&out[0].src, ItemSrc::Synth(s) if s.matches("input_text").count() == 3));
        assert!(out[2].summary);
    }
}
