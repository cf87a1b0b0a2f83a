//! Flat, versioned tables of sessions for DuckDB, Polars and Spark (`scan --rows`).
//!
//! Each table is a list of columns with one type each ([`columns`]); a row is one value per
//! column, in that order, null where the source has nothing. The same definition makes the
//! JSON Lines records, the Parquet schema, `schemas/<table>.json` and the man page's TABLES
//! section, so they cannot drift apart. Rows are built from one input file alone
//! (`build`): the tables of a corpus split in parts are the parts' tables put together.
//! Bodies (texts, tool inputs and outputs, summaries) are given as their length and SHA-256,
//! with a bounded prefix on request: a whole tool output can be larger than a JSON reader
//! takes in one record (DuckDB stops at 16 MiB by default).

pub mod build;
mod events;
#[cfg(feature = "parquet")]
pub(crate) mod parquet;
pub mod sink;
mod spill;

pub use crate::model::rows::{Options, Row, SCHEMA_VERSION, Table, Val, body};

/// How `scan --rows` writes rows (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum RowFormat {
    /// JSON Lines: one object per row, every column present.
    #[default]
    Jsonl,
    /// Apache Parquet (needs a build with the `parquet` feature).
    Parquet,
}

/// A column's type: in JSON Lines a string, a number, a boolean, or an ISO-8601 string (UTC,
/// milliseconds); in Parquet UTF-8 (dictionary-encoded), INT64, BOOLEAN, TIMESTAMP(ms, UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Int,
    Bool,
    Time,
}

impl Ty {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Int => "integer",
            Ty::Bool => "boolean",
            Ty::Time => "timestamp",
        }
    }
}

pub(crate) struct Col {
    pub(crate) name: &'static str,
    pub(crate) ty: Ty,
    pub(crate) nullable: bool,
    // Only `schema_json` reads it, for the test that keeps `schemas/<table>.json` (the column
    // descriptions users read) in step with the code.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) doc: &'static str,
}

const fn c(name: &'static str, ty: Ty, nullable: bool, doc: &'static str) -> Col {
    Col {
        name,
        ty,
        nullable,
        doc,
    }
}

use Ty::{Bool, Int, Str, Time};

/// The columns every table starts with: which version of the table, and where the row comes
/// from.
const PROVENANCE: [Col; 7] = [
    c("schema_version", Int, false, "version of the table's columns"),
    c("agent", Str, false, "claude-code, codex or cctool-session"),
    c(
        "client_version",
        Str,
        true,
        "version of the agent that wrote the row (Claude Code: the row's own; Codex: the session_meta's)",
    ),
    c("source_path", Str, false, "the file read, as named"),
    c("session_id", Str, true, "the session's id"),
    c(
        "byte_offset",
        Int,
        true,
        "offset in the file of the row's record (null for sessions and for v5 messages)",
    ),
    c(
        "line",
        Int,
        true,
        "1-based line of the row's record (null where the record is not a line)",
    ),
];

const SESSIONS: [Col; 32] = [
    c("path", Str, false, "= source_path (the name scan --json uses)"),
    c("role", Str, false, "session, or subagent for a subagent transcript"),
    c("parent_session", Str, true, "for a subagent: the session it belongs to"),
    c("cwd", Str, true, "folder the session ran in"),
    c(
        "project",
        Str,
        true,
        "last component of the project folder: cwd, or a git worktree's main repository (or the file's folder)",
    ),
    c(
        "title",
        Str,
        true,
        "the session's title, one line, at most 200 characters",
    ),
    c(
        "title_source",
        Str,
        true,
        "custom-title, ai-title, summary or first-prompt",
    ),
    c(
        "agent_versions",
        Str,
        false,
        "every agent version seen, comma-separated, oldest first",
    ),
    c("bytes", Int, false, "size of the file"),
    c("lines", Int, false, "physical lines"),
    c("bad_lines", Int, false, "lines that are not JSON records"),
    c(
        "chain_messages",
        Int,
        false,
        "messages a resume loads (rows of messages with on_resume_chain)",
    ),
    c("chain_end", Str, true, "how the resumed chain ends"),
    c("leaves", Int, true, "Claude Code: leaves of the message tree"),
    c("compactions", Int, false, "compactions in the file"),
    c("compactions_local", Int, false, "of those, made by the client"),
    c(
        "compactions_remote",
        Int,
        false,
        "of those, made by the server (encrypted)",
    ),
    c(
        "compactions_legacy",
        Int,
        false,
        "of those, legacy Codex records without a replacement history",
    ),
    c("last_compaction_trigger", Str, true, "manual or auto"),
    c(
        "last_compaction_pre_tokens",
        Int,
        true,
        "tokens before the last compaction, as the client recorded",
    ),
    c(
        "resume_tokens",
        Int,
        false,
        "estimated tokens of the request a resume sends",
    ),
    c(
        "resume_model",
        Str,
        true,
        "Claude Code: the model a resume sends the request to",
    ),
    c("resume_model_choice", Str, true, "how the client chose that model"),
    c(
        "dangling_parents",
        Int,
        true,
        "Claude Code: parent references that name nothing",
    ),
    c(
        "chain_breaks",
        Int,
        true,
        "Claude Code: of those, the ones that lose messages on resume",
    ),
    c(
        "duplicate_uuids",
        Int,
        true,
        "Claude Code: uuids written more than once",
    ),
    c("first_timestamp", Time, true, "earliest record"),
    c("last_timestamp", Time, true, "latest record"),
    c(
        "on_resume_chain",
        Bool,
        false,
        "always true: a session is what a resume loads",
    ),
    c(
        "subagent_files",
        Int,
        false,
        "always 0 here: subagents name their session in parent_session",
    ),
    c(
        "payload_bytes",
        Int,
        true,
        "base64 bytes of the images and documents the file stores, every copy counted (docs/slim.md)",
    ),
    c(
        "request_bytes",
        Int,
        true,
        "Claude Code: bytes of the messages a resume sends (the API refuses requests over 32 MB)",
    ),
];

const MESSAGES: [Col; 22] = [
    c(
        "message_index",
        Int,
        false,
        "0-based position among the file's message rows",
    ),
    c(
        "origin",
        Str,
        false,
        "record (a line of its own), replacement-history (Codex: an item inside a compacted record) or rebuilt (Codex: made by a legacy compaction rebuild)",
    ),
    c("uuid", Str, true, "Claude Code: the row's uuid"),
    c("parent_uuid", Str, true, "Claude Code: its parentUuid"),
    c(
        "type",
        Str,
        false,
        "the record's type (user, assistant, system, attachment; Codex: message, reasoning, function_call, …; v5: the role)",
    ),
    c("role", Str, true, "user, assistant, developer, system or tool"),
    c("timestamp", Time, true, "when the record was written"),
    c(
        "model",
        Str,
        true,
        "the model that answered (Claude Code), or the turn's model (Codex)",
    ),
    c(
        "on_resume_chain",
        Bool,
        false,
        "whether a resume of the file loads this message",
    ),
    c("is_sidechain", Bool, true, "Claude Code: isSidechain"),
    c("is_meta", Bool, true, "Claude Code: isMeta"),
    c(
        "is_compact_summary",
        Bool,
        true,
        "a compaction summary (Claude Code: isCompactSummary; v5: a summary item)",
    ),
    c(
        "text_len",
        Int,
        false,
        "UTF-8 bytes of the message's text (text blocks joined by newlines)",
    ),
    c("text_sha256", Str, true, "SHA-256 of that text, hex (null when empty)"),
    c(
        "text",
        Str,
        true,
        "its first --max-text characters (null with --max-text 0)",
    ),
    c("tool_calls", Int, false, "tool calls in the message"),
    c("tool_results", Int, false, "tool results in the message"),
    c("input_tokens", Int, true, "Claude Code: usage.input_tokens"),
    c("output_tokens", Int, true, "Claude Code: usage.output_tokens"),
    c(
        "cache_read_tokens",
        Int,
        true,
        "Claude Code: usage.cache_read_input_tokens",
    ),
    c(
        "cache_creation_tokens",
        Int,
        true,
        "Claude Code: usage.cache_creation_input_tokens",
    ),
    c("record_bytes", Int, true, "bytes of the record (null for v5 messages)"),
];

const COMPACTIONS: [Col; 14] = [
    c("compaction_index", Int, false, "0-based, in file order"),
    c("timestamp", Time, true, "when the compaction was recorded"),
    c("trigger", Str, true, "manual or auto (Claude Code)"),
    c("pre_tokens", Int, true, "tokens before, as the client recorded"),
    c(
        "origin",
        Str,
        false,
        "local, remote (encrypted, made by the server) or legacy",
    ),
    c("on_resume_chain", Bool, false, "the compaction a resume starts from"),
    c("encrypted", Bool, false, "the summary is encrypted (remote)"),
    c("encrypted_len", Int, true, "length of the encrypted summary"),
    c("summary_len", Int, false, "UTF-8 bytes of the summary text"),
    c(
        "summary_sha256",
        Str,
        true,
        "SHA-256 of the summary, hex (null when empty)",
    ),
    c("summary", Str, true, "its first --max-text characters"),
    c(
        "summary_line",
        Int,
        true,
        "line of the summary message when it is not the compaction's own",
    ),
    c(
        "retained_messages",
        Int,
        true,
        "Codex: user messages kept beside the summary",
    ),
    c("boundary_uuid", Str, true, "Claude Code: the compact_boundary's uuid"),
];

const TOOL_CALLS: [Col; 16] = [
    c("call_index", Int, false, "0-based, in file order"),
    c("call_id", Str, true, "the call's id (tool_use id, call_id)"),
    c("name", Str, true, "the tool's name"),
    c(
        "kind",
        Str,
        false,
        "tool_use (Claude Code), function_call, custom_tool_call, local_shell_call, … (Codex), tool_call (v5)",
    ),
    c("timestamp", Time, true, "when the call was written"),
    c("on_resume_chain", Bool, false, "whether a resume loads the call"),
    c(
        "input_len",
        Int,
        false,
        "UTF-8 bytes of the input (its JSON text, or the argument string as written)",
    ),
    c("input_sha256", Str, true, "SHA-256 of the input, hex (null when empty)"),
    c("input", Str, true, "its first --max-text characters"),
    c("has_result", Bool, false, "a result for the call is in the file"),
    c("result_line", Int, true, "line of the result's record"),
    c(
        "is_error",
        Bool,
        true,
        "the result says the call failed (Claude Code: is_error; Codex: success false)",
    ),
    c(
        "output_len",
        Int,
        true,
        "UTF-8 bytes of the output (text as is; other content as its JSON text)",
    ),
    c(
        "output_sha256",
        Str,
        true,
        "SHA-256 of the output, hex (null when empty)",
    ),
    c("output", Str, true, "its first --max-text characters"),
    c("result_timestamp", Time, true, "when the result was written"),
];

/// Every column of `table`, in order.
pub(crate) fn columns(table: Table) -> Vec<&'static Col> {
    let own: &'static [Col] = match table {
        Table::Sessions => &SESSIONS,
        Table::Messages => &MESSAGES,
        Table::Compactions => &COMPACTIONS,
        Table::ToolCalls => &TOOL_CALLS,
    };
    PROVENANCE.iter().chain(own).collect()
}

/// `schemas/<table>.json`: the table's columns, types and nullability, for tools that check
/// rows (and for the test that checks cctool's own rows against the committed files).
#[cfg(test)]
pub(crate) fn schema_json(table: Table) -> String {
    let cols: Vec<serde_json::Value> = columns(table)
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "type": c.ty.name(),
                "nullable": c.nullable,
                "description": c.doc,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "table": table.name(),
        "schema_version": SCHEMA_VERSION,
        "key": table.key(),
        "columns": cols,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The TABLES section of `scan --help` and the man page.
pub fn man_section() -> String {
    let mut s = format!(
        "TABLES (--rows, schema_version {SCHEMA_VERSION}; schemas/<table>.json in the repository)\n  \
Every row has every column, null where there is nothing. Types: string; integer; boolean; \
timestamp (ISO-8601 UTC string in JSON Lines, TIMESTAMP(ms, UTC) in Parquet). ? marks a \
nullable column.\n"
    );
    for t in Table::ALL {
        s.push_str(&format!("\n  {} (key: {})\n", t.name(), t.key().join(", ")));
        let cols: Vec<String> = columns(t)
            .iter()
            .map(|c| format!("{}:{}{}", c.name, c.ty.name(), if c.nullable { "?" } else { "" }))
            .collect();
        s.push_str(&format!("    {}\n", cols.join(" ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_schemas_are_the_columns() {
        for t in Table::ALL {
            let path =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../schemas/{}.json", t.name()));
            let want = schema_json(t);
            if std::env::var_os("CCTOOL_WRITE_SCHEMAS").is_some() {
                std::fs::write(&path, &want).expect("write schema");
            }
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                have == want,
                "{} is stale: run `CCTOOL_WRITE_SCHEMAS=1 cargo test -p cctool-features --lib tables::`",
                path.display()
            );
        }
    }

    #[test]
    fn every_column_name_is_unique_per_table() {
        for t in Table::ALL {
            let cols = columns(t);
            let mut names: Vec<&str> = cols.iter().map(|c| c.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), cols.len(), "{}", t.name());
        }
    }
}
