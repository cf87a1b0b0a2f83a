//! Integrity findings: one per problem, each with the file, the line and a stable code.
//!
//! The codes, their meanings and severities are defined once, in
//! [`crate::model::diag::Code`]. A finding's severity follows its effect on the conversation
//! a resume loads: an error when the agent loses or misreads data on resume (a line it cannot
//! parse, a chain that stops and leaves earlier messages behind, a summary it never sees), a
//! warning when something is damaged but the resume goes on, info for what is worth knowing
//! and changes nothing (see [`links`] for parent links).

mod ids;
pub mod links;
mod rowscan;

use std::collections::BTreeMap;

use crate::agents::claude_code::chain::{self as claude, Chain, Kind, Transcript, flag};
use crate::agents::codex::history as codex_chain;
use crate::agents::codex::rollout::{Era, Event, ItemSrc, Record, Rollout};
use crate::io::Source;
use crate::io::lines::map_marker_lines;
use crate::model::diag::{Code, Diagnostic, Severity};

fn finding(file: &str, line: Option<u64>, code: Code, severity: Severity, message: String) -> Diagnostic {
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(file, line, code, severity, message)
    }
}

/// The loaders' own diagnostics that doctor reports as they are: everything doctor lists,
/// except the walk's stop, which [`links`] judges for every link rather than the one the
/// walk met.
fn adopt(diags: &[Diagnostic]) -> impl Iterator<Item = Diagnostic> + '_ {
    diags
        .iter()
        .filter(|d| d.code.reported().doctor && !matches!(d.code, Code::DanglingParent | Code::Cycle))
        .map(|d| Diagnostic {
            kind: "finding",
            ..d.clone()
        })
}

/// Every finding of a Claude Code transcript read with [`claude::read_for_audit`], `chain`
/// being the chain a resume loads.
pub fn claude(src: &Source, t: &Transcript, chain: &Chain) -> std::io::Result<Vec<Diagnostic>> {
    let file = t.file.as_str();
    let mut out: Vec<Diagnostic> = adopt(&t.diagnostics).chain(adopt(&chain.diagnostics)).collect();
    out.extend(links::dangling_links(t, chain).iter().map(|d| links::finding(t, d)));
    out.extend(links::cycles(t, chain));

    // Boundaries: summary present, logical parent resolvable.
    let boundaries: Vec<u32> = (0..t.nodes.len() as u32).filter(|&p| t.node(p).is_boundary()).collect();
    // A boundary has its summary when one is parented on it or written after it, before the
    // next boundary: a lookup each (a pass over every record per boundary took minutes on
    // files of tens of thousands of compactions).
    let summaries: Vec<u32> = (0..t.nodes.len() as u32)
        .filter(|&p| t.node(p).kind == Kind::User && t.node(p).has(flag::COMPACT_SUMMARY))
        .collect();
    let summary_parents: rustc_hash::FxHashSet<crate::agents::claude_code::chain::Id> =
        summaries.iter().filter_map(|&p| t.node(p).parent_id()).collect();
    for (i, &b) in boundaries.iter().enumerate() {
        let node = t.node(b);
        let next = boundaries.get(i + 1).copied().unwrap_or(u32::MAX);
        let first_after = summaries.partition_point(|&p| p <= b);
        let has_summary = summary_parents.contains(&node.uuid) || summaries.get(first_after).is_some_and(|&p| p < next);
        if !has_summary {
            out.push(finding(
                file,
                Some(node.line),
                Code::BoundaryWithoutSummary,
                Severity::Warning,
                "compact boundary without a summary message: after it the agent resumes with no account of what came before".into(),
            ));
        }
    }
    for info in &t.boundaries {
        if let Some(lp) = info.logical_parent
            && !t.knows(lp)
        {
            out.push(finding(
                file,
                Some(t.node(info.pos).line),
                Code::LogicalParentUnresolved,
                Severity::Info,
                format!(
                    "logicalParentUuid {} names no record of this file (common: it is informational only)",
                    t.ids.text(lp)
                ),
            ));
        }
    }

    claude_tool_pairing(src, file, &mut out)?;
    sort(&mut out);
    Ok(out)
}

/// What one line holds for the pairing and surrogate checks.
#[derive(Default)]
struct ToolLine {
    calls: Vec<String>,
    results: Vec<String>,
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
/// lines that can hold them (parsed on every core for a large file): `ids` reads the call and
/// result ids of one record.
fn tool_pass(
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

/// Claude Code: `tool_use` blocks of assistant rows, `tool_result` blocks of user rows. The
/// needle finds both (`"tool_use"` and `"tool_use_id"`).
fn claude_tool_pairing(src: &Source, file: &str, found: &mut Vec<Diagnostic>) -> std::io::Result<()> {
    let ids = |row: &ids::Row, out: &mut ToolLine| {
        for b in row.message_content.iter().flatten() {
            match (row.item.ty.as_deref(), b.ty.as_deref()) {
                (Some("assistant"), Some("tool_use")) => out.calls.extend(b.id.clone()),
                (Some("user"), Some("tool_result")) => out.results.extend(b.tool_use_id.clone()),
                _ => {}
            }
        }
    };
    tool_pass(src, file, b"\"tool_use", ids, found)
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

/// What a Codex resume does differently from reading the file forward: discarded turns, and
/// a format current Codex no longer resumes. `rebuild-chain` reports the same notes.
pub fn codex_notes(rollout: &Rollout, current: &codex_chain::History) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if rollout.era == Era::Bare || rollout.era == Era::Document {
        out.push(Diagnostic::new(
            &rollout.file,
            None,
            Code::PreEnvelopeFormat,
            Severity::Warning,
            "written by a 2025 Codex that current Codex cannot resume; its history is read by plain forward replay",
        ));
    }
    if current.discarded_turns > 0 {
        out.push(Diagnostic::new(
            &rollout.file,
            None,
            Code::RolledBack,
            Severity::Info,
            format!(
                "{} turn(s) rolled back and discarded ({} records)",
                current.discarded_turns, current.discarded_records
            ),
        ));
    }
    out
}

/// Every finding of a Codex rollout.
pub fn codex(src: &Source, rollout: &Rollout) -> std::io::Result<Vec<Diagnostic>> {
    let file = rollout.file.as_str();
    let mut out: Vec<Diagnostic> = adopt(&rollout.diagnostics).collect();
    let current = codex_chain::reconstruct(rollout);
    let legacy = codex_chain::replay_forward(rollout);
    out.extend(adopt(&codex_notes(rollout, &current)));
    let srcs = |h: &codex_chain::History| h.items.iter().map(|i| i.src.clone()).collect::<Vec<ItemSrc>>();
    if rollout.era == Era::Envelope && srcs(&current) != srcs(&legacy) {
        let line = rollout
            .records
            .iter()
            .rev()
            .find(|(_, r)| matches!(r, Record::Event(Event::RolledBack(_))))
            .map(|(l, _)| *l);
        out.push(finding(
            file,
            line,
            Code::RollbackCrossesCheckpoint,
            Severity::Warning,
            format!(
                "a rollback crosses a compaction: current Codex resumes {} items, Codex before 2026-02-27 resumed {}",
                current.items.len(),
                legacy.items.len()
            ),
        ));
    }
    let ids = |row: &ids::Row, out: &mut ToolLine| {
        let item = match &row.payload {
            Some(p) if row.item.ty.as_deref() == Some("response_item") => Some(p),
            Some(_) => None,
            None => Some(&row.item),
        };
        let id = item.and_then(|i| i.call_id.clone());
        match item.and_then(|i| i.ty.as_deref()) {
            Some("function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call") => {
                out.calls.extend(id);
            }
            Some("function_call_output" | "custom_tool_call_output" | "tool_search_output") => {
                out.results.extend(id);
            }
            _ => {}
        }
    };
    tool_pass(src, file, b"\"call_id\"", ids, &mut out)?;
    sort(&mut out);
    Ok(out)
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

fn sort(findings: &mut [Diagnostic]) {
    findings.sort_by(|a, b| a.line.unwrap_or(0).cmp(&b.line.unwrap_or(0)).then(a.code.cmp(&b.code)));
}

/// A cctool session file: findings are schema problems.
pub fn session(src: &Source) -> Vec<Diagnostic> {
    match crate::agents::cctool::file::for_each_message(src, |_| {}) {
        Ok(s) => match s.version {
            Some(1..=5) => Vec::new(),
            other => vec![finding(
                src.name(),
                None,
                Code::InvalidSession,
                Severity::Error,
                format!(
                    "unknown schema version {}",
                    other.map_or("(missing)".to_string(), |v| v.to_string())
                ),
            )],
        },
        Err(e) => vec![finding(src.name(), None, Code::InvalidSession, Severity::Error, e.0)],
    }
}

/// Loads and checks one Claude Code transcript; `resume` configures the model findings
/// (`session-model-retired`, `session-model-retiring`, from `chain::claude_model`).
pub fn check_claude(
    src: &Source,
    resume: &crate::agents::claude_code::config::Overrides,
) -> std::io::Result<Vec<Diagnostic>> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let mut out = claude(src, &t, &chain)?;
    out.extend(crate::agents::claude_code::model::doctor_findings(
        &t, &chain, src, resume,
    )?);
    out.extend(crate::agents::claude_code::slim::doctor_findings(
        &t, &chain, src, resume,
    )?);
    sort(&mut out);
    Ok(out)
}
