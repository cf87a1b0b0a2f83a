//! The texts of a file the index holds: every text `search` can match, whatever the options
//! (`--thinking`, `--tools` and every role are chosen when searching), read through the same
//! session-model reader and the same choice of texts ([`super::super::pieces`]).

use crate::agents::Agent;
use crate::io::Source;
use crate::model::events::{Ask, Event, Mark, Reading, View};

use super::super::{Options, pieces};

/// Which reading of a file a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Every record of the file (`--scope full`, and everything a resume loads that is
    /// written in the file).
    Records,
    /// What a reader hands on of a resume's history that no line of the file holds as such
    /// (a history it rebuilds): only `--scope effective` can match it.
    Rebuilt,
}

impl Seen {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Seen::Records => "records",
            Seen::Rebuilt => "rebuilt",
        }
    }
}

/// One text of a message, as indexed.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) line: Option<u64>,
    pub(crate) session_id: Option<String>,
    pub(crate) message_id: Option<String>,
    pub(crate) role: &'static str,
    pub(crate) field: &'static str,
    pub(crate) time: Option<String>,
    pub(crate) ms: Option<i64>,
    /// Whether a resume loads it, as far as the part of the file read could tell (a grown
    /// file is read from where it grew: the search re-reads what it reports).
    pub(crate) loaded: bool,
    pub(crate) seen: Seen,
    pub(crate) text: String,
}

/// Every text a search can match, of every role.
fn everything() -> Options {
    Options {
        thinking: true,
        tools: true,
        ..Options::default()
    }
}

/// The rows of `src` read in `seen`'s view, lines counted from `first_line` on.
pub(crate) fn read(agent: &dyn Agent, src: &Source, seen: Seen, first_line: u64) -> crate::error::Result<Vec<Row>> {
    let opts = everything();
    let ask = Ask {
        view: match seen {
            Seen::Records => View::Records,
            Seen::Rebuilt => View::Loaded,
        },
        reading: Reading::AsWritten,
        native: false,
    };
    let mut rows = Vec::new();
    agent.events(src, ask, &mut |e| match e {
        Event::Record(r) => {
            // Of a rebuilt history only what has no line of its own is new: the rest is
            // indexed as the file's records.
            if seen == Seen::Rebuilt && r.at.is_some() {
                return;
            }
            let line = r.at.map(|at| at.line + first_line - 1);
            for (role, field, text) in pieces(&r, &opts) {
                rows.push(Row {
                    line,
                    session_id: r.session_id.clone(),
                    message_id: r.id.clone(),
                    role: role.name(),
                    field: field.name(),
                    time: r.time.clone(),
                    ms: r.ms,
                    loaded: r.loaded,
                    seen,
                    text: text.into_owned(),
                });
            }
        }
        Event::Mark(Mark::Compaction(c)) => {
            if let Some(text) = c.summary {
                rows.push(Row {
                    line: None,
                    session_id: None,
                    message_id: None,
                    role: super::super::Role::Summary.name(),
                    field: super::super::Field::Summary.name(),
                    ms: c.time.as_deref().and_then(crate::model::time::parse_ms),
                    time: c.time,
                    loaded: false,
                    seen,
                    text,
                });
            }
        }
        Event::Mark(_) => {}
    })?;
    Ok(rows)
}
