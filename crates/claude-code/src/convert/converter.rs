//! Claude Code's side of `convert` ([`crate::agents::Converter`]).

use std::path::Path;

use crate::io::Source;
use cctool_core::convert::WriteOptions;
use cctool_core::convert::model::{Conversation, Sink};
use cctool_core::convert::store::{Placement, StoreError};

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
}
