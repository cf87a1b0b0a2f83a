//! The messages and tool-calls tables, made from the session model's events
//! (`cctool_core::model::events`) the same way for every agent: a message row per event, and
//! a tool-call row per call, paired with the last result that names its id.

use rustc_hash::FxHashMap;

use super::{Options, Row, Table, Val, body};
use crate::io::Source;
use crate::model::AgentId;
use crate::model::events::{Ask, Event, Part, Record, View};
use crate::model::rows::{FileRows, provenance};

/// The rows of the messages or tool-calls `table` for one file of the agent `format`.
pub(crate) fn rows(table: Table, src: &Source, format: AgentId, opts: &Options) -> crate::error::Result<FileRows> {
    let ask = Ask {
        view: match table {
            Table::ToolCalls => View::Calls,
            _ => View::Records,
        },
        ..Ask::records()
    };
    let mut out = FileRows::default();
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, Outcome> = FxHashMap::default();
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
            Table::ToolCalls => gather(e, prov, &mut calls, &mut results, opts),
            _ => out.rows.push(message_row(e, prov, out.rows.len(), opts)),
        }
    })?;
    out.first_ms = streamed.first_ms;
    if table == Table::ToolCalls {
        out.rows = call_rows(calls, &mut results);
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

/// A tool call found in an event, before its result is known.
struct Call {
    /// The provenance columns of the record that holds it.
    prov: Row,
    id: Option<String>,
    name: Option<String>,
    kind: String,
    ms: Option<i64>,
    loaded: bool,
    /// The columns of the tool's input (its text kept as `--max-text` says: the rest is not
    /// held while the other calls are read).
    input: [Val; 3],
}

/// A tool result waiting for its call.
struct Outcome {
    line: Option<u64>,
    ms: Option<i64>,
    is_error: Option<bool>,
    /// The columns of the tool's output, as for a call's input.
    output: [Val; 3],
}

/// Keeps the event's calls, and its results under the id of the call each answers (a later
/// result of one id replaces an earlier one).
fn gather(e: Record, prov: Row, calls: &mut Vec<Call>, results: &mut FxHashMap<String, Outcome>, opts: &Options) {
    let line = e.at.map(|at| at.line);
    for part in e.parts {
        match part {
            Part::Call(c) => calls.push(Call {
                prov: prov.clone(),
                id: c.id,
                name: c.name,
                kind: c.kind,
                ms: e.ms,
                loaded: e.loaded,
                input: body(&into_text(c.input), opts.max_text),
            }),
            Part::Outcome(o) => {
                if let Some(id) = o.call_id {
                    let outcome = Outcome {
                        line,
                        ms: e.ms,
                        is_error: o.is_error,
                        output: body(&into_text(o.output), opts.max_text),
                    };
                    results.insert(id, outcome);
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

/// The tool-call rows: each call with the result of the same id.
fn call_rows(calls: Vec<Call>, results: &mut FxHashMap<String, Outcome>) -> Vec<Row> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let result = c.id.as_ref().and_then(|id| results.remove(id));
            let mut row = c.prov;
            row.extend([
                Val::count(i),
                Val::str(c.id),
                Val::str(c.name),
                Val::Str(c.kind),
                Val::time(c.ms),
                Val::Bool(c.loaded),
            ]);
            row.extend(c.input);
            row.push(Val::Bool(result.is_some()));
            match result {
                Some(r) => {
                    row.extend([Val::int(r.line), Val::bool(r.is_error)]);
                    row.extend(r.output);
                    row.push(Val::time(r.ms));
                }
                None => row.extend([Val::Null, Val::Null, Val::Null, Val::Null, Val::Null, Val::Null]),
            }
            row
        })
        .collect()
}
