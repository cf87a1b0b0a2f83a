//! What `doctor` finds in a Codex rollout: the reader's own diagnostics, what a resume does
//! differently from reading the file forward, rollbacks across a compaction, unpaired tool
//! calls.

use super::history;
use super::rollout::{Era, Event, ItemSrc, Record, Rollout};
use crate::io::Source;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::findings::{ToolLine, adopt, finding, ids, sort, tool_pass};

/// What a Codex resume does differently from reading the file forward: discarded turns, and
/// a format current Codex no longer resumes. `rebuild-chain` reports the same notes.
pub fn notes(rollout: &Rollout, current: &history::History) -> Vec<Diagnostic> {
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
pub fn findings(src: &Source, rollout: &Rollout) -> std::io::Result<Vec<Diagnostic>> {
    let file = rollout.file.as_str();
    let mut out: Vec<Diagnostic> = adopt(&rollout.diagnostics).collect();
    let current = history::reconstruct(rollout);
    let legacy = history::replay_forward(rollout);
    out.extend(adopt(&notes(rollout, &current)));
    let srcs = |h: &history::History| h.items.iter().map(|i| i.src.clone()).collect::<Vec<ItemSrc>>();
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
