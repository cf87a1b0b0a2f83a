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
        let mut by_id: FxHashMap<&str, usize> = FxHashMap::default();
        let mut t = Tree::default();
        for (i, e) in s.entries.iter().enumerate() {
            if let Some(id) = e.id.as_deref()
                && by_id.insert(id, i).is_some()
            {
                t.duplicates.push(i);
            }
        }
        let mut parents: FxHashSet<&str> = FxHashSet::default();
        for (i, e) in s.entries.iter().enumerate() {
            if let Some(p) = e.parent.as_deref() {
                parents.insert(p);
                if !by_id.contains_key(p) {
                    t.dangling.push((i, p.to_string()));
                }
            }
        }
        t.leaves = s
            .entries
            .iter()
            .filter(|e| e.id.as_deref().is_none_or(|id| !parents.contains(id)))
            .count();
        t.branch = branch(s, &by_id, tip, &mut t.cycle);
        t.context_of(s);
        t
    }

    fn context_of(&mut self, s: &Session) {
        let is_compaction = |i: &usize| s.entries[*i].ty() == "compaction";
        self.compaction = self.branch.iter().rev().copied().find(is_compaction);
        let Some(c) = self.compaction else {
            self.context = self.branch.clone();
            return;
        };
        let at = self.branch.iter().position(|&i| i == c).unwrap_or(0);
        let first_kept = s.entries[c].s("firstKeptEntryId");
        let mut context = vec![c];
        let mut found = false;
        for &i in &self.branch[..at] {
            let e = &s.entries[i];
            found |= first_kept.is_some() && e.id.as_deref() == first_kept;
            if found && e.role() != Some("system") {
                context.push(i);
            }
        }
        // A compaction that keeps nothing before it names itself, as the client writes one
        // (`appendCompaction`): nothing meant to be kept is missing.
        self.first_kept_found = found || (first_kept.is_some() && s.entries[c].id.as_deref() == first_kept);
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
fn branch(s: &Session, by_id: &FxHashMap<&str, usize>, tip: Option<usize>, cycle: &mut Option<usize>) -> Vec<usize> {
    let Some(last) = s.entries.len().checked_sub(1) else {
        return Vec::new();
    };
    let leaf = tip.unwrap_or_else(|| leaf_of(&s.entries, last, by_id));
    let mut seen = FxHashSet::default();
    let mut path = Vec::new();
    let mut at = Some(leaf);
    while let Some(i) = at {
        if !seen.insert(i) {
            *cycle = Some(i);
            break;
        }
        path.push(i);
        at = s.entries[i].parent.as_deref().and_then(|p| by_id.get(p).copied());
    }
    path.reverse();
    path
}

/// The leaf the client resumes at: the entry its last id names (a later entry of the same id
/// wins), or the last entry itself when it has no id.
fn leaf_of(entries: &[Entry], last: usize, by_id: &FxHashMap<&str, usize>) -> usize {
    entries[last]
        .id
        .as_deref()
        .and_then(|id| by_id.get(id).copied())
        .unwrap_or(last)
}
