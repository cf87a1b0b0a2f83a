//! `cctool compact` of a Claude Code transcript: the plan sized as a resume sends it, and the
//! compacted transcript written to the target.

use serde_json::Value;

use super::compact as claude;
use crate::ExitStatus;
use crate::io::Source;
use cctool_core::compact::file::{Native, Target, check_tier_native, plan_native};
use cctool_core::compact::{self, Made, Options, Report};

/// Compacts a Claude Code transcript: a summary (tier 2) written as the client writes its own.
pub fn compact_file(src: &Source, opts: &Options, target: &Target, r: &mut Report) -> crate::error::Result<ExitStatus> {
    check_tier_native(opts.tier, crate::ID)?;
    let opts = &Options {
        source: Some(crate::ID),
        ..opts.clone()
    };
    let io = crate::error::Error::Read;
    let loaded = claude::load(src).map_err(io)?;
    let units = &loaded.units;
    let transcript = opts.transcript_path.as_deref();
    // Sizes are what a resume sends, as `scan` and `--api-view` count it; the units estimate it.
    let after = |at: usize, made: &Made| loaded.tokens_after(src, at, made, transcript);
    let exact = compact::Exact {
        before: loaded.tokens(src).map_err(io)?,
        after: &after,
    };
    let Some((total, mut cut, made)) = plan_native(
        units,
        opts,
        r,
        &mut |at, f| loaded.feed(src, at, f),
        |_| 0,
        (
            |m: &Made| cctool_core::model::approx_tokens(claude::summary_text(m, transcript).len()),
            exact,
        ),
    )?
    else {
        return Ok(ExitStatus::Success);
    };
    let text = claude::summary_text(&made, transcript);
    let after = after(cut.at, &made).map_err(io)?;
    cut.tail_tokens = loaded.tail_tokens(src, cut.at).map_err(io)?;
    cut.tokens_before = total;
    let cut_at = loaded
        .positions
        .get(cut.at)
        .map(|&p| Value::String(loaded.t.uuid_text(p)));
    let done = Native {
        cut: &cut,
        made: &made,
        units: units.len(),
        total,
        after,
        cut_at,
        recap: text,
    };
    done.finish(src, opts, target, r, |w| {
        claude::write(src, &loaded, cut.at, &made, total, transcript, w).map(|_| ())
    })
}
