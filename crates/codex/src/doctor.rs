//! What `doctor` finds in a Codex rollout: the reader's own diagnostics, what a resume does
//! differently from reading the file forward, rollbacks across a compaction, unpaired tool
//! calls.

use super::history;
use super::rollout::{Era, Event, Record, Rollout};
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
    let mut out = of_records(rollout);
    calls(src, &rollout.file, &mut out)?;
    Ok(out)
}

/// [`findings`] of a rollout read for them alone: its records are let go before the pass over
/// its calls, so that the two are never held at once.
pub fn findings_of(src: &Source, mut rollout: Rollout) -> std::io::Result<Vec<Diagnostic>> {
    let mut out = of_records(&rollout);
    let file = std::mem::take(&mut rollout.file);
    drop(rollout);
    calls(src, &file, &mut out)?;
    Ok(out)
}

/// The findings of the records read: the reader's own, and what a resume does differently.
fn of_records(rollout: &Rollout) -> Vec<Diagnostic> {
    let file = rollout.file.as_str();
    let mut out: Vec<Diagnostic> = adopt(&rollout.diagnostics).collect();
    let current = history::reconstruct(rollout);
    let legacy = history::replay_forward(rollout);
    out.extend(adopt(&notes(rollout, &current)));
    let same =
        |a: &history::History, b: &history::History| a.items.iter().map(|i| &i.src).eq(b.items.iter().map(|i| &i.src));
    if rollout.era == Era::Envelope && !same(&current, &legacy) {
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
    out
}

/// Calls without a result and results without a call, and lone surrogates, from a pass over
/// the lines that can hold them; then every finding in order.
fn calls(src: &Source, file: &str, out: &mut Vec<Diagnostic>) -> std::io::Result<()> {
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
    tool_pass(src, file, b"\"call_id\"", ids, out)?;
    sort(out);
    Ok(())
}
