//! What is said of a chain: broken links, rows not loaded, the time span of the file.

use super::*;

impl Transcript {
    pub(super) fn chain_diagnostics(&self, v: &View<'_>, chain: &mut Chain) {
        for b in &chain.bridges {
            let child = &self.nodes[b.child as usize];
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(child.line),
                Code::GapBridged,
                Severity::Info,
                format!(
                    "parent {} of {} {}; bridged to {} ({} ms older), as Claude Code 2.1.332 does",
                    b.missing_parent.as_deref().unwrap_or("(already on the chain)"),
                    self.ids.text(child.uuid),
                    if b.missing_parent.is_some() {
                        "is not in the file"
                    } else {
                        "closes a cycle"
                    },
                    self.uuid_text(b.to),
                    b.gap_ms
                ),
            ));
        }
        if let (Some(end @ (WalkEnd::Dangling(_) | WalkEnd::Cycle)), Some(root)) = (&chain.end, chain.walk_root) {
            let missing = match end {
                WalkEnd::Dangling(u) => Some(u.as_str()),
                _ => None,
            };
            let (severity, message) = walk_stop(missing, self.not_loaded_before(chain, root));
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.nodes[root as usize].line),
                if matches!(end, WalkEnd::Cycle) {
                    Code::Cycle
                } else {
                    Code::DanglingParent
                },
                severity,
                message,
            ));
        }
        if let Some(last) = self.nodes.iter().rposition(Node::is_boundary) {
            let reaches = chain
                .positions
                .iter()
                .any(|&p| p as usize >= last && self.nodes[p as usize].is_boundary());
            if !reaches && v.alive[last] && chain.earlier_parts.is_empty() {
                chain.diagnostics.push(Diagnostic::new(
                    &self.file,
                    Some(self.nodes[last].line),
                    Code::ChainMissesLastBoundary,
                    Severity::Error,
                    "the resumed chain does not reach the last compact boundary: its summary is not loaded",
                ));
            }
        }
        if self.unterminated {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.lines),
                Code::UnterminatedLastLine,
                Severity::Info,
                "the file does not end with a newline: possibly still being written",
            ));
        }
    }

    /// Earliest and latest parseable timestamps of any record, in milliseconds.
    pub fn time_span(&self) -> Option<(i64, i64)> {
        self.span
    }

    /// Conversation messages of the main chain written before `pos` in the same compaction
    /// era (after the last compact boundary written before it) that `chain` does not load:
    /// what a walk that stops at `pos` loses. Nothing, when `pos` is where the file's
    /// conversation begins (a session continued from another file, or a file cut short).
    pub fn not_loaded_before(&self, chain: &Chain, pos: u32) -> usize {
        let line = self.nodes[pos as usize].line;
        let era = self
            .nodes
            .iter()
            .filter(|n| n.is_boundary() && n.line < line)
            .map(|n| n.line)
            .max()
            .unwrap_or(0);
        let on: FxHashSet<u32> = chain.positions.iter().copied().collect();
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                n.line > era
                    && n.line < line
                    && n.is_conversation()
                    && n.is_sidechain() == chain.sidechain
                    && !on.contains(&(*i as u32))
            })
            .count()
    }

    /// User and assistant messages of the main chain that the chain does not include.
    pub fn unreachable(&self, chain: &Chain) -> usize {
        let on: FxHashSet<u32> = chain.positions.iter().copied().collect();
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| n.is_conversation() && !n.is_sidechain() && !on.contains(&(*i as u32)))
            .count()
    }
}
