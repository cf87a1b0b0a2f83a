//! Gemini CLI's answers to the commands' questions ([`Agent`]).

use cctool_core::ExitStatus;
use cctool_core::agents::detect::{Keys, Record, Sureness};
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

/// Gemini CLI's chats as an [`Agent`].
pub struct Gemini;

/// Why `compact` leaves a Gemini CLI chat alone: cctool does not write its compression.
#[derive(Debug, thiserror::Error)]
#[error("cctool does not compact Gemini CLI chats: run /compress in gemini")]
pub struct NoCompaction;

/// Why `--api-view` takes no `--tip` or `--full`: the client resumes the whole replayed log.
#[derive(Debug, thiserror::Error)]
#[error("--api-view is the request Gemini CLI sends resuming the whole chat: --tip and --full do not apply")]
pub struct TipWithApiView;

impl Agent for Gemini {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "gemini",
            display_name: "Gemini CLI",
            json_lines: true,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "Gemini CLI chat",
                files: "Gemini CLI chats",
                kind: "Gemini CLI",
                input_help: "A Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, or the older `.json` document)",
            },
            structural_keys: &["id", "sessionId", "projectHash", "$rewindTo", "thoughtSignature"],
            help: Help {
                resume: "Gemini CLI: the chat's event log replayed as the client does (headers, $set snapshots, \
$rewindTo, a message written again replacing the one of its id where it stood), each message a \
line as written. With --api-view, the contents Gemini CLI 0.61.0 sends for the resumed turn, \
its send-time rules applied (GM1-GM8, docs/gemini.md).",
                summaries: "Gemini CLI: each compression (a $set of the messages that drops what a resume would send \
and brings the summary), its <state_snapshot> summary as stored; the current one is the last \
whose summary a resume still loads.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        // The header: no other agent writes a `projectHash`.
        if r.has("sessionId") && r.has("projectHash") && r.ty().is_none() {
            return Some(Sureness::Strong);
        }
        if r.has("$set") || r.has("$rewindTo") {
            return Some(Sureness::Strong);
        }
        let ty = r.ty()?;
        let message = r.has("id") && r.has("timestamp") && !r.has("uuid") && !r.has("message");
        match ty {
            "gemini" if message => Some(Sureness::Strong),
            "user" | "info" | "warning" | "error" if message && r.has("content") => Some(Sureness::Weak),
            _ => None,
        }
    }

    fn sniff_document(&self, keys: &Keys) -> bool {
        keys.has("sessionId") && keys.has("projectHash") && keys.has("messages")
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        opts: summary::Options,
    ) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
        crate::answers::summaries_with(src, opts)
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<Vec<Diagnostic>> {
        crate::doctor::doctor(src)
    }

    fn scan(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<SessionRecord> {
        Ok(crate::answers::scan(src))
    }

    fn import(&self) -> Option<Import> {
        Some(crate::import::gemini_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::gemini(src).map_err(cctool_core::error::Error::Read)
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
        Some(&crate::store::GeminiStore)
    }

    fn session_roots(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Vec<std::path::PathBuf>, Vec<String>) {
        crate::store::roots(env)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&crate::relocate::GeminiRelocator)
    }

    fn hooks(&self) -> Option<&'static dyn cctool_core::agents::Hooks> {
        Some(&crate::hooks::GeminiHooks)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::GeminiTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "gemini-cli",
            help: "A Gemini CLI chat",
        })
    }
}
