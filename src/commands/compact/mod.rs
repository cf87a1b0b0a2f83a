//! `cctool compact FILE`: offline re-compaction that the agent can resume.

mod store;

use std::path::Path;
use std::time::Duration;

use super::error::Refusal;
use crate::ExitStatus;
use crate::cli::{CompactArgs, GlobalArgs};
use crate::compact::file::Target;
use crate::compact::{self, Options, Report};
use crate::error::Error;
use crate::io::Source;
use crate::io::atomic::{Seen, occupied};
use crate::io::paths::{beside, same_file};
use crate::model::AgentId;
use crate::output::Out;
use crate::output::sanitize::escape_str;

pub fn run(g: &GlobalArgs, a: &CompactArgs) -> super::Result<ExitStatus> {
    let mut report = Report {
        file: a.file.display().to_string(),
        ..Report::default()
    };
    let status = match compact_file(g, a, &mut report) {
        Ok(s) => s,
        Err(e) => {
            report.error = Some(e.to_string());
            ExitStatus::Error
        }
    };
    let mut out = Out::new(g.color);
    let mut say = g.reporter();
    say.merge(status);
    if g.json {
        out.json(&super::record::Record::Compaction(&report))?;
    } else if let Some(e) = &report.error {
        say.fatal_for(&report.file, e);
    } else {
        out.text(&format!("{}\n", escape_str(&describe(&report, a.dry_run))))?;
        // The command that resumes a session placed in the store is what --into-store is run
        // for: data, on its own line.
        if let Some(c) = &report.resume {
            out.text(&format!("{}\n", escape_str(c)))?;
        }
        if a.dry_run
            && let Some(r) = &report.recap
        {
            out.text(&format!("\n{}\n", escape_str(r)))?;
        }
    }
    if !g.json {
        if report.changed && !a.dry_run && !a.in_place && !a.into_store && a.output.is_none() && in_store(&a.file) {
            say.note(
                "the session is in its agent's store, which would not resume a compacted copy beside it (the same \
                 session id) but list it as a second copy: written to the current folder instead; --in-place \
                 replaces the session itself, keeping a backup, and the agent resumes it as before",
            );
        }
        if let Some(f) = &report.summarizer_fallback {
            say.note(&format!("the summarizer was not used ({f}); the recap is extractive"));
        }
        if report.tail_reduced && report.budget_met.is_none() {
            say.note(&format!(
                "the tail kept verbatim is {} tokens, less than --keep-recent {}: an earlier compaction's summary \
                 within the most recent tokens goes into the new recap, so the tail starts after it",
                report.kept_tokens, a.keep_recent
            ));
        }
        if report.tail_reduced && report.budget_met == Some(true) {
            say.note(&format!(
                "to fit the budget, the tail kept verbatim is {} tokens, less than --keep-recent {}",
                report.kept_tokens, a.keep_recent
            ));
        }
        if report.budget_met == Some(false) {
            say.note(&format!(
                "the budget of {} tokens cannot be reached: the smallest resumable conversation is {} tokens",
                a.budget.unwrap_or(0),
                report.tokens_after
            ));
        }
    }
    out.flush()?;
    say.swept();
    Ok(say.status())
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
    if let Some(id) = &r.session_id {
        s.push_str(&format!(" as the new session {id}"));
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
        dry_run: a.dry_run,
        force: a.force,
        // Each agent's compaction names the agent whose tools its calls are.
        source: None,
        transcript_path: Some(
            std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
        ),
    }
}

/// Where the compaction goes without `-o`: beside the input, unless the input is in an agent's
/// store. There the agent would not resume the copy (it has the same session id as the input)
/// while `scan` and the agent's own listing would show it as a second copy of the session, so
/// it goes to the current folder instead.
fn default_output(input: &Path, suffix: &str) -> std::path::PathBuf {
    let there = beside(input, suffix);
    match there.file_name() {
        Some(name) if in_store(input) => std::path::PathBuf::from(name),
        _ => there,
    }
}

/// Whether `input` is inside one of the agents' stores (`~/.claude/projects`,
/// `~/.codex/sessions`, …).
fn in_store(input: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let file = canonical(input);
    crate::io::paths::default_stores()
        .found
        .iter()
        .any(|store| file.starts_with(canonical(store)))
}

/// A file being written by its agent must not be snapshotted: the agent's next line would be
/// lost from the copy, or (in place) race the rename.
fn refuse_live(src: &Source, format: AgentId, force: bool) -> super::Result<()> {
    if force {
        return Ok(());
    }
    if let Some(age) = src.recently_modified() {
        return Err(Refusal::LiveCompact { secs: age.as_secs() }.into());
    }
    // JSON Lines are written a line at a time: a last line that is not a whole record is one in
    // progress. A whole record without its newline is only how some copies end.
    if crate::agents::agent(format).about().json_lines && !last_line_complete(src).map_err(Error::Read)? {
        return Err(Refusal::HalfWritten.into());
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

fn compact_file(g: &GlobalArgs, a: &CompactArgs, r: &mut Report) -> super::Result<ExitStatus> {
    if a.file.as_os_str() == "-" {
        return Err(Refusal::CompactStdin.into());
    }
    let input = super::file_input(&a.file)?;
    if matches!(input, crate::io::Input::Archived(_)) && !a.in_place && a.output.is_none() && !a.into_store {
        return Err(Refusal::ArchivedNeedsOutput.into());
    }
    let file = super::input_path(&input, &a.file);
    // A session named by its id is reported by the file read.
    r.file = file.display().to_string();
    let (src, format) = super::open_session(&input, g)?;
    r.format = format.name().to_string();
    r.tokens_of = Some(crate::agents::agent(format).about().measure);
    if a.in_place
        && let Some(why) = src.in_place_refusal()
    {
        return Err(Refusal::InPlace(why).into());
    }
    let placing = match a.into_store {
        true => Some(store::Placing::plan(&src, format, a)?),
        false => None,
    };
    let target = if let Some(p) = &placing {
        p.target()
    } else if a.in_place {
        Target::InPlace(file.clone(), Seen::of(&src))
    } else {
        let suffix = if crate::agents::agent(format).about().json_lines {
            "compacted.jsonl"
        } else {
            "compacted.json"
        };
        let out = a.output.clone().unwrap_or_else(|| default_output(&file, suffix));
        if same_file(&out, &file) {
            return Err(Refusal::ReplacesInputCompact.into());
        }
        if !a.dry_run && !a.force && occupied(&out) {
            return Err(Error::exists(&out).into());
        }
        Target::New(out)
    };
    if !a.dry_run {
        refuse_live(&src, format, a.force)?;
    }
    let opts = options(a, &file);
    let status = crate::agents::agent(format).compact(&src, &opts, &target, r)?;
    // What is reported (the cut, the recap) must not come from pages that read as zeros.
    src.check().map_err(Error::Read)?;
    if let Some(p) = placing {
        p.finish(r, a.force)?;
    }
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
