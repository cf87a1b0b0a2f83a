//! The messages and tool-calls tables, made from the session model's events
//! (`cctool_core::model::events`) the same way for every agent: a message row per event, and
//! a tool-call row per call, paired with the last result that names its id.

use rustc_hash::FxHashMap;

use super::build::FileRows;
use super::spill::Rows;
use super::{Options, Row, Table, Val, body};
use crate::io::Source;
use crate::model::AgentId;
use crate::model::events::{Ask, Event, Part, Record, View};
use crate::model::rows::{BodyColumns, provenance};

/// The rows of the messages or tool-calls `table` for one file of the agent `format`.
pub(crate) fn rows(table: Table, src: &Source, format: AgentId, opts: &Options) -> crate::error::Result<FileRows> {
    let ask = Ask {
        view: match table {
            Table::ToolCalls => View::Calls,
            _ => View::Records,
        },
        ..Ask::records()
    };
    let mut out = FileRows::new(opts);
    let mut results = Results::default();
    let streamed = crate::agents::agent(format).events(src, ask, &mut |e| {
        let Event::Record(e) = e else { return };
        let prov = provenance(
            format,
            e.client_version.as_deref(),
            src,
            e.session_id.as_deref(),
            e.at.map(|at| at.offset),
            e.at.map(|at| at.line),
        );
        match table {
            Table::ToolCalls => gather(e, prov, &mut out.rows, &mut results, opts),
            _ => {
                let index = out.rows.len();
                out.rows.push(&message_row(e, prov, index, opts));
            }
        }
    })?;
    out.rows.finish();
    out.first_ms = streamed.first_ms;
    if table == Table::ToolCalls {
        out.results = Some(results);
    }
    Ok(out)
}

/// A message row: the event's provenance, ids, type, time, flags, text, counts and usage.
fn message_row(e: Record, mut row: Row, index: usize, opts: &Options) -> Row {
    let text = e.text();
    let (calls, outcomes) = (e.calls().count(), e.outcomes().count());
    row.extend([
        Val::count(index),
        Val::Str(e.origin.name().into()),
        Val::str(e.id),
        Val::str(e.parent),
        Val::Str(e.kind),
        Val::str(e.role),
        Val::time(e.ms),
        Val::str(e.model),
        Val::Bool(e.loaded),
        Val::bool(e.flags.sidechain),
        Val::bool(e.flags.meta),
        Val::bool(e.flags.compact_summary),
    ]);
    row.extend(body(&text, opts.max_text));
    row.extend([
        Val::count(calls),
        Val::count(outcomes),
        Val::int(e.usage.input),
        Val::int(e.usage.output),
        Val::int(e.usage.cache_read),
        Val::int(e.usage.cache_creation),
        Val::int(e.bytes),
    ]);
    row
}

/// Where a tool-call row has the call's id: after the provenance and `call_index`.
const CALL_ID: usize = super::PROVENANCE.len() + 1;

/// A tool result waiting for its call: only what its row's columns need, in the fewest bytes
/// (a file can hold tens of thousands of results, each kept until the file is read).
#[derive(Debug)]
struct Outcome {
    line: Option<u64>,
    ms: Option<i64>,
    is_error: Option<bool>,
    /// The columns of the tool's output (its text kept as `--max-text` says: the rest is not
    /// held while the other calls are read).
    output: BodyColumns,
}

/// What is known of one call id.
#[derive(Debug, Default)]
struct Slot {
    /// A call of this id was read: a later call of the same id gets no result.
    called: bool,
    /// The last result of this id (boxed: most ids have one call and one result, and the
    /// slot of a call read before its result stays small).
    outcome: Option<Box<Outcome>>,
}

/// The tool results of a file, by the id of the call each answers, kept until the file is
/// read: a call's row is made when the call is read, and completed with its result (which
/// may come anywhere later, or even earlier, in the file) when the rows are written. The ids
/// are boxed, without a `String`'s spare capacity.
#[derive(Debug, Default)]
pub(crate) struct Results(FxHashMap<Box<str>, Slot>);

impl Results {
    /// The slot of `id`, made when it is the id's first call or result (the id copied only
    /// then: a result usually finds its call's slot).
    fn slot(&mut self, id: &str) -> &mut Slot {
        if !self.0.contains_key(id) {
            self.0.insert(id.into(), Slot::default());
        }
        self.0.get_mut(id).expect("inserted above")
    }

    /// Completes a call's row made by [`gather`]: the result columns of the last result of
    /// its id when it is the first call of that id, nulls otherwise.
    pub(crate) fn complete(&self, row: &mut Row) {
        let first = matches!(row.pop(), Some(Val::Bool(true)));
        let result = match (first, row.get(CALL_ID)) {
            (true, Some(Val::Str(id))) => self.0.get(id.as_str()).and_then(|s| s.outcome.as_ref()),
            _ => None,
        };
        row.push(Val::Bool(result.is_some()));
        match result {
            Some(r) => {
                row.extend([Val::int(r.line), Val::bool(r.is_error)]);
                row.extend(r.output.columns());
                row.push(Val::time(r.ms));
            }
            None => row.extend([Val::Null, Val::Null, Val::Null, Val::Null, Val::Null, Val::Null]),
        }
    }
}

/// Adds the event's calls to `rows`, each without its result and followed by whether it is
/// the first call of its id; keeps its results under the id of the call each answers (a later
/// result of one id replaces an earlier one).
fn gather(e: Record, prov: Row, rows: &mut Rows, results: &mut Results, opts: &Options) {
    let line = e.at.map(|at| at.line);
    for part in e.parts {
        match part {
            Part::Call(c) => {
                let first = c.id.as_ref().is_some_and(|id| {
                    let slot = results.slot(id);
                    !std::mem::replace(&mut slot.called, true)
                });
                let mut row = prov.clone();
                row.extend([
                    Val::count(rows.len()),
                    Val::str(c.id),
                    Val::str(c.name),
                    Val::Str(c.kind),
                    Val::time(e.ms),
                    Val::Bool(e.loaded),
                ]);
                row.extend(body(&into_text(c.input), opts.max_text));
                row.push(Val::Bool(first));
                rows.push(&row);
            }
            Part::Outcome(o) => {
                if let Some(id) = o.call_id {
                    let outcome = Outcome {
                        line,
                        ms: e.ms,
                        is_error: o.is_error,
                        output: BodyColumns::of(&into_text(o.output), opts.max_text),
                    };
                    results.slot(&id).outcome = Some(Box::new(outcome));
                }
            }
            _ => {}
        }
    }
}

/// A body as text, moved: a string as written, anything else (blocks, objects) as its JSON
/// text ([`crate::model::rows::as_text`], without copying the string).
fn into_text(v: Option<serde_json::Value>) -> String {
    match v {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s,
        Some(other) => crate::io::json::to_json(&other),
    }
}
