//! What `doctor` finds in a Claude Code transcript: the loaders' own diagnostics, broken
//! parent links judged by what they do to the resumed chain ([`links`]), compactions without
//! their summary, unpaired tool calls, and the request a resume would send.

pub mod links;

use super::chain::{self as claude, Chain, Id, Kind, Transcript, flag};
use crate::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::findings::{ToolLine, adopt, finding, ids, sort, tool_pass};
use cctool_core::model::resume::Overrides;

/// Every finding of a Claude Code transcript read with [`claude::read_for_audit`], `chain`
/// being the chain a resume loads.
fn findings(src: &Source, t: &Transcript, chain: &Chain) -> std::io::Result<Vec<Diagnostic>> {
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
    let summary_parents: rustc_hash::FxHashSet<Id> = summaries.iter().filter_map(|&p| t.node(p).parent_id()).collect();
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

    tool_pairing(src, file, &mut out)?;
    sort(&mut out);
    Ok(out)
}

/// Claude Code: `tool_use` blocks of assistant rows, `tool_result` blocks of user rows. The
/// needle finds both (`"tool_use"` and `"tool_use_id"`).
fn tool_pairing(src: &Source, file: &str, found: &mut Vec<Diagnostic>) -> std::io::Result<()> {
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

/// Loads and checks one Claude Code transcript; `resume` configures the model findings
/// (`session-model-retired`, `session-model-retiring`, from `chain::claude_model`).
pub fn check(src: &Source, resume: &Overrides) -> std::io::Result<Vec<Diagnostic>> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let mut out = findings(src, &t, &chain)?;
    out.extend(super::model::doctor_findings(&t, &chain, src, resume)?);
    out.extend(super::slim::doctor_findings(&t, &chain, src, resume)?);
    sort(&mut out);
    Ok(out)
}
