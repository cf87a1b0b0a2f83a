//! `cctool doctor [PATH...]`: integrity findings, read-only, in parallel over files.

use std::collections::BTreeMap;

use serde::Serialize;

use super::FileOutcome;
use crate::ExitStatus;
use crate::cli::{DoctorArgs, GlobalArgs};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::output::Out;
use crate::output::report::Reporter;
use crate::output::sanitize::escape_str;
use crate::output::style::{self, Paint};

#[derive(Serialize, Default)]
pub struct Total {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    files_with_errors: usize,
    skipped: usize,
    unreadable: usize,
}

/// The findings of one code, over all files.
#[derive(Serialize, Default, Clone)]
pub struct CodeCount {
    code: String,
    findings: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

impl CodeCount {
    fn add(&mut self, s: Severity) {
        self.findings += 1;
        match s {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }

    fn worst(&self) -> Severity {
        if self.errors > 0 {
            Severity::Error
        } else if self.warnings > 0 {
            Severity::Warning
        } else {
            Severity::Info
        }
    }

    /// `1 error, 11 infos`.
    fn breakdown(&self) -> String {
        let mut parts = Vec::new();
        for (n, one, many) in [
            (self.errors, "error", "errors"),
            (self.warnings, "warning", "warnings"),
            (self.infos, "info", "infos"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {}", if n == 1 { one } else { many }));
            }
        }
        parts.join(", ")
    }
}

pub fn run(g: &GlobalArgs, a: &DoctorArgs) -> anyhow::Result<ExitStatus> {
    let resume = a.resume.overrides();
    // A bad --as-of or --settings is a usage error, said once rather than per file.
    crate::agents::claude_code::config::Config::load(&resume, None, &|k| std::env::var(k).ok())
        .map_err(|e| crate::Fatal(e.to_string()))?;
    let (expanded, named) = super::session_inputs(&a.paths, &a.files, g)?;
    let outcomes = super::each_session(&expanded.inputs, &named, g, "doctor", |src, format| {
        crate::agents::agent(format).doctor(src, &resume)
    });
    let shown = |f: &Diagnostic| f.severity >= a.min_severity && (a.codes.is_empty() || a.codes.contains(&f.code));
    let mut out = Out::new(g.color);
    let mut say = Reporter::new(g);
    let mut total = Total { ..Total::default() };
    let mut by_code: BTreeMap<Code, CodeCount> = BTreeMap::new();
    for d in &expanded.problems {
        total.unreadable += usize::from(d.severity == Severity::Error);
        if !shown(d) {
            continue;
        }
        if g.json {
            out.json(&super::record::Record::diagnostic(d))?;
        } else {
            say.diagnostic(d);
        }
    }
    for (input, outcome) in expanded.inputs.iter().zip(outcomes) {
        match outcome {
            FileOutcome::Done(findings) => {
                total.files += 1;
                let findings: Vec<Diagnostic> = findings.into_iter().filter(|f| shown(f)).collect();
                let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
                total.errors += errors;
                total.warnings += findings.iter().filter(|f| f.severity == Severity::Warning).count();
                total.infos += findings.iter().filter(|f| f.severity == Severity::Info).count();
                total.files_with_errors += usize::from(errors > 0);
                for f in &findings {
                    by_code
                        .entry(f.code)
                        .or_insert_with(|| CodeCount {
                            code: f.code.id().to_string(),
                            ..CodeCount::default()
                        })
                        .add(f.severity);
                }
                if g.json {
                    for f in &findings {
                        out.json(&super::record::Record::diagnostic(f))?;
                    }
                } else if !findings.is_empty() {
                    out.text(&render(&input.display_name(), &findings, out.paint()))?;
                }
            }
            other => {
                let Some(d) = other.problem_counted(input, &mut total.unreadable, &mut total.skipped) else {
                    continue;
                };
                if !shown(&d) {
                    continue;
                }
                if g.json {
                    out.json(&super::record::Record::diagnostic(&d))?;
                } else if d.severity == Severity::Error {
                    say.diagnostic(&d);
                }
            }
        }
    }
    // On the user's own stores: what Claude Code's retention sweep deletes next.
    if a.paths.is_empty() {
        crate::backup::retention::doctor_section(g.json, &mut out, &say)?;
    }
    // Worst first, then the most frequent.
    let mut codes: Vec<CodeCount> = by_code.into_values().collect();
    codes.sort_by(|x, y| {
        y.worst()
            .cmp(&x.worst())
            .then(y.findings.cmp(&x.findings))
            .then(x.code.cmp(&y.code))
    });
    if g.json {
        for c in &codes {
            out.json(&super::record::Record::Code(c))?;
        }
        out.json(&super::record::Record::DoctorTotal(&total))?;
    }
    out.flush()?;
    if !g.json {
        let width = codes.iter().map(|c| c.code.len()).max().unwrap_or(0);
        for c in &codes {
            say.note_painted(&format!(
                "{:>6}  {}  {}",
                c.findings,
                say.paint()
                    .paint(style::severity_style(c.worst()), &format!("{:<width$}", c.code)),
                c.breakdown()
            ));
        }
        let mut line = format!(
            "{} files checked: {} errors, {} warnings, {} infos",
            total.files, total.errors, total.warnings, total.infos
        );
        if total.files_with_errors > 0 {
            line.push_str(&format!(" ({} files with errors)", total.files_with_errors));
        }
        if total.skipped > 0 {
            line.push_str(&format!("; {} files skipped as not sessions", total.skipped));
        }
        if total.unreadable > 0 {
            line.push_str(&format!("; {} could not be read", total.unreadable));
        }
        if a.min_severity > Severity::Info || !a.codes.is_empty() {
            line.push_str(" (filtered)");
        }
        say.note(&line);
    }
    if total.unreadable > 0 {
        say.merge(ExitStatus::Error);
    } else if total.errors > 0 {
        say.merge(ExitStatus::Negative);
    }
    Ok(say.status())
}

/// Findings of one file, grouped under its name.
fn render(file: &str, findings: &[Diagnostic], paint: Paint) -> String {
    let mut s = format!("{}\n", paint.paint(style::BOLD, &escape_str(file)));
    for f in findings {
        let at = f.line.map_or_else(|| "-".to_string(), |l| format!("line {l}"));
        s.push_str(&format!(
            "  {at}: {} {} {}\n",
            paint.severity(f.severity),
            paint.paint(style::DIM, &format!("[{}]", f.code)),
            escape_str(&f.message)
        ));
    }
    s.push('\n');
    s
}
