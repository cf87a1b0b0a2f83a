//! The toy agent's answers to the commands' questions ([`Agent`]).

use cctool_core::ExitStatus;
use cctool_core::agents::detect::{Record, Sureness};
use cctool_core::agents::view::{ChainOptions, Report};
use cctool_core::agents::{About, Agent, ArgValue, Help, Import, Names};
use cctool_core::compact::{self, file::Target};
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

/// The toy agent's sessions as an [`Agent`].
pub struct Toy;

/// Why `compact` leaves a toy session alone: the toy agent has no compaction, so no summary
/// written into its file would be loaded by a resume.
#[derive(Debug, thiserror::Error)]
#[error("the toy agent does not compact: its resume loads every message and reads no summary")]
pub struct NoCompaction;

impl Agent for Toy {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "toy",
            display_name: "Toy agent",
            json_lines: true,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "toy session",
                files: "toy sessions",
                kind: "the toy agent",
                input_help: "A toy agent session (the worked example of adding an agent)",
            },
            structural_keys: &[],
            help: Help {
                resume: "Toy agent: every message of the file, one per line.",
                summaries: "Toy agent: none; it does not compact.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        if r.has("toy_session") {
            Some(Sureness::Strong)
        } else if r.has("toy") {
            Some(Sureness::Typical)
        } else {
            None
        }
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: crate::ID.name(),
            help: "A toy agent session",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        _: summary::Options,
    ) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
        let s = crate::file::read(src).map_err(cctool_core::error::Error::Read)?;
        Ok((Vec::new(), s.bad_lines()))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<Vec<Diagnostic>> {
        crate::answers::doctor(src).map_err(cctool_core::error::Error::Read)
    }

    fn scan(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<SessionRecord> {
        Ok(crate::answers::scan(src))
    }

    fn import(&self) -> Option<Import> {
        Some(crate::import::toy_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::toy(src).map_err(cctool_core::error::Error::Read)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<cctool_core::agents::ChainRefusal> {
        cctool_core::agents::one_chain_no_view_refused(a, crate::ID)
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        _: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        _: &indicatif::ProgressBar,
    ) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
        crate::answers::rebuild_chain(src, style, out)
    }

    fn compact(
        &self,
        _: &Source,
        _: &compact::Options,
        _: &Target,
        _: &mut compact::Report,
    ) -> cctool_core::error::Result<ExitStatus> {
        Err(cctool_core::error::Error::agent(NoCompaction))
    }

    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
        crate::answers::events(src, ask, sink)
    }

    fn export_records(
        &self,
        src: &Source,
        _: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        crate::answers::export_records(src, emit)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::ToyTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }
}
