//! `search` with the index `cctool index` keeps: only the files the index is not fresh for,
//! and those whose indexed text may match, are read; the hits are what reading them gives,
//! so they are the same as without the index (`crate::search::index`).

use std::collections::{HashMap, HashSet};

use crate::cli::{GlobalArgs, SearchArgs};
use crate::io::Input;
use crate::search::index::{Candidates, Reader};
use crate::search::{Matcher, Options};

/// What the index did for a search.
pub(crate) struct Used {
    /// The index's id of each input it is fresh for.
    ids: HashMap<Input, i64>,
    /// Which of those may match, and how well.
    candidates: Candidates,
    /// Inputs asked about.
    total: usize,
    /// Inputs read.
    read: usize,
}

/// The inputs to read, and what the index did; `None` when it is not used (`--no-index`,
/// no index, or fresh for none of the inputs).
pub(crate) fn narrow(
    g: &GlobalArgs,
    a: &SearchArgs,
    m: &Matcher,
    opts: &Options,
    inputs: &[Input],
) -> Option<(Vec<Input>, Used)> {
    if a.no_index {
        return None;
    }
    let reader = Reader::open(&crate::commands::index::index_dir(a.index_dir.as_deref())?)?;
    let said = g.input_format.map(|f| f.name());
    let ids: HashMap<Input, i64> = inputs
        .iter()
        .filter_map(|input| match input {
            Input::Path(p) => reader.fresh(p, said, a.scope).map(|id| (input.clone(), id)),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        return None;
    }
    let among: HashSet<i64> = ids.values().copied().collect();
    let candidates = reader.candidates(&among, m, opts).ok()?;
    let kept: Vec<Input> = inputs
        .iter()
        .filter(|i| ids.get(*i).is_none_or(|id| candidates.files.contains(id)))
        .cloned()
        .collect();
    let used = Used {
        total: inputs.len(),
        read: kept.len(),
        ids,
        candidates,
    };
    Some((kept, used))
}

impl Used {
    /// The line said on stderr.
    pub(crate) fn note(&self) -> String {
        format!(
            "search: the index is fresh for {} of {} files; {} read",
            self.ids.len(),
            self.total,
            self.read
        )
    }

    /// `--rank`: sessions by their best text's relevance, the hits of each by their line's
    /// (hits the index could not measure keep their order, after those it could).
    pub(crate) fn rank(&self, matched: &mut [(Input, super::Matched)]) {
        let score = |input: &Input, line: Option<u64>| {
            let id = self.ids.get(input)?;
            match line {
                None => self.candidates.file_score.get(id).copied(),
                Some(l) => self.candidates.line_score.get(&(*id, l)).copied(),
            }
        };
        let key = |s: Option<f64>| s.unwrap_or(f64::INFINITY);
        for (input, m) in matched.iter_mut() {
            m.found
                .hits
                .sort_by(|a, b| key(score(input, a.line)).total_cmp(&key(score(input, b.line))));
        }
        matched.sort_by(|(a, _), (b, _)| key(score(a, None)).total_cmp(&key(score(b, None))));
    }
}
