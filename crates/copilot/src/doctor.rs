//! What `doctor` finds in a Copilot CLI session, each finding's severity its effect on a
//! resume: the failures its users report (NUL-padded tails, interleaved lines, a negative
//! `tokensRemoved`, files over 512 MiB), parent links that name no earlier event, calls with
//! no result, and every line that cannot be read, with its line.

use std::collections::HashSet;

use crate::file::{NulRun, Unread};
use crate::lite::Session;
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::findings::finding;

/// The size over which the client cannot resume a session, as its users report.
pub const RESUME_LIMIT: u64 = 512 * 1024 * 1024;

/// The lines that are no event, as diagnostics of `file` (`doctor` reports them as findings,
/// `rebuild-chain` as it reads), with the NUL runs found.
pub fn unread(file: &str, unread: &[Unread], nuls: &[NulRun], as_finding: bool) -> Vec<Diagnostic> {
    let make = |file: &str, line, code, severity, message| {
        if as_finding {
            finding(file, line, code, severity, message)
        } else {
            Diagnostic::new(file, line, code, severity, message)
        }
    };
    let mut out: Vec<Diagnostic> = unread
        .iter()
        .map(|u| make(file, Some(u.line), u.why.code, u.why.severity, u.why.message.clone()))
        .collect();
    for n in nuls {
        let message = if n.before_event {
            format!(
                "{} NUL bytes around the event on this line (a crash padded the file): the client cannot parse the line; cctool reads the event without them",
                n.bytes
            )
        } else {
            format!(
                "NUL-padded tail: {} NUL bytes where a write never landed (a crash); the client cannot parse the line",
                n.bytes
            )
        };
        out.push(make(file, Some(n.line), Code::NulPadding, Severity::Error, message));
    }
    out.sort_by_key(|d| d.line);
    out
}

/// What `doctor` finds in the session read as `s` from `src`.
pub fn doctor(src: &Source, s: &Session) -> Vec<Diagnostic> {
    let file = src.name();
    let mut out = unread(file, &s.unread, &s.nuls, true);
    if src.len() > RESUME_LIMIT {
        out.push(finding(
            file,
            None,
            Code::SessionTooLarge,
            Severity::Error,
            format!(
                "{} bytes: over the 512 MiB the client can resume; `cctool compact` or a new session",
                src.len()
            ),
        ));
    }
    for e in s.events.iter().filter(|e| e.ty == "session.compaction_complete") {
        if let Some(n) = e
            .get("tokensRemoved")
            .and_then(serde_json::Value::as_i64)
            .filter(|n| *n < 0)
        {
            out.push(finding(
                file,
                Some(e.line),
                Code::NegativeTokensRemoved,
                Severity::Error,
                format!("the compaction records tokensRemoved {n}: the client's resume fails on it"),
            ));
        }
    }
    for (line, parent) in s.broken_links() {
        out.push(finding(
            file,
            Some(line),
            Code::DanglingParent,
            Severity::Info,
            format!(
                "parentId {parent} names no earlier event (a lost or reordered line); the events are read in the order of the file"
            ),
        ));
    }
    calls_and_results(file, s, &mut out);
    out.sort_by_key(|d| d.line);
    out
}

/// Calls no result answers (a resume gives each a synthetic "interrupted" result), and results
/// that answer no call.
fn calls_and_results(file: &str, s: &Session, out: &mut Vec<Diagnostic>) {
    // The calls in order for the findings, and as a set for each result's lookup: a session of
    // many calls costs no more than its events.
    let mut calls: Vec<(&str, u64)> = Vec::new();
    let mut called: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
    for e in &s.events {
        match e.ty.as_str() {
            "assistant.message" => {
                calls.extend(e.calls.iter().map(|id| (id.as_str(), e.line)));
                called.extend(e.calls.iter().map(String::as_str));
            }
            "tool.execution_complete" => {
                let Some(id) = e.tool_call_id.as_deref() else { continue };
                if !called.contains(id) {
                    out.push(finding(
                        file,
                        Some(e.line),
                        Code::ToolResultWithoutCall,
                        Severity::Warning,
                        format!("tool result {id} answers no call"),
                    ));
                }
                answered.insert(id);
            }
            _ => {}
        }
    }
    for (id, line) in calls.into_iter().filter(|(id, _)| !answered.contains(id)) {
        out.push(finding(
            file,
            Some(line),
            Code::ToolCallWithoutResult,
            Severity::Warning,
            format!("tool call {id} has no result: a resume sends a synthetic \"interrupted\" result in its place"),
        ));
    }
}
