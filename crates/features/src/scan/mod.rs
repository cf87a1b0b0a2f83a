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
        if crate::agents::registry()
            .by_name(r.format)
            .is_some_and(|a| a.links_subagents())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(format: &'static str, role: &'static str, path: &str) -> SessionRecord {
        SessionRecord {
            path: path.into(),
            format,
            role,
            session_id: Some("s1".into()),
            ..SessionRecord::default()
        }
    }

    /// A subagent is linked to the session of an agent whose subagents keep its id (Claude
    /// Code's), not to another agent's session that happens to hold the same id.
    #[test]
    fn subagents_link_to_sessions_of_agents_that_have_them() {
        crate::register_agents_for_tests();
        let name = |links: bool| {
            let a = crate::agents::registry().all().find(|a| a.links_subagents() == links);
            a.expect("an agent of each kind").about().format.name()
        };
        let mut records = [
            record(name(false), "session", "r.jsonl"),
            record(name(true), "session", "s1.jsonl"),
            record(name(true), "subagent", "s1/subagents/agent-a.jsonl"),
        ];
        link_subagents(&mut records);
        assert!(records[0].subagents.is_empty());
        assert_eq!(records[1].subagents, ["s1/subagents/agent-a.jsonl"]);
        assert_eq!(records[2].parent_session.as_deref(), Some("s1"));
    }
}
