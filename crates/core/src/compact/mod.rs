//! Offline compaction (`cctool compact`) and its inverse for tier 1 (`cctool decompress`).
//!
//! Every format goes through the same steps: the conversation a resume loads is cut into
//! [`Unit`]s (one native record, history item or v5 message each) measured in estimated
//! tokens; [`plan`] picks the cut (a verbatim tail of at least `--keep-recent` tokens, never
//! between a tool call and its result, preferably before a user prompt, the smallest span that
//! reaches `--budget`); the span, streamed as the session model's records ([`Feed`]), becomes a
//! [`recap::Recap`], merged into any earlier one; and a
//! writer per format appends or rewrites what the agent will load (`claude`, `codex`,
//! `session`).

pub mod file;
pub mod ids;
pub mod recap;
mod report;
pub mod summarizer;

pub use report::{Measure, Report};

use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;

use crate::model::events::Record;
use crate::model::{AgentId, approx_tokens};
use crate::v5::schema::{Item, MessageV3};
use recap::Recap;

/// `--tier`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Tier {
    /// Drop reasoning and replace older tool results with placeholders (reversible).
    #[cfg_attr(feature = "clap", value(name = "1"))]
    One,
    /// Replace the oldest span with a structured recap.
    #[cfg_attr(feature = "clap", value(name = "2"))]
    Two,
    /// Tier 1, then tier 2 if the session is still over the budget.
    #[default]
    Auto,
}

/// What `compact` was asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--keep-recent`: estimated tokens at the end kept verbatim.
    pub keep_recent: usize,
    /// `--budget`: estimated tokens the resumed conversation should fit in; `None`: no budget, the
    /// tail is at least `keep_recent`.
    pub budget: Option<usize>,
    /// `--tier`: which compaction to apply.
    pub tier: Tier,
    /// `--keep-results`: tier 1 keeps this many most recent tool results whole.
    pub keep_results: usize,
    /// `--summarizer`: the command that writes the recap; `None`: the extractive recap.
    pub summarizer: Option<String>,
    /// `--summarizer-timeout`: how long the summarizer may run before the extractive recap is used.
    pub summarizer_timeout: Duration,
    /// Where the full record lives, for the "read the full transcript at" hint.
    pub transcript_path: Option<String>,
    /// The agent whose tools the session's calls are, when known: the recap reads them with
    /// its vocabulary first ([`recap::Tools`]). Each agent's compaction says it, not the
    /// command line.
    pub source: Option<AgentId>,
    /// `--dry-run`: plan and report, write nothing (no summarizer is run either).
    pub dry_run: bool,
    /// `--force`: replace an existing output, or rewrite a file that looks live.
    pub force: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            keep_recent: 20_000,
            budget: None,
            tier: Tier::Auto,
            keep_results: 10,
            summarizer: None,
            summarizer_timeout: Duration::from_secs(120),
            transcript_path: None,
            source: None,
            dry_run: false,
            force: false,
        }
    }
}

fn value_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        other => serde_json::to_string(other).map_or(0, |s| s.len()),
    }
}

/// Bytes a message puts into the model's context: texts as text, structures as compact JSON.
pub fn message_bytes(m: &MessageV3) -> usize {
    m.items
        .iter()
        .map(|it| match it {
            Item::Text { text, .. } | Item::Reasoning { text, .. } => text.len(),
            Item::ToolCall { name, args, .. } => name.len() + value_bytes(args),
            Item::ToolResult { content, .. } => value_bytes(content),
            Item::Other(v) => match v.get("type").and_then(Value::as_str) {
                Some("summary") => v.get("text").map_or(0, value_bytes),
                _ => value_bytes(v),
            },
        })
        .sum()
}

/// Estimated tokens of one message.
pub fn message_tokens(m: &MessageV3) -> usize {
    approx_tokens(message_bytes(m))
}

/// One indivisible piece of the loaded conversation, as little as the cut needs: a span of
/// gigabytes is planned from these alone, and its messages are read again, streamed, only
/// for the recap.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    /// Estimated tokens the unit puts into the model's context.
    pub tokens: usize,
    /// It opens a user turn: a real prompt, not a tool result or injected context.
    pub prompt: bool,
    /// Recaps of earlier compactions, to be merged rather than summarised again.
    pub earlier: Vec<Earlier>,
    /// It must not be summarised (e.g. an encrypted remote compaction): carried over as is.
    pub carry: bool,
    /// Ids of the tool calls it makes.
    pub calls: Vec<Box<str>>,
    /// Ids of the tool calls whose results it holds.
    pub results: Vec<Box<str>>,
}

/// A recap written by an earlier compaction.
#[derive(Clone, Debug)]
pub enum Earlier {
    /// Written by cctool: parsed back into its fields.
    Structured(Recap),
    /// Written by the agent itself: kept as text.
    Text(String),
}

const EARLIER_HEADING: &str = "[Earlier Summary]\n";

impl Earlier {
    /// The recaps in a summary's text: agent-written summaries that an earlier cctool
    /// compaction kept under `[Earlier Summary]`, then cctool's own `[Summary]` block.
    pub fn from_text(text: &str) -> Vec<Earlier> {
        let (before, recap) = match text.rfind("[Summary]\n") {
            Some(i) => match Recap::parse(&text[i..]) {
                Some(r) => (&text[..i], Some(r)),
                None => (text, None),
            },
            None => (text, None),
        };
        let mut out: Vec<Earlier> = Vec::new();
        if recap.is_some() && before.trim_start().starts_with(EARLIER_HEADING.trim_end()) {
            out.extend(
                before
                    .split(EARLIER_HEADING)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| Earlier::Text(t.to_string())),
            );
        } else if !before.trim().is_empty() {
            out.push(Earlier::Text(before.trim().to_string()));
        }
        out.extend(recap.map(Earlier::Structured));
        out
    }
}

impl Unit {
    /// The unit of these messages, measured with [`message_tokens`].
    pub fn of_messages(messages: &[MessageV3]) -> Unit {
        let mut u = Unit {
            tokens: messages.iter().map(message_tokens).sum(),
            ..Unit::default()
        };
        for m in messages {
            for it in &m.items {
                if let Item::ToolCall { id, .. } = it
                    && !id.is_empty()
                {
                    u.calls.push(id.as_str().into());
                }
            }
            if let Some(id) = m.tool_call_id.as_deref() {
                u.results.push(id.into());
            }
        }
        u
    }
}

/// Streams the units `[0, at)` that are neither earlier recaps nor carried, in order, as
/// records of the session model ([`crate::model::events`]): the span a recap is made of.
pub type Feed<'a> = dyn FnMut(usize, &mut dyn FnMut(&Record)) -> std::io::Result<()> + 'a;

/// Where to cut, and why.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Cut {
    /// Units `[0, at)` are summarised; `[at, n)` are kept verbatim.
    pub at: usize,
    /// Estimated tokens of all the units.
    pub tokens_before: usize,
    /// Estimated tokens of the span `[0, at)` that is summarised.
    pub span_tokens: usize,
    /// Estimated tokens of the tail `[at, n)` kept verbatim.
    pub tail_tokens: usize,
    /// The cut is before a user prompt (else between complete tool exchanges).
    pub on_prompt: bool,
    /// The tail is smaller than `--keep-recent` because the budget asked for it.
    pub tail_reduced: bool,
}

/// Cut positions where no tool call before the cut has its result after it.
pub fn safe_cuts(units: &[Unit]) -> Vec<bool> {
    let n = units.len();
    let mut opened: FxHashMap<&str, usize> = FxHashMap::default();
    // +1 where an open interval starts, -1 past its end: a prefix sum > 0 means "inside a pair".
    let mut diff = vec![0i64; n + 2];
    for (i, u) in units.iter().enumerate() {
        for id in &u.calls {
            opened.entry(id).or_insert(i);
        }
        for id in &u.results {
            if let Some(&o) = opened.get(&**id)
                && o < i
            {
                diff[o + 1] += 1;
                diff[i + 1] -= 1;
            }
        }
    }
    let mut safe = vec![false; n + 1];
    let mut depth = 0i64;
    for (i, s) in safe.iter_mut().enumerate() {
        depth += diff[i];
        *s = depth == 0;
    }
    safe
}

/// How far a prompt boundary may move the cut from the latest legal one: a twentieth of that
/// cut's tail. Further away, the cut falls between complete tool exchanges instead, so that a
/// long agentic turn is not kept (or summarised) whole just to start the tail at a prompt.
pub fn prompt_tolerance(tail_tokens: usize) -> usize {
    tail_tokens / 20
}

/// Chooses the cut: the latest legal point that meets the request. Legal: never between a tool
/// call and its result, after something new (not only earlier recaps), and with every earlier
/// recap in the span. Without a budget, the tail keeps at least `--keep-recent` tokens (the
/// largest legal tail when an earlier recap lies within them and more precedes it); with
/// one, it is the largest tail that fits (the smallest span), shorter than `--keep-recent` if
/// the budget needs it. A cut before a user prompt is preferred when its tail is within
/// [`prompt_tolerance`] of that. `fixed(at)` is the size of what replaces the span `[0, at)`
/// (the recap and anything carried over); it is asked only for candidate cuts. None: nothing
/// to compact.
pub fn plan(units: &[Unit], opts: &Options, mut fixed: impl FnMut(usize) -> usize) -> Option<Cut> {
    let n = units.len();
    let total: usize = units.iter().map(|u| u.tokens).sum();
    if opts.budget.is_some_and(|b| total <= b) {
        return None;
    }
    let safe = safe_cuts(units);
    // tail[i] = tokens of units[i..].
    let mut tail = vec![0usize; n + 1];
    for i in (0..n).rev() {
        tail[i] = tail[i + 1] + units[i].tokens;
    }
    // A span must hold something new: not only earlier recaps and carried items.
    let first_new = units.iter().position(|u| u.earlier.is_empty() && !u.carry)?;
    // Every earlier recap goes into the new one: none may stay in the verbatim tail.
    let after_earlier = units.iter().rposition(|u| !u.earlier.is_empty()).map_or(0, |i| i + 1);
    let legal = |i: usize| i > first_new && i >= after_earlier && safe[i];
    // The end of the conversation is a turn boundary too.
    let turn = |i: usize| i == n || units[i].prompt;
    let cut = |at: usize| Cut {
        at,
        tokens_before: total,
        span_tokens: total - tail[at],
        tail_tokens: tail[at],
        on_prompt: at < n && units[at].prompt,
        tail_reduced: tail[at] < opts.keep_recent,
    };
    let cuts = first_new + 1..=n;
    let Some(budget) = opts.budget else {
        // The smallest tail of at least keep_recent, or a prompt boundary keeping a little more.
        let best = match cuts.clone().rev().find(|&i| legal(i) && tail[i] >= opts.keep_recent) {
            Some(best) => best,
            // More than keep_recent could be kept, but no cut keeping that much is legal (an
            // earlier recap within the most recent tokens must go into the span): the largest
            // legal tail is kept, shorter than asked and reported so, rather than nothing
            // compacted with a note that everything is recent.
            None if after_earlier > first_new + 1 && tail[first_new + 1] >= opts.keep_recent => {
                cuts.clone().find(|&i| legal(i))?
            }
            None => return None,
        };
        let most = tail[best] + prompt_tolerance(tail[best]);
        let at = (first_new + 1..=best)
            .rev()
            .take_while(|&i| tail[i] <= most)
            .find(|&i| legal(i) && turn(i))
            .unwrap_or(best);
        return Some(cut(at));
    };
    let Some(best) = cuts.clone().find(|&i| legal(i) && fixed(i) + tail[i] <= budget) else {
        // Unreachable: compact as much as can be cut, and let the caller report the overshoot.
        return cuts.rev().find(|&i| legal(i)).map(cut);
    };
    // The largest tail that fits, or a prompt boundary keeping a little less.
    let least = tail[best] - prompt_tolerance(tail[best]);
    let at = (best..=n)
        .take_while(|&i| tail[i] >= least)
        .find(|&i| legal(i) && turn(i) && fixed(i) + tail[i] <= budget)
        .unwrap_or(best);
    Some(cut(at))
}

/// The recap of a span, and how it was made.
#[derive(Clone, Debug)]
pub struct Made {
    /// The recap of the span itself.
    pub recap: Recap,
    /// Agent-written summaries of earlier compactions, kept verbatim in front of the recap.
    pub earlier_text: Vec<String>,
    /// "extractive", or "summarizer".
    pub method: &'static str,
    /// Why the summarizer was not used, when one was asked for.
    pub fallback: Option<String>,
}

impl Made {
    /// The text the agent reads.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for t in &self.earlier_text {
            s.push_str(EARLIER_HEADING);
            s.push_str(t);
            s.push_str("\n\n");
        }
        s.push_str(&self.recap.render());
        s
    }

    /// Estimated tokens of [`Made::text`].
    pub fn tokens(&self) -> usize {
        approx_tokens(self.text().len())
    }
}

/// Builds the recap of the span `units[..at]`: earlier recaps merged (spec merge rules), the
/// rest extracted from the messages `feed` streams, or summarised by `--summarizer` with the
/// extractive recap as the fallback.
pub fn make_recap(
    units: &[Unit],
    at: usize,
    opts: &Options,
    use_summarizer: bool,
    feed: &mut Feed<'_>,
) -> std::io::Result<Made> {
    let mut old: Option<Recap> = None;
    let mut earlier_text = Vec::new();
    for u in &units[..at] {
        for e in &u.earlier {
            match e {
                Earlier::Structured(r) => {
                    old = Some(match old {
                        Some(o) => Recap::merge(&o, r),
                        None => r.clone(),
                    })
                }
                Earlier::Text(t) => earlier_text.push(t.clone()),
            }
        }
    }
    let summarizer = opts.summarizer.as_deref().filter(|_| use_summarizer);
    let mut x = recap::Extractor::new(recap::Tools::of(opts.source));
    let mut prompt = summarizer.map(|_| summarizer::Prompt::default());
    feed(at, &mut |m| {
        if let Some(p) = &mut prompt {
            p.push(m);
        }
        x.push(m);
    })?;
    let extracted = x.finish();
    let mut method = "extractive";
    let mut fallback = None;
    let mut new = extracted.clone();
    if let (Some(cmd), Some(p)) = (summarizer, prompt) {
        match summarizer::run(cmd, &p.finish(old.as_ref()), opts.summarizer_timeout) {
            Ok(out) => match summarizer::parse_fields(&out) {
                Some(mut r) => {
                    // Files come from the tool calls, never from a model's memory.
                    r.files = extracted.files.clone();
                    new = r;
                    method = "summarizer";
                }
                None => {
                    fallback = Some(
                        "its output has none of the fields Goal, Constraints, Progress, Key Decisions, Next Steps"
                            .into(),
                    )
                }
            },
            Err(e) => fallback = Some(e.to_string()),
        }
    }
    let recap = match old {
        Some(o) => Recap::merge(&o, &new),
        None => new,
    };
    Ok(Made {
        recap,
        earlier_text,
        method,
        fallback,
    })
}

/// Runs `f` over `items` in order, each read (`read`) and parsed (`parse_one`) on every core a
/// batch at a time; after each batch, the file range its items span (`span`: start and end
/// offsets, None for an item not read from the file) leaves the resident set, so a scan of a
/// mapped file of gigabytes keeps a few megabytes resident.
pub fn batched<'s, I: Sync, T: Send>(
    src: &'s crate::io::Source,
    items: &[I],
    read: impl Fn(&I) -> std::io::Result<std::borrow::Cow<'s, [u8]>> + Sync,
    span: impl Fn(&I) -> Option<(u64, u64)>,
    parse_one: impl Fn(&I, &[u8]) -> T + Sync,
    mut f: impl FnMut(T),
) -> std::io::Result<()> {
    use rayon::prelude::*;
    const BATCH: usize = 4096;
    for batch in items.chunks(BATCH) {
        let done = batch
            .par_iter()
            .map(|i| Ok(parse_one(i, &read(i)?)))
            .collect::<std::io::Result<Vec<T>>>()?;
        done.into_iter().for_each(&mut f);
        let (lo, hi) = batch
            .iter()
            .filter_map(&span)
            .fold((u64::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        if lo < hi {
            src.done_with(lo, hi - lo);
        }
    }
    Ok(())
}

/// Copies the input to `w` as it is, adding a final newline when it lacks one, so that appended
/// records start on their own line.
pub fn copy_all(src: &crate::io::Source, w: &mut crate::io::atomic::Output) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(f) = src.file() {
        w.copy_from(f, src.len())?;
        let ends_line = src.is_empty() || src.read_range(src.len() - 1, 1)?.first() == Some(&b'\n');
        if !ends_line {
            w.write_all(b"\n")?;
        }
        return Ok(());
    }
    let mut last = b'\n';
    let mut err = None;
    src.for_each_chunk(|_, chunk, _| {
        if let Some(&b) = chunk.last() {
            last = b;
        }
        if err.is_none()
            && let Err(e) = w.write_all(chunk)
        {
            err = Some(e);
        }
    })?;
    if let Some(e) = err {
        return Err(e);
    }
    if last != b'\n' && !src.is_empty() {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// The exact size of a compacted session, where the units only estimate it: what a resume of
/// the input sends (`before`) and of the output (`after(at, recap)`), in the one estimate
/// `scan` reports.
pub struct Exact<'a> {
    /// Tokens a resume of the input sends.
    pub before: usize,
    /// Tokens a resume of the output sends, given the cut and the recap.
    pub after: &'a dyn Fn(usize, &Made) -> std::io::Result<usize>,
}

/// Plans the cut and makes the recap. Without a budget that is one pass over the span. With
/// one, the cut depends on the recap's size, which depends on the cut: the plan starts from an
/// estimate and is redone with the size of the recap it produced until that fits (a recap
/// grows little with its span, so this settles in two or three passes). `overhead(at)`: what
/// else replaces the span `[0, at)`; `recap_tokens`: the recap's size as the agent reads it.
pub fn plan_and_recap(
    units: &[Unit],
    opts: &Options,
    use_summarizer: bool,
    feed: &mut Feed<'_>,
    overhead: impl Fn(usize) -> usize,
    recap_tokens: impl Fn(&Made) -> usize,
) -> std::io::Result<Option<(Cut, Made)>> {
    plan_and_recap_exact(units, opts, use_summarizer, feed, overhead, recap_tokens, None)
}

/// [`plan_and_recap`] for a budget in the `exact` measure: the budget is first scaled from the
/// exact size to the units' estimate, then lowered by what the exact size of the result still
/// exceeds it, until it fits.
pub fn plan_and_recap_exact(
    units: &[Unit],
    opts: &Options,
    use_summarizer: bool,
    feed: &mut Feed<'_>,
    overhead: impl Fn(usize) -> usize,
    recap_tokens: impl Fn(&Made) -> usize,
    exact: Option<Exact<'_>>,
) -> std::io::Result<Option<(Cut, Made)>> {
    let Some(budget) = opts.budget else {
        let Some(cut) = plan(units, opts, |_| 0) else {
            return Ok(None);
        };
        let made = make_recap(units, cut.at, opts, use_summarizer, feed)?;
        return Ok(Some((cut, made)));
    };
    let estimated: usize = units.iter().map(|u| u.tokens).sum();
    let mut planned = None;
    let mut scaled = budget;
    if let Some(x) = &exact {
        if x.before <= budget {
            return Ok(None);
        }
        scaled = (budget as u128 * estimated as u128 / x.before.max(1) as u128) as usize;
    }
    // Each plan's exact size moves the budget the estimate plans with by what it missed, down
    // when over and up when under (a cut the estimate put just over may fit), until a cut comes
    // back; the fitting plan with the largest tail wins. A cut over the budget that comes back
    // after the move (the estimate moved too little to change it) is pushed further, twice as
    // far each time, so a miss of a few tokens cannot end the search over the budget.
    let mut tried = Vec::new();
    let mut over_budget: Option<(Cut, Made)> = None;
    let mut push = 0usize;
    for _ in 0..16 {
        let o = Options {
            budget: Some(scaled),
            ..opts.clone()
        };
        let Some((cut, made)) = settle(units, &o, feed, &overhead, &recap_tokens)? else {
            break;
        };
        let Some(x) = &exact else {
            planned = Some((cut, made));
            break;
        };
        if tried.contains(&cut.at) {
            let again_over = over_budget.as_ref().is_some_and(|(c, _)| c.at == cut.at);
            if again_over && planned.is_none() && scaled > 0 {
                push = push.saturating_mul(2).max(1);
                scaled = scaled.saturating_sub(push);
                continue;
            }
            break;
        }
        tried.push(cut.at);
        let size = (x.after)(cut.at, &made)?;
        if size <= budget {
            let slack = budget - size;
            if planned
                .as_ref()
                .is_none_or(|(p, _): &(Cut, Made)| cut.tail_tokens > p.tail_tokens)
            {
                planned = Some((cut, made));
            }
            if slack == 0 {
                break;
            }
            scaled += slack;
        } else {
            over_budget = Some((cut, made));
            if scaled == 0 {
                break;
            }
            push = size - budget;
            scaled = scaled.saturating_sub(push);
        }
    }
    let Some((cut, made)) = planned.or(over_budget) else {
        return Ok(None);
    };
    if use_summarizer && opts.summarizer.is_some() {
        let made = make_recap(units, cut.at, opts, true, feed)?;
        return Ok(Some((cut, made)));
    }
    Ok(Some((cut, made)))
}

/// The cut and recap for a budget in the units' own estimate. The cut is planned with a guess
/// of the recap's size, then again with the size of the recap it produced, until a cut comes
/// back: of the plans that fit, the one keeping the largest tail (a recap smaller than the
/// guess leaves room for more tail, a larger one for less).
fn settle(
    units: &[Unit],
    opts: &Options,
    feed: &mut Feed<'_>,
    overhead: &impl Fn(usize) -> usize,
    recap_tokens: &impl Fn(&Made) -> usize,
) -> std::io::Result<Option<(Cut, Made)>> {
    let budget = opts.budget.unwrap_or(usize::MAX);
    let mut estimate = 500;
    let mut tried = Vec::new();
    let mut fitting: Option<(Cut, Made)> = None;
    let mut last = None;
    for _ in 0..8 {
        let Some(cut) = plan(units, opts, |at| estimate + overhead(at)) else {
            return Ok(None);
        };
        if tried.contains(&cut.at) {
            break;
        }
        tried.push(cut.at);
        let made = make_recap(units, cut.at, opts, false, feed)?;
        let real = recap_tokens(&made);
        estimate = real;
        if real + overhead(cut.at) + cut.tail_tokens <= budget {
            if fitting.as_ref().is_none_or(|(f, _)| cut.tail_tokens > f.tail_tokens) {
                fitting = Some((cut, made));
            }
        } else {
            last = Some((cut, made));
        }
    }
    Ok(fitting.or(last))
}

/// What replaces the span `[0, at)` besides the recap, when only carried items are fixed: a
/// prefix sum of their tokens. (Codex's kept user messages take what the recap and the tail
/// leave of a budget, so they never decide whether a cut fits.)
pub fn carried(units: &[Unit]) -> impl Fn(usize) -> usize + use<> {
    let mut before = vec![0usize; units.len() + 1];
    for (i, u) in units.iter().enumerate() {
        before[i + 1] = before[i] + if u.carry { u.tokens } else { 0 };
    }
    move |at| before[at]
}

#[cfg(test)]
mod tests;
