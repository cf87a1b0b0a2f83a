//! `cctool compact` of a Codex rollout: the plan sized as the history a resume sends, and the
//! compacted rollout written to the target.

use serde_json::json;

use super::compact as codex;
use crate::ExitStatus;
use crate::io::Source;
use cctool_core::compact::file::{Native, Target, check_tier_native, plan_native};
use cctool_core::compact::{self, Made, Options, Report};

/// Compacts a Codex rollout: a compaction record as Codex writes its own.
pub fn compact_file(src: &Source, opts: &Options, target: &Target, r: &mut Report) -> crate::error::Result<ExitStatus> {
    check_tier_native(opts.tier, crate::ID)?;
    let opts = &Options {
        source: Some(crate::ID),
        ..opts.clone()
    };
    let io = crate::error::Error::Read;
    let loaded = codex::load(src).map_err(io)?;
    let units = &loaded.units;
    // Sizes are the history a resume sends, as `scan` counts it; the units estimate it.
    let tail = |at: usize| -> usize { units[at..].iter().map(|u| u.tokens).sum() };
    let history = |at: usize, made: &Made| {
        let recap_tokens = crate::model::approx_tokens(codex::summary_text(made).len());
        let user_budget = codex::user_budget(opts.budget, recap_tokens, tail(at));
        codex::replacement(src, &loaded, at, made, user_budget).map(|(h, _)| h)
    };
    let after = |at: usize, made: &Made| history(at, made).map(|h| super::history::replacement_tokens(&h));
    let exact = compact::Exact {
        before: super::history::history_tokens(&loaded.items),
        after: &after,
    };
    let Some((total, mut cut, made)) = plan_native(
        units,
        opts,
        r,
        &mut |at, f| loaded.feed(src, at, f),
        compact::carried(units),
        (
            |m: &Made| crate::model::approx_tokens(codex::summary_text(m).len()),
            exact,
        ),
    )?
    else {
        return Ok(ExitStatus::Success);
    };
    // A record Codex could not read (nested too deep) is refused with what it is, not as an
    // unreadable file.
    let history = history(cut.at, &made).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => crate::error::Error::Io(e),
        _ => crate::error::Error::Read(e),
    })?;
    let after = super::history::replacement_tokens(&history);
    cut.tail_tokens = super::history::history_tokens(&loaded.items[cut.at..]);
    cut.tokens_before = total;
    let done = Native {
        cut: &cut,
        made: &made,
        units: units.len(),
        total,
        after,
        cut_at: loaded.lines.get(cut.at).copied().flatten().map(|l| json!(l)),
        recap: codex::summary_text(&made),
    };
    done.finish(src, opts, target, r, |w| codex::write(src, history, &made, w))
}
