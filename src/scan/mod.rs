//! Every session at a glance: what `scan` does with the records the agents give of each
//! session file ([`crate::agents::Agent::scan`]).
//!
//! Each agent reads its file and keeps only the small record
//! ([`crate::model::session::SessionRecord`]), so memory does not grow with the number of
//! sessions. A record names the session the way people recognise it: the project (the folder
//! it ran in) and a title (the one the user or the agent gave it, else the first prompt).

use std::collections::BTreeMap;

pub use crate::model::project;
use crate::model::session::SessionRecord;

/// Subagent transcripts keep their parent's session id: link both ways.
pub fn link_subagents(records: &mut [SessionRecord]) {
    let mut parents: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if crate::agents::by_name(r.format).is_some_and(|a| a.links_subagents())
            && r.role == "session"
            && let Some(id) = &r.session_id
        {
            parents.entry(id.clone()).or_insert(i);
        }
    }
    let mut links = Vec::new();
    for (i, r) in records.iter_mut().enumerate() {
        if r.role == "subagent" {
            r.parent_session = r.session_id.clone();
            if let Some(&p) = r.session_id.as_ref().and_then(|id| parents.get(id)) {
                links.push((p, i));
            }
        }
    }
    for (p, i) in links {
        let path = records[i].path.clone();
        records[p].subagents.push(path);
    }
}
