//! What `doctor` finds in a pi session, each finding weighed by its effect on a resume: the
//! lines the client skips, parent links that break the resumed branch, a compaction whose first
//! kept entry is not on it, tool calls and results without each other on it, and a stored
//! working folder that is missing (the client refuses to resume then).

use rustc_hash::FxHashSet;

use crate::lite::{self, Lite};
use crate::tree::{Node, Tree};
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
    let s = lite::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    Ok(doctor_of(src, &s))
}

/// What `doctor` finds in `src` read as `s`.
pub(crate) fn doctor_of(src: &Source, s: &lite::Session) -> Vec<Diagnostic> {
    let file = src.name();
    let mut out = crate::answers::unread(file, &s.unread, true);
    let Some(h) = &s.header else {
        out.push(Diagnostic {
            kind: "finding",
            ..crate::answers::no_header(file)
        });
        return out;
    };
    let t = Tree::over(&s.entries, None);
    out.extend(tree_findings(file, &s.entries, &t, true));
    if let Some(cwd) = h.cwd.as_deref().filter(|c| !c.is_empty())
        && !std::path::Path::new(cwd).exists()
    {
        out.push(diag(
            file,
            h.line,
            Code::MissingCwd,
            Severity::Error,
            format!("the session's folder {cwd:?} does not exist here: pi refuses to resume it (\"Stored session working directory does not exist\") until it does"),
            true,
        ));
    }
    out.extend(calls_and_results(file, &s.entries, &t));
    if !t.branch.iter().any(|&i| s.entries[i].ty() == "message") {
        out.push(diag(
            file,
            h.line,
            Code::NoConversation,
            Severity::Info,
            "no message on the resumed branch: a resume starts with an empty conversation".into(),
            true,
        ));
    }
    out.sort_by_key(|d| d.line);
    out
}

/// The findings about the tree: parent links that name nothing or loop, ids written twice, and
/// the resumed compaction's first kept entry off the branch (`finding`: as `doctor`'s findings,
/// else as `rebuild-chain`'s diagnostics).
pub fn tree_findings<N: Node>(file: &str, entries: &[N], t: &Tree, finding: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, parent) in &t.dangling {
        let e = &entries[*i];
        let (severity, effect) = if t.branch.first() == Some(i) {
            (
                Severity::Error,
                "the resumed branch stops here: pi loses every entry written before it",
            )
        } else {
            (Severity::Info, "off the resumed branch: nothing a resume loads is lost")
        };
        let msg = format!("entry {} names parent {parent:?}, which no entry has; {effect}", id(e));
        out.push(diag(file, e.line(), Code::DanglingParent, severity, msg, finding));
    }
    if let Some(i) = t.cycle {
        let msg = format!(
            "parent links loop back to entry {}: pi's walk from the last entry never ends, so the session cannot be resumed",
            id(&entries[i])
        );
        out.push(diag(
            file,
            entries[i].line(),
            Code::Cycle,
            Severity::Error,
            msg,
            finding,
        ));
    }
    for &i in &t.duplicates {
        let msg = format!("id {} written again: pi links to this later entry", id(&entries[i]));
        out.push(diag(
            file,
            entries[i].line(),
            Code::DuplicateUuid,
            Severity::Warning,
            msg,
            finding,
        ));
    }
    if let (Some(c), false) = (t.compaction, t.first_kept_found) {
        let e = &entries[c];
        let kept = e.first_kept().unwrap_or("(none)");
        let msg = format!(
            "the compaction the resume starts from keeps entries from {kept:?}, which is not on the branch before it: pi sends the summary and only what follows the compaction"
        );
        out.push(diag(
            file,
            e.line(),
            Code::FirstKeptOffBranch,
            Severity::Warning,
            msg,
            finding,
        ));
    }
    out
}

fn id<N: Node>(e: &N) -> String {
    e.id()
        .map_or_else(|| format!("at line {}", e.line()), |i| format!("{i:?}"))
}

/// Tool calls on the resumed branch that no result answers, and results that answer no call.
fn calls_and_results(file: &str, entries: &[Lite], t: &Tree) -> Vec<Diagnostic> {
    let mut calls: Vec<(String, u64)> = Vec::new();
    let mut results: Vec<(String, u64)> = Vec::new();
    for &i in &t.context {
        let e = &entries[i];
        let (called, result) = e.calls_and_result();
        calls.extend(called.into_iter().map(|c| (c.to_string(), e.line)));
        results.extend(result.map(|c| (c.to_string(), e.line)));
    }
    let answered: FxHashSet<&str> = results.iter().map(|(c, _)| c.as_str()).collect();
    let called: FxHashSet<&str> = calls.iter().map(|(c, _)| c.as_str()).collect();
    let mut out = Vec::new();
    for (c, line) in calls.iter().filter(|(c, _)| !answered.contains(c.as_str())) {
        let msg = format!("tool call {c} has no result on the resumed branch");
        out.push(diag(
            file,
            *line,
            Code::ToolCallWithoutResult,
            Severity::Warning,
            msg,
            true,
        ));
    }
    for (c, line) in results.iter().filter(|(c, _)| !called.contains(c.as_str())) {
        let msg = format!("tool result {c} answers no call on the resumed branch");
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
