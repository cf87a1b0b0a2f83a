//! Preserved-segment relinks and prunes, and snip removals (2.1.88).

use super::*;

impl Transcript {
    /// `docs/claude-code.md#preserved-segment-relink-and-prune` (the client's
    /// `applyPreservedSegmentRelinks`): only the last boundary's segment is honoured; a
    /// segment on any boundary prunes everything physically before the last boundary
    /// (except a live segment's messages); no segment anywhere means no prune at all.
    pub(super) fn apply_preserved_segments(&self, v: &mut View<'_>, chain: &mut Chain) {
        let Some(abs_last) = self.nodes.iter().rposition(Node::is_boundary) else {
            return;
        };
        let Some(seg) = self.segments.iter().max_by_key(|s| s.pos) else {
            return;
        };
        let mut preserved = FxHashSet::default();
        if seg.pos as usize == abs_last {
            let mut seen = FxHashSet::default();
            let mut cur = self.pos(seg.tail);
            let mut reached = false;
            while let Some(p) = cur {
                if !seen.insert(p) {
                    break;
                }
                preserved.insert(p);
                if self.nodes[p as usize].uuid == seg.head {
                    reached = true;
                    break;
                }
                cur = self.pos(v.parent[p as usize]);
            }
            if !reached {
                chain.diagnostics.push(Diagnostic::new(
                    &self.file,
                    Some(self.nodes[seg.pos as usize].line),
                    Code::PreservedSegmentBroken,
                    Severity::Warning,
                    "the preserved segment's walk from tail to head is broken; Claude Code neither relinks nor prunes",
                ));
                return;
            }
            if let Some(head) = self.pos(seg.head) {
                v.parent[head as usize] = seg.anchor;
                for (i, p) in v.parent.iter_mut().enumerate() {
                    if *p == seg.anchor && i != head as usize {
                        *p = seg.tail;
                    }
                }
            }
            chain.relinked = true;
        } else {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.nodes[seg.pos as usize].line),
                Code::StalePreservedSegment,
                Severity::Info,
                "preserved segment made stale by a later compact boundary: not relinked, but everything before the last boundary is pruned",
            ));
        }
        for (i, alive) in v.alive.iter_mut().enumerate().take(abs_last) {
            if *alive && !preserved.contains(&(i as u32)) {
                *alive = false;
                chain.pruned += 1;
            }
        }
    }

    /// `docs/claude-code.md#snip-removals` (the client's `applySnipRemovals`).
    pub(super) fn apply_snips(&self, v: &mut View<'_>) {
        if self.snips.is_empty() {
            return;
        }
        let mut removed = FxHashSet::default();
        for (pos, ids) in &self.snips {
            if !v.alive[*pos as usize] {
                continue;
            }
            for &id in ids {
                if let Some(p) = v.live(id) {
                    removed.insert(p);
                }
            }
        }
        let parent_of_removed: FxHashMap<Id, Id> = removed
            .iter()
            .map(|&p| (self.nodes[p as usize].uuid, v.parent[p as usize]))
            .collect();
        for &p in &removed {
            v.alive[p as usize] = false;
        }
        for i in 0..v.parent.len() {
            if !v.alive[i] {
                continue;
            }
            let mut p = v.parent[i];
            let mut hops = 0;
            while let Some(&up) = parent_of_removed.get(&p) {
                p = up;
                hops += 1;
                if hops > parent_of_removed.len() {
                    p = ROOT;
                    break;
                }
            }
            if p != v.parent[i] {
                v.parent[i] = if self.pos(p).is_some() || p == ROOT { p } else { ROOT };
            }
        }
    }
}
