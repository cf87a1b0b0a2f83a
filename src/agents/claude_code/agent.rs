//! Claude Code's answers to the commands' questions ([`Agent`]).

use std::io;

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

pub struct ClaudeCode;

impl Agent for ClaudeCode {
    fn about(&self) -> &'static About {
        &About {
            format: Format::ClaudeCode,
            short_name: "claude",
            json_lines: true,
            measure: compact::Measure::Request,
            loaders: true,
        }
    }

    fn summaries(
        &self,
        src: &Source,
        loader: Loader,
        opts: summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)> {
        let (markers, bad) = crate::agents::claude_code::summaries::claude_markers(src)?;
        if markers.is_empty() {
            return Ok((Vec::new(), bad));
        }
        let current = crate::agents::claude_code::summaries::claude_current(src, &markers, loader)?;
        let bad = current.transcript.as_ref().map_or(bad, |t| t.bad_lines);
        Ok((
            crate::agents::claude_code::summaries::claude(src, &markers, &current, opts)?,
            bad,
        ))
    }

    fn doctor(&self, src: &Source, resume: &Overrides) -> io::Result<Vec<Diagnostic>> {
        crate::doctor::check_claude(src, resume)
    }

    fn scan(&self, src: &Source, resume: &Overrides) -> io::Result<SessionRecord> {
        crate::scan::scan_claude(src, resume)
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
        Some(&super::slim::ClaudeCodeSlim)
    }

    fn converter(&self) -> Option<&'static dyn crate::agents::Converter> {
        Some(&super::convert::Converter)
    }
}
