//! opencode's answers to the commands' questions ([`Agent`]).

use cctool_core::ExitStatus;
use cctool_core::agents::detect::{Keys, Record, Sureness};
use cctool_core::agents::view::{ChainOptions, Report};
use cctool_core::agents::{About, Agent, ArgValue, ChainRefusal, Container, Help, Import, Names};
use cctool_core::compact::{self, file::Target};
use cctool_core::error::Error;
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::doc::ExportError;
use cctool_core::model::events::{Ask, Sink, Streamed};
use cctool_core::model::resume::{Loader, Overrides};
use cctool_core::model::session::SessionRecord;
use cctool_core::output::Out;
use cctool_core::output::render::Render;
use cctool_core::summary::{self, SummaryRecord};
use cctool_core::v5::schema::Session;

/// opencode's sessions as an [`Agent`].
pub struct Opencode;

/// Why `compact` leaves an opencode session alone: cctool does not write into opencode's
/// database, and a summary the client would not load is worse than none.
#[derive(Debug, thiserror::Error)]
#[error("cctool does not compact opencode sessions: run /compact in the client")]
pub struct NoCompaction;

impl Agent for Opencode {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "opencode",
            display_name: "opencode",
            json_lines: false,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "opencode session",
                files: "opencode sessions",
                kind: "opencode",
                input_help: "An opencode session (a session of opencode.db, or an `opencode export` document)",
            },
            structural_keys: &["id", "sessionID", "messageID", "parentID", "callID", "projectID"],
            help: Help {
                resume: "opencode (a session of its database, DB#ID, or an `opencode export` document): from the \
newest compaction whose summary was finished without an error (rule OC0), each message as \
{info, parts} on a line. With --api-view, the chat/completions messages opencode 1.18.33 sends \
after the resume, without its own system prompt and tools (rules OC1-OC8, docs/opencode.md).",
                summaries: "opencode: each compaction's summary (the text of the assistant message with summary: true) \
as stored; the current one is the compaction a resume starts from.",
            },
        }
    }

    fn sniff(&self, _: &Record<'_>) -> Option<Sureness> {
        // A session is one JSON document, claimed by its keys (`sniff_document`).
        None
    }

    fn sniff_document(&self, keys: &Keys) -> bool {
        crate::file::is_export(keys)
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "opencode",
            help: "An opencode session, as the document `opencode import FILE` loads",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        _: summary::Options,
    ) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
        let s = crate::file::read(src).map_err(Error::Read)?;
        Ok((crate::answers::summaries(src, &s), s.unreadable.len() as u64))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<Vec<Diagnostic>> {
        let s = crate::file::read(src).map_err(Error::Read)?;
        Ok(crate::doctor::doctor(src, &s))
    }

    fn scan(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<SessionRecord> {
        let s = crate::file::read(src).map_err(Error::Read)?;
        Ok(crate::answers::scan(src, &s))
    }

    fn import(&self) -> Option<Import> {
        Some(crate::import::opencode_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::opencode(src).map_err(Error::Read)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<ChainRefusal> {
        a.tip.is_some().then(|| crate::view::TipRefused.into())
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        _: &indicatif::ProgressBar,
    ) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
        crate::view::rebuild_chain(src, a, style, out)
    }

    fn compact(
        &self,
        _: &Source,
        _: &compact::Options,
        _: &Target,
        _: &mut compact::Report,
    ) -> cctool_core::error::Result<ExitStatus> {
        Err(Error::agent(NoCompaction))
    }

    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
        crate::view::events(src, ask, sink)
    }

    fn export_records(
        &self,
        src: &Source,
        full: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        crate::view::export_records(src, full, emit)
    }

    fn session_roots(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Vec<std::path::PathBuf>, Vec<String>) {
        crate::store::roots(env)
    }

    fn container(&self) -> Option<&'static dyn Container> {
        Some(&crate::store::Database)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&crate::relocate::OpencodeRelocator)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::OpencodeTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }

    fn database_slimmer(&self) -> Option<&'static dyn cctool_core::slim::database::DatabaseSlimmer> {
        Some(&crate::store::Database)
    }
}
