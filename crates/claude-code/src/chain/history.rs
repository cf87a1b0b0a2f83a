//! `--full`: the history before each compaction, put back in front of the chain.

use super::*;

impl Transcript {
    /// `--full`: before each compact boundary at the root, the history it replaced: from the
    /// boundary's `logicalParentUuid` where it resolves, else from the last conversation
    /// message written before the boundary.
    pub(super) fn prepend_earlier_history(&self, positions: &mut Vec<u32>, chain: &mut Chain) {
        let mut used: FxHashSet<u32> = positions.iter().copied().collect();
        let mut parts: Vec<Vec<u32>> = vec![std::mem::take(positions)];
        while let Some(&root) = parts.last().and_then(|p| p.first()) {
            if !self.nodes[root as usize].is_boundary() {
                break;
            }
            let start = self.logical_parent(root).filter(|p| !used.contains(p)).or_else(|| {
                (0..root).rev().find(|&p| {
                    let n = &self.nodes[p as usize];
                    n.is_conversation() && !n.is_sidechain() && !used.contains(&p)
                })
            });
            let Some(start) = start else { break };
            let mut part = Vec::new();
            let mut cur = Some(start);
            while let Some(p) = cur {
                if !used.insert(p) {
                    break;
                }
                part.push(p);
                cur = self.pos(self.nodes[p as usize].parent);
            }
            part.reverse();
            parts.push(part);
        }
        let mut starts = Vec::new();
        for part in parts.into_iter().rev() {
            starts.push(positions.len());
            positions.extend(part);
        }
        chain.loaded_from = starts.pop(); // the last part is the loaded chain itself
        chain.earlier_parts = starts;
    }
}
