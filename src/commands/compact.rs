//! `cctool compact FILE`: offline re-compaction that the agent can resume.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::ExitStatus;
use crate::agents::cctool::compact as session;
use crate::agents::cctool::schema as migrate;
use crate::agents::claude_code::compact as claude;
use crate::agents::codex::compact as codex;
use crate::cli::{CompactArgs, GlobalArgs};
use crate::compact::{self, Cut, Made, Options, Report, Tier, ids};
use crate::io::atomic::{InPlace, Output, Seen, occupied, replace_with_backup_by, write_new_file_by};
use crate::io::paths::{beside, same_file};
use crate::io::{Input, Source};
use crate::model::Format;
use crate::output::Out;
use crate::output::sanitize::escape_str;

pub fn run(g: &GlobalArgs, a: &CompactArgs) -> anyhow::Result<ExitStatus> {
    let mut report = Report {
        kind: "compaction",
        file: a.file.display().to_string(),
        ..Report::default()
    };
    let status = match compact_file(g, a, &mut report) {
        Ok(s) => s,
        Err(e) => {
            report.error = Some(e);
            ExitStatus::Error
        }
    };
    let mut out = Out::new(g.color);
    if g.json {
        out.json(&report)?;
    } else if let Some(e) = &report.error {
        eprintln!("cctool: {}: {}", escape_str(&report.file), escape_str(e));
    } else {
        out.text(&format!("{}\n", escape_str(&describe(&report, a.dry_run))))?;
        if a.dry_run
            && let Some(r) = &report.recap
        {
            out.text(&format!("\n{}\n", escape_str(r)))?;
        }
    }
    if !g.quiet && !g.json {
        if let Some(f) = &report.summarizer_fallback {
            eprintln!(
                "cctool: the summarizer was not used ({}); the recap is extractive",
                escape_str(f)
            );
        }
        if report.tail_reduced && report.budget_met == Some(true) {
            eprintln!(
                "cctool: to fit the budget, the tail kept verbatim is {} tokens, less than --keep-recent {}",
                report.kept_tokens, a.keep_recent
            );
        }
        if report.budget_met == Some(false) {
            eprintln!(
                "cctool: the budget of {} tokens cannot be reached: the smallest resumable conversation is {} tokens",
                a.budget.unwrap_or(0),
                report.tokens_after
            );
        }
    }
    out.flush()?;
    super::report_swept(g.quiet);
    Ok(status)
}

fn describe(r: &Report, dry_run: bool) -> String {
    let unit = r.tokens_of.map_or("tokens", compact::Measure::describe);
    if !r.changed {
        return format!(
            "{}: nothing to compact ({} {unit}{})",
            r.file,
            r.tokens_before,
            r.note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()
        );
    }
    let verb = if dry_run { "would compact" } else { "compacted" };
    let mut s = format!(
        "{}: {verb} ({}, tier {}): {} -> {} {unit}",
        r.file,
        r.format,
        r.tier.unwrap_or(2),
        r.tokens_before,
        r.tokens_after
    );
    if r.compacted_units > 0 {
        s.push_str(&format!(
            "; {} records summarised, {} kept verbatim ({} tokens)",
            r.compacted_units, r.kept_units, r.kept_tokens
        ));
    }
    if let Some(c) = &r.cut_at {
        s.push_str(&format!(
            "; tail starts at {}",
            c.as_str().map_or_else(|| c.to_string(), str::to_string)
        ));
    }
    if r.placeholders + r.reasoning_removed > 0 {
        s.push_str(&format!(
            "; {} tool results placeholdered, {} reasoning items dropped",
            r.placeholders, r.reasoning_removed
        ));
    }
    if let Some(m) = r.recap_method {
        s.push_str(&format!("; recap {m}"));
    }
    match (&r.output, &r.backup) {
        (Some(o), Some(b)) => s.push_str(&format!("; written to {o} (backup {b})")),
        (Some(o), None) if !dry_run => s.push_str(&format!("; written to {o}")),
        (Some(o), None) => s.push_str(&format!("; would write {o}")),
        _ => {}
    }
    s
}

fn options(a: &CompactArgs, path: &Path) -> Options {
    Options {
        keep_recent: a.keep_recent,
        budget: a.budget,
        tier: a.tier,
        keep_results: a.keep_results,
        summarizer: a.summarizer.clone(),
        summarizer_timeout: Duration::from_secs(a.summarizer_timeout),
        transcript_path: Some(
            std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
        ),
    }
}

/// A file being written by its agent must not be snapshotted: the agent's next line would be
/// lost from the copy, or (in place) race the rename.
fn refuse_live(src: &Source, format: Format, force: bool) -> Result<(), String> {
    if force {
        return Ok(());
    }
    if let Some(age) = src.recently_modified() {
        return Err(format!(
            "modified {} s ago, so its agent may still be writing it; retry in a minute, or pass --force",
            age.as_secs()
        ));
    }
    // JSON Lines are written a line at a time: a last line that is not a whole record is one in
    // progress. A whole record without its newline is only how some copies end.
    if format != Format::CctoolSession && !last_line_complete(src).map_err(|e| format!("cannot read: {e}"))? {
        return Err(
            "its last line is not a complete record and has no newline, so it may be half-written; \
             pass --force to compact it anyway"
                .into(),
        );
    }
    Ok(())
}

/// Whether the file ends with a newline, or with a last line that is a whole JSON object.
fn last_line_complete(src: &Source) -> std::io::Result<bool> {
    let len = src.len();
    if len == 0 || src.read_range(len - 1, 1)?.first() == Some(&b'\n') {
        return Ok(true);
    }
    // Back from the end a window at a time to the line's start: the line may be long.
    let mut start = len;
    let mut window = 64 * 1024u64;
    loop {
        let from = start.saturating_sub(window);
        let chunk = src.read_range(from, (start - from) as usize)?;
        if let Some(i) = memchr::memrchr(b'\n', &chunk) {
            start = from + i as u64 + 1;
            break;
        }
        start = from;
        if from == 0 {
            break;
        }
        window = window.saturating_mul(2);
    }
    let line = src.read_range(start, (len - start) as usize)?;
    let line = line.trim_ascii();
    // Skipping a value checks it whole without building it, however deep.
    Ok(line.first() == Some(&b'{') && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok())
}

/// Where the result goes.
enum Target {
    New(PathBuf),
    /// The input, as it was when read.
    InPlace(PathBuf, Seen),
}

fn compact_file(g: &GlobalArgs, a: &CompactArgs, r: &mut Report) -> Result<ExitStatus, String> {
    if a.file.as_os_str() == "-" {
        return Err("compact reads a file, not standard input: name the session file".into());
    }
    let input = Input::Path(a.file.clone());
    let (src, format) = super::open_session(&input, g)?;
    r.format = format.name().to_string();
    r.tokens_of = Some(compact::Measure::of(format));
    if a.in_place
        && let Some(why) = src.in_place_refusal()
    {
        return Err(why.to_string());
    }
    let target = if a.in_place {
        Target::InPlace(a.file.clone(), Seen::of(&src))
    } else {
        let suffix = if format == Format::CctoolSession {
            "compacted.json"
        } else {
            "compacted.jsonl"
        };
        let out = a.output.clone().unwrap_or_else(|| beside(&a.file, suffix));
        if same_file(&out, &a.file) {
            return Err("the output would replace the input; use --in-place to replace it with a backup".into());
        }
        if !a.dry_run && !a.force && occupied(&out) {
            return Err(format!(
                "{} exists; choose another -o, or pass --force to replace it",
                out.display()
            ));
        }
        Target::New(out)
    };
    if !a.dry_run {
        refuse_live(&src, format, a.force)?;
    }
    let opts = options(a, &a.file);
    let status = match format {
        Format::ClaudeCode => native_claude(&src, a, &opts, &target, r)?,
        Format::Codex => native_codex(&src, a, &opts, &target, r)?,
        Format::CctoolSession => v5(&src, a, &opts, &target, r)?,
    };
    // What is reported (the cut, the recap) must not come from pages that read as zeros.
    src.check().map_err(|e| format!("cannot read: {e}"))?;
    if let Some(b) = r.budget_met
        && !b
    {
        return Ok(ExitStatus::Negative);
    }
    Ok(if a.dry_run && r.changed {
        ExitStatus::Negative
    } else {
        status
    })
}

fn check_tier_native(tier: Tier, format: Format) -> Result<(), String> {
    if tier == Tier::One {
        return Err(format!(
            "--tier 1 applies to cctool v5 sessions; a {} file is compacted by a summary (tier 2): \
             import it with `cctool migrate --to v5` to use tier 1",
            format.name()
        ));
    }
    Ok(())
}

fn fill(r: &mut Report, cut: &Cut, units: usize, made: &Made, after: usize, budget: Option<usize>) {
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

fn write_target(
    src: &Source,
    target: &Target,
    a: &CompactArgs,
    r: &mut Report,
    write: impl FnOnce(&mut Output) -> std::io::Result<()>,
) -> Result<(), String> {
    // Checked before the rename: a truncation under the mapping read as zeros somewhere.
    let write = |w: &mut Output| {
        write(w)?;
        src.check()
    };
    match target {
        Target::New(p) => {
            r.output = Some(p.display().to_string());
            if !a.dry_run {
                write_new_file_by(p, a.force, write).map_err(|e| match e.kind() {
                    std::io::ErrorKind::AlreadyExists => format!(
                        "{} exists; choose another -o, or pass --force to replace it",
                        p.display()
                    ),
                    _ => format!("{}: not written: {e}", p.display()),
                })?;
            }
        }
        Target::InPlace(p, seen) => {
            r.output = Some(p.display().to_string());
            if !a.dry_run {
                let how = InPlace {
                    tag: "precompact",
                    seen: *seen,
                    force: a.force,
                };
                let done = replace_with_backup_by(p, &how, write).map_err(|e| super::rewrite_failed(&e))?;
                // Through a symbolic link, the file it points to was rewritten.
                r.output = Some(done.target.display().to_string());
                r.backup = Some(done.backup.display().to_string());
            }
        }
    }
    Ok(())
}

fn nothing(r: &mut Report, total: usize, opts: &Options) {
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
fn not_smaller(r: &mut Report, total: usize) -> ExitStatus {
    r.tokens_before = total;
    r.tokens_after = total;
    r.note =
        Some("the recap would not be smaller than the span it replaces; lower --keep-recent to compact more".into());
    ExitStatus::Success
}

/// A native compaction planned: what the report says of it.
struct Native<'a> {
    cut: &'a Cut,
    made: &'a Made,
    units: usize,
    total: usize,
    /// Tokens of the resumed conversation after it.
    after: usize,
    /// Where the kept tail starts, as the format names records.
    cut_at: Option<Value>,
    /// The recap as the agent reads it.
    recap: String,
}

impl Native<'_> {
    /// Reports the compaction and writes it with `write`, unless it would not make the
    /// session smaller.
    fn finish(
        self,
        src: &Source,
        a: &CompactArgs,
        opts: &Options,
        target: &Target,
        r: &mut Report,
        write: impl FnOnce(&mut Output) -> std::io::Result<()>,
    ) -> Result<ExitStatus, String> {
        if self.after >= self.total {
            return Ok(not_smaller(r, self.total));
        }
        fill(r, self.cut, self.units, self.made, self.after, opts.budget);
        r.cut_at = self.cut_at;
        r.recap = Some(self.recap);
        write_target(src, target, a, r, write)?;
        Ok(ExitStatus::Success)
    }
}

/// The cut and the recap of a native session, sized in `exact`'s measure; `None` when there is
/// nothing to compact, which is reported in `r`.
fn plan_native(
    units: &[compact::Unit],
    a: &CompactArgs,
    opts: &Options,
    r: &mut Report,
    feed: &mut compact::Feed<'_>,
    overhead: impl Fn(usize) -> usize,
    (recap_tokens, exact): (impl Fn(&Made) -> usize, compact::Exact<'_>),
) -> Result<Option<(usize, Cut, Made)>, String> {
    let total = exact.before;
    let planned = compact::plan_and_recap_exact(units, opts, !a.dry_run, feed, overhead, recap_tokens, Some(exact))
        .map_err(|e| format!("cannot read: {e}"))?;
    let Some((cut, made)) = planned else {
        nothing(r, total, opts);
        return Ok(None);
    };
    Ok(Some((total, cut, made)))
}

fn native_claude(
    src: &Source,
    a: &CompactArgs,
    opts: &Options,
    target: &Target,
    r: &mut Report,
) -> Result<ExitStatus, String> {
    check_tier_native(a.tier, Format::ClaudeCode)?;
    let io = |e: std::io::Error| format!("cannot read: {e}");
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
        a,
        opts,
        r,
        &mut |at, f| loaded.feed(src, at, f),
        |_| 0,
        (
            |m: &Made| crate::model::approx_tokens(claude::summary_text(m, transcript).len()),
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
    done.finish(src, a, opts, target, r, |w| {
        claude::write(src, &loaded, cut.at, &made, total, transcript, w).map(|_| ())
    })
}

fn native_codex(
    src: &Source,
    a: &CompactArgs,
    opts: &Options,
    target: &Target,
    r: &mut Report,
) -> Result<ExitStatus, String> {
    check_tier_native(a.tier, Format::Codex)?;
    let io = |e: std::io::Error| format!("cannot read: {e}");
    let loaded = codex::load(src).map_err(io)?;
    let units = &loaded.units;
    // Sizes are the history a resume sends, as `scan` counts it; the units estimate it.
    let tail = |at: usize| -> usize { units[at..].iter().map(|u| u.tokens).sum() };
    let history = |at: usize, made: &Made| {
        let recap_tokens = crate::model::approx_tokens(codex::summary_text(made).len());
        let user_budget = codex::user_budget(opts.budget, recap_tokens, tail(at));
        codex::replacement(src, &loaded, at, made, user_budget).map(|(h, _)| h)
    };
    let after = |at: usize, made: &Made| history(at, made).map(|h| compact::codex_replacement_tokens(&h));
    let exact = compact::Exact {
        before: compact::codex_history_tokens(&loaded.items),
        after: &after,
    };
    let Some((total, mut cut, made)) = plan_native(
        units,
        a,
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
        std::io::ErrorKind::InvalidData => e.to_string(),
        _ => format!("cannot read: {e}"),
    })?;
    let after = compact::codex_replacement_tokens(&history);
    cut.tail_tokens = compact::codex_history_tokens(&loaded.items[cut.at..]);
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
    done.finish(src, a, opts, target, r, |w| codex::write(src, history, &made, w))
}

fn v5(src: &Source, a: &CompactArgs, opts: &Options, target: &Target, r: &mut Report) -> Result<ExitStatus, String> {
    let mut s = super::read_session(src)?;
    let before = session::tokens(&s);
    r.tokens_before = before;
    r.tokens_after = before;
    let now = ids::now_ms();
    let keep_only = Options {
        budget: None,
        ..opts.clone()
    };
    let over_budget = |s: &migrate::Session| opts.budget.is_none_or(|b| session::tokens(s) > b);
    let run_tier1 = match a.tier {
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
    let run_tier2 = match a.tier {
        Tier::One => false,
        Tier::Two => true,
        Tier::Auto => over_budget(&s),
    };
    if run_tier2 {
        let units = session::units(&s);
        let planned = compact::plan_and_recap(
            &units,
            opts,
            !a.dry_run,
            &mut |at, f| {
                session::feed(&s, &units, at, f);
                Ok(())
            },
            |_| 0,
            Made::tokens,
        )
        .map_err(|e| format!("cannot read: {e}"))?;
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
    write_target(src, target, a, r, |w| migrate::write_to(s, w))?;
    Ok(ExitStatus::Success)
}
