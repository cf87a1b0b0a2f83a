//! Claude Code's side of `convert` ([`crate::agents::Converter`]).

use std::path::Path;

use crate::io::Source;
use cctool_core::convert::WriteOptions;
use cctool_core::convert::model::{Conversation, Sink};
use cctool_core::convert::store::{Placement, Rename, StoreError};
use cctool_core::io::json::Members;

/// Claude Code transcripts, read and written by `convert`.
pub struct Converter;

impl crate::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        super::read_stream(src, full, answered, sink)
    }

    fn writer(&self) -> cctool_core::convert::MakeWriter {
        super::writer
    }

    fn needs_answered(&self) -> bool {
        true
    }

    fn noun(&self) -> &'static str {
        "a Claude Code transcript"
    }

    /// A row names the model that wrote it (readers of transcripts require one), and a model the
    /// client does not know is not restored on resume, as when there is none.
    fn keeps_foreign_model(&self) -> bool {
        true
    }

    fn place(
        &self,
        _first: Option<&[u8]>,
        o: &WriteOptions,
        _source: Option<&Path>,
        _force: bool,
    ) -> Result<Placement, StoreError> {
        use crate::store;
        let dir = store::config_dir().ok_or(StoreError::NoStore(
            "no Claude Code store: set CLAUDE_CONFIG_DIR or HOME, or write with -o OUT",
        ))?;
        Ok(Placement {
            path: store::transcript_path(&dir, &o.cwd, &o.session_id),
            resume: store::resume_command(&o.session_id, &o.cwd),
            imported: None,
        })
    }

    fn rename(&self) -> Option<Rename> {
        Some(rename)
    }
}

/// Every row that names its session names the new one: Claude Code reads a transcript's
/// session from its rows, whatever ids an older resume left in them, so each is renamed. The
/// rest of the row is kept byte for byte.
fn rename(line: &[u8], _old: &str, new: &str) -> Option<Vec<u8>> {
    memchr::memmem::find(line, b"\"sessionId\"")?;
    let mut row = Members::parse(line)?;
    if row.str("sessionId")? == new {
        return None;
    }
    row.set("sessionId", &new);
    Some(row.to_vec())
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn every_row_that_names_a_session_names_the_new_one() {
        let row = br#"{"parentUuid":null,"sessionId":"old","cwd":"/w","message":{"content":"sessionId"}}"#;
        let renamed = rename(row, "old", "new").unwrap();
        assert_eq!(
            renamed,
            br#"{"parentUuid":null,"sessionId":"new","cwd":"/w","message":{"content":"sessionId"}}"#
        );
        assert_eq!(rename(&renamed, "old", "new"), None);
        assert_eq!(rename(br#"{"type":"summary","leafUuid":"u"}"#, "old", "new"), None);
        assert_eq!(rename(b"not json \"sessionId\"", "old", "new"), None);
    }
}
