//! The leaves and the tip the walk starts from: the newest leaf (2.1.88), the last row
//! written (B4), the sidechain tip; the message `--tip` names.

use super::*;

/// How many messages the refusal of an ambiguous `--tip` prefix lists.
const TIPS_SHOWN: usize = 5;

impl Transcript {
    /// The message `--tip` names: its uuid, or a prefix no other message's uuid starts with
    /// (case aside, as `scan` and `rebuild-chain` print uuids in lower case).
    pub(super) fn find_tip(&self, tip: &str) -> Result<u32, ChainError> {
        if let Some(pos) = self.find(tip) {
            return Ok(pos);
        }
        let prefix = tip.to_ascii_lowercase();
        let found: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&p| self.uuid_text(p).to_ascii_lowercase().starts_with(&prefix))
            .collect();
        match found[..] {
            [] => Err(ChainError::TipNotFound(tip.to_string())),
            [pos] => Ok(pos),
            _ => Err(ChainError::TipAmbiguous {
                tip: tip.to_string(),
                count: found.len(),
                shown: found
                    .iter()
                    .take(TIPS_SHOWN)
                    .map(|&p| (self.uuid_text(p), self.nodes[p as usize].line))
                    .collect(),
            }),
        }
    }

    /// `docs/claude-code.md#leaves`: for each terminal message, its nearest user/assistant
    /// ancestor.
    pub(super) fn leaves(&self, v: &View<'_>) -> Vec<u32> {
        let mut leaves = Vec::new();
        let mut is_leaf = vec![false; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            if !v.alive[i] || !v.children(i as u32).is_empty() {
                continue;
            }
            let _ = node;
            let mut cur = Some(i as u32);
            let mut seen = FxHashSet::default();
            while let Some(p) = cur {
                if !seen.insert(p) {
                    break;
                }
                if self.nodes[p as usize].is_conversation() {
                    if !is_leaf[p as usize] {
                        is_leaf[p as usize] = true;
                        leaves.push(p);
                    }
                    break;
                }
                cur = v.parent_pos(p);
            }
        }
        leaves
    }

    /// 2.1.88 (`--resume <path>` rule): the non-sidechain leaf with the newest timestamp;
    /// ties go to the first; unparsable timestamps never win.
    pub(super) fn tip_newest_leaf(&self, v: &View<'_>) -> Option<u32> {
        let mut best: Option<u32> = None;
        for p in self.leaves(v) {
            let n = &self.nodes[p as usize];
            if n.is_sidechain() || n.ts == NO_TS {
                continue;
            }
            if best.is_none_or(|b| n.ts > self.nodes[b as usize].ts) {
                best = Some(p);
            }
        }
        best
    }

    /// 2.1.332 (B4): start from the last main-chain row written; if it is not the newest
    /// row, move to its newest descendant (ties to the later row); then up to the first
    /// user or assistant row.
    /// The second value says whether the choice holds for any rows written before the ones
    /// loaded: true when the start row has no descendants or was already not the newest.
    pub(super) fn tip_last_written(&self, v: &View<'_>) -> (Option<u32>, bool) {
        let eligible = |p: u32| {
            let n = &self.nodes[p as usize];
            v.alive[p as usize] && !n.is_sidechain() && !matches!(n.sub, Sub::FileSnapshot | Sub::ForkBriefing)
        };
        let Some(mut start) = self.last_written.filter(|&p| eligible(p)).or_else(|| {
            // The last row written was pruned; fall back to the last live row in map order.
            (0..self.nodes.len() as u32).rev().find(|&p| eligible(p))
        }) else {
            return (None, true);
        };
        let mut local = v.children(start).is_empty();
        let newest = (0..self.nodes.len() as u32)
            .filter(|&p| eligible(p))
            .map(|p| self.nodes[p as usize].ts)
            .max()
            .unwrap_or(NO_TS);
        if self.nodes[start as usize].ts < newest {
            local = true;
            let mut best: Option<u32> = None;
            let mut seen = FxHashSet::default();
            let mut queue = VecDeque::from([start]);
            while let Some(p) = queue.pop_front() {
                for &c in v.children(p) {
                    if !seen.insert(c) || c == start {
                        continue;
                    }
                    queue.push_back(c);
                    let cn = &self.nodes[c as usize];
                    if cn.ts == NO_TS {
                        continue;
                    }
                    let better = match best {
                        None => true,
                        Some(b) => {
                            let bn = &self.nodes[b as usize];
                            cn.ts > bn.ts || (cn.ts == bn.ts && cn.line > bn.line)
                        }
                    };
                    if better {
                        best = Some(c);
                    }
                }
            }
            if let Some(b) = best {
                start = b;
            }
        }
        let mut cur = Some(start);
        let mut seen = FxHashSet::default();
        while let Some(p) = cur {
            if !seen.insert(p) {
                break;
            }
            if self.nodes[p as usize].is_conversation() {
                return (Some(p), local);
            }
            cur = v.parent_pos(p);
        }
        (None, local)
    }

    /// The tip of a file without main-chain conversation: the last sidechain conversation
    /// row written, when every conversation row is a sidechain row.
    pub(super) fn tip_sidechain(&self, v: &View<'_>) -> Option<u32> {
        let mut best: Option<u32> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            if !v.alive[i] || !n.is_conversation() {
                continue;
            }
            if !n.is_sidechain() {
                return None;
            }
            if best.is_none_or(|b| n.line > self.nodes[b as usize].line) {
                best = Some(i as u32);
            }
        }
        best
    }
}
