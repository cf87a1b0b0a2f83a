//! `cctool doctor [PATH...]`: integrity findings, read-only, in parallel over files.

use std::io::Write;

use serde::Serialize;

use super::FileOutcome;
use crate::cli::{DoctorArgs, GlobalArgs};
use crate::model::Format;
use crate::model::diag::{Diagnostic, Severity};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::{ExitStatus, doctor};

#[derive(Serialize, Default)]
struct Total {
    kind: &'static str,
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    files_with_errors: usize,
    skipped: usize,
}

pub fn run(g: &GlobalArgs, a: &DoctorArgs) -> anyhow::Result<ExitStatus> {
    let (expanded, named) = super::batch_inputs(&a.paths, g)?;
    let outcomes = super::each_session(&expanded.inputs, &named, g, "doctor", |src, format| {
        match format {
            Format::ClaudeCode => doctor::check_claude(src),
            Format::Codex => crate::formats::codex::read_records(src).and_then(|r| doctor::codex(src, &r)),
            Format::CctoolSession => Ok(doctor::session(src)),
        }
        .map_err(|e| e.to_string())
    });
    let mut out = Out::new(g.color);
    let mut total = Total {
        kind: "total",
        ..Total::default()
    };
    let mut input_errors = expanded
        .problems
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    for d in &expanded.problems {
        if g.json {
            out.json(d)?;
        } else if !g.quiet {
            eprintln!("cctool: {}", escape_str(&d.to_string()));
        }
    }
    for (input, outcome) in expanded.inputs.iter().zip(outcomes) {
        match outcome {
            FileOutcome::Done(findings) => {
                total.files += 1;
                let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
                total.errors += errors;
                total.warnings += findings.iter().filter(|f| f.severity == Severity::Warning).count();
                total.infos += findings.iter().filter(|f| f.severity == Severity::Info).count();
                total.files_with_errors += usize::from(errors > 0);
                if g.json {
                    for f in &findings {
                        out.json(f)?;
                    }
                } else if !findings.is_empty() {
                    out.text(&render(&input.display_name(), &findings))?;
                }
            }
            other => {
                let Some(d) = other.problem_counted(input, &mut input_errors, &mut total.skipped) else {
                    continue;
                };
                if g.json {
                    out.json(&d)?;
                } else if d.severity == Severity::Error && !g.quiet {
                    eprintln!("cctool: {}: {}", escape_str(&d.file), escape_str(&d.message));
                }
            }
        }
    }
    if g.json {
        out.json(&total)?;
    }
    out.flush()?;
    if !g.json && !g.quiet {
        let mut e = std::io::stderr().lock();
        let mut line = format!(
            "cctool: {} files checked: {} errors, {} warnings, {} infos",
            total.files, total.errors, total.warnings, total.infos
        );
        if total.files_with_errors > 0 {
            line.push_str(&format!(" ({} files with errors)", total.files_with_errors));
        }
        if total.skipped > 0 {
            line.push_str(&format!("; {} files skipped as not sessions", total.skipped));
        }
        let _ = writeln!(e, "{line}");
    }
    Ok(if input_errors > 0 {
        ExitStatus::Error
    } else if total.errors > 0 {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    })
}

/// Findings of one file, grouped under its name.
fn render(file: &str, findings: &[Diagnostic]) -> String {
    let mut s = format!("{}\n", escape_str(file));
    for f in findings {
        let at = f.line.map_or_else(|| "-".to_string(), |l| format!("line {l}"));
        s.push_str(&format!(
            "  {at}: {} [{}] {}\n",
            f.severity,
            f.code,
            escape_str(&f.message)
        ));
    }
    s.push('\n');
    s
}
