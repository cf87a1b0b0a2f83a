//! Qwen Code's answers to the commands' questions ([`Agent`]).

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

/// Qwen Code's sessions as an [`Agent`].
pub struct Qwen;

/// Why `--api-view` takes no `--tip` or `--full`: the client resumes at the file's last record.
#[derive(Debug, thiserror::Error)]
#[error("--api-view is the request Qwen Code sends resuming at the file's last record: --tip and --full do not apply")]
pub struct TipWithApiView;

/// Why `--tip` is refused: the client always resumes at the file's last record.
#[derive(Debug, thiserror::Error)]
#[error("--tip chooses among the branches of a Claude Code transcript; Qwen Code resumes at the file's last record")]
pub struct TipRefused;

/// Why `compact` leaves a Qwen Code session alone: cctool does not write its compaction yet.
#[derive(Debug, thiserror::Error)]
#[error("cctool does not compact Qwen Code sessions yet: run /compress in Qwen Code")]
pub struct NoCompaction;

impl Agent for Qwen {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "qwen",
            display_name: "Qwen Code",
            json_lines: true,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "Qwen Code session",
                files: "Qwen Code sessions",
                kind: "Qwen Code",
                input_help: "A Qwen Code session (`~/.qwen/projects/<project>/chats/<id>.jsonl`)",
            },
            structural_keys: &["uuid", "parentUuid", "sessionId", "id", "callId", "thoughtSignature"],
            help: Help {
                resume: "Qwen Code: the records the client walks from the file's last record up its \
parentUuid links, from the chat_compression a resume starts from (its compressedHistory in place \
of what came before; rules QW1-QW3, docs/qwen.md), each line a record as written; --full every \
walked record. With --api-view, the chat/completions messages Qwen Code 0.24.4 sends after the \
resume, without its system prompt and reminders (QW4-QW8).",
                summaries: "Qwen Code: each chat_compression's summary as stored, with systemPayload.info as metadata; \
the current one is the compaction a resume starts from.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        // Claude Code's link fields around a message of Gemini's parts, or a record type of its
        // own: what no Claude Code record has, so the claim is stronger than Claude Code's.
        let linked = r.has("uuid") && r.has("sessionId");
        let ty = r.ty()?;
        let ours = r.message_has_parts() || ty == "tool_result" || (ty == "system" && r.has("systemPayload"));
        (linked && crate::file::RECORD_TYPES.contains(&ty) && ours).then_some(Sureness::Strong)
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "qwen-code",
            help: "A Qwen Code session",
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
        Some(crate::import::qwen_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::qwen(src).map_err(cctool_core::error::Error::Read)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<cctool_core::agents::ChainRefusal> {
        if a.tip.is_some() {
            return Some(TipRefused.into());
        }
        (a.api_view && a.full).then(|| TipWithApiView.into())
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
        Some(&crate::store::QwenStore)
    }

    fn session_roots(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Vec<std::path::PathBuf>, Vec<String>) {
        crate::store::roots(env)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&crate::relocate::QwenRelocator)
    }

    fn hooks(&self) -> Option<&'static dyn cctool_core::agents::Hooks> {
        Some(&crate::hooks::QwenHooks)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::QwenTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }
}
