//! Integrity findings (`doctor`): one per problem, each with the file, the line and a stable
//! code; what every agent's checks share.
//!
//! The codes, their meanings and severities are defined once, in
//! [`crate::model::diag::Code`]. A finding's severity follows its effect on the conversation
//! a resume loads: an error when the agent loses or misreads data on resume (a line it cannot
//! parse, a chain that stops and leaves earlier messages behind, a summary it never sees), a
//! warning when something is damaged but the resume goes on, info for what is worth knowing
//! and changes nothing (Claude Code's `doctor/links.rs` for parent links). Each agent's own
//! checks are in its folder (`doctor.rs` or `doctor/`).

pub mod ids;
mod rowscan;

use std::collections::BTreeMap;

use crate::io::Source;
use crate::io::lines::map_marker_lines;
use crate::model::diag::{Code, Diagnostic, Severity};

/// A finding (a diagnostic of kind `finding`) about `file`, at `line` when one is known.
pub fn finding(file: &str, line: Option<u64>, code: Code, severity: Severity, message: String) -> Diagnostic {
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(file, line, code, severity, message)
    }
}

/// The loaders' own diagnostics that doctor reports as they are: everything doctor lists,
/// except the walk's stop, which Claude Code's `doctor/links.rs` judges for every link rather
/// than the one the walk met.
pub fn adopt(diags: &[Diagnostic]) -> impl Iterator<Item = Diagnostic> + '_ {
    diags
        .iter()
        .filter(|d| d.code.reported().doctor && !matches!(d.code, Code::DanglingParent | Code::Cycle))
        .map(|d| Diagnostic {
            kind: "finding",
            ..d.clone()
        })
}

/// What one line holds for the pairing and surrogate checks.
#[derive(Default)]
pub struct ToolLine {
    /// The ids of the tool calls the line makes.
    pub calls: Vec<String>,
    /// The ids of the calls whose results the line holds.
    pub results: Vec<String>,
    lone_surrogate: bool,
}

impl ToolLine {
    fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.results.is_empty() && !self.lone_surrogate
    }
}

/// A line that may hold a surrogate escape: `\ud` or `\uD` (one pass for both).
fn maybe_surrogate(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"\\u").any(|at| matches!(bytes.get(at + 2), Some(b'd' | b'D')))
}

const SURROGATE_NEEDLES: [&[u8]; 2] = [b"\\ud", b"\\uD"];

/// Tool calls and results that do not pair up, and lone surrogates, from one pass over the
/// lines that can hold them (parsed on every core for a large file): `needle` is in every
/// line that holds a call or a result, and `ids` reads the call and result ids of one record.
pub fn tool_pass(
    src: &Source,
    file: &str,
    needle: &[u8],
    ids: impl Fn(&ids::Row, &mut ToolLine) + Sync,
    found: &mut Vec<Diagnostic>,
) -> std::io::Result<()> {
    let mut calls: BTreeMap<String, u64> = BTreeMap::new();
    let mut results: BTreeMap<String, u64> = BTreeMap::new();
    let mut surrogates = Vec::new();
    map_marker_lines(
        src,
        &[needle, SURROGATE_NEEDLES[0], SURROGATE_NEEDLES[1]],
        |line| {
            let maybe_surrogate = maybe_surrogate(line.bytes);
            // Lines holding a lone surrogate escape: found with the repair scan, including
            // fields the loaders skip (where no parser notices them).
            let mut out = ToolLine {
                lone_surrogate: maybe_surrogate && crate::io::json::repair_surrogates(line.bytes).is_some(),
                ..ToolLine::default()
            };
            if let Some(row) = rowscan::row(line.bytes, maybe_surrogate) {
                ids(&row, &mut out);
            }
            (!out.is_empty()).then_some(out)
        },
        |no, t| {
            for id in t.calls {
                calls.entry(id).or_insert(no);
            }
            for id in t.results {
                results.entry(id).or_insert(no);
            }
            if t.lone_surrogate {
                surrogates.push(no);
            }
        },
    )?;
    found.extend(pairing(file, &calls, &results));
    lone_surrogates(file, surrogates, found);
    Ok(())
}

fn pairing(file: &str, calls: &BTreeMap<String, u64>, results: &BTreeMap<String, u64>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (id, &line) in calls {
        if !results.contains_key(id) {
            out.push(finding(
                file,
                Some(line),
                Code::ToolCallWithoutResult,
                Severity::Warning,
                format!("tool call {id} has no result in the file (interrupted, or the session ended during the call)"),
            ));
        }
    }
    for (id, &line) in results {
        if !calls.contains_key(id) {
            out.push(finding(
                file,
                Some(line),
                Code::ToolResultWithoutCall,
                Severity::Warning,
                format!("tool result for {id}, whose call is not in the file"),
            ));
        }
    }
    out
}

/// A finding for each line with a lone surrogate escape that the loader did not report.
fn lone_surrogates(file: &str, lines: Vec<u64>, found: &mut Vec<Diagnostic>) {
    let known: std::collections::HashSet<u64> = found
        .iter()
        .filter(|d| d.code == Code::LoneSurrogate)
        .filter_map(|d| d.line)
        .collect();
    for no in lines.into_iter().filter(|no| !known.contains(no)) {
        found.push(finding(
            file,
            Some(no),
            Code::LoneSurrogate,
            Severity::Info,
            "lone UTF-16 surrogate escape: the text around it was cut mid-character; read as U+FFFD".into(),
        ));
    }
}

/// Findings in the order doctor lists them: by line, then by code.
pub fn sort(findings: &mut [Diagnostic]) {
    findings.sort_by(|a, b| a.line.unwrap_or(0).cmp(&b.line.unwrap_or(0)).then(a.code.cmp(&b.code)));
}
