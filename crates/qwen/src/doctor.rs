//! What `doctor` finds in a Qwen Code session, each finding weighed by its effect on a resume:
//! the lines and records the client passes over, records of another session (the client then
//! loads nothing), a parent the walk does not find (nothing before it is loaded) or a loop,
//! `uuid`s written twice (their parts are joined), a compaction with no history to start from,
//! a prompt a compaction left out of its history, calls no result answers and results that
//! answer no call (the request drops both).

use std::collections::HashSet;

use crate::chain::Chain;
use crate::file::Session;
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};

fn diag(file: &str, line: u64, code: Code, severity: Severity, message: String, finding: bool) -> Diagnostic {
    let d = Diagnostic::new(file, Some(line), code, severity, message);
    if finding {
        Diagnostic { kind: "finding", ..d }
    } else {
        d
    }
}

/// What `doctor` finds in `src`.
pub fn doctor(src: &Source) -> cctool_core::error::Result<Vec<Diagnostic>> {
    Ok(doctor_of(
        src.name(),
        &crate::answers::read_light(src, crate::lite::Want::Links)?,
    ))
}

/// [`doctor`] of the session `s` read from `file`.
pub(crate) fn doctor_of(file: &str, s: &Session) -> Vec<Diagnostic> {
    let mut out = crate::answers::unread(file, s, true);
    if let Some((line, other)) = s.other_session_ids().first() {
        out.push(diag(
            file,
            *line,
            Code::MixedSessions,
            Severity::Error,
            format!(
                "a record of session {other:?} in the file of session {:?}: Qwen Code refuses to load records of several sessions, so the session cannot be resumed",
                s.session_id().unwrap_or("")
            ),
            true,
        ));
    }
    let c = Chain::of(s);
    out.extend(chain_findings(file, s, &c, true));
    out.extend(calls_and_results(file, s, &c));
    out.extend(prompts_lost(file, s, &c));
    if c.walked.is_empty() {
        out.push(diag(
            file,
            1,
            Code::NoConversation,
            Severity::Info,
            "no conversation record: Qwen Code finds nothing to resume".into(),
            true,
        ));
    }
    out.sort_by_key(|d| d.line);
    out
}

/// The findings about the chain a resume walks: the parent it does not find, a loop, `uuid`s
/// written again, compactions without a history (`finding`: as `doctor`'s findings, else as
/// `rebuild-chain`'s diagnostics).
pub fn chain_findings(file: &str, s: &Session, c: &Chain, finding: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let on_chain: HashSet<usize> = c.walked.iter().copied().collect();
    for &i in &c.dangling {
        let r = &s.records[i];
        let parent = r.parent.as_deref().unwrap_or("");
        let (severity, effect) = if c.gap.as_ref().is_some_and(|(g, _)| *g == i) {
            (
                Severity::Error,
                "the chain a resume walks stops here: Qwen Code loads nothing written before it",
            )
        } else if on_chain.contains(&i) {
            (Severity::Error, "on the chain a resume walks")
        } else {
            (
                Severity::Info,
                "off the chain a resume walks: nothing a resume loads is lost",
            )
        };
        let msg = format!(
            "record {} names parent {parent:?}, which no record has; {effect}",
            r.uuid
        );
        out.push(diag(file, r.line, Code::DanglingParent, severity, msg, finding));
    }
    if let Some(i) = c.cycle {
        let msg = format!(
            "parent links loop back to record {}: the walk stops there, and what the loop hides is not loaded",
            s.records[i].uuid
        );
        out.push(diag(
            file,
            s.records[i].line,
            Code::Cycle,
            Severity::Error,
            msg,
            finding,
        ));
    }
    for later in c.fragments.values().flatten() {
        let r = &s.records[*later];
        let msg = format!(
            "uuid {} written again: Qwen Code joins this record's parts to the first one's",
            r.uuid
        );
        out.push(diag(file, r.line, Code::DuplicateUuid, Severity::Warning, msg, finding));
    }
    for r in s.records.iter().filter(|r| r.is_system("chat_compression")) {
        if finding && crate::chain::compressed_history(r).is_none() {
            let msg = "a chat_compression without a compressedHistory: a resume does not start from it".to_string();
            out.push(diag(
                file,
                r.line,
                Code::BoundaryWithoutSummary,
                Severity::Warning,
                msg,
                finding,
            ));
        }
    }
    out
}

/// The prompts written after the last reply before a compaction on the chain that its
/// compressed history does not hold: the client compacted on the way to sending them, and a
/// resume starts from that history without them.
fn prompts_lost(file: &str, s: &Session, c: &Chain) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (k, &i) in c.walked.iter().enumerate() {
        let Some(history) = crate::chain::compressed_history(&s.records[i]) else {
            continue;
        };
        let kept = history.to_string();
        for &j in c.walked[..k].iter().rev() {
            let r = &s.records[j];
            if r.ty() == "assistant" {
                break;
            }
            if r.ty() != "user" || r.subtype().is_some() {
                continue;
            }
            let texts: Vec<&str> = r.parts().iter().filter_map(|p| p.get("text")?.as_str()).collect();
            let held = texts
                .iter()
                .all(|t| kept.contains(&serde_json::Value::from(*t).to_string()));
            if !texts.is_empty() && !held {
                let msg = format!(
                    "the prompt {:?} was written before the compaction on line {}, whose history does not hold it: a resume does not send it",
                    texts.join(" ").chars().take(60).collect::<String>(),
                    s.records[i].line
                );
                out.push(diag(
                    file,
                    r.line,
                    Code::PromptLostToCompaction,
                    Severity::Warning,
                    msg,
                    true,
                ));
            }
        }
    }
    out
}

/// Calls in what a resume loads that no result answers, and results that answer no call: the
/// request leaves both out.
fn calls_and_results(file: &str, s: &Session, c: &Chain) -> Vec<Diagnostic> {
    let mut calls: Vec<(String, u64)> = Vec::new();
    let mut results: Vec<(String, u64)> = Vec::new();
    for content in c.history_borrowed(s) {
        let line = s.records[content.from].line;
        for p in content.parts {
            let id = |k: &str| p.get(k)?.get("id")?.as_str().map(str::to_string);
            if let Some(id) = id("functionCall") {
                calls.push((id, line));
            }
            if let Some(id) = id("functionResponse") {
                results.push((id, line));
            }
        }
    }
    let answered: HashSet<&str> = results.iter().map(|(c, _)| c.as_str()).collect();
    let called: HashSet<&str> = calls.iter().map(|(c, _)| c.as_str()).collect();
    let mut out = Vec::new();
    for (id, line) in calls.iter().filter(|(c, _)| !answered.contains(c.as_str())) {
        let msg = format!("tool call {id} has no result: a resume leaves the call out of the request");
        out.push(diag(
            file,
            *line,
            Code::ToolCallWithoutResult,
            Severity::Warning,
            msg,
            true,
        ));
    }
    for (id, line) in results.iter().filter(|(c, _)| !called.contains(c.as_str())) {
        let msg = format!("tool result {id} answers no call: a resume leaves it out of the request");
        out.push(diag(
            file,
            *line,
            Code::ToolResultWithoutCall,
            Severity::Warning,
            msg,
            true,
        ));
    }
    out
}
