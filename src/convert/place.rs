//! Where each agent finds a session (`docs/convert.md#into-the-store`), for `--into-store`.
//!
//! The store module (`agents::claude_code::store`, `agents::codex::store`) owns this
//! knowledge; until it is part of the build these functions, with its signatures, stand in
//! for it, so that each module here becomes `pub use crate::agents::<agent>::store::*` when
//! it is. What they do not do is register a rollout in Codex's thread index: Codex resumes a
//! session by its id without it, and lists it only once it is registered.

/// Claude Code: `$CLAUDE_CONFIG_DIR/projects/<slug of the working directory>/<id>.jsonl`.
pub mod claude_code {
    use std::path::{Path, PathBuf};

    const SLUG_MAX: usize = 200;

    /// Claude Code's folder name for a working directory: every UTF-16 unit that is not an
    /// ASCII letter or digit as `-`; past 200 units, cut and followed by `-` and the base-36
    /// absolute value of the directory's Java-style string hash.
    pub fn project_slug(cwd: &str) -> String {
        let units: Vec<u16> = cwd.encode_utf16().collect();
        let mut slug: String = units
            .iter()
            .map(|&u| match u8::try_from(u) {
                Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
                _ => '-',
            })
            .collect();
        if slug.len() <= SLUG_MAX {
            return slug;
        }
        let hash = units
            .iter()
            .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
        let mut n = i64::from(hash).unsigned_abs();
        let mut digits = Vec::new();
        loop {
            digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
            n /= 36;
            if n == 0 {
                break;
            }
        }
        digits.reverse();
        slug.truncate(SLUG_MAX);
        slug.push('-');
        slug.push_str(&String::from_utf8_lossy(&digits));
        slug
    }

    /// Where `claude --resume SESSION_ID`, run in `cwd`, looks for the transcript (the
    /// folder is named after the physical path, links resolved).
    pub fn transcript_path(config_dir: &Path, cwd: &str, session_id: &str) -> PathBuf {
        let physical =
            std::fs::canonicalize(cwd).map_or_else(|_| cwd.to_string(), |p| p.to_string_lossy().into_owned());
        config_dir
            .join("projects")
            .join(project_slug(&physical))
            .join(format!("{session_id}.jsonl"))
    }

    /// Claude Code looks in the project folder of the directory it runs in only.
    pub fn resume_command(session_id: &str, cwd: &str) -> String {
        use crate::hooks::shell_quote;
        format!("cd {} && claude --resume {}", shell_quote(cwd), shell_quote(session_id))
    }

    /// `CLAUDE_CONFIG_DIR` (its first folder when it is a list), else `~/.claude`.
    pub fn config_dir() -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(v) = env("CLAUDE_CONFIG_DIR") {
            let whole = PathBuf::from(&v);
            if whole.is_dir() {
                return Some(whole);
            }
            let first = v
                .to_str()
                .and_then(|l| l.split(',').map(str::trim).find(|s| !s.is_empty()));
            return Some(first.map_or(whole, PathBuf::from));
        }
        env("HOME").map(|h| PathBuf::from(h).join(".claude"))
    }
}

/// Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`, and its import ledger.
pub mod codex {
    use std::path::{Path, PathBuf};

    use anyhow::{Result, anyhow};
    use jiff::Timestamp;
    use serde_json::Value;

    /// `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl`, the date in UTC so the
    /// same session has the same path everywhere (a second conversion finds its target).
    pub fn rollout_path(codex_home: &Path, started: &Timestamp, session_id: &str) -> PathBuf {
        let day = started.strftime("%Y/%m/%d").to_string();
        let stamp = started.strftime("%Y-%m-%dT%H-%M-%S").to_string();
        codex_home
            .join("sessions")
            .join(day)
            .join(format!("rollout-{stamp}-{session_id}.jsonl"))
    }

    /// Codex finds a thread by its id from any directory.
    pub fn resume_command(session_id: &str) -> String {
        format!("codex resume {}", crate::hooks::shell_quote(session_id))
    }

    /// `CODEX_HOME`, else `~/.codex`.
    pub fn codex_home() -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        env("CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")))
    }

    /// The thread Codex's own importer made of the Claude Code transcript `source`, from its
    /// ledger (`external_agent_session_imports.json`), if it did.
    pub fn imported_by_codex(codex_home: &Path, source: &Path) -> Result<Option<String>> {
        let file = codex_home.join("external_agent_session_imports.json");
        let bytes = match std::fs::read(&file) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(anyhow!("{}: cannot read: {e}", file.display())),
        };
        let ledger: Value = serde_json::from_slice(&bytes).map_err(|e| {
            anyhow!(
                "{}: line {}: not the import ledger Codex writes ({e}); cctool cannot tell whether Codex imported the session",
                file.display(),
                e.line()
            )
        })?;
        let real = std::fs::canonicalize(source).ok();
        Ok(ledger
            .get("records")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|r| {
                r.get("source_path").and_then(Value::as_str).is_some_and(|p| {
                    let p = Path::new(p);
                    p == source || real.is_some() && std::fs::canonicalize(p).ok() == real
                })
            })
            .and_then(|r| r.get("imported_thread_id").and_then(Value::as_str))
            .map(str::to_string))
    }
}
