//! `cctool compact` of a cctool session: tier 1 and tier 2 on the v5 messages, logged in the
//! session, written whole to the target.

use serde_json::json;

use super::compact as session;
use crate::ExitStatus;
use crate::agents::Agent;
use crate::io::Source;
use crate::v5::schema as migrate;
use cctool_core::compact::file::{Target, not_smaller, nothing, write_target};
use cctool_core::compact::{self, Made, Options, Report, Tier, ids};

/// Compacts a cctool session: tier 1 (old tool results placeholdered), tier 2 (a recap), or
/// both, as `--tier` and the budget ask.
pub fn compact_file(src: &Source, opts: &Options, target: &Target, r: &mut Report) -> crate::error::Result<ExitStatus> {
    let mut s = super::agent::Cctool.full_session(src)?;
    // An imported session's calls keep the tools of the agent it came from.
    let opts = &Options {
        source: session::source(&s),
        ..opts.clone()
    };
    let before = session::tokens(&s);
    r.tokens_before = before;
    r.tokens_after = before;
    let now = ids::now_ms();
    let keep_only = Options {
        budget: None,
        ..opts.clone()
    };
    let over_budget = |s: &migrate::Session| opts.budget.is_none_or(|b| session::tokens(s) > b);
    let run_tier1 = match opts.tier {
        Tier::One => true,
        Tier::Two => false,
        Tier::Auto => opts.budget.is_some() && over_budget(&s),
    };
    let mut tiers = Vec::new();
    if run_tier1 {
        let units = session::units(&s);
        if let Some(keep) = compact::plan(&units, &keep_only, |_| 0) {
            let t1 = session::tier1(&mut s, keep.at, opts.keep_results);
            if let Some(span) = t1.span {
                let after = session::tokens(&s);
                session::log(&mut s, 1, now, span, r.tokens_after, after);
                r.tokens_after = after;
                r.placeholders = t1.placeholders;
                r.reasoning_removed = t1.reasoning_removed;
                tiers.push(1u8);
            }
        }
    }
    let run_tier2 = match opts.tier {
        Tier::One => false,
        Tier::Two => true,
        Tier::Auto => over_budget(&s),
    };
    if run_tier2 {
        let units = session::units(&s);
        let planned = compact::plan_and_recap(
            &units,
            opts,
            !opts.dry_run,
            &mut |at, f| {
                session::feed(&s, &units, at, f);
                Ok(())
            },
            |_| 0,
            Made::tokens,
        )
        .map_err(crate::error::Error::Read)?;
        if let Some((cut, made)) = planned {
            let first_kept = session::messages(&s).get(cut.at).and_then(|m| m.id);
            let tier_before = session::tokens(&s);
            if made.tokens() >= cut.span_tokens {
                if tiers.is_empty() {
                    return Ok(not_smaller(r, before));
                }
            } else if let Some(span) = session::tier2(&mut s, cut.at, &made) {
                let after = session::tokens(&s);
                session::log(&mut s, 2, now, span, tier_before, after);
                r.tokens_after = after;
                r.kept_tokens = cut.tail_tokens;
                r.compacted_units = cut.at;
                r.kept_units = units.len() - cut.at;
                r.on_prompt = Some(cut.on_prompt);
                r.tail_reduced = cut.tail_reduced;
                r.recap_method = Some(made.method);
                r.summarizer_fallback = made.fallback.clone();
                r.recap = Some(made.text());
                r.cut_at = first_kept.map(|id| json!(id));
                tiers.push(2);
            }
        }
    }
    r.budget_met = opts.budget.map(|b| r.tokens_after <= b);
    if tiers.is_empty() {
        nothing(r, before, opts);
        if r.budget_met == Some(false) {
            r.note = Some("no span can be compacted: the kept tail alone is over the budget".into());
        }
        return Ok(ExitStatus::Success);
    }
    r.changed = true;
    r.tier = tiers.last().copied();
    write_target(src, target, opts, r, |w| migrate::write_to(s, w))?;
    Ok(ExitStatus::Success)
}
