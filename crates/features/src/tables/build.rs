//! The rows of one input file, for each table and each format.
//!
//! Built from what the agents answer (`agents::Agent`): `scan` for sessions, `summaries`
//! for compactions, and the session model's `events` for messages and tool calls
//! (`tables::events`).

use super::spill::Rows;
use super::{Options, Row, Table, Val, body};
use crate::io::Source;
use crate::model::AgentId;
use crate::model::resume::Overrides;
use crate::model::rows::{earliest, provenance};
use crate::model::time::parse_ms;

/// The rows of one file, and the earliest time they carry (the file's partition date).
#[derive(Debug)]
pub struct FileRows {
    /// The format's name ([`AgentId::name`]).
    pub agent: &'static str,
    /// The rows, in the order of the file (tool calls still without their results).
    pub(crate) rows: Rows,
    /// The earliest time of the file, in milliseconds since the epoch.
    pub first_ms: Option<i64>,
    /// The tool calls' results, which complete each call's row as it is read.
    pub(crate) results: Option<super::events::Results>,
}

impl FileRows {
    pub(crate) fn new(opts: &Options) -> FileRows {
        FileRows {
            agent: "",
            rows: Rows::new(opts.spill_dir.clone()),
            first_ms: None,
            results: None,
        }
    }

    /// Whether the file has no row in the table.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Calls `f` with each row, in the order of the file; the rows can be read again.
    pub fn each(&self, mut f: impl FnMut(Row) -> std::io::Result<()>) -> std::io::Result<()> {
        self.rows.each(|mut row| {
            if let Some(results) = &self.results {
                results.complete(&mut row);
            }
            f(row)
        })
    }
}

/// The rows of `table` for one file.
pub fn rows(
    table: Table,
    src: &Source,
    format: AgentId,
    opts: &Options,
    overrides: &Overrides,
) -> crate::error::Result<FileRows> {
    let mut out = match table {
        Table::Sessions => sessions(src, format, opts, overrides)?,
        Table::Compactions => compactions(src, format, opts)?,
        Table::Messages | Table::ToolCalls => super::events::rows(table, src, format, opts)?,
    };
    out.agent = format.name();
    Ok(out)
}

fn sessions(src: &Source, format: AgentId, opts: &Options, overrides: &Overrides) -> crate::error::Result<FileRows> {
    let r = crate::agents::agent(format).scan(src, overrides)?;
    let origin = |k: &str| Val::count(r.compaction_origins.get(k).copied().unwrap_or(0));
    let first_ms = r.first_timestamp.as_deref().and_then(parse_ms);
    let mut row = provenance(
        format,
        r.agent_versions.last().map(String::as_str),
        src,
        r.session_id.as_deref(),
        None,
        None,
    );
    row.extend([
        Val::Str(r.path.clone()),
        Val::Str(r.role.to_string()),
        // A subagent keeps its session's id: which session it belongs to needs no other file.
        Val::str(if r.role == "subagent" {
            r.session_id.clone()
        } else {
            None
        }),
        Val::str(r.cwd.clone()),
        Val::str(r.project.clone()),
        Val::str(r.title.clone()),
        Val::str(r.title_source),
        Val::Str(r.agent_versions.join(",")),
        Val::count(r.bytes),
        Val::count(r.lines),
        Val::count(r.bad_lines),
        Val::count(r.chain_messages),
        Val::str(r.chain_end.clone()),
        Val::int(r.leaves),
        Val::count(r.compactions),
        origin("local"),
        origin("remote"),
        origin("legacy"),
        Val::str(r.last_compaction_trigger.clone()),
        Val::int(r.last_compaction_pre_tokens),
        Val::count(r.resume_tokens),
        Val::str(r.resume_model.clone()),
        Val::str(r.resume_model_choice.clone()),
        Val::int(r.dangling_parents),
        Val::int(r.chain_breaks),
        Val::int(r.duplicate_uuids),
        Val::time(first_ms),
        Val::time(r.last_timestamp.as_deref().and_then(parse_ms)),
        Val::Bool(true),
        Val::Int(0),
        Val::int(r.payload_bytes),
        Val::int(r.request_bytes),
    ]);
    let mut out = FileRows::new(opts);
    out.rows.push(&row);
    out.first_ms = first_ms;
    Ok(out)
}

fn compactions(src: &Source, format: AgentId, opts: &Options) -> crate::error::Result<FileRows> {
    // The loader every agent reads its summaries with by default.
    let (records, _) =
        crate::agents::agent(format).summaries(src, Default::default(), crate::summary::Options::default())?;
    let mut out = FileRows::new(opts);
    for (i, r) in records.iter().filter(|r| r.kind == "summary").enumerate() {
        let ms = r.timestamp.as_deref().and_then(parse_ms);
        earliest(&mut out.first_ms, ms);
        let mut row = provenance(format, None, src, r.session_id.as_deref(), None, r.line);
        row.extend([
            Val::count(i),
            Val::time(ms),
            Val::str(r.trigger.clone()),
            Val::int(r.pre_tokens),
        ]);
        row.push(Val::Str(r.origin.unwrap_or("local").to_string()));
        row.push(Val::Bool(r.current));
        row.push(Val::Bool(r.encrypted));
        row.push(Val::int(r.encrypted_len));
        row.extend(body(r.summary.as_deref().unwrap_or(""), opts.max_text));
        row.push(Val::int(r.summary_line.filter(|&l| Some(l) != r.line)));
        row.push(Val::int(r.retained_messages.as_ref().map(Vec::len)));
        row.push(Val::str(r.boundary_uuid.clone()));
        out.rows.push(&row);
    }
    out.rows.finish();
    Ok(out)
}
