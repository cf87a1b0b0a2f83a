//! pi's answers to the commands' questions ([`Agent`]).

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

/// pi's sessions as an [`Agent`].
pub struct Pi;

/// The entry types of session v3 (`session-manager.js`), each linked by `id` and `parentId`.
const ENTRY_TYPES: &[&str] = &[
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "session_info",
    "label",
    "context_edit",
    "usage",
];

/// Why `--api-view` takes no `--tip` or `--full`: pi resumes at the file's last entry, and sends
/// no more than that branch.
#[derive(Debug, thiserror::Error)]
#[error("--api-view is the request pi sends resuming at the file's last entry: --tip and --full do not apply")]
pub struct TipWithApiView;

/// Why `compact` leaves a pi session alone: cctool does not write pi's compaction yet.
#[derive(Debug, thiserror::Error)]
#[error("cctool does not compact pi sessions yet: run /compact in pi")]
pub struct NoCompaction;

impl Agent for Pi {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "pi",
            display_name: "pi",
            json_lines: true,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "pi session",
                files: "pi sessions",
                kind: "pi",
                input_help: "A pi session (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`), session format v1 to v3",
            },
            structural_keys: &[
                "id",
                "parentId",
                "firstKeptEntryId",
                "targetId",
                "toolCallId",
                "thinkingSignature",
            ],
            help: Help {
                resume: "pi: the branch pi 1.6.0 resumes, from the file's last entry up its parentId links; from its \
latest compaction on, the compaction first, then the entries from its firstKeptEntryId (rules \
P1-P4, docs/pi.md). Each output line is an entry as written; --tip ID resumes another branch. \
With --api-view, the Chat Completions messages pi sends after the resume, its system prompt \
first (rules P5-P12).",
                summaries: "pi: each compaction entry, its summary as stored, with tokensBefore, firstKeptEntryId and \
details; the current one is the latest compaction on the branch a resume loads.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        let ty = r.ty()?;
        if ty == "session" && r.has("id") && r.has("cwd") && r.has("timestamp") {
            // The header names the session format beside its content.
            return Some(if r.has("version") {
                Sureness::Defining
            } else {
                Sureness::Strong
            });
        }
        let entry = ENTRY_TYPES.contains(&ty) && r.has("id") && r.has("timestamp") && !r.has("uuid");
        // A message entry wraps its message; a bare item of another agent carries its role.
        (entry && (ty != "message" || (r.has("message") && !r.has("role")))).then_some(Sureness::Typical)
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "pi",
            help: "A pi session",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        opts: summary::Options,
    ) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
        crate::answers::summaries(src, opts)
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<Vec<Diagnostic>> {
        crate::doctor::doctor(src)
    }

    fn scan(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<SessionRecord> {
        Ok(crate::answers::scan(src))
    }

    fn import(&self) -> Option<Import> {
        Some(crate::import::pi_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::pi(src).map_err(cctool_core::error::Error::Read)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<cctool_core::agents::ChainRefusal> {
        (a.api_view && (a.full || a.tip.is_some())).then(|| TipWithApiView.into())
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        _: &indicatif::ProgressBar,
    ) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
        if a.api_view {
            return crate::api::view::api_view(src, a, style, out);
        }
        crate::answers::rebuild_chain(src, a, style, out)
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
        full: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        crate::answers::export_records(src, full, emit)
    }

    fn store(&self) -> Option<&'static dyn cctool_core::agents::Store> {
        Some(&crate::store::PiStore)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&crate::relocate::PiRelocator)
    }

    fn session_roots(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Vec<std::path::PathBuf>, Vec<String>) {
        crate::store::roots(env)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::PiTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }
}
