//! cctool's own session files' answers to the commands' questions ([`Agent`]).

use crate::ExitStatus;
use crate::agents::view::ChainOptions;
use crate::agents::view::Report;
use crate::agents::{About, Agent, Import};
use crate::io::Source;
use crate::model::diag::Diagnostic;
use crate::model::doc::ExportError;
use crate::model::events::{Ask, Sink, Streamed};
use crate::model::resume::Loader;
use crate::model::resume::Overrides;
use crate::model::session::SessionRecord;
use crate::output::Out;
use crate::output::render::Render;
use crate::summary::{self, SummaryRecord};
use crate::v5::schema::Session;
use cctool_core::agents::detect::{Keys, Record, Sureness};
use cctool_core::agents::{ArgValue, Help, Names};
use cctool_core::compact;
use cctool_core::compact::file::Target;

/// cctool's own session format as an [`Agent`].
pub struct Cctool;

impl Agent for Cctool {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "cctool",
            display_name: "cctool session",
            json_lines: false,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "cctool session",
                files: "its own sessions",
                kind: "a cctool session",
                input_help: "A cctool session file, schema version 1 to 5",
            },
            structural_keys: &["session_id"],
            help: Help {
                resume: "cctool session files: the messages in order, one per line.",
                summaries: "cctool v5 sessions: each summary item.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        (r.has("messages") && (r.has("version") || r.has("schema_version"))).then_some(Sureness::Defining)
    }

    fn sniff_document(&self, keys: &Keys) -> bool {
        keys.has("messages") && (keys.has("version") || keys.has("schema_version"))
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "cctool",
            help: "A cctool v5 session (the import of `migrate`)",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        opts: summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)> {
        let mut found = crate::summaries::SessionSummaries::new(src, opts);
        let head = super::file::for_each_message(src, |m| found.message(m))?;
        Ok((found.finish(head.session_id), 0))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> crate::error::Result<Vec<Diagnostic>> {
        Ok(super::doctor::check(src))
    }

    fn scan(&self, src: &Source, _: &Overrides) -> crate::error::Result<SessionRecord> {
        Ok(super::scan::scan(src))
    }

    fn import(&self) -> Option<Import> {
        None
    }

    fn full_session(&self, src: &Source) -> crate::error::Result<Session> {
        crate::v5::schema::read_source(src)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<crate::agents::ChainRefusal> {
        crate::agents::one_chain_no_view_refused(a, crate::ID)
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> crate::error::Result<(Vec<Diagnostic>, Report)> {
        let _ = (a, bar);
        super::view::rebuild_chain(src, style, out)
    }

    fn compact(
        &self,
        src: &Source,
        opts: &compact::Options,
        target: &Target,
        r: &mut compact::Report,
    ) -> crate::error::Result<ExitStatus> {
        super::compaction::compact_file(src, opts, target, r)
    }

    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> crate::error::Result<Streamed> {
        super::events::events(src, ask, sink)
    }

    fn export_records(
        &self,
        src: &Source,
        _: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        super::export::records(src, emit)
    }

    fn import_target(&self) -> Option<&'static str> {
        Some("v5")
    }
}
