//! Every JSON Lines record cctool prints of its own (as opposed to an agent's records, which
//! `rebuild-chain` and `export` print as they are), in one enum. The variant is the record's
//! `kind`, written first; the structs hold the fields. A kind users filter on with jq is added
//! here or nowhere, and each command's `--help` documents its records' fields (a test reads
//! every record of every fixture against it).

use serde::Serialize;

use crate::model::diag::Diagnostic;
use crate::summary::SummaryRecord;

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record<'a> {
    /// `scan`: one session at a glance.
    Session(&'a crate::model::session::SessionRecord),
    /// `extract-summary`: one compaction summary.
    Summary(&'a SummaryRecord),
    /// `extract-summary --all-events`: a compaction event that holds no summary (a
    /// microcompaction).
    Event(&'a SummaryRecord),
    /// A problem with an input, not a judgement of it (any command).
    Diagnostic(&'a Diagnostic),
    /// `doctor`: what it finds in a session.
    Finding(&'a Diagnostic),
    /// `doctor`: the findings of one code over all files.
    Code(&'a super::doctor::CodeCount),
    /// `doctor`: the retention sweep an agent will make next.
    Retention(&'a crate::backup::retention::Finding),
    /// The closing record of `scan`, `doctor` and `extract-summary`.
    #[serde(rename = "total")]
    ScanTotal(&'a super::scan::Total),
    #[serde(rename = "total")]
    DoctorTotal(&'a super::doctor::Total),
    #[serde(rename = "total")]
    SummaryTotal(&'a super::extract_summary::Total),
    /// `rebuild-chain`: the closing record.
    Chain(&'a crate::agents::view::ChainSummary),
    /// `rebuild-chain --api-view`: the closing record.
    ApiView(&'a crate::agents::view::ApiViewSummary),
    /// `convert`.
    Conversion(&'a super::convert::Report),
    /// `compact`.
    Compaction(&'a crate::compact::Report),
    /// `decompress`.
    Decompression(&'a super::decompress::Decompression),
    /// `migrate`: one file.
    Migration(&'a super::migrate::Migration),
    /// `slim`: one file.
    Slim(&'a super::slim::SlimRecord),
    /// `slim` of a database: where its space goes, and what was taken back.
    SlimDatabase(&'a super::slim_database::DatabaseRecord),
    /// `relocate`: one session.
    Relocation(&'a super::relocate::Relocation),
    /// `export`: one input.
    Export(&'a super::export::Exported),
    /// `export --redact`: what was redacted, counts only.
    Redaction(&'a crate::redact::Report),
    /// `backup`.
    Backup(&'a crate::backup::run::Report),
    /// `merge`.
    Merge(&'a crate::backup::merge::Report),
    /// `backup --verify`.
    Verify(&'a super::backup::Verified),
    /// `restore` without sessions: one session the archive holds.
    ArchivedSession(&'a crate::backup::restore::Listed),
    /// `restore SESSION`: one file put back.
    Restored(&'a super::restore::Restored<'a>),
    /// `hooks install` and `uninstall`: what was edited.
    Hooks(&'a super::hooks::HooksEdit),
    /// `mcp --install`: the server's entry in an agent's configuration.
    McpInstall(&'a super::mcp::McpInstall),
    /// `search --json`: one text of a message that matched.
    Hit(&'a super::search::HitRecord<'a>),
    /// `search --json -l` or `-c`: a session that matched.
    SearchSession(&'a super::search::SessionHits<'a>),
    /// `index`: what the run did.
    Index(&'a super::index::Stats),
    /// `restore --from-history`: what the history holds of a deleted session.
    HistorySession(&'a crate::backup::retention::FromHistory),
}

impl<'a> Record<'a> {
    /// A diagnostic as the record its role makes it: a finding of `doctor`, or a problem with
    /// an input.
    pub fn diagnostic(d: &'a Diagnostic) -> Record<'a> {
        match d.kind {
            "finding" => Record::Finding(d),
            _ => Record::Diagnostic(d),
        }
    }

    /// A summary record: a summary, or an event without one.
    pub fn summary(r: &'a SummaryRecord) -> Record<'a> {
        match r.kind {
            "event" => Record::Event(r),
            _ => Record::Summary(r),
        }
    }
}
