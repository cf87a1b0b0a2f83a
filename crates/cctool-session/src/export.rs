//! cctool sessions for `export --format jsonl`: every message, in order (a session holds only
//! what a resume loads), as written. The document of the other formats is made from the
//! session model's events (`events.rs`).

use super::file::{SessionError, read_messages};
use crate::io::Source;
use crate::model::doc::ExportError;

fn unreadable(e: SessionError) -> ExportError {
    ExportError::Session(Box::new(e))
}

/// `--format jsonl`: every message as written, each handed to `emit`.
pub(crate) fn records(src: &Source, emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>) -> Result<(), ExportError> {
    let m = read_messages(src).map_err(unreadable)?;
    for raw in m.messages.iter() {
        emit(raw)?;
    }
    Ok(())
}
