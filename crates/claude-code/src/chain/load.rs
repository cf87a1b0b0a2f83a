//! What a resume loads, step by step (`Transcript::rebuild`), and the chain it gives.

use super::*;

/// A parent reference as written in the file.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    /// The line it is written on.
    pub line: u64,
    /// The line's own uuid (interned).
    pub uuid: Id,
    /// The referenced parent (interned).
    pub parent: Id,
}

impl Transcript {
    /// Whether an interned uuid names a message or a progress row of this file.
    pub fn knows(&self, id: Id) -> bool {
        self.pos(id).is_some() || self.progress_ids.contains(&id)
    }

    /// Parent of every message as the loader sees it (after progress bridging), for graph
    /// checks; `None` for a root or a parent that is not a uuid.
    pub fn parents(&self) -> Vec<Option<u32>> {
        self.nodes
            .iter()
            .map(|n| n.parent_id().and_then(|p| self.pos(p)))
            .collect()
    }
}

/// Why the parent walk stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// The first message has no parent.
    Root,
    /// The first message is a compact boundary.
    Boundary,
    /// The next parent is not in the file.
    Dangling(String),
    /// The next parent is already on the chain.
    Cycle,
    /// There was no tip to start from.
    Empty,
}

impl std::fmt::Display for WalkEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkEnd::Root => f.write_str("root"),
            WalkEnd::Boundary => f.write_str("boundary"),
            WalkEnd::Dangling(u) => write!(f, "dangling:{u}"),
            WalkEnd::Cycle => f.write_str("cycle"),
            WalkEnd::Empty => f.write_str("empty"),
        }
    }
}

/// A bridged gap (B1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bridge {
    /// Position of the message whose parent is missing (or closes a cycle).
    pub child: u32,
    /// Position of the entry it is bridged to.
    pub to: u32,
    /// The missing parent's uuid; `None` when the parent is on the chain already (a cycle).
    pub missing_parent: Option<String>,
    /// How much older the entry bridged to is, in milliseconds.
    pub gap_ms: i64,
}

/// Options of one rebuild.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which client version's loader to follow.
    pub loader: Loader,
    /// Start the walk here instead of at the loader's tip.
    pub tip: Option<String>,
    /// Follow compactions back through earlier history.
    pub full: bool,
}

/// The rebuilt conversation, root first, as positions into [`Transcript::nodes`].
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// The messages, as positions, root first.
    pub positions: Vec<u32>,
    /// Where the parent walk stopped; `None` when it did not run.
    pub end: Option<WalkEnd>,
    /// The position the walk started from.
    pub tip: Option<u32>,
    /// Gaps bridged (B1).
    pub bridges: Vec<Bridge>,
    /// Parallel tool calls recovered (B2).
    pub recovered: usize,
    /// System rows under the tip appended (B3).
    pub appended: usize,
    /// Pruned by a preserved segment (live or stale).
    pub pruned: usize,
    /// A live preserved segment was linked back into the chain.
    pub relinked: bool,
    /// Messages of earlier history added by `--full`, and where each earlier part begins.
    pub earlier_parts: Vec<usize>,
    /// Index of the first message a resume loads, when `--full` added earlier parts.
    pub loaded_from: Option<usize>,
    /// The 2.1.332 tip choice did not depend on rows other than those loaded.
    pub tip_local: bool,
    /// Leaves of the message graph (`docs/claude-code.md#leaves`): the conversations a picker
    /// could offer.
    pub leaves: usize,
    /// Where the parent walk stopped: the first message it loaded (before recovered rows
    /// and `--full` history are added around it).
    pub walk_root: Option<u32>,
    /// The file has no main-chain conversation, only sidechain rows (a subagent's own
    /// transcript): the chain is the subagent's conversation.
    pub sidechain: bool,
    /// What the rebuild found worth reporting.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why the tip `--tip` names cannot start the walk.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// No message's uuid is, or starts with, the one given.
    #[error("--tip {0}: no message with this uuid, or a uuid starting with it, in the file")]
    TipNotFound(String),
    #[error(
        "--tip {0}: this message is removed at load time (before the last compact boundary, outside its preserved segment)"
    )]
    /// The message is removed at load time.
    TipPruned(String),
    /// A prefix several messages' uuids share; `shown` are the first few, with their lines.
    #[error("--tip {tip}: {count} messages have a uuid starting with it; give more of it: {}", list_tips(.shown, *.count))]
    TipAmbiguous {
        /// The prefix given.
        tip: String,
        /// How many uuids start with it.
        count: usize,
        /// The first few of them, with their lines.
        shown: Vec<(String, u64)>,
    },
}

fn list_tips(shown: &[(String, u64)], count: usize) -> String {
    let mut s = shown
        .iter()
        .map(|(uuid, line)| format!("{uuid} (line {line})"))
        .collect::<Vec<_>>()
        .join(", ");
    if count > shown.len() {
        s.push_str(&format!(", and {} more", count - shown.len()));
    }
    s
}

/// Working state of one rebuild: the message map after relinks, with children.
pub(super) struct View<'t> {
    pub(super) t: &'t Transcript,
    /// Each node's parent id, by position (relinked by segments and snips).
    pub(super) parent: Vec<Id>,
    pub(super) alive: Vec<bool>,
    pub(super) children_start: Vec<u32>,
    pub(super) children: Vec<u32>,
}

impl<'t> View<'t> {
    pub(super) fn new(t: &'t Transcript) -> View<'t> {
        View {
            t,
            parent: t.nodes.iter().map(|n| n.parent).collect(),
            alive: vec![true; t.nodes.len()],
            children_start: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Position of the live message with interned id `id`.
    pub(super) fn live(&self, id: Id) -> Option<u32> {
        self.t.pos(id).filter(|&p| self.alive[p as usize])
    }

    pub(super) fn parent_pos(&self, pos: u32) -> Option<u32> {
        self.live(self.parent[pos as usize])
    }

    pub(super) fn build_children(&mut self) {
        let n = self.t.nodes.len();
        let mut counts = vec![0u32; n + 1];
        let parents: Vec<Option<u32>> = (0..n as u32)
            .map(|p| {
                if self.alive[p as usize] {
                    self.parent_pos(p)
                } else {
                    None
                }
            })
            .collect();
        for &p in parents.iter().flatten() {
            counts[p as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut children = vec![0u32; counts[n] as usize];
        for (c, p) in parents.iter().enumerate() {
            if let Some(p) = p {
                children[fill[*p as usize] as usize] = c as u32;
                fill[*p as usize] += 1;
            }
        }
        self.children_start = counts;
        self.children = children;
    }

    pub(super) fn children(&self, pos: u32) -> &[u32] {
        let s = self.children_start[pos as usize] as usize;
        let e = self.children_start[pos as usize + 1] as usize;
        &self.children[s..e]
    }
}

impl Transcript {
    /// Rebuilds the conversation a resume loads.
    pub fn rebuild(&self, opts: &Options) -> Result<Chain, ChainError> {
        let mut chain = Chain::default();
        let mut v = View::new(self);
        self.apply_preserved_segments(&mut v, &mut chain);
        // Snip removals are part of the 2.1.88 load path; the public 2.1.332 leaves the rows a
        // snip names in place (docs/claude-code.md#snip-removals).
        if opts.loader == Loader::V2_1_88 {
            self.apply_snips(&mut v);
        }
        v.build_children();
        chain.leaves = self.leaves(&v).len();

        let tip = match &opts.tip {
            Some(u) => {
                let pos = self.find_tip(u)?;
                if !v.alive[pos as usize] {
                    return Err(ChainError::TipPruned(u.clone()));
                }
                Some(pos)
            }
            None => match opts.loader {
                Loader::V2_1_88 => self.tip_newest_leaf(&v),
                Loader::V2_1_332 => {
                    let (tip, local) = self.tip_last_written(&v);
                    chain.tip_local = local;
                    tip
                }
            },
        };
        // A subagent's transcript holds only sidechain rows: its conversation is the chain
        // from its last row written (what Claude Code loads to resume that subagent).
        let tip = tip.or_else(|| {
            let sub = opts.tip.is_none().then(|| self.tip_sidechain(&v)).flatten();
            chain.sidechain = sub.is_some();
            sub
        });
        let Some(tip) = tip else {
            chain.end = Some(WalkEnd::Empty);
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                None,
                Code::NoConversation,
                Severity::Info,
                "no user or assistant message to resume from",
            ));
            return Ok(chain);
        };
        chain.tip = Some(tip);
        if chain.sidechain {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                None,
                Code::SubagentTranscript,
                Severity::Info,
                "no main-chain message: this is a subagent's transcript, and its own conversation is the chain",
            ));
        }
        let (mut positions, end, bridges) = self.walk(&v, tip, opts.loader == Loader::V2_1_332);
        chain.bridges = bridges;
        chain.walk_root = positions.first().copied();
        let before = positions.len();
        positions = match opts.loader {
            Loader::V2_1_88 => self.recover_after_last(&v, positions),
            Loader::V2_1_332 => self.recover_in_file_order(&v, positions),
        };
        chain.recovered = positions.len() - before;
        if opts.loader == Loader::V2_1_332 {
            let tail = self.trailing_system_rows(&v, tip, &positions);
            chain.appended = tail.len();
            positions.extend(tail);
        }
        chain.end = Some(end);
        if opts.full {
            self.prepend_earlier_history(&mut positions, &mut chain);
        }
        chain.positions = positions;
        self.chain_diagnostics(&v, &mut chain);
        Ok(chain)
    }
}
