//! Codex's side of `convert` ([`crate::agents::Converter`]).

use std::path::Path;

use crate::io::Source;
use crate::store;
use cctool_core::convert::WriteOptions;
use cctool_core::convert::model::{Conversation, Sink};
use cctool_core::convert::store::{Imported, Placement, Rename, StoreError};
use cctool_core::io::json::Members;

/// Codex rollouts, read and written by `convert`.
pub struct Converter;

impl crate::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        super::read_stream(src, full, answered, sink)
    }

    fn writer(&self) -> cctool_core::convert::MakeWriter {
        super::writer
    }

    fn needs_answered(&self) -> bool {
        false
    }

    fn passable(&self) -> fn(&[u8]) -> bool {
        super::is_token_count
    }

    fn noun(&self) -> &'static str {
        "a Codex rollout"
    }

    /// A `turn_context` names the model Codex calls next: only its own.
    fn keeps_foreign_model(&self) -> bool {
        false
    }

    fn place(
        &self,
        first: Option<&[u8]>,
        o: &WriteOptions,
        source: Option<&Path>,
        force: bool,
    ) -> Result<Placement, StoreError> {
        let home = store::codex_home().ok_or(StoreError::NoStore(
            "no Codex store: set CODEX_HOME or HOME, or write with -o OUT",
        ))?;
        let imported = match source {
            Some(p) if !force => store::imported_by_codex(&home, p).map_err(|e| StoreError::Ledger(Box::new(e)))?,
            _ => None,
        };
        // The rollout's start is its first line's time (a derived, stable path).
        let started = first
            .and_then(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
            .and_then(|v| v.get("timestamp").and_then(|t| t.as_str()).map(str::to_string))
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        Ok(Placement {
            path: store::rollout_path(&home, &started, &o.session_id),
            resume: store::resume_command(&o.session_id),
            imported: imported.map(|id| Imported {
                resume: store::resume_command(&id),
                id,
            }),
        })
    }

    /// In Codex's thread index, so that `codex resume` lists it.
    fn register(&self, path: &Path, resume: Option<&str>) -> Option<&'static str> {
        let home = store::codex_home()?;
        match store::register_rollout(&home, path) {
            Ok(done) => Some(done.name()),
            Err(e) => {
                crate::output::report::say(&format!(
                    "{}: written, but not registered in Codex's thread index ({}); `{}` resumes it, the picker will not list it",
                    path.display(),
                    crate::error::with_causes(&e),
                    resume.unwrap_or("codex resume")
                ));
                None
            }
        }
    }

    fn rename(&self) -> Option<Rename> {
        Some(rename)
    }
}

/// The rollout's own `session_meta` names the new thread. A forked rollout also carries the
/// `session_meta` of the thread it was forked from, which keeps its id: only the record of
/// the session `old` is renamed, every other byte kept as written.
fn rename(line: &[u8], old: &str, new: &str) -> Option<Vec<u8>> {
    memchr::memmem::find(line, b"session_meta")?;
    let mut rec = Members::parse(line)?;
    if rec.str("type").as_deref() != Some("session_meta") {
        return None;
    }
    let payload = rec.get("payload")?.get().as_bytes().to_vec();
    let mut meta = Members::parse(&payload)?;
    if meta.str("id").as_deref() != Some(old) {
        return None;
    }
    meta.set("id", &new);
    let meta = serde_json::value::RawValue::from_string(String::from_utf8(meta.to_vec()).ok()?).ok()?;
    rec.set("payload", &meta);
    Some(rec.to_vec())
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn the_rollouts_own_session_meta_names_the_new_thread() {
        let meta = br#"{"timestamp":"t","type":"session_meta","payload":{"id":"old","cwd":"/w"}}"#;
        assert_eq!(
            rename(meta, "old", "new").unwrap(),
            br#"{"timestamp":"t","type":"session_meta","payload":{"id":"new","cwd":"/w"}}"#
        );
        let parent = br#"{"timestamp":"t","type":"session_meta","payload":{"id":"parent"}}"#;
        assert_eq!(rename(parent, "old", "new"), None);
        let item = br#"{"type":"response_item","payload":{"type":"message","id":"old","text":"session_meta"}}"#;
        assert_eq!(rename(item, "old", "new"), None);
    }
}
