//! Broken parent links, judged by what they do to the conversation a resume loads.
//!
//! A `parentUuid` that names nothing in the file is common and mostly harmless: progress
//! rows the loader bridges away, rows before a compaction (a resume loads the summary
//! instead), abandoned branches, the first row of a session continued from another file.
//! It matters only when the chain a resume loads stops there while messages written before
//! it would have been loaded. `doctor` and `scan` both count from [`dangling_links`], so they
//! agree.

use rustc_hash::FxHashMap;

use crate::chain::{Chain, Id, Kind, Transcript, WalkEnd, walk_stop};
use cctool_core::model::diag::{Code, Diagnostic, Severity};

/// What one broken link does to the conversation a resume loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The resumed chain stops at this link; `lost` messages written before it since the
    /// last compaction are not loaded (none: the chain simply starts here).
    Stops {
        /// Messages written before it since the last compaction.
        lost: usize,
    },
    /// Claude Code 2.1.332 bridges the gap to the entry on `to_line`, `gap_ms` older.
    Bridged {
        /// The line of the entry bridged to.
        to_line: u64,
        /// How much older that entry is, in milliseconds.
        gap_ms: i64,
    },
    /// Written before the last compaction, which a resume replaces with its summary.
    Compacted,
    /// A progress row: never loaded, and no loaded message descends from it.
    Progress,
    /// A sidechain (subagent) row, never part of the main conversation.
    Sidechain,
    /// Off the resumed chain: an abandoned branch, or rows nothing loaded leads to.
    OffChain,
}

impl Effect {
    /// How serious the effect is: an error when loaded messages are lost, else info.
    pub fn severity(self) -> Severity {
        match self {
            Effect::Stops { lost } if lost > 0 => Severity::Error,
            _ => Severity::Info,
        }
    }
}

/// One parent reference, as written on `line`, that names nothing in the file.
#[derive(Clone, Copy, Debug)]
pub struct Dangling {
    /// The line the reference is written on.
    pub line: u64,
    /// The interned uuid of the row that holds the reference.
    pub uuid: Id,
    /// The interned uuid it references.
    pub parent: Id,
    /// Whether the row holding it is a legacy progress row.
    pub progress: bool,
    /// What the broken link does to the conversation a resume loads.
    pub effect: Effect,
}

/// Every parent reference of `t` that names nothing in the file, progress rows included, in
/// file order, each with its effect on `chain` (the chain a resume loads). `t` must have
/// been read with [`crate::chain::read_for_audit`]; otherwise there are no links.
pub fn dangling_links(t: &Transcript, chain: &Chain) -> Vec<Dangling> {
    let Some(links) = &t.links else {
        return Vec::new();
    };
    // Most files have no broken link at all: nothing to judge, no tables to build.
    if links.iter().all(|l| t.knows(l.parent)) {
        return Vec::new();
    }
    // The parent each row names, as written (the last copy of a duplicated row wins, as it
    // does for the loader).
    let written: FxHashMap<Id, Id> = links.iter().map(|l| (l.uuid, l.parent)).collect();
    let last_boundary = t.nodes.iter().filter(|n| n.is_boundary()).map(|n| n.line).max();

    // The links on the resumed chain's path: from a loaded row up through the progress rows
    // the loader bridged, to the reference that names nothing.
    let mut on_path: FxHashMap<Id, Effect> = FxHashMap::default();
    let mut mark = |from: Id, effect: Effect| {
        let mut cur = from;
        for _ in 0..=written.len() {
            match written.get(&cur) {
                Some(&p) if t.progress_ids.contains(&p) => cur = p,
                Some(&p) if !t.knows(p) => {
                    on_path.insert(cur, effect);
                    return;
                }
                _ => return,
            }
        }
    };
    if let (Some(WalkEnd::Dangling(_)), Some(root)) = (&chain.end, chain.walk_root) {
        let lost = t.not_loaded_before(chain, root);
        mark(t.node(root).uuid, Effect::Stops { lost });
    }
    for b in chain.bridges.iter().filter(|b| b.missing_parent.is_some()) {
        let effect = Effect::Bridged {
            to_line: t.node(b.to).line,
            gap_ms: b.gap_ms,
        };
        mark(t.node(b.child).uuid, effect);
    }

    links
        .iter()
        .filter(|l| !t.knows(l.parent))
        .map(|l| {
            let progress = t.progress_ids.contains(&l.uuid);
            let node = (!progress).then(|| t.find_id(l.uuid)).flatten().map(|p| t.node(p));
            let effect = if let Some(&e) = on_path.get(&l.uuid) {
                e
            } else if last_boundary.is_some_and(|b| l.line < b) {
                Effect::Compacted
            } else if progress {
                Effect::Progress
            } else if node.is_some_and(|n| n.is_sidechain()) && !chain.sidechain {
                Effect::Sidechain
            } else {
                Effect::OffChain
            };
            Dangling {
                line: l.line,
                uuid: l.uuid,
                parent: l.parent,
                progress,
                effect,
            }
        })
        .collect()
}

/// The `dangling-parent` finding of one broken link.
pub fn finding(t: &Transcript, d: &Dangling) -> Diagnostic {
    let parent = t.ids.text(d.parent);
    let kind = if d.progress {
        "progress"
    } else {
        match t.find_id(d.uuid).map(|p| t.node(p).kind) {
            Some(Kind::User) => "user",
            Some(Kind::Assistant) => "assistant",
            Some(Kind::System) => "system",
            Some(Kind::Attachment) => "attachment",
            None => "",
        }
    };
    let row = format!("{kind} row {}", t.ids.text(d.uuid)).trim_start().to_string();
    let message = match d.effect {
        Effect::Stops { lost } => walk_stop(Some(&parent), lost).1,
        Effect::Bridged { to_line, gap_ms } => format!(
            "parent {parent} of {row} is not in the file; Claude Code 2.1.332 bridges the gap to line {to_line} ({gap_ms} ms older), so nothing is lost on resume (2.1.88 did not bridge it)"
        ),
        Effect::Compacted => format!(
            "parent {parent} of {row} is not in the file; written before the last compaction, which a resume replaces with its summary: nothing is lost on resume"
        ),
        Effect::Progress => format!(
            "parent {parent} of {row} is not in the file; progress rows are never loaded and no loaded message descends from this one: off the resumed chain, nothing is lost on resume"
        ),
        Effect::Sidechain => format!(
            "parent {parent} of sidechain {row} is not in the file; subagent rows are not part of the resumed conversation: nothing is lost on resume"
        ),
        Effect::OffChain => {
            format!("parent {parent} of {row} is not in the file; off the resumed chain: nothing is lost on resume")
        }
    };
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(
            &t.file,
            Some(d.line),
            Code::DanglingParent,
            d.effect.severity(),
            message,
        )
    }
}

/// Parent cycles anywhere in the message graph, one finding per cycle, each judged like a
/// broken link: an error only when the resumed chain stops at it and loses messages.
pub fn cycles(t: &Transcript, chain: &Chain) -> Vec<Diagnostic> {
    let parents = t.parents();
    let n = parents.len();
    let last_boundary = t.nodes.iter().filter(|n| n.is_boundary()).map(|n| n.line).max();
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; n];
    let mut out = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut path = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            match state[c] {
                0 => {
                    state[c] = 1;
                    path.push(c);
                    cur = parents[c].map(|p| p as usize);
                }
                1 => {
                    let at = path.iter().position(|&x| x == c).unwrap_or(0);
                    let members: Vec<u32> = path[at..].iter().map(|&p| p as u32).collect();
                    out.push(cycle_finding(t, chain, &members, last_boundary));
                    break;
                }
                _ => break,
            }
        }
        for p in path {
            state[p] = 2;
        }
    }
    out
}

fn cycle_finding(t: &Transcript, chain: &Chain, members: &[u32], last_boundary: Option<u64>) -> Diagnostic {
    let mut lines: Vec<u64> = members.iter().map(|&p| t.node(p).line).collect();
    lines.sort_unstable();
    let listed = lines.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let stops_here = matches!(chain.end, Some(WalkEnd::Cycle)) && chain.walk_root.is_some_and(|r| members.contains(&r));
    let bridged = chain
        .bridges
        .iter()
        .find(|b| b.missing_parent.is_none() && members.contains(&b.child));
    let (severity, line, message) = if stops_here {
        let root = chain.walk_root.unwrap_or(members[0]);
        let (severity, what) = walk_stop(None, t.not_loaded_before(chain, root));
        (
            severity,
            t.node(root).line,
            format!("the parent links of the messages on lines {listed} form a cycle; {what}"),
        )
    } else if let Some(b) = bridged {
        (
            Severity::Info,
            t.node(b.child).line,
            format!(
                "the parent links of the messages on lines {listed} form a cycle; Claude Code 2.1.332 bridges it to line {} ({} ms older), so nothing is lost on resume (2.1.88 did not bridge it)",
                t.node(b.to).line,
                b.gap_ms
            ),
        )
    } else if last_boundary.is_some_and(|b| lines.last().is_some_and(|&l| l < b)) {
        (
            Severity::Info,
            lines[0],
            format!(
                "the parent links of the messages on lines {listed} form a cycle; written before the last compaction, which a resume replaces with its summary: nothing is lost on resume"
            ),
        )
    } else {
        (
            Severity::Info,
            lines[0],
            format!(
                "the parent links of the messages on lines {listed} form a cycle; off the resumed chain: nothing is lost on resume"
            ),
        )
    };
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(&t.file, Some(line), Code::Cycle, severity, message)
    }
}
