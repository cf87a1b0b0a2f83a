//! Claude Code's answers to the commands' questions ([`Agent`]).

use crate::ExitStatus;
use crate::agents::view::ChainOptions;
use crate::agents::view::Report;
use crate::agents::{About, Agent, Import};
use crate::chain::Loader;
use crate::io::Source;
use crate::output::Out;
use crate::output::render::Render;
use crate::summary::{self, SummaryRecord};
use crate::v5::schema::Session;
use cctool_core::agents::detect::{Record, Sureness};
use cctool_core::agents::{ArgValue, Help, Names};
use cctool_core::compact;
use cctool_core::compact::file::Target;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::doc::ExportError;
use cctool_core::model::events::{Ask, MadeText, Sink, Streamed, View};
use cctool_core::model::resume::Overrides;
use cctool_core::model::session::SessionRecord;

/// Claude Code transcripts as an [`Agent`].
pub struct ClaudeCode;

impl Agent for ClaudeCode {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "claude",
            display_name: "Claude Code",
            json_lines: true,
            measure: compact::Measure::Request,
            loaders: true,
            names: Names {
                file: "Claude Code transcript",
                files: "Claude Code transcripts",
                kind: "Claude Code",
                input_help: "A Claude Code transcript (`~/.claude/projects/**/<session>.jsonl`)",
            },
            structural_keys: &[
                "uuid",
                "parentUuid",
                "logicalParentUuid",
                "leafUuid",
                "sessionId",
                "tool_use_id",
                "toolUseID",
                "sourceToolUseID",
                "requestId",
                "messageId",
                "promptId",
                "agentId",
                "signature",
            ],
            help: Help {
                resume: "Claude Code: the load algorithm of Claude Code 2.1.332 (the current client): progress rows \
bridged, duplicate uuids keeping their first position and last content, preserved-segment \
relinks and prunes, gap bridging (5 s rule), parallel tool calls recovered in file order, \
trailing system rows, and the tip chosen from the last row written. --loader 2.1.88 gives the \
older rules (newest leaf as tip, no gap bridging). Each output line is the original record, \
byte for byte, so `cctool rebuild-chain f.jsonl | jq -r .uuid` lists the uuids in order.",
                summaries: "Claude Code: each compact_boundary with its isCompactSummary message (the one parented on the \
boundary, else the first after it before the next boundary). Legacy type:\"summary\" lines are \
branch titles, never summaries. The current summary is the boundary the resumed chain starts \
from; when the chain reaches no boundary the last one is current, with a warning.",
            },
        }
    }

    fn sniff(&self, r: &Record<'_>) -> Option<Sureness> {
        // Its record types, or the fields that link its records (a title names the leaf it
        // belongs to).
        let ty = r.ty()?;
        let ours = (super::records::is_known_type(ty) && ty != "summary")
            || r.has("uuid")
            || r.has("parentUuid")
            || r.has("sessionId")
            || (ty == "summary" && r.has("leafUuid"));
        ours.then_some(Sureness::Typical)
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "claude-code",
            help: "A Claude Code transcript",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        loader: Loader,
        opts: summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)> {
        let (markers, bad) = crate::summaries::claude_markers(src)?;
        if markers.is_empty() {
            return Ok((Vec::new(), bad));
        }
        let current = crate::summaries::claude_current(src, &markers, loader)?;
        let bad = current.transcript.as_ref().map_or(bad, |t| t.bad_lines);
        Ok((crate::summaries::claude(src, &markers, &current, opts)?, bad))
    }

    fn doctor(&self, src: &Source, resume: &Overrides) -> crate::error::Result<Vec<Diagnostic>> {
        Ok(super::doctor::check(src, resume)?)
    }

    fn scan(&self, src: &Source, resume: &Overrides) -> crate::error::Result<SessionRecord> {
        Ok(super::scan::scan(src, resume)?)
    }

    fn listing(&self, src: &Source) -> crate::error::Result<SessionRecord> {
        Ok(super::scan::listing(src)?)
    }

    fn check_resume(&self, resume: &Overrides) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        super::config::Config::load(resume, None, &|k| std::env::var(k).ok())?;
        Ok(())
    }

    fn short_model_name(&self, model: &str) -> String {
        super::model::short_name(model)
    }

    fn links_subagents(&self) -> bool {
        true
    }

    fn import(&self) -> Option<Import> {
        Some(super::import::claude_to)
    }

    fn full_session(&self, src: &Source) -> crate::error::Result<Session> {
        super::import::claude(src, false).map_err(crate::error::Error::Read)
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> crate::error::Result<(Vec<Diagnostic>, Report)> {
        super::view::rebuild_chain(src, a, style, out, bar)
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

    fn slimmer(&self) -> Option<&'static dyn cctool_core::slim::Slimmer> {
        Some(&super::slim::ClaudeCodeSlim)
    }

    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> crate::error::Result<Streamed> {
        super::events::events(src, ask, sink)
    }

    fn events_listed(
        &self,
        src: &Source,
        ask: Ask<'_>,
        sink: Sink<'_>,
        named: &dyn Fn() -> bool,
    ) -> crate::error::Result<(Streamed, Option<SessionRecord>)> {
        super::events::events_listed(src, ask, sink, named)
    }

    /// Every record it hands on is read from the transcript's own lines, in every view.
    fn made_text(&self, _view: View) -> MadeText {
        MadeText::Only(&[])
    }

    fn export_records(
        &self,
        src: &Source,
        full: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        super::export::records(src, full, emit)
    }

    fn sub_sessions(&self, session: &std::path::Path, follow: bool) -> Vec<std::path::PathBuf> {
        super::subagents::sub_sessions(session, follow)
    }

    fn is_sub_session_path(&self, path: &std::path::Path) -> bool {
        super::subagents::is_subagent_path(&path.to_string_lossy())
    }

    fn store(&self) -> Option<&'static dyn crate::agents::Store> {
        Some(&super::store::ClaudeCodeStore)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&super::relocate::ClaudeCodeRelocator)
    }

    fn hooks(&self) -> Option<&'static dyn crate::agents::Hooks> {
        Some(&super::hooks::ClaudeCodeHooks)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&super::tools::ClaudeCodeTools)
    }

    fn converter(&self) -> Option<&'static dyn crate::agents::Converter> {
        Some(&super::convert::Converter)
    }
}
