//! What `doctor` finds in an opencode session, each finding's severity its effect on a
//! resume: rows that cannot be read, compactions that looped, compactions never answered,
//! calls that never got a result, and the largest part (the database's growth is its users'
//! first complaint). What concerns the database rather than one session (messages of no
//! session, parts of no message, a newer schema) is said when its sessions are listed
//! ([`crate::db::members`]).

use serde_json::Value;

use crate::file::{Part, Session};
use crate::model::{resume_start, summary_of};
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::findings::finding;

/// A part at least this large is named: one such part is where a database's space goes.
pub const LARGE_PART: usize = 256 * 1024;

/// What `doctor` finds in the session read as `s` from `src`.
pub fn doctor(src: &Source, s: &Session) -> Vec<Diagnostic> {
    let file = src.name();
    let mut out: Vec<Diagnostic> = s
        .unreadable
        .iter()
        .map(|(table, id, why)| {
            finding(
                file,
                None,
                Code::UnreadableRow,
                Severity::Warning,
                format!("{table} {id}: {why}; left out"),
            )
        })
        .collect();
    compactions(file, s, &mut out);
    calls(file, s, &mut out);
    if let Some((size, id, ty)) = largest_part(s)
        && size >= LARGE_PART
    {
        out.push(finding(
            file,
            None,
            Code::LargestPart,
            Severity::Info,
            format!("part {id} ({ty}) holds {size} bytes, the session's largest"),
        ));
    }
    out
}

/// Compactions asked one after another with no prompt of the user's between them (the
/// client kept compacting), one finding a run of them; and compactions never answered.
fn compactions(file: &str, s: &Session, out: &mut Vec<Diagnostic>) {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut open = false;
    for (i, m) in s.messages.iter().enumerate() {
        if m.role() == "user" && !m.asks_compaction() && !synthetic_only(&m.parts) {
            open = false;
        }
        if !m.asks_compaction() {
            continue;
        }
        match runs.last_mut() {
            Some(run) if open => run.push(i),
            _ => runs.push(vec![i]),
        }
        open = true;
        if summary_of(s, i).is_none_or(|a| !a.is_finished_summary()) {
            out.push(finding(
                file,
                None,
                Code::BoundaryWithoutSummary,
                Severity::Warning,
                format!(
                    "compaction {} has no finished summary: a resume does not start from it",
                    m.id().unwrap_or("?")
                ),
            ));
        }
    }
    for run in runs.iter().filter(|r| r.len() > 1) {
        let id = |i: usize| s.messages[i].id().unwrap_or("?");
        out.push(finding(
            file,
            None,
            Code::CompactionLoop,
            Severity::Warning,
            format!(
                "{} compactions one after another with no prompt between them, from {} to {}: the client kept compacting",
                run.len(),
                id(run[0]),
                id(run[run.len() - 1])
            ),
        ));
    }
}

/// Whether every text part is one the client wrote itself (`synthetic`), as the message that
/// asks the model to go on after a compaction.
fn synthetic_only(parts: &[Part]) -> bool {
    let texts: Vec<&Part> = parts.iter().filter(|p| p.ty() == "text").collect();
    !texts.is_empty()
        && texts
            .iter()
            .all(|p| p.get("synthetic").and_then(Value::as_bool) == Some(true))
}

/// Calls of what a resume loads that are still pending or running: the client sends them as
/// interrupted.
fn calls(file: &str, s: &Session, out: &mut Vec<Diagnostic>) {
    for m in &s.messages[resume_start(s).min(s.messages.len())..] {
        for p in &m.parts {
            if p.ty() != "tool" {
                continue;
            }
            let status = p.pointer("/state/status").and_then(Value::as_str).unwrap_or("");
            if status != "completed" && status != "error" {
                out.push(finding(
                    file,
                    None,
                    Code::ToolCallWithoutResult,
                    Severity::Warning,
                    format!(
                        "call {} ({}) of part {} is {status:?}: it never got a result",
                        p.get("callID").and_then(Value::as_str).unwrap_or("?"),
                        p.get("tool").and_then(Value::as_str).unwrap_or("?"),
                        p.get("id").and_then(Value::as_str).unwrap_or("?"),
                    ),
                ));
            }
        }
    }
}

/// The largest part: its size as JSON, id and type.
pub fn largest_part(s: &Session) -> Option<(usize, String, String)> {
    s.messages
        .iter()
        .flat_map(|m| &m.parts)
        .max_by_key(|p| p.raw().len())
        .map(|p| {
            let id = p.get("id").and_then(Value::as_str).unwrap_or("?").to_string();
            let ty = if p.ty().is_empty() { "?" } else { p.ty() };
            (p.raw().len(), id, ty.to_string())
        })
}
