//! Claude Code's sessions for `export --format jsonl`: the records of the chain a resume loads
//! (or of the whole history), as written. The document of the other formats is made from the
//! session model's events (`events.rs`).

use super::chain as claude;
use crate::io::Source;
use cctool_core::model::doc::{ExportError, cannot_read};

type ClaudeChain = (Vec<(u64, Vec<u8>)>, Vec<usize>, Option<usize>);

/// The records of the chain Claude Code loads (earlier history too, with `full`), as written,
/// with their line numbers; then the indexes where earlier parts start, and where what a
/// resume loads starts.
fn claude_chain(src: &Source, full: bool) -> Result<ClaudeChain, ExportError> {
    let t = claude::read(src).map_err(|e| cannot_read(src, e))?;
    let chain = t
        .rebuild(&claude::Options {
            loader: claude::Loader::default(),
            tip: None,
            full,
        })
        .map_err(|e| ExportError::Invalid {
            file: src.name().to_string(),
            cause: Box::new(e),
        })?;
    let mut out = Vec::with_capacity(chain.positions.len());
    for &pos in &chain.positions {
        let node = t.node(pos);
        let bytes = src
            .read_range(node.offset, node.len as usize)
            .map_err(|e| cannot_read(src, e))?;
        out.push((node.line, bytes.into_owned()));
    }
    Ok((out, chain.earlier_parts.clone(), chain.loaded_from))
}

/// `--format jsonl`: the chain's records as written, each handed to `emit`.
pub(crate) fn records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    for (_, bytes) in claude_chain(src, full)?.0 {
        emit(&bytes)?;
    }
    Ok(())
}
