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
    /// Of `files`, the sessions of a database (`DB#ID`): for the closing line only, the
    /// JSON total's fields being stable.
    #[serde(skip)]
    members: usize,
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

pub fn run(g: &GlobalArgs, a: &DoctorArgs) -> super::Result<ExitStatus> {
    let resume = a.resume.overrides();
    // A bad --as-of or --settings is a usage error, said once rather than per file.
    crate::agents::registry()
        .check_resume(&resume)
        .map_err(super::error::Usage::Resume)?;
    let (expanded, named) = super::session_inputs(&a.paths, &a.files, g)?;
    let outcomes = super::each_session(&expanded.inputs, &named, g, "doctor", |src, format| {
        crate::agents::agent(format).doctor(src, &resume)
    });
    let shown = |f: &Diagnostic| f.severity >= a.min_severity && (a.codes.is_empty() || a.codes.contains(&f.code));
    let mut out = Out::new(g.color);
    let mut say = g.reporter();
    let mut total = Total { ..Total::default() };
    let mut by_code: BTreeMap<Code, CodeCount> = BTreeMap::new();
    let mut files: Vec<FileSummary> = Vec::new();
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
                total.members += usize::from(matches!(input, crate::io::Input::Member(_)));
                let findings: Vec<Diagnostic> = findings.into_iter().filter(|f| shown(f)).collect();
                count(&mut total, &mut by_code, &findings);
                if g.json {
                    for f in &findings {
                        out.json(&super::record::Record::diagnostic(f))?;
                    }
                } else if a.verbose && !findings.is_empty() {
                    out.text(&render(&input.display_name(), &findings, out.paint()))?;
                } else if !findings.is_empty() {
                    files.push(FileSummary::new(input.display_name(), &findings));
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
    if !files.is_empty() {
        let width = crate::output::table::target_width(out.terminal).unwrap_or(80);
        out.text(&summary_table(&mut files, width, out.paint()))?;
    }
    // On the user's own stores: what each agent's retention sweep deletes next.
    let retention = if a.paths.is_empty() {
        crate::backup::retention::doctor_findings(a.min_severity, &say)
    } else {
        Vec::new()
    };
    for f in &retention {
        match g.json {
            true => out.json(&super::record::Record::Retention(f))?,
            false => out.text(&crate::backup::retention::text(f, out.paint()))?,
        }
    }
    let codes = worst_first(by_code);
    if g.json {
        for c in &codes {
            out.json(&super::record::Record::Code(c))?;
        }
        out.json(&super::record::Record::DoctorTotal(&total))?;
    }
    out.flush()?;
    if !g.json {
        say_counts(
            &say,
            &codes,
            &total,
            a.min_severity > Severity::Info || !a.codes.is_empty(),
        );
    }
    if total.unreadable > 0 {
        say.merge(ExitStatus::Error);
    } else if total.errors > 0 {
        say.merge(ExitStatus::Negative);
    }
    Ok(say.status())
}

/// One file's shown findings added to the totals and to the count of each code.
fn count(total: &mut Total, by_code: &mut BTreeMap<Code, CodeCount>, findings: &[Diagnostic]) {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    total.errors += errors;
    total.warnings += findings.iter().filter(|f| f.severity == Severity::Warning).count();
    total.infos += findings.iter().filter(|f| f.severity == Severity::Info).count();
    total.files_with_errors += usize::from(errors > 0);
    for f in findings {
        by_code
            .entry(f.code)
            .or_insert_with(|| CodeCount {
                code: f.code.id().to_string(),
                ..CodeCount::default()
            })
            .add(f.severity);
    }
}

/// The codes found, the worst first, then the most frequent.
fn worst_first(by_code: BTreeMap<Code, CodeCount>) -> Vec<CodeCount> {
    let mut codes: Vec<CodeCount> = by_code.into_values().collect();
    codes.sort_by(|x, y| {
        y.worst()
            .cmp(&x.worst())
            .then(y.findings.cmp(&x.findings))
            .then(x.code.cmp(&y.code))
    });
    codes
}

/// The lines on stderr: one per code found, then the total.
fn say_counts(say: &Reporter, codes: &[CodeCount], total: &Total, filtered: bool) {
    let width = codes.iter().map(|c| c.code.len()).max().unwrap_or(0);
    for c in codes {
        say.note_painted(&format!(
            "{:>6}  {}  {}",
            c.findings,
            say.paint()
                .paint(style::severity_style(c.worst()), &format!("{:<width$}", c.code)),
            c.breakdown()
        ));
    }
    let mut line = format!(
        "{} checked: {} errors, {} warnings, {} infos",
        super::inputs_read(total.files, total.members),
        total.errors,
        total.warnings,
        total.infos
    );
    if total.files_with_errors > 0 {
        line.push_str(&format!(" ({} files with errors)", total.files_with_errors));
    }
    if total.skipped > 0 {
        line.push_str(&format!("; {}", super::skipped_note(total.skipped)));
    }
    if total.unreadable > 0 {
        line.push_str(&format!("; {} could not be read", total.unreadable));
    }
    if filtered {
        line.push_str(" (filtered)");
    }
    say.note(&line);
}

/// One file's line in the default output: its worst finding, what a resume loses, and how
/// many findings of each code.
struct FileSummary {
    file: String,
    worst: Severity,
    loses: String,
    codes: String,
}

impl FileSummary {
    fn new(file: String, findings: &[Diagnostic]) -> FileSummary {
        let worst = findings.iter().map(|f| f.severity).max().unwrap_or(Severity::Info);
        let mut counts: Vec<(Code, Severity, usize)> = Vec::new();
        for f in findings {
            match counts.iter_mut().find(|(c, ..)| *c == f.code) {
                Some((_, s, n)) => {
                    *s = (*s).max(f.severity);
                    *n += 1;
                }
                None => counts.push((f.code, f.severity, 1)),
            }
        }
        // Worst first, then the most frequent, as the per-code lines are ordered.
        counts.sort_by(|x, y| y.1.cmp(&x.1).then(y.2.cmp(&x.2)).then(x.0.cmp(&y.0)));
        let codes = counts
            .iter()
            .map(|(c, _, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        FileSummary {
            file,
            worst,
            loses: loss(findings),
            codes,
        }
    }
}

/// What an error-level finding of a code costs a resume.
enum Cost {
    /// The session cannot be resumed, or read at all.
    Session,
    /// The resumed chain stops at the finding's line: the messages before it are not loaded.
    MessagesBefore,
    /// The agent skips the line.
    Line,
    /// The last compaction's summary is not loaded.
    Summary,
    /// Said by the code's own name.
    Other,
}

fn cost(code: Code) -> Cost {
    match code {
        // The client refuses to resume the session, or deletes it (a stub twin's full transcript).
        Code::RequestTooLarge
        | Code::InvalidSession
        | Code::Unreadable
        | Code::MissingCwd
        | Code::NegativeTokensRemoved
        | Code::SessionTooLarge
        | Code::MixedSessions
        | Code::StubTwin => Cost::Session,
        Code::DanglingParent | Code::Cycle => Cost::MessagesBefore,
        Code::TwoRecordsOnOneLine
        | Code::InvalidJson
        | Code::InvalidUtf8
        | Code::TooDeep
        | Code::NotAnObject
        | Code::NulPadding
        | Code::UnusableCompacted => Cost::Line,
        Code::ChainMissesLastBoundary => Cost::Summary,
        _ => Cost::Other,
    }
}

/// What a resume loses, from the error-level findings (a warning or an info loses nothing,
/// by the definition of the severities): the whole session, the messages before the last
/// place the resumed chain stops, the lines the agent skips, the summary it never loads.
fn loss(findings: &[Diagnostic]) -> String {
    let (mut session, mut before, mut lines, mut summary) = (false, None, 0, false);
    let mut other: Vec<&str> = Vec::new();
    for f in findings.iter().filter(|f| f.severity == Severity::Error) {
        match cost(f.code) {
            Cost::Session => session = true,
            Cost::MessagesBefore => before = before.max(f.line),
            Cost::Line => lines += 1,
            Cost::Summary => summary = true,
            Cost::Other if !other.contains(&f.code.id()) => other.push(f.code.id()),
            Cost::Other => {}
        }
    }
    let mut parts: Vec<String> = Vec::new();
    if session {
        parts.push("the whole session".to_string());
    }
    if let Some(line) = before {
        parts.push(format!("messages before line {line}"));
    }
    if lines > 0 {
        parts.push(format!("{lines} {}", if lines == 1 { "line" } else { "lines" }));
    }
    if summary {
        parts.push("the last summary".to_string());
    }
    parts.extend(other.into_iter().map(str::to_string));
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join(", ")
    }
}

/// The default output: a line per file with findings, worst first, fitting `width`.
fn summary_table(files: &mut [FileSummary], width: usize, paint: Paint) -> String {
    use crate::output::table::{self, Align, Column};
    files.sort_by_key(|f| std::cmp::Reverse(f.worst));
    let columns = [
        Column::new("worst", Align::Left, 0),
        Column::new("file", Align::Left, 0).flex(24, 3).keep_end(),
        Column::new("resume loses", Align::Left, 0),
        Column::new("findings", Align::Left, 2).flex(16, 1),
    ];
    // A file is named by as much of its path as tells it from the others listed.
    let names = crate::output::names::unique_suffixes(&files.iter().map(|f| f.file.as_str()).collect::<Vec<_>>());
    let rows: Vec<Vec<String>> = files
        .iter()
        .zip(names)
        .map(|(f, name)| {
            vec![
                f.worst.name().to_string(),
                escape_str(&name),
                f.loses.clone(),
                f.codes.clone(),
            ]
        })
        .collect();
    let text = table::render(&columns, &rows, Some(width), Paint::OFF, false);
    if !paint.is_on() {
        return text;
    }
    // Colour goes on after the layout measured the plain text; each row starts with its
    // severity's name.
    let mut lines = text.lines();
    let mut s = lines
        .next()
        .map(|h| format!("{}\n", paint.paint(style::HEADER, h)))
        .unwrap_or_default();
    for (line, f) in lines.zip(files.iter()) {
        let rest = line.strip_prefix(f.worst.name()).unwrap_or(line);
        s.push_str(&format!("{}{rest}\n", paint.severity(f.worst)));
    }
    s
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
