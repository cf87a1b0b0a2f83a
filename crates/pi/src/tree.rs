//! The entry tree and what a resume loads of it, by the client's rules (`session-manager.js`
//! of `@earendil-works/pi-coding-agent` 1.6.0):
//!
//! - the leaf is the file's last entry (`_buildIndex` moves it to every entry in turn);
//! - the branch is the walk from the leaf up its `parentId` links until one names no entry
//!   (`buildSessionPath`); an id written twice names its later entry (`Map.set`);
//! - with a `compaction` on the branch, the latest one is sent first, then the branch's
//!   entries before it from its `firstKeptEntryId` on (system messages left out), then every
//!   entry after it (`buildContextEntries`); an older compaction among those sends nothing.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::file::{Entry, Session};

/// What the tree reads of an entry, whether read whole ([`Entry`]) or as the answers read it
/// ([`crate::lite::Lite`]).
pub trait Node {
    /// 1-based line.
    fn line(&self) -> u64;
    /// Its id.
    fn id(&self) -> Option<&str>;
    /// The id of the entry it follows.
    fn parent(&self) -> Option<&str>;
    /// Its `type`.
    fn ty(&self) -> &str;
    /// The role of a `message` entry's message.
    fn role(&self) -> Option<&str>;
    /// A compaction's `firstKeptEntryId`.
    fn first_kept(&self) -> Option<&str>;
}

impl Node for Entry {
    fn line(&self) -> u64 {
        self.line
    }
    fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }
    fn parent(&self) -> Option<&str> {
        self.parent.as_deref()
    }
    fn ty(&self) -> &str {
        Entry::ty(self)
    }
    fn role(&self) -> Option<&str> {
        Entry::role(self)
    }
    fn first_kept(&self) -> Option<&str> {
        self.s("firstKeptEntryId")
    }
}

/// The tree of a session's entries, and the branch a resume follows.
#[derive(Debug, Default)]
pub struct Tree {
    /// The branch from its root to the leaf, as indices into the session's entries.
    pub branch: Vec<usize>,
    /// What a resume loads, in the order it sends it, as indices into the entries.
    pub context: Vec<usize>,
    /// The latest compaction on the branch, the one a resume starts from.
    pub compaction: Option<usize>,
    /// Whether that compaction's `firstKeptEntryId` names an entry on the branch before it, or
    /// the compaction itself (it keeps nothing).
    pub first_kept_found: bool,
    /// Entries whose `parentId` names no entry: `(entry index, parentId)`.
    pub dangling: Vec<(usize, String)>,
    /// Where the walk from the leaf met an entry it had already passed (the client would walk
    /// forever): the entry index.
    pub cycle: Option<usize>,
    /// Ids written more than once: the index of each later entry.
    pub duplicates: Vec<usize>,
    /// Entries that no other entry names as parent.
    pub leaves: usize,
}

impl Tree {
    /// The tree of `s`, resumed at the client's leaf.
    pub fn of(s: &Session) -> Tree {
        Tree::at(s, None)
    }

    /// The tree of `s`, with the branch that ends at the entry `tip` (an index into its
    /// entries) instead of the client's leaf when given (`rebuild-chain --tip`).
    pub fn at(s: &Session, tip: Option<usize>) -> Tree {
        Tree::over(&s.entries, tip)
    }

    /// [`Tree::at`] of a session's `entries`, however they were read.
    pub fn over<N: Node>(entries: &[N], tip: Option<usize>) -> Tree {
        let mut by_id: FxHashMap<&str, usize> = FxHashMap::default();
        let mut t = Tree::default();
        for (i, e) in entries.iter().enumerate() {
            if let Some(id) = e.id()
                && by_id.insert(id, i).is_some()
            {
                t.duplicates.push(i);
            }
        }
        let mut parents: FxHashSet<&str> = FxHashSet::default();
        for (i, e) in entries.iter().enumerate() {
            if let Some(p) = e.parent() {
                parents.insert(p);
                if !by_id.contains_key(p) {
                    t.dangling.push((i, p.to_string()));
                }
            }
        }
        t.leaves = entries
            .iter()
            .filter(|e| e.id().is_none_or(|id| !parents.contains(id)))
            .count();
        t.branch = branch(entries, &by_id, tip, &mut t.cycle);
        t.context_of(entries);
        t
    }

    fn context_of<N: Node>(&mut self, entries: &[N]) {
        let is_compaction = |i: &usize| entries[*i].ty() == "compaction";
        self.compaction = self.branch.iter().rev().copied().find(is_compaction);
        let Some(c) = self.compaction else {
            self.context = self.branch.clone();
            return;
        };
        let at = self.branch.iter().position(|&i| i == c).unwrap_or(0);
        let first_kept = entries[c].first_kept();
        let mut context = vec![c];
        let mut found = false;
        for &i in &self.branch[..at] {
            let e = &entries[i];
            found |= first_kept.is_some() && e.id() == first_kept;
            if found && e.role() != Some("system") {
                context.push(i);
            }
        }
        // A compaction that keeps nothing before it names itself, as the client writes one
        // (`appendCompaction`): nothing meant to be kept is missing.
        self.first_kept_found = found || (first_kept.is_some() && entries[c].id() == first_kept);
        context.extend_from_slice(&self.branch[at + 1..]);
        self.context = context;
    }

    /// Whether the entry at `i` is on the branch a resume follows.
    pub fn on_branch(&self, i: usize) -> bool {
        self.branch.contains(&i)
    }

    /// The entries a resume loads, by index, flagged.
    pub fn loaded(&self, n: usize) -> Vec<bool> {
        let mut v = vec![false; n];
        self.context.iter().for_each(|&i| v[i] = true);
        v
    }
}

/// The walk from the last entry up its parents, root first. A cycle stops the walk where it
/// closes (`cycle` says where) rather than looping as the client would.
fn branch<N: Node>(
    entries: &[N],
    by_id: &FxHashMap<&str, usize>,
    tip: Option<usize>,
    cycle: &mut Option<usize>,
) -> Vec<usize> {
    let Some(last) = entries.len().checked_sub(1) else {
        return Vec::new();
    };
    let leaf = tip.unwrap_or_else(|| leaf_of(entries, last, by_id));
    let mut seen = FxHashSet::default();
    let mut path = Vec::new();
    let mut at = Some(leaf);
    while let Some(i) = at {
        if !seen.insert(i) {
            *cycle = Some(i);
            break;
        }
        path.push(i);
        at = entries[i].parent().and_then(|p| by_id.get(p).copied());
    }
    path.reverse();
    path
}

/// The leaf the client resumes at: the entry its last id names (a later entry of the same id
/// wins), or the last entry itself when it has no id.
fn leaf_of<N: Node>(entries: &[N], last: usize, by_id: &FxHashMap<&str, usize>) -> usize {
    entries[last].id().and_then(|id| by_id.get(id).copied()).unwrap_or(last)
}
