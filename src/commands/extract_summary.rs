//! `cctool extract-summary [PATH...]`: every compaction summary, in parallel over files.

use serde::Serialize;

use super::FileOutcome;
use crate::ExitStatus;
use crate::cli::{ExtractSummaryArgs, GlobalArgs};
use crate::model::diag::Severity;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::output::style::{self, Paint};
use crate::summary::{Options, SummaryRecord};

#[derive(Serialize)]
pub struct Total {
    files: usize,
    /// Of `files`, the sessions of a database (`DB#ID`): for the closing line only, the
    /// JSON total's fields being stable.
    #[serde(skip)]
    members: usize,
    summaries: usize,
    /// Files with a current summary (not `current`: that is a boolean in summary records).
    with_current: usize,
    without_current: usize,
    skipped: usize,
    errors: usize,
    bad_lines: u64,
}

impl Total {
    /// Prints a record (a summary or an event) and counts it.
    fn print(&mut self, r: &SummaryRecord, out: &mut Out, json: bool) -> std::io::Result<()> {
        if r.kind == "summary" {
            self.summaries += 1;
            self.with_current += usize::from(r.current);
        }
        if json {
            out.json(&super::record::Record::summary(r))
        } else {
            out.text(&render(r, out.paint()))
        }
    }
}

pub fn run(g: &GlobalArgs, a: &ExtractSummaryArgs) -> super::Result<ExitStatus> {
    let mut diags = Vec::new();
    let (archived, paths) = archived_and_paths(&a.paths);
    let (expanded, named) = if paths.is_empty() && !archived.is_empty() && a.files.files_from.is_none() {
        Default::default()
    } else {
        super::batch_inputs(&paths, &a.files, g)?
    };
    diags.extend(expanded.problems.iter().cloned());
    let inputs = &expanded.inputs;
    let opts = Options {
        strip_template: a.strip_template,
        all_events: a.all_events,
    };
    // Most files hold no compaction: one search of each, through reused buffers.
    let mode = crate::io::ReadMode::Search;
    let loader_ignored = std::sync::atomic::AtomicBool::new(false);
    let outcomes = super::each_session_reading(inputs, &named, g, "extract-summary", mode, |src, format| {
        let agent = crate::agents::agent(format);
        if a.loader.is_some() && !agent.about().loaders {
            loader_ignored.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        agent.summaries(src, a.loader(), opts)
    });
    let mut out = Out::new(g.color);
    let mut total = Total {
        files: 0,
        members: 0,
        summaries: 0,
        with_current: 0,
        without_current: 0,
        skipped: 0,
        errors: expanded
            .problems
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count(),
        bad_lines: 0,
    };
    for r in archived.iter().filter(|r| !a.current || r.current) {
        total.print(r, &mut out, g.json)?;
    }
    for (input, outcome) in inputs.iter().zip(outcomes) {
        match outcome {
            FileOutcome::Done((records, bad)) => {
                total.files += 1;
                total.members += usize::from(matches!(input, crate::io::Input::Member(_)));
                total.bad_lines += bad;
                let has_current = records.iter().any(|r| r.current);
                if !has_current {
                    total.without_current += 1;
                }
                for r in records.iter().filter(|r| !a.current || r.current) {
                    total.print(r, &mut out, g.json)?;
                }
            }
            other => {
                let Some(d) = other.problem_counted(input, &mut total.errors, &mut total.skipped) else {
                    continue;
                };
                diags.push(d);
            }
        }
    }
    if g.json {
        for d in &diags {
            out.json(&super::record::Record::diagnostic(d))?;
        }
        out.json(&super::record::Record::SummaryTotal(&total))?;
    }
    out.flush()?;
    let mut say = g.reporter();
    if loader_ignored.into_inner() {
        say.note(crate::agents::LOADER_IGNORED);
    }
    if !g.json {
        for d in diags.iter().filter(|d| d.severity > Severity::Info) {
            say.diagnostic(d);
        }
        say.note(&total_line(&total));
    }
    if total.errors > 0 {
        say.merge(ExitStatus::Error);
    } else if a.current && total.without_current > 0 {
        say.merge(ExitStatus::Negative);
    }
    Ok(say.status())
}

/// The summaries archived by `cctool hooks` (docs/backup.md) among `paths`, read as they are,
/// and the other paths, read as sessions.
fn archived_and_paths(paths: &[std::path::PathBuf]) -> (Vec<SummaryRecord>, Vec<std::path::PathBuf>) {
    let (archived, paths): (Vec<_>, Vec<_>) = paths
        .iter()
        .map(|p| (p, crate::hooks::run::summary_records(p)))
        .partition(|(_, r)| r.is_some());
    let archived: Vec<SummaryRecord> = archived.into_iter().flat_map(|(_, r)| r.unwrap_or_default()).collect();
    let paths: Vec<std::path::PathBuf> = paths.into_iter().map(|(p, _)| p.clone()).collect();
    (archived, paths)
}

/// The closing line on stderr: what was read and found.
fn total_line(total: &Total) -> String {
    let mut line = format!(
        "{}, {} summaries ({} current)",
        super::inputs_read(total.files, total.members),
        total.summaries,
        total.with_current
    );
    if total.skipped > 0 {
        line.push_str(&format!(", {}", super::skipped_note(total.skipped)));
    }
    if total.bad_lines > 0 {
        line.push_str(&format!(
            ", {} unreadable lines (see `cctool rebuild-chain --json`)",
            total.bad_lines
        ));
    }
    line
}

/// The text form: a header line, then the summary.
fn render(r: &SummaryRecord, paint: Paint) -> String {
    let mut head = vec![r.file.clone()];
    if r.kind == "summary" {
        head.push(format!("#{}", r.index));
    } else {
        head.push(r.event.to_string());
    }
    if let Some(t) = &r.timestamp {
        head.push(t.clone());
    }
    if let Some(l) = r.line {
        head.push(format!("line {l}"));
    }
    if let Some(t) = &r.trigger {
        head.push(t.clone());
    }
    if let Some(p) = r.pre_tokens {
        head.push(format!("{p} tokens before"));
    }
    if let Some(o) = r.origin {
        head.push(o.to_string());
    }
    if r.current {
        head.push("current".into());
    }
    let mut s = format!(
        "{}\n",
        paint.paint(style::BOLD, &format!("== {}", escape_str(&head.join(" · "))))
    );
    if let Some(w) = &r.warning {
        s.push_str(&format!(
            "{} {}\n",
            paint.paint(style::WARNING, "warning:"),
            escape_str(w)
        ));
    }
    if r.encrypted {
        s.push_str(&format!(
            "[the summary is encrypted by the server ({} bytes) and cannot be read offline]\n",
            r.encrypted_len.unwrap_or(0)
        ));
    }
    if let Some(text) = &r.summary {
        s.push_str(&escape_str(text));
        s.push('\n');
    }
    if let Some(kept) = &r.retained_messages {
        s.push_str(&format!("kept in plaintext ({} messages):\n", kept.len()));
        for m in kept {
            s.push_str(&format!(
                "  {}: {}\n",
                escape_str(&m.role),
                escape_str(&crate::output::render::shorten(&m.text.replace('\n', " "), 200))
            ));
        }
    }
    s.push('\n');
    s
}
