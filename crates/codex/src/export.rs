//! Codex's rollouts for `export --format jsonl`: the items of the history a resume loads (or,
//! with `full`, every item and every compaction in file order), as written. The document of
//! the other formats is made from the session model's events (`events.rs`).

use super::rollout::{Era, ItemSrc};
use crate::io::Source;
use crate::io::lines::for_each_line;
use crate::model::doc::{ExportError, cannot_read};

/// `--format jsonl`: the items the document shows (with `full`, every item and every
/// compaction) as written, each handed to `emit`.
pub(crate) fn records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let rollout = super::rollout::read_records(src).map_err(|e| cannot_read(src, e))?;
    if full && rollout.era == Era::Envelope {
        // The whole history: every item and every compaction, as the lines were written.
        let mut failed = Ok(());
        for_each_line(src, |l| {
            #[derive(serde::Deserialize)]
            struct Kind<'a> {
                #[serde(borrow, rename = "type")]
                ty: Option<std::borrow::Cow<'a, str>>,
            }
            let keep = serde_json::from_slice::<Kind<'_>>(l.bytes)
                .ok()
                .and_then(|k| k.ty)
                .is_some_and(|t| t == "response_item" || t == "compacted");
            if keep && failed.is_ok() {
                failed = emit(l.bytes);
            }
        })
        .map_err(|e| cannot_read(src, e))?;
        return failed;
    }
    for item in super::history::reconstruct(&rollout).items {
        match item.src {
            ItemSrc::Raw { offset, len, .. } => {
                emit(&src.read_range(offset, len as usize).map_err(|e| cannot_read(src, e))?)?
            }
            ItemSrc::Synth(s) => emit(s.as_bytes())?,
        }
    }
    Ok(())
}
