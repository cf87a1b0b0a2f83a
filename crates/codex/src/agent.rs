//! Codex's answers to the commands' questions ([`Agent`]).

use super::history::{self, History};
use super::rollout::{self, Event, Record};
use crate::ExitStatus;
use crate::agents::view::ChainOptions;
use crate::agents::view::Report;
use crate::agents::{About, Agent, Import};
use crate::io::Source;
use crate::model::diag::Diagnostic;
use crate::model::doc::ExportError;
use crate::model::events::{Ask, MadeText, Sink, Streamed, View};
use crate::model::resume::Loader;
use crate::model::resume::Overrides;
use crate::model::session::SessionRecord;
use crate::output::Out;
use crate::output::render::Render;
use crate::summary::{self, SummaryRecord};
use crate::v5::schema::Session;
use cctool_core::agents::detect::{Keys, Record as Probe, Sureness};
use cctool_core::agents::{ArgValue, Help, Names};
use cctool_core::compact;
use cctool_core::compact::file::Target;

/// Codex rollouts as an [`Agent`].
pub struct Codex;

impl Agent for Codex {
    fn about(&self) -> &'static About {
        &About {
            format: crate::ID,
            short_name: "codex",
            display_name: "Codex",
            json_lines: true,
            measure: compact::Measure::History,
            loaders: false,
            names: Names {
                file: "Codex rollout",
                files: "Codex rollouts",
                kind: "Codex",
                input_help: "A Codex rollout (`~/.codex/sessions/**/rollout-*.jsonl`), any era",
            },
            structural_keys: &["session_id", "call_id", "encrypted_content", "cli_version"],
            help: Help {
                resume: "Codex: the history current Codex (0.171) resumes: the newest surviving `compacted` \
replacement_history plus the records after it, with rolled-back turns discarded whole \
(compactions inside them included). Legacy compactions without replacement_history are \
rebuilt from the user messages (20,000-token budget) plus the summary. Each output line is a \
history item's JSON as written. --replay legacy gives the pre-2026-02-27 forward replay; a \
warning says when the two differ. With --api-view, the `input` items Codex 0.171 sends after \
the resume instead, as Codex writes them: its own form of each item, tool outputs cut to the \
model's budget, images and audio checked, unanswered calls closed with \"aborted\", orphan \
outputs removed (rules X1-X12, docs/codex-request.md); files Codex refuses exit 1.",
                summaries: "Codex: each compacted record. origin is remote when its replacement_history holds a \
compaction, compaction_summary or context_compaction item (the summary is encrypted: only its \
length and the plaintext messages the server kept can be shown), local when it has a \
replacement_history, legacy when it has none. Local text comes from the message (with the \
SUMMARY_PREFIX line removed), else the last prefixed user message of the replacement_history, \
else the assistant message just before the record.",
            },
        }
    }

    fn sniff(&self, r: &Probe<'_>) -> Option<Sureness> {
        // The 2025 TypeScript CLI's single-document rollout, an envelope, a state line.
        let ty = r.ty();
        if (r.has("session") && r.has("items"))
            || (r.has("payload") && ty.is_some_and(rollout::is_rollout_type))
            || r.has("record_type")
        {
            return Some(Sureness::Strong);
        }
        let bare = match ty {
            // A bare ResponseItem (2025-05 to 2025-09) is a flat item: a `message` carries
            // its own `role`, and no item links to a parent. pi's entries (`type: message`
            // wrapping a `message`, linked by `parentId`) would otherwise read as a rollout.
            Some(ty) => {
                rollout::is_response_item_type(ty)
                    && !r.has("payload")
                    && !r.has("parentId")
                    && (ty != "message" || r.has("role"))
            }
            // The bare header of a 2025 Rust rollout.
            None => r.is_first() && r.has("id") && r.has("timestamp") && !r.has("role"),
        };
        bare.then_some(Sureness::Weak)
    }

    fn sniff_document(&self, keys: &Keys) -> bool {
        keys.has("session") && keys.has("items")
    }

    fn convert_to(&self) -> Option<ArgValue> {
        Some(ArgValue {
            name: "codex",
            help: "A Codex rollout",
        })
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        opts: summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)> {
        // Without a rollback every compaction survives and the resume starts from the
        // last one, so reading the compaction records is enough — unless a summary can
        // only be found in the item written just before its record.
        let fast = rollout::read_compaction_records(src)?;
        let rolled_back = fast
            .records
            .iter()
            .any(|(_, r)| matches!(r, Record::Event(Event::RolledBack(_))));
        if !rolled_back {
            let last = fast.records.iter().rev().find_map(|(_, r)| match r {
                Record::Compacted(c) => Some(c.line),
                _ => None,
            });
            let history = History {
                base_line: last,
                ..History::default()
            };
            let records = crate::summaries::codex(src, &fast, &history)?;
            if records.iter().all(|r| r.encrypted || r.summary.is_some()) {
                return Ok((stripped(records, opts), fast.bad_lines));
            }
        }
        let rollout = rollout::read_records(src)?;
        let history = history::reconstruct(&rollout);
        let records = crate::summaries::codex(src, &rollout, &history)?;
        Ok((stripped(records, opts), rollout.bad_lines))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> crate::error::Result<Vec<Diagnostic>> {
        Ok(rollout::read_records(src).and_then(|r| super::doctor::findings_of(src, r))?)
    }

    fn scan(&self, src: &Source, _: &Overrides) -> crate::error::Result<SessionRecord> {
        Ok(super::scan::scan(src)?)
    }

    fn listing(&self, src: &Source) -> crate::error::Result<SessionRecord> {
        Ok(super::scan::listing(src)?)
    }

    fn import(&self) -> Option<Import> {
        Some(super::import::codex_to)
    }

    fn full_session(&self, src: &Source) -> crate::error::Result<Session> {
        super::import::codex(src, false).map_err(crate::error::Error::Read)
    }

    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<crate::agents::ChainRefusal> {
        if a.claude_only_resume() {
            return Some(ClaudeResumeRefused.into());
        }
        crate::agents::tip_and_full_refused(a, crate::ID)
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
        Some(&super::slim::CodexSlim)
    }

    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> crate::error::Result<Streamed> {
        Ok(super::events::events(src, ask, sink)?)
    }

    fn events_listed(
        &self,
        src: &Source,
        ask: Ask<'_>,
        sink: Sink<'_>,
        named: &dyn Fn() -> bool,
    ) -> crate::error::Result<(Streamed, Option<SessionRecord>)> {
        Ok(super::events::events_listed(src, ask, sink, named)?)
    }

    /// The history a resume rebuilds of a `compacted` record without a replacement history
    /// (`history::rebuild_legacy`, in every view: each lists what a resume loads) holds the
    /// rollout's user messages, one cut with a marker, and a summary it may make; the rest is
    /// the rollout's items.
    fn made_text(&self, _view: View) -> MadeText {
        MadeText::Only(&["…0 tokens truncated…", "(no summary available)"])
    }

    fn export_records(
        &self,
        src: &Source,
        full: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        super::export::records(src, full, emit)
    }

    fn store(&self) -> Option<&'static dyn crate::agents::Store> {
        Some(&super::store::CodexStore)
    }

    fn relocator(&self) -> Option<&'static dyn cctool_core::relocate::Relocator> {
        Some(&super::relocate::CodexRelocator)
    }

    fn hooks(&self) -> Option<&'static dyn crate::agents::Hooks> {
        Some(&super::hooks::CodexHooks)
    }

    fn tools(&self) -> Option<&'static dyn cctool_core::convert::tools::Vocabulary> {
        Some(&super::tools::CodexTools)
    }

    fn converter(&self) -> Option<&'static dyn crate::agents::Converter> {
        Some(&super::convert::Converter)
    }
}

/// `--strip-template`: a summary written in Claude Code's template (a session converted from
/// Claude Code, `docs/convert.md`) loses it as it does in a transcript and in a v5 import.
fn stripped(mut records: Vec<SummaryRecord>, opts: summary::Options) -> Vec<SummaryRecord> {
    if opts.strip_template {
        for r in &mut records {
            r.summary = r.summary.take().map(|t| summary::template::strip(&t));
        }
    }
    records
}

/// Options of a Claude Code resume given for a Codex rollout.
#[derive(Debug, thiserror::Error)]
#[error(
    "--as-of, --settings, --base-url and --thinking-policy describe a Claude Code resume; for a Codex rollout only --model applies"
)]
pub struct ClaudeResumeRefused;
