//! Parallel tool calls recovered: results placed after their group's last chain member
//! (2.1.88) or merged in file order (B2), and the system rows under the tip (B3).

use super::*;

/// Assistant rows sorted by message id, then position.
pub(super) struct Groups {
    rows: Vec<(u32, u32)>,
}

impl Groups {
    /// The positions of the rows with this message id, in map order.
    pub(super) fn get(&self, id: u32) -> Vec<u32> {
        let lo = self.rows.partition_point(|r| r.0 < id);
        let hi = self.rows.partition_point(|r| r.0 <= id);
        self.rows[lo..hi].iter().map(|r| r.1).collect()
    }
}

/// B1 fallback candidates: per raw `isSidechain` group, entries sorted by (time, position).
pub(super) struct Candidates {
    groups: [Vec<(i64, u32)>; 4],
}

impl Candidates {
    pub(super) fn new(t: &Transcript, v: &View<'_>) -> Candidates {
        let mut groups: [Vec<(i64, u32)>; 4] = Default::default();
        for (i, n) in t.nodes.iter().enumerate() {
            if v.alive[i] && n.ts != NO_TS && !(n.kind == Kind::System && n.sub == Sub::FileSnapshot) {
                groups[n.side as usize].push((n.ts, i as u32));
            }
        }
        for g in &mut groups {
            g.sort_unstable();
        }
        Candidates { groups }
    }

    pub(super) fn fallback(&self, child: &Node, on_chain: &[bool]) -> Option<u32> {
        if child.ts == NO_TS {
            return None;
        }
        let g = &self.groups[child.side as usize];
        let upper = g.partition_point(|&(ts, _)| ts <= child.ts);
        // The newest timestamp that still has an entry off the chain...
        let newest = g[..upper].iter().rev().find(|&&(_, p)| !on_chain[p as usize])?.0;
        if child.ts - newest > GAP_BRIDGE_MS {
            return None;
        }
        // ...and among entries with that timestamp, the earliest in the file.
        let lo = g.partition_point(|&(ts, _)| ts < newest);
        g[lo..upper]
            .iter()
            .take_while(|&&(ts, _)| ts == newest)
            .find(|&&(_, p)| !on_chain[p as usize])
            .map(|&(_, p)| p)
    }
}

impl Transcript {
    /// Live assistant rows grouped by `message.id`, by sorting (a map of vectors would cost
    /// an allocation per message on multi-GB files).
    pub(super) fn groups(&self, v: &View<'_>) -> Groups {
        let mut rows: Vec<(u32, u32)> = (0..self.nodes.len())
            .filter(|&i| v.alive[i] && self.nodes[i].kind == Kind::Assistant && self.nodes[i].msg_id != NONE)
            .map(|i| (self.nodes[i].msg_id, i as u32))
            .collect();
        rows.sort_unstable();
        Groups { rows }
    }

    /// 2.1.88 `recoverOrphanedParallelToolResults`: orphans sorted by timestamp, inserted
    /// after the group's last chain member.
    pub(super) fn recover_after_last(&self, v: &View<'_>, chain: Vec<u32>) -> Vec<u32> {
        let groups = self.groups(v);
        let mut on_chain = vec![false; self.nodes.len()];
        for &p in &chain {
            on_chain[p as usize] = true;
        }
        let mut last_index: FxHashMap<u32, usize> = FxHashMap::default();
        for (i, &p) in chain.iter().enumerate() {
            let n = &self.nodes[p as usize];
            if n.kind == Kind::Assistant && n.msg_id != NONE {
                last_index.insert(n.msg_id, i);
            }
        }
        let mut inserts: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
        let mut done = FxHashSet::default();
        for &p in &chain {
            let n = &self.nodes[p as usize];
            if n.kind != Kind::Assistant || n.msg_id == NONE || !done.insert(n.msg_id) {
                continue;
            }
            let members = groups.get(n.msg_id);
            if members.is_empty() {
                continue;
            }
            let (mut sib, mut res) = self.orphans_of(v, &members, &on_chain);
            let by_ts = |a: &u32, b: &u32| self.nodes[*a as usize].ts.cmp(&self.nodes[*b as usize].ts);
            sib.sort_by(by_ts);
            res.sort_by(by_ts);
            sib.extend(res);
            for &r in &sib {
                on_chain[r as usize] = true;
            }
            if !sib.is_empty() {
                inserts.entry(last_index[&n.msg_id]).or_default().extend(sib);
            }
        }
        if inserts.is_empty() {
            return chain;
        }
        let mut out = Vec::with_capacity(chain.len() + inserts.values().map(Vec::len).sum::<usize>());
        for (i, p) in chain.into_iter().enumerate() {
            out.push(p);
            if let Some(extra) = inserts.remove(&i) {
                out.extend(extra);
            }
        }
        out
    }

    /// 2.1.332 B2: each group's span runs from its first to its last chain member and on
    /// over following tool-result, meta, attachment, same-id and non-boundary system rows;
    /// the recovered rows are merged into the span by file position.
    pub(super) fn recover_in_file_order(&self, v: &View<'_>, chain: Vec<u32>) -> Vec<u32> {
        let groups = self.groups(v);
        let mut on_chain = vec![false; self.nodes.len()];
        for &p in &chain {
            on_chain[p as usize] = true;
        }
        let mut first_last: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
        let mut order = Vec::new();
        for (i, &p) in chain.iter().enumerate() {
            let n = &self.nodes[p as usize];
            if n.kind == Kind::Assistant && n.msg_id != NONE {
                first_last.entry(n.msg_id).and_modify(|e| e.1 = i).or_insert_with(|| {
                    order.push(n.msg_id);
                    (i, i)
                });
            }
        }
        let mut spans: Vec<(usize, usize, Vec<u32>)> = Vec::new();
        for id in order {
            let members = groups.get(id);
            if members.is_empty() {
                continue;
            }
            let (sib, res) = self.orphans_of(v, &members, &on_chain);
            if sib.is_empty() && res.is_empty() {
                continue;
            }
            let (first, mut end) = first_last[&id];
            while end + 1 < chain.len() {
                let n = &self.nodes[chain[end + 1] as usize];
                let extends = match n.kind {
                    Kind::Assistant => n.msg_id == id,
                    Kind::User => n.has(flag::META) || n.has(flag::TOOL_RESULT),
                    Kind::Attachment => true,
                    Kind::System => !n.is_boundary(),
                };
                if !extends {
                    break;
                }
                end += 1;
            }
            let mut rec = sib;
            rec.extend(res);
            for &r in &rec {
                on_chain[r as usize] = true;
            }
            spans.push((first, end, rec));
        }
        if spans.is_empty() {
            return chain;
        }
        spans.sort_by_key(|s| s.0);
        let mut merged: Vec<(usize, usize, Vec<u32>)> = Vec::new();
        for s in spans {
            match merged.last_mut() {
                Some(m) if s.0 <= m.1 => {
                    m.1 = m.1.max(s.1);
                    m.2.extend(s.2);
                }
                _ => merged.push(s),
            }
        }
        let mut out = Vec::with_capacity(chain.len() + merged.iter().map(|m| m.2.len()).sum::<usize>());
        let mut i = 0;
        for (first, end, mut rec) in merged {
            out.extend_from_slice(&chain[i..first]);
            rec.sort_unstable();
            rec.dedup();
            let mut j = 0;
            for &row in &chain[first..=end] {
                while j < rec.len() && rec[j] < row {
                    out.push(rec[j]);
                    j += 1;
                }
                out.push(row);
            }
            out.extend_from_slice(&rec[j..]);
            i = end + 1;
        }
        out.extend_from_slice(&chain[i..]);
        out
    }

    /// 2.1.332 B3: system and attachment descendants of the tip, reached only through such
    /// rows, by timestamp.
    pub(super) fn trailing_system_rows(&self, v: &View<'_>, tip: u32, chain: &[u32]) -> Vec<u32> {
        let on_chain: FxHashSet<u32> = chain.iter().copied().collect();
        let mut found = Vec::new();
        let mut seen = FxHashSet::default();
        let mut queue = VecDeque::from([tip]);
        while let Some(p) = queue.pop_front() {
            for &c in v.children(p) {
                let n = &self.nodes[c as usize];
                if matches!(n.kind, Kind::System | Kind::Attachment) && !on_chain.contains(&c) && seen.insert(c) {
                    found.push(c);
                    queue.push_back(c);
                }
            }
        }
        found.sort_by_key(|&p| (self.nodes[p as usize].ts, p));
        found
    }
}
