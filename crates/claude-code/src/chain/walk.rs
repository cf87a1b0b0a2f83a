//! The parent walk from the tip, with cycle protection and B1 gap bridging, and what a walk
//! that stops at a broken link costs.

use super::*;

/// The severity and the message of a walk that stops at a broken link: `missing` is the
/// parent that is not in the file (`None` for a link that closes a cycle), `lost` what the
/// stop leaves out ([`Transcript::not_loaded_before`]).
pub fn walk_stop(missing: Option<&str>, lost: usize) -> (Severity, String) {
    let why = match missing {
        Some(u) => format!("parent {u} is not in the file"),
        None => "its parent link closes a cycle".to_string(),
    };
    if lost > 0 {
        (
            Severity::Error,
            format!("the resumed chain stops here: {why}, so a resume loses {lost} message(s) written before it"),
        )
    } else {
        let start = if missing.is_some() {
            " (continued from another file, or the file's start is missing)"
        } else {
            ""
        };
        (
            Severity::Info,
            format!("the resumed chain starts here: {why}{start}; nothing written before it in this file is lost"),
        )
    }
}

impl Transcript {
    /// `docs/claude-code.md#the-parent-walk` from the tip, root first. With `bridge`
    /// (`docs/claude-code.md#b1-gap-bridging`), a parent that is
    /// missing or already on the chain is replaced by the newest same-sidechain-group
    /// entry not on the chain whose timestamp is at most the child's and at most 5 s older.
    pub(super) fn walk(&self, v: &View<'_>, tip: u32, bridge: bool) -> (Vec<u32>, WalkEnd, Vec<Bridge>) {
        let mut on_chain = vec![false; self.nodes.len()];
        let mut out = Vec::new();
        let mut bridges = Vec::new();
        let mut candidates: Option<Candidates> = None;
        let mut cur = tip;
        let end = loop {
            on_chain[cur as usize] = true;
            out.push(cur);
            let pid = v.parent[cur as usize];
            if pid == ROOT {
                break if self.nodes[cur as usize].is_boundary() {
                    WalkEnd::Boundary
                } else {
                    WalkEnd::Root
                };
            }
            let stop = match v.live(pid) {
                Some(p) if !on_chain[p as usize] => {
                    cur = p;
                    continue;
                }
                Some(_) => WalkEnd::Cycle,
                None => WalkEnd::Dangling(if pid == INVALID {
                    "<not a string>".into()
                } else {
                    self.ids.text(pid)
                }),
            };
            if !bridge {
                break stop;
            }
            let c = candidates.get_or_insert_with(|| Candidates::new(self, v));
            match c.fallback(&self.nodes[cur as usize], &on_chain) {
                Some(p) => {
                    bridges.push(Bridge {
                        child: cur,
                        to: p,
                        missing_parent: match &stop {
                            WalkEnd::Dangling(u) => Some(u.clone()),
                            _ => None,
                        },
                        gap_ms: self.nodes[cur as usize].ts - self.nodes[p as usize].ts,
                    });
                    cur = p;
                }
                None => break stop,
            }
        };
        out.reverse();
        (out, end, bridges)
    }

    /// Assistant siblings (same `message.id`) and tool results parented on any group
    /// member, that are not on the chain yet.
    pub(super) fn orphans_of(&self, v: &View<'_>, members: &[u32], on_chain: &[bool]) -> (Vec<u32>, Vec<u32>) {
        let siblings: Vec<u32> = members.iter().copied().filter(|&m| !on_chain[m as usize]).collect();
        let mut results = Vec::new();
        for &m in members {
            for &c in v.children(m) {
                let n = &self.nodes[c as usize];
                if n.kind == Kind::User && n.has(flag::TOOL_RESULT) && !on_chain[c as usize] {
                    results.push(c);
                }
            }
        }
        (siblings, results)
    }
}
