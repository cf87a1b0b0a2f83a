//! `rebuild-chain` of a cctool session: its messages as written.

use super::file as session;
use crate::Fatal;
use crate::agents::view::{ChainSummary, Report, value_of};
use crate::io::Source;
use crate::model::Format;
use crate::model::diag::Diagnostic;
use crate::output::Out;
use crate::output::render::{self, Render};

/// The messages of a cctool session, printed to `out` (a session has no chain to rebuild).
pub fn rebuild_chain(src: &Source, st: Option<Render>, out: &mut Out) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let s = session::read_messages(src).map_err(|e| Fatal(format!("{}: {}", src.name(), e.0)))?;
    for (i, m) in s.messages.iter().enumerate() {
        match st {
            None => out.record(m)?,
            Some(style) => out.text(&render::render(&style, &render::session_block(&value_of(m), i, &style)))?,
        }
    }
    let summary = ChainSummary {
        kind: "chain",
        file: src.name().to_string(),
        format: Format::CctoolSession.name(),
        messages: s.messages.len(),
        end: Some("start".into()),
        ..ChainSummary::default()
    };
    Ok((Vec::new(), Report::Chain(summary)))
}
