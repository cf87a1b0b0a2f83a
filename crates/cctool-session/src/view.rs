//! `rebuild-chain` of a cctool session: its messages as written.

use super::events::message_record;
use super::file as session;
use crate::agents::view::{ChainSummary, Report, value_of};
use crate::io::Source;
use crate::model::diag::Diagnostic;
use crate::output::Out;
use crate::output::render::{self, Render};

/// The messages of a cctool session, printed to `out` (a session has no chain to rebuild).
pub fn rebuild_chain(
    src: &Source,
    st: Option<Render>,
    out: &mut Out,
) -> crate::error::Result<(Vec<Diagnostic>, Report)> {
    // Messages are printed as they are read, each minified into one reused buffer.
    let (mut line, mut i, mut failed) = (Vec::new(), 0usize, None);
    let s = session::for_each_valid_message(src, |m| {
        if failed.is_some() {
            return;
        }
        line.clear();
        crate::io::json::minify_into(m, &mut line);
        let printed = match st {
            None => out.record(&line),
            Some(style) => {
                let mut block = render::record_block(&style, &message_record(&value_of(&line)), None);
                block.id = Some(format!("#{}", i + 1));
                out.text(&render::render(&style, &block))
            }
        };
        failed = printed.err();
        i += 1;
    })
    .map_err(|e| crate::error::Error::agent(e).about(src.name()))?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: s.messages,
        end: Some("start".into()),
        ..ChainSummary::default()
    };
    Ok((Vec::new(), Report::Chain(summary)))
}
