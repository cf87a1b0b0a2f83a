//! Compacting one file, the parts every agent shares: where the result goes, writing it there,
//! and what the report says of a plan (`cctool compact`). Each agent's `compaction.rs` plans
//! and writes its own format with these.

use std::path::PathBuf;

use serde_json::Value;

use super::{Cut, Made, Options, Report, Tier};
use crate::io::Source;
use crate::io::atomic::{InPlace, Output, Seen, replace_with_backup_by, write_new_file_by};
use crate::model::AgentId;
use crate::{ExitStatus, compact};

/// Where the result goes.
pub enum Target {
    /// A new file at this path (`-o`).
    New(PathBuf),
    /// The input, as it was when read.
    InPlace(PathBuf, Seen),
}

/// Refuses `--tier 1` on a format other than cctool v5, whose only compaction is a summary.
pub fn check_tier_native(tier: Tier, format: AgentId) -> crate::error::Result<()> {
    if tier == Tier::One {
        return Err(crate::error::Refusal::TierNotNative { format }.into());
    }
    Ok(())
}

/// Fills the report's figures for a tier-2 compaction that replaces the first `cut.at` of
/// `units` units with `made`, leaving `after` tokens.
pub(crate) fn fill(r: &mut Report, cut: &Cut, units: usize, made: &Made, after: usize, budget: Option<usize>) {
    r.changed = true;
    r.tier = Some(2);
    r.tokens_before = cut.tokens_before;
    r.tokens_after = after;
    r.kept_tokens = cut.tail_tokens;
    r.compacted_units = cut.at;
    r.kept_units = units - cut.at;
    r.on_prompt = Some(cut.on_prompt);
    r.tail_reduced = cut.tail_reduced;
    r.budget_met = budget.map(|b| after <= b);
    r.recap_method = Some(made.method);
    r.summarizer_fallback = made.fallback.clone();
}

/// Writes the result to `target` with `write`, unless `--dry-run`, and records in the report
/// where it went (and the backup of a rewrite in place). Refuses to replace an existing new
/// file without `--force`.
pub fn write_target(
    src: &Source,
    target: &Target,
    opts: &Options,
    r: &mut Report,
    write: impl FnOnce(&mut Output) -> std::io::Result<()>,
) -> crate::error::Result<()> {
    // Checked before the rename: a truncation under the mapping read as zeros somewhere. A
    // truncation after it cannot touch what was written, nor turn the run into an error.
    let write = |w: &mut Output| {
        write(w)?;
        src.settle()
    };
    match target {
        Target::New(p) => {
            r.output = Some(p.display().to_string());
            if !opts.dry_run {
                write_new_file_by(p, opts.force, write).map_err(|e| crate::error::Error::new_file(p, e))?;
            }
        }
        Target::InPlace(p, seen) => {
            r.output = Some(p.display().to_string());
            if !opts.dry_run {
                let how = InPlace {
                    tag: "precompact",
                    seen: *seen,
                    force: opts.force,
                };
                let done = replace_with_backup_by(p, &how, write).map_err(crate::error::rewrite_failed)?;
                // Through a symbolic link, the file it points to was rewritten.
                r.output = Some(done.target.display().to_string());
                r.backup = Some(done.backup.display().to_string());
            }
        }
    }
    Ok(())
}

/// Reports that nothing needs compacting: the `total` tokens are within the budget or the
/// verbatim tail.
pub fn nothing(r: &mut Report, total: usize, opts: &Options) {
    r.tokens_before = total;
    r.tokens_after = total;
    r.note = Some(match opts.budget {
        Some(b) if total <= b => format!("already within the budget of {b}"),
        _ => format!(
            "everything is within the {} most recent tokens kept verbatim",
            opts.keep_recent
        ),
    });
}

/// A recap at least as large as what it replaces would make the session bigger: not done.
pub fn not_smaller(r: &mut Report, total: usize) -> ExitStatus {
    r.tokens_before = total;
    r.tokens_after = total;
    r.note =
        Some("the recap would not be smaller than the span it replaces; lower --keep-recent to compact more".into());
    ExitStatus::Success
}

/// A native compaction planned: what the report says of it.
pub struct Native<'a> {
    /// Where the conversation is cut.
    pub cut: &'a Cut,
    /// The recap that replaces what comes before the cut.
    pub made: &'a Made,
    /// How many [`compact::Unit`]s the conversation has.
    pub units: usize,
    /// Tokens of the resumed conversation before it.
    pub total: usize,
    /// Tokens of the resumed conversation after it.
    pub after: usize,
    /// Where the kept tail starts, as the format names records.
    pub cut_at: Option<Value>,
    /// The recap as the agent reads it.
    pub recap: String,
}

impl Native<'_> {
    /// Reports the compaction and writes it with `write`, unless it would not make the
    /// session smaller.
    pub fn finish(
        self,
        src: &Source,
        opts: &Options,
        target: &Target,
        r: &mut Report,
        write: impl FnOnce(&mut Output) -> std::io::Result<()>,
    ) -> crate::error::Result<ExitStatus> {
        if self.after >= self.total {
            return Ok(not_smaller(r, self.total));
        }
        fill(r, self.cut, self.units, self.made, self.after, opts.budget);
        r.cut_at = self.cut_at;
        r.recap = Some(self.recap);
        write_target(src, target, opts, r, write)?;
        Ok(ExitStatus::Success)
    }
}

/// The cut and the recap of a native session, sized in `exact`'s measure; `None` when there is
/// nothing to compact, which is reported in `r`.
pub fn plan_native(
    units: &[compact::Unit],
    opts: &Options,
    r: &mut Report,
    feed: &mut compact::Feed<'_>,
    overhead: impl Fn(usize) -> usize,
    (recap_tokens, exact): (impl Fn(&Made) -> usize, compact::Exact<'_>),
) -> crate::error::Result<Option<(usize, Cut, Made)>> {
    let total = exact.before;
    let planned = compact::plan_and_recap_exact(units, opts, !opts.dry_run, feed, overhead, recap_tokens, Some(exact))
        .map_err(crate::error::Error::Read)?;
    let Some((cut, made)) = planned else {
        nothing(r, total, opts);
        return Ok(None);
    };
    Ok(Some((total, cut, made)))
}
