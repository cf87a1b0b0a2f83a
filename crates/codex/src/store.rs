//! Where Codex finds and lists a session (`docs/stores.md#codex`): the rollout's place under
//! `sessions/`, its row in the thread index (`state_5.sqlite`, table `threads`), the import
//! ledger Codex's own Claude Code importer keeps, and the command that resumes a thread.
//!
//! Codex resumes a thread by id from the file alone, but lists (`codex resume` and its
//! picker, `codex exec resume --last`) from the index once the index holds any thread: a
//! rollout placed without a row is found by id and missing from every list. cctool writes the
//! row Codex itself writes when it indexes a rollout it finds on disk, in one transaction,
//! and never changes the database's structure.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

mod error;
mod relocate;
pub use error::{Error, IndexLocked, Layout, Result};
pub use relocate::{Relocated, relocate_threads};

/// The index file of Codex 0.171. The number is the database's generation: Codex starts a
/// new file when a change cannot be made in place, so another number is another layout.
pub const STATE_DB: &str = "state_5.sqlite";

/// The newest migration of `state_5.sqlite` Codex 0.171 applies. A later one is accepted when
/// the `threads` table still takes the row as cctool writes it (checked column by column).
pub const KNOWN_MIGRATION: i64 = 64;

/// Lines read past the first user message for the first turn context's model.
const MODEL_WINDOW: usize = 256;

/// How long a write waits for Codex to release the database.
const BUSY: Duration = Duration::from_secs(5);

/// The policy Codex records for a thread it indexes from a rollout with no turn context: its
/// default, read-only sandbox.
const DEFAULT_SANDBOX: &str = r#"{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"}]},"network":"restricted"}"#;
const DEFAULT_APPROVAL: &str = "on-request";

/// Where Codex keeps a rollout that started at `started`:
/// `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl`. Codex finds a thread by the
/// id at the end of the name anywhere under `sessions/`; the date is taken in UTC so that the
/// same session gets the same path on every machine (a second conversion finds its target).
pub fn rollout_path(codex_home: &Path, started: &Timestamp, session_id: &str) -> PathBuf {
    let day = started.strftime("%Y/%m/%d").to_string();
    let stamp = started.strftime("%Y-%m-%dT%H-%M-%S").to_string();
    codex_home
        .join("sessions")
        .join(day)
        .join(format!("rollout-{stamp}-{session_id}.jsonl"))
}

/// One row of Codex's thread index, as cctool registers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// The thread (session) id: a UUID, the one in the rollout's `session_meta` and file name.
    pub id: String,
    /// Absolute path of the rollout.
    pub rollout_path: PathBuf,
    /// The working directory: `codex resume` and `--last` list the threads whose directory is
    /// exactly the one they run in.
    pub cwd: String,
    /// The first user message: the picker shows it, and a thread without one is not listed.
    pub title: String,
    /// When the thread was created.
    pub created_at: Timestamp,
    /// Codex orders its lists by this: the file's modification time when Codex indexes a
    /// rollout itself.
    pub updated_at: Timestamp,
    /// The model of the rollout's first `turn_context`, if one was read.
    pub model: Option<String>,
    /// `openai` when unknown: a thread cannot change provider on resume, and the picker
    /// filters by the configured one.
    pub model_provider: Option<String>,
    /// `cli` for a session the picker should list (it lists `cli` and `vscode` threads; `exec`
    /// ones only with `--include-non-interactive`).
    pub source: String,
    /// Who wrote the rollout (`session_meta.originator`).
    pub originator: String,
    /// `session_meta.cli_version`.
    pub cli_version: String,
}

impl Thread {
    /// The row Codex would index for the rollout at `path`, from its `session_meta` (id,
    /// start, directory, source, originator, provider, version), its first user message, the
    /// model of its first turn context, and the file's modification time.
    pub fn from_rollout(path: &Path) -> Result<Thread> {
        let unreadable = |cause| Error::Read {
            path: path.to_path_buf(),
            cause,
        };
        let src = crate::io::Source::open_path(path, crate::io::source::MmapChoice::Never).map_err(unreadable)?;
        let reader = std::io::BufReader::new(src.reader().map_err(unreadable)?);
        let mut meta: Option<(u64, Value)> = None;
        let mut title: Option<String> = None;
        let mut model: Option<String> = None;
        let mut title_line = 0;
        for (n, line) in reader.split(b'\n').enumerate() {
            let line = line.map_err(unreadable)?;
            let Ok(rec) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let payload = rec.get("payload").unwrap_or(&Value::Null);
            let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            match (s(&rec, "type").as_deref(), s(payload, "type").as_deref()) {
                (Some("session_meta"), _) if meta.is_none() => meta = Some((n as u64 + 1, payload.clone())),
                (Some("event_msg"), Some("user_message")) if title.is_none() => title = s(payload, "message"),
                (Some("turn_context"), _) if model.is_none() => model = s(payload, "model"),
                _ => {}
            }
            // The first turn context comes with the first prompt: past a few hundred lines
            // more there is none to find, and a rollout of gigabytes is not read through.
            if meta.is_some() && title.is_some() && (model.is_some() || n > title_line + MODEL_WINDOW) {
                break;
            }
            if title.is_none() {
                title_line = n + 1;
            }
        }
        let Some((_, meta)) = meta else {
            return Err(Error::NoSessionMeta {
                path: path.to_path_buf(),
            });
        };
        let s = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
        let id = s("id").or_else(|| s("session_id")).ok_or_else(|| Error::NoId {
            path: path.to_path_buf(),
        })?;
        let created_at = s("timestamp")
            .and_then(|t| t.parse::<Timestamp>().ok())
            .ok_or_else(|| Error::NoTimestamp {
                path: path.to_path_buf(),
            })?;
        let updated_at = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or(created_at);
        let rollout_path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(Thread {
            id,
            rollout_path,
            cwd: s("cwd").unwrap_or_default(),
            title: title.unwrap_or_default(),
            created_at,
            updated_at,
            model,
            model_provider: s("model_provider"),
            source: match meta.get("source") {
                Some(Value::String(v)) => v.clone(),
                // Subagents and custom sources are objects; Codex stores them as JSON.
                Some(v @ Value::Object(_)) => v.to_string(),
                _ => "cli".into(),
            },
            originator: s("originator").unwrap_or_default(),
            cli_version: s("cli_version").unwrap_or_default(),
        })
    }
}

/// What [`register`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registered {
    /// A new row.
    Added,
    /// The thread was indexed already; its row now points at this rollout and its times.
    Updated,
    /// The thread was indexed exactly so already: nothing written.
    Unchanged,
    /// Codex has no index yet: it builds one from the files on its next start, this rollout
    /// included.
    NoDatabase,
}

impl Registered {
    /// The word the report uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Registered::Added => "added",
            Registered::Updated => "updated",
            Registered::Unchanged => "unchanged",
            Registered::NoDatabase => "no-database",
        }
    }
}

/// The index of `codex_home`: `Ok(None)` when there is none, an error when there is one of a
/// generation cctool does not know.
pub fn state_db(codex_home: &Path) -> Result<Option<PathBuf>> {
    let known = codex_home.join(STATE_DB);
    if known.is_file() {
        return Ok(Some(known));
    }
    let others: Vec<String> = std::fs::read_dir(codex_home)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("state_") && n.ends_with(".sqlite"))
        .collect();
    match others.first() {
        None => Ok(None),
        Some(other) => Err(Error::UnknownGeneration {
            codex_home: codex_home.to_path_buf(),
            other: other.clone(),
        }),
    }
}

/// The columns cctool writes, each with the value Codex writes when it indexes a rollout.
const COLUMNS: [&str; 22] = [
    "id",
    "rollout_path",
    "created_at",
    "updated_at",
    "created_at_ms",
    "updated_at_ms",
    "recency_at",
    "recency_at_ms",
    "source",
    "originator",
    "history_mode",
    "model_provider",
    "model",
    "cwd",
    "cli_version",
    "title",
    "preview",
    "first_user_message",
    "sandbox_policy",
    "approval_mode",
    "tokens_used",
    "memory_mode",
];

/// Refuses an index whose layout cctool does not know: a missing `threads` table or column,
/// a required column cctool would leave empty, or a migration history that failed.
fn check_layout(db: &rusqlite::Connection, file: &Path, busy: Duration) -> Result<()> {
    let failed = |e: rusqlite::Error| locked(&e, file, busy).unwrap_or(Error::Database(e));
    let unknown = |why: Layout| Error::UnknownLayout {
        file: file.to_path_buf(),
        why,
    };
    let migrations: Option<(i64, i64)> = db
        .query_row("SELECT MAX(version), MIN(success) FROM _sqlx_migrations", [], |r| {
            Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?))
        })
        .optional()
        .map_err(|e| locked(&e, file, busy).unwrap_or_else(|| unknown(Layout::NoMigrationHistory(e))))?
        .and_then(|(v, ok)| Some((v?, ok?)));
    let Some((version, ok)) = migrations else {
        return Err(unknown(Layout::EmptyMigrationHistory));
    };
    if ok == 0 {
        return Err(unknown(Layout::UnfinishedMigration));
    }
    let mut stmt = db
        .prepare("SELECT name, \"notnull\", dflt_value FROM pragma_table_info('threads')")
        .map_err(failed)?;
    let cols: Vec<(String, bool, bool)> = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get::<_, i64>(1)? != 0,
                r.get::<_, Option<String>>(2)?.is_some(),
            ))
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<_>>())
        .map_err(failed)?;
    if cols.is_empty() {
        return Err(unknown(Layout::NoThreadsTable));
    }
    if let Some(c) = COLUMNS.iter().find(|c| !cols.iter().any(|(n, ..)| n == *c)) {
        return Err(unknown(Layout::NoColumn {
            column: c,
            migration: version,
        }));
    }
    if let Some((n, ..)) = cols
        .iter()
        .find(|(n, notnull, dflt)| *notnull && !*dflt && !COLUMNS.contains(&n.as_str()))
    {
        return Err(unknown(Layout::UnfilledColumn {
            column: n.clone(),
            migration: version,
        }));
    }
    Ok(())
}

/// [`IndexLocked`], when `e` says the database was busy or locked.
fn locked(e: &rusqlite::Error, file: &Path, waited: Duration) -> Option<Error> {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
    .then(|| {
        IndexLocked {
            file: file.to_path_buf(),
            waited,
        }
        .into()
    })
}

/// What a row holds of the columns cctool compares.
#[derive(Debug, PartialEq, Eq)]
struct Row {
    rollout_path: String,
    created_at_ms: i64,
    updated_at_ms: i64,
    source: String,
    model_provider: String,
    model: Option<String>,
    cwd: String,
    title: String,
    preview: String,
}

/// Registers `t` in Codex's thread index, so that `codex resume` (and its picker) and
/// `codex exec resume --last` list it. Idempotent: a second call with the same thread writes
/// nothing. Runs in one transaction that waits up to 5 s for Codex to release the database;
/// never creates the database nor changes its layout, and refuses one it does not know.
pub fn register(codex_home: &Path, t: &Thread) -> Result<Registered> {
    register_waiting(codex_home, t, BUSY)
}

/// [`register`], waiting at most `busy` for the database.
pub fn register_waiting(codex_home: &Path, t: &Thread, busy: Duration) -> Result<Registered> {
    let Some(file) = state_db(codex_home)? else {
        return Ok(Registered::NoDatabase);
    };
    let failed = |cause: rusqlite::Error| Error::Register {
        file: file.clone(),
        id: t.id.clone(),
        cause,
    };
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut db = rusqlite::Connection::open_with_flags(&file, flags).map_err(failed)?;
    db.busy_timeout(busy).map_err(failed)?;
    check_layout(&db, &file, busy)?;
    let tx = db
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|e| locked(&e, &file, busy).unwrap_or_else(|| failed(e)))?;
    // Codex opens the path as stored, from any directory.
    let path = std::path::absolute(&t.rollout_path)
        .unwrap_or_else(|_| t.rollout_path.clone())
        .to_string_lossy()
        .into_owned();
    let outcome = match old_row(&tx, &t.id).map_err(failed)? {
        None => {
            insert_row(&tx, t, &path).map_err(failed)?;
            Registered::Added
        }
        Some(old) => {
            let new = moved_forward(t, &old, path);
            if new == old {
                Registered::Unchanged
            } else {
                update_row(&tx, t, &new).map_err(failed)?;
                Registered::Updated
            }
        }
    };
    tx.commit().map_err(failed)?;
    Ok(outcome)
}

/// The thread's row in the index, if it has one.
fn old_row(db: &rusqlite::Connection, id: &str) -> rusqlite::Result<Option<Row>> {
    db.query_row(
        "SELECT rollout_path, created_at_ms, updated_at_ms, source, model_provider, model, cwd, title, preview \
         FROM threads WHERE id = ?1",
        [id],
        |r| {
            Ok(Row {
                rollout_path: r.get(0)?,
                created_at_ms: r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                updated_at_ms: r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                source: r.get(3)?,
                model_provider: r.get(4)?,
                model: r.get(5)?,
                cwd: r.get(6)?,
                title: r.get(7)?,
                preview: r.get(8)?,
            })
        },
    )
    .optional()
}

/// Adds the row of a thread the index does not have, its rollout at `path`.
fn insert_row(db: &rusqlite::Connection, t: &Thread, path: &str) -> rusqlite::Result<usize> {
    let created_ms = t.created_at.as_millisecond();
    let updated_ms = t.updated_at.as_millisecond();
    db.execute(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at, created_at_ms, updated_at_ms, \
         recency_at, recency_at_ms, source, originator, history_mode, model_provider, model, cwd, \
         cli_version, title, preview, first_user_message, sandbox_policy, approval_mode, tokens_used, \
         memory_mode) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?4, ?6, ?7, ?8, 'legacy', ?9, ?10, ?11, ?12, ?13, ?13, ?13, ?14, \
         ?15, 0, 'enabled')",
        params![
            t.id,
            path,
            created_ms.div_euclid(1000),
            updated_ms.div_euclid(1000),
            created_ms,
            updated_ms,
            t.source,
            t.originator,
            t.model_provider.as_deref().unwrap_or("openai"),
            t.model,
            t.cwd,
            t.cli_version,
            t.title,
            DEFAULT_SANDBOX,
            DEFAULT_APPROVAL,
        ],
    )
}

/// The row `old` with what `t` says, its rollout at `path`. What Codex learnt by running the
/// thread since (its model, a later update) is kept: the row only ever moves forward.
fn moved_forward(t: &Thread, old: &Row, path: String) -> Row {
    Row {
        rollout_path: path,
        created_at_ms: t.created_at.as_millisecond(),
        updated_at_ms: t.updated_at.as_millisecond().max(old.updated_at_ms),
        source: t.source.clone(),
        model_provider: t.model_provider.clone().unwrap_or_else(|| old.model_provider.clone()),
        model: t.model.clone().or_else(|| old.model.clone()),
        cwd: t.cwd.clone(),
        title: t.title.clone(),
        preview: if t.title.is_empty() {
            old.preview.clone()
        } else {
            t.title.clone()
        },
    }
}

/// Writes `new` over the thread's row.
fn update_row(db: &rusqlite::Connection, t: &Thread, new: &Row) -> rusqlite::Result<usize> {
    let created_ms = t.created_at.as_millisecond();
    db.execute(
        "UPDATE threads SET rollout_path = ?2, created_at = ?3, created_at_ms = ?4, updated_at = ?5, \
         updated_at_ms = ?6, recency_at_ms = MAX(recency_at_ms, ?6), \
         recency_at = MAX(recency_at, ?5), source = ?7, model_provider = ?8, model = ?9, cwd = ?10, \
         title = ?11, preview = ?12, first_user_message = CASE WHEN ?11 = '' THEN first_user_message \
         ELSE ?11 END, cli_version = ?13 WHERE id = ?1",
        params![
            t.id,
            new.rollout_path,
            created_ms.div_euclid(1000),
            created_ms,
            new.updated_at_ms.div_euclid(1000),
            new.updated_at_ms,
            new.source,
            new.model_provider,
            new.model,
            new.cwd,
            new.title,
            new.preview,
            t.cli_version,
        ],
    )
}

/// Registers the rollout at `path` as Codex would index it ([`Thread::from_rollout`]).
pub fn register_rollout(codex_home: &Path, path: &Path) -> Result<Registered> {
    register(codex_home, &Thread::from_rollout(path)?)
}

/// What `restore` calls for a file it put back at `path` in the Codex home `codex_home`: a
/// rollout under `sessions/` is registered (`codex delete` removes the row with the file, so
/// a restored thread would resume by id and be missing from every list); anything else (an
/// archived rollout, the name index) is left as it is, `None`.
pub fn register_restored(codex_home: &Path, path: &Path) -> Result<Option<Registered>> {
    let under_sessions = path
        .strip_prefix(codex_home.join("sessions"))
        .is_ok_and(|rel| rel.components().count() > 0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !under_sessions || !name.starts_with("rollout-") {
        return Ok(None);
    }
    register_rollout(codex_home, path).map(Some)
}

/// One entry of Codex's import ledger (`external_agent_session_imports.json`), written by its
/// own Claude Code importer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct CodexImport {
    /// The Claude Code transcript imported.
    pub source_path: String,
    /// The transcript's SHA-256 when it was last imported: Codex imports a transcript again,
    /// into the same thread, once it has changed.
    #[serde(default)]
    pub content_sha256: String,
    /// The Codex thread the transcript was imported into.
    pub imported_thread_id: String,
    /// Seconds since the epoch.
    #[serde(default)]
    pub imported_at: Option<i64>,
    /// The imported session's title, when the ledger has one.
    #[serde(default)]
    pub title: Option<String>,
}

impl CodexImport {
    /// Whether Codex's copy holds the transcript as it is now (same SHA-256).
    pub fn is_current(&self) -> std::io::Result<bool> {
        use sha2::{Digest, Sha256};
        use std::io::Read;
        let mut h = Sha256::new();
        let mut f = std::fs::File::open(&self.source_path)?;
        let mut buf = vec![0; 1 << 16];
        loop {
            match f.read(&mut buf)? {
                0 => break,
                n => h.update(&buf[..n]),
            }
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(hex == self.content_sha256)
    }
}

/// The ledger's name in `CODEX_HOME`.
pub const IMPORT_LEDGER: &str = "external_agent_session_imports.json";

/// Every entry of Codex's import ledger; none when there is no ledger.
pub fn codex_imports(codex_home: &Path) -> Result<Vec<CodexImport>> {
    #[derive(serde::Deserialize)]
    struct Ledger {
        #[serde(default)]
        records: Vec<Value>,
    }
    let file = codex_home.join(IMPORT_LEDGER);
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(cause) => return Err(Error::LedgerUnreadable { file, cause }),
    };
    let ledger: Ledger = serde_json::from_slice(&bytes).map_err(|cause| Error::LedgerInvalid {
        file: file.clone(),
        cause,
    })?;
    // An entry of another shape (a later Codex) is passed over, not fatal.
    Ok(ledger
        .records
        .into_iter()
        .filter_map(|r| serde_json::from_value(r).ok())
        .collect())
}

/// The thread Codex's own importer made of the Claude Code transcript `source`, if it did
/// (paths compared as written and resolved).
pub fn imported_by_codex(codex_home: &Path, source: &Path) -> Result<Option<String>> {
    Ok(import_of(codex_home, source)?.map(|i| i.imported_thread_id))
}

/// The ledger entry of `source`, if any.
pub fn import_of(codex_home: &Path, source: &Path) -> Result<Option<CodexImport>> {
    let real = std::fs::canonicalize(source).ok();
    Ok(codex_imports(codex_home)?.into_iter().find(|i| {
        let p = Path::new(&i.source_path);
        p == source || real.is_some() && std::fs::canonicalize(p).ok() == real
    }))
}

/// The command that resumes thread `session_id` (from any directory: Codex finds a thread by
/// its id).
pub fn resume_command(session_id: &str) -> String {
    format!("codex resume {}", crate::output::shell::quote(session_id))
}

/// Codex's home from the environment: `CODEX_HOME`, else `~/.codex`.
pub fn codex_home_from(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    env("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")))
}

/// [`codex_home_from`] with the process environment.
pub fn codex_home() -> Option<PathBuf> {
    codex_home_from(&|k| std::env::var_os(k).filter(|v| !v.is_empty()))
}

/// Codex's store as backup, restore and session ids see it: `sessions/` and
/// `archived_sessions/` of the Codex home, rollouts named `rollout-<time>-<id>`, the thread
/// index a restored rollout is registered in, and the name index beside them.
pub struct CodexStore;

impl crate::agents::Store for CodexStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &["sessions", "archived_sessions"]
    }

    fn archive_folder(&self) -> &'static str {
        "codex"
    }

    fn side_file(&self) -> Option<crate::agents::SideFile> {
        Some(crate::agents::SideFile {
            role: "index",
            name: "session_index.jsonl",
        })
    }

    fn id_in_stem<'a>(&self, stem: &'a str) -> Option<&'a str> {
        let tail = stem
            .strip_prefix("rollout-")?
            .get(stem.len().checked_sub(36 + "rollout-".len())?..)?;
        crate::model::store::is_uuid(tail).then_some(tail)
    }

    fn read_head(&self, rec: &Value, head: &mut crate::model::store::SessionHead) -> bool {
        if rec.get("type").and_then(Value::as_str) != Some("session_meta") {
            return false;
        }
        let Some(meta) = rec.get("payload") else {
            return false;
        };
        let text = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
        head.format = Some(crate::ID);
        head.id = text("id");
        head.cwd = text("cwd");
        true
    }

    fn register_restored(&self, root: &Path, path: &Path) -> crate::error::Result<()> {
        register_restored(root, path)
            .map(drop)
            .map_err(crate::error::Error::agent)
    }
}
