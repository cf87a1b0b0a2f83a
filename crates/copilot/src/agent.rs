//! Copilot CLI's answers to the commands' questions ([`Agent`]).

use cctool_core::ExitStatus;
use cctool_core::agents::detect::{Record, Sureness};
use cctool_core::agents::view::{ChainOptions, Report};
use cctool_core::agents::{About, Agent, ArgValue, ChainRefusal, Help, Import, Names, Store};
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

/// Copilot CLI's sessions as an [`Agent`].
pub struct Copilot;

/// Why `compact` leaves a Copilot CLI session alone: cctool does not write its compaction
/// records yet, and a summary the client would not load is worse than none.
#[derive(Debug, thiserror::Error)]
#[error("cctool does not compact Copilot CLI sessions yet: run /compact in the client")]
pub struct NoCompaction;

/// The prefixes of the event types Copilot CLI writes (`session.start`, `tool.execution_start`,
/// …): with the `data` and `parentId` every event has, what tells its lines from other agents'.
const TYPE_PREFIXES: &[&str] = &[
    "session.",
    "user.",
    "assistant.",
    "system.",
    "tool.",
    "hook.",
    "model.",
    "subagent.",
    "permission.",
    "skill.",
];

impl Agent for Copilot {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "copilot",
            display_name: "GitHub Copilot CLI",
            json_lines: true,
            measure: compact::Measure::Content,
            loaders: false,
            names: Names {
                file: "Copilot CLI session",
                files: "Copilot CLI sessions",
                kind: "Copilot CLI",
                input_help: "A GitHub Copilot CLI session (events.jsonl)",
            },
            structural_keys: &[
                "id",
                "parentId",
                "toolCallId",
                "interactionId",
                "turnId",
                "messageId",
                "reasoningOpaque",
            ],
            help: Help {
                resume: "Copilot CLI: the events after the last finished session.compaction_complete (its summary \
first, what was written while it ran next), else every prompt, reply and result; each output \
line is an event as written. With --api-view, the chat/completions messages Copilot CLI 1.0.102 \
sends after the resume, without its own system prompt (rules GH1-GH13, docs/copilot.md).",
                summaries: "Copilot CLI: each session.compaction_complete, its summaryContent as stored; the \
current one is the last finished one, which a resume starts from.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        // `parentId` is null on the first event, so it cannot be asked for; a dotted type of
        // its namespaces with `data` and an `id` is no other agent's record.
        let ty = r.ty()?;
        let ours = r.has("data") && r.has("id") && ty.contains('.') && TYPE_PREFIXES.iter().any(|p| ty.starts_with(p));
        ours.then_some(Sureness::Strong)
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        _: summary::Options,
    ) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
        let s = crate::lite::read(src).map_err(Error::Read)?;
        Ok((crate::answers::summaries(src, &s), s.bad_lines()))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<Vec<Diagnostic>> {
        let s = crate::lite::read(src).map_err(Error::Read)?;
        Ok(crate::doctor::doctor(src, &s))
    }

    fn scan(&self, src: &Source, _: &Overrides) -> cctool_core::error::Result<SessionRecord> {
        let s = crate::lite::read(src).map_err(Error::Read)?;
        Ok(crate::answers::scan(src, &s))
    }

    fn import(&self) -> Option<Import> {
        Some(crate::import::copilot_to)
    }

    fn full_session(&self, src: &Source) -> cctool_core::error::Result<Session> {
        crate::import::copilot(src).map_err(Error::Read)
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

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "copilot",
            help: "A GitHub Copilot CLI session (events.jsonl)",
        })
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&crate::tools::CopilotTools)
    }

    fn converter(&self) -> Option<&'static dyn cctool_core::agents::Converter> {
        Some(&crate::convert::Converter)
    }

    fn session_roots(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Vec<std::path::PathBuf>, Vec<String>) {
        crate::store::roots(env)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&crate::relocate::CopilotRelocator)
    }

    fn hooks(&self) -> Option<&'static dyn cctool_core::agents::Hooks> {
        Some(&crate::hooks::CopilotHooks)
    }

    fn store(&self) -> Option<&'static dyn Store> {
        Some(&crate::store::CopilotStore)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(line: &str) -> Option<Sureness> {
        Copilot.sniff(&Record::parse(line.as_bytes(), true).expect("an object"))
    }

    #[test]
    fn claims_its_events_whatever_their_key_order_and_no_other_agents_records() {
        let start = r#"{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"t","parentId":null}"#;
        assert_eq!(sniff(start), Some(Sureness::Strong));
        let reordered = r#"{"parentId":"e1","id":"e2","data":{"content":"hi"},"type":"user.message"}"#;
        assert_eq!(sniff(reordered), Some(Sureness::Strong));
        for other in [
            // Claude Code, Codex (envelope and bare item), pi, and a dotted type without data.
            r#"{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"session_meta","timestamp":"t","payload":{"id":"x"}}"#,
            r#"{"type":"message","role":"user","content":[]}"#,
            r#"{"type":"message","id":"a1b2c3d4","parentId":null,"message":{"role":"user","content":[]}}"#,
            r#"{"type":"session.start","id":"e1"}"#,
            r#"{"type":"weird.kind","data":{},"id":"e1"}"#,
        ] {
            assert_eq!(sniff(other), None, "{other}");
        }
    }
}
