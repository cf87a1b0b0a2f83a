//! `cctool extract-summary [PATH...]`: every compaction summary, in parallel over files.

use std::io::Write;

use serde::Serialize;

use super::FileOutcome;
use crate::ExitStatus;
use crate::chain::codex;
use crate::cli::{ExtractSummaryArgs, GlobalArgs};
use crate::formats::codex::{Event, Record};
use crate::formats::{self, session};
use crate::io::Source;
use crate::model::Format;
use crate::model::diag::Severity;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::output::style::{self, Paint};
use crate::summary::{self, Options, SummaryRecord};

#[derive(Serialize)]
struct Total {
    kind: &'static str,
    files: usize,
    summaries: usize,
    /// Files with a current summary (not `current`: that is a boolean in summary records).
    with_current: usize,
    without_current: usize,
    skipped: usize,
    errors: usize,
    bad_lines: u64,
}

pub fn run(g: &GlobalArgs, a: &ExtractSummaryArgs) -> anyhow::Result<ExitStatus> {
    let mut diags = Vec::new();
    let (expanded, named) = super::batch_inputs(&a.paths, &a.files, g)?;
    diags.extend(expanded.problems.iter().cloned());
    let inputs = &expanded.inputs;
    let opts = Options {
        strip_template: a.strip_template,
        all_events: a.all_events,
    };
    let outcomes = super::each_session(inputs, &named, g, "extract-summary", |src, format| {
        extract(src, format, a.loader, opts)
    });
    let mut out = Out::new(g.color);
    let mut total = Total {
        kind: "total",
        files: 0,
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
    for (input, outcome) in inputs.iter().zip(outcomes) {
        match outcome {
            FileOutcome::Done((records, bad)) => {
                total.files += 1;
                total.bad_lines += bad;
                let has_current = records.iter().any(|r| r.current);
                if !has_current {
                    total.without_current += 1;
                }
                for r in records.iter().filter(|r| !a.current || r.current) {
                    if r.kind == "summary" {
                        total.summaries += 1;
                        total.with_current += usize::from(r.current);
                    }
                    if g.json {
                        out.json(r)?;
                    } else {
                        out.text(&render(r, out.paint()))?;
                    }
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
            out.json(d)?;
        }
        out.json(&total)?;
    }
    out.flush()?;
    if !g.json && !g.quiet {
        let mut e = std::io::stderr().lock();
        for d in diags.iter().filter(|d| d.severity > Severity::Info) {
            let _ = writeln!(e, "cctool: {}", Paint::stderr(g.color).diagnostic(d));
        }
        let mut line = format!(
            "cctool: {} files, {} summaries ({} current)",
            total.files, total.summaries, total.with_current
        );
        if total.skipped > 0 {
            line.push_str(&format!(", {} files skipped as not sessions", total.skipped));
        }
        if total.bad_lines > 0 {
            line.push_str(&format!(
                ", {} unreadable lines (see `cctool rebuild-chain --json`)",
                total.bad_lines
            ));
        }
        let _ = writeln!(e, "{line}");
    }
    Ok(if total.errors > 0 {
        ExitStatus::Error
    } else if a.current && total.without_current > 0 {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    })
}

/// The summaries of one file, and its count of unreadable lines (also the rows of
/// `scan --rows compactions`).
pub fn extract(
    src: &Source,
    format: Format,
    loader: crate::chain::claude::Loader,
    opts: Options,
) -> Result<(Vec<SummaryRecord>, u64), String> {
    let io = |e: std::io::Error| e.to_string();
    match format {
        Format::ClaudeCode => {
            let (markers, bad) = summary::claude_markers(src).map_err(io)?;
            if markers.is_empty() {
                return Ok((Vec::new(), bad));
            }
            let current = summary::claude_current(src, &markers, loader).map_err(io)?;
            let bad = current.transcript.as_ref().map_or(bad, |t| t.bad_lines);
            Ok((summary::claude(src, &markers, &current, opts).map_err(io)?, bad))
        }
        Format::Codex => {
            // Without a rollback every compaction survives and the resume starts from the
            // last one, so reading the compaction records is enough — unless a summary can
            // only be found in the item written just before its record.
            let fast = formats::codex::read_compaction_records(src).map_err(io)?;
            let rolled_back = fast
                .records
                .iter()
                .any(|(_, r)| matches!(r, Record::Event(Event::RolledBack(_))));
            if !rolled_back {
                let last = fast.records.iter().rev().find_map(|(_, r)| match r {
                    Record::Compacted(c) => Some(c.line),
                    _ => None,
                });
                let history = codex::History {
                    base_line: last,
                    ..codex::History::default()
                };
                let records = summary::codex(src, &fast, &history).map_err(io)?;
                if records.iter().all(|r| r.encrypted || r.summary.is_some()) {
                    return Ok((records, fast.bad_lines));
                }
            }
            let rollout = formats::codex::read_records(src).map_err(io)?;
            let history = codex::reconstruct(&rollout);
            Ok((summary::codex(src, &rollout, &history).map_err(io)?, rollout.bad_lines))
        }
        Format::CctoolSession => {
            let s = session::read_messages(src).map_err(|e| e.0)?;
            Ok((summary::session_with(src, &s.messages, s.session_id, opts), 0))
        }
    }
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
