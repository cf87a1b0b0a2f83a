//! Codex's answers to the commands' questions ([`Agent`]).

use std::io;

use super::history::{self, History};
use super::rollout::{self, Event, Record};
use crate::ExitStatus;
use crate::agents::cctool::schema::Session;
use crate::agents::claude_code::chain::Loader;
use crate::agents::claude_code::config::Overrides;
use crate::agents::view::Report;
use crate::agents::{About, Agent, Import};
use crate::cli::{CompactArgs, RebuildChainArgs};
use crate::compact;
use crate::compact::file::Target;
use crate::io::Source;
use crate::model::Format;
use crate::model::diag::Diagnostic;
use crate::output::Out;
use crate::output::render::Render;
use crate::scan::SessionRecord;
use crate::summary::{self, SummaryRecord};

pub struct Codex;

impl Agent for Codex {
    fn about(&self) -> &'static About {
        &About {
            format: Format::Codex,
            short_name: "codex",
            json_lines: true,
            measure: compact::Measure::History,
            loaders: false,
        }
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
            let records = crate::agents::codex::summaries::codex(src, &fast, &history)?;
            if records.iter().all(|r| r.encrypted || r.summary.is_some()) {
                return Ok((stripped(records, opts), fast.bad_lines));
            }
        }
        let rollout = rollout::read_records(src)?;
        let history = history::reconstruct(&rollout);
        let records = crate::agents::codex::summaries::codex(src, &rollout, &history)?;
        Ok((stripped(records, opts), rollout.bad_lines))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> io::Result<Vec<Diagnostic>> {
        rollout::read_records(src).and_then(|r| crate::doctor::codex(src, &r))
    }

    fn scan(&self, src: &Source, _: &Overrides) -> io::Result<SessionRecord> {
        crate::scan::scan_codex(src)
    }

    fn import(&self) -> Option<Import> {
        Some(super::import::codex_to)
    }

    fn full_session(&self, src: &Source) -> crate::error::Result<Session> {
        super::import::codex(src, false).map_err(crate::error::Error::Read)
    }

    fn refuse_chain_args(&self, a: &RebuildChainArgs) -> Option<String> {
        if a.resume.any_claude_only() {
            return Some("--as-of, --settings, --base-url and --thinking-policy describe a Claude Code resume; for a Codex rollout only --model applies".into());
        }
        crate::agents::tip_and_full_refused(a, Format::Codex)
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &RebuildChainArgs,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
        super::view::rebuild_chain(src, a, style, out, bar)
    }

    fn compact(
        &self,
        src: &Source,
        a: &CompactArgs,
        opts: &compact::Options,
        target: &Target,
        r: &mut compact::Report,
    ) -> crate::error::Result<ExitStatus> {
        super::compaction::compact_file(src, a, opts, target, r)
    }

    fn slimmer(&self) -> Option<&'static dyn crate::slim::Slimmer> {
        Some(&super::slim::CodexSlim)
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
