//! cctool's own session files' answers to the commands' questions ([`Agent`]).

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

pub struct Cctool;

impl Agent for Cctool {
    fn about(&self) -> &'static About {
        &About {
            format: Format::CctoolSession,
            short_name: "cctool",
            json_lines: false,
            measure: compact::Measure::Content,
            loaders: false,
        }
    }

    fn summaries(
        &self,
        src: &Source,
        _: Loader,
        opts: summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)> {
        let mut found = crate::agents::cctool::summaries::SessionSummaries::new(src, opts);
        let head = super::file::for_each_message(src, |m| found.message(m))?;
        Ok((found.finish(head.session_id), 0))
    }

    fn doctor(&self, src: &Source, _: &Overrides) -> io::Result<Vec<Diagnostic>> {
        Ok(crate::doctor::session(src))
    }

    fn scan(&self, src: &Source, _: &Overrides) -> io::Result<SessionRecord> {
        Ok(crate::scan::scan_session(src))
    }

    fn import(&self) -> Option<Import> {
        None
    }

    fn full_session(&self, src: &Source) -> crate::error::Result<Session> {
        use crate::error::Error;
        let bytes = src.whole().map_err(Error::Read)?;
        let session = super::schema::read_latest(&bytes);
        src.check().map_err(Error::Read)?;
        Ok(session?)
    }

    fn refuse_chain_args(&self, a: &RebuildChainArgs) -> Option<String> {
        let name = Format::CctoolSession.name();
        crate::agents::tip_and_full_refused(a, Format::CctoolSession).or_else(|| {
            a.api_view.then(|| {
                format!("--api-view applies to Claude Code transcripts and Codex rollouts; this file is {name}")
            })
        })
    }

    fn rebuild_chain(
        &self,
        src: &Source,
        a: &RebuildChainArgs,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
        let _ = (a, bar);
        super::view::rebuild_chain(src, style, out)
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

    fn import_target(&self) -> Option<&'static str> {
        Some("v5")
    }
}
