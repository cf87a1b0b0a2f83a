//! The errors of the commands: the core's ([`crate::error::Error`]) and those of the modules
//! above it, wrapped, plus what a command itself refuses (options that do not go together,
//! nothing to read, an output it will not write).
//!
//! `Display` is the sentence printed after `cctool: `, kept stable because users and tests
//! match it. The wrapped errors keep their chain (`transparent`); the variants that carry an
//! error of a lower module print it as a whole sentence and do not expose it as `source()`,
//! so a printer that walks the chain says it once.

use std::path::PathBuf;

use crate::backup::named::NameError;
use crate::backup::restore::RestoreError;
use crate::output::sanitize::escape_str;

use super::NoSession;
use super::ids::IdError;

/// An error that ends a job of a command, or the command itself.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the core: reading, writing or rewriting a file.
    #[error(transparent)]
    Core(#[from] crate::error::Error),
    /// A failure of the system, said as the system says it (a closed standard output ends
    /// the run quietly).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A path inside a backup archive that names no single session.
    #[error(transparent)]
    Named(#[from] NameError),
    /// A restore that cannot be done.
    #[error(transparent)]
    Restore(#[from] RestoreError),
    /// A PATH that names no file, nor a single session by its id.
    #[error(transparent)]
    Id(#[from] IdError),
    /// A session that cannot be exported (the export's sentence).
    #[error("{0}")]
    Export(crate::export::ExportError),
    /// Hooks that cannot be installed or removed.
    #[error(transparent)]
    Hooks(#[from] crate::hooks::install::HooksError),
    /// The search index could not be read or written.
    #[error(transparent)]
    Index(#[from] crate::search::index::Error),
    /// An input that gave no session.
    #[error(transparent)]
    NoSession(#[from] NoSession),
    /// What was asked of the command cannot be done as asked.
    #[error(transparent)]
    Usage(#[from] Usage),
    /// A file a command will not write, or not write as asked.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// An error about a file, said after its name.
    #[error("{file}: {cause}")]
    About { file: String, cause: Box<Error> },
}

impl Error {
    /// This error said after `file`'s name.
    pub fn about(self, file: impl Into<String>) -> Error {
        Error::About {
            file: file.into(),
            cause: Box::new(self),
        }
    }

    /// Whether this is standard output closed by its reader, which ends a run quietly: a
    /// failure of the system that reached the command as it is, or one found in the causes.
    pub fn is_broken_pipe(&self) -> bool {
        let broken = |e: &std::io::Error| e.kind() == std::io::ErrorKind::BrokenPipe;
        if let Error::Io(e) = self
            && broken(e)
        {
            return true;
        }
        std::iter::successors(std::error::Error::source(self), |e| e.source())
            .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(broken))
    }
}

/// The result of a command, or of one of its jobs.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a command cannot do as asked: the sentence says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum Usage {
    /// A `merge` source that is not a folder.
    #[error("{}: not a folder: name an archive folder or a home folder", escape_str(&.0.display().to_string()))]
    MergeSource(PathBuf),
    /// `relocate` with OLD and NEW the same folder.
    #[error("OLD and NEW are the same folder: nothing to relocate")]
    RelocateSame,
    /// `relocate` with NEW inside OLD: a second run would move the sessions again.
    #[error("NEW ({}) is inside OLD ({}): a second run would move every session again; move the project beside its old place, or relocate in two steps", escape_str(.new), escape_str(.old))]
    RelocateInside { old: String, new: String },
    /// `index` without `--index-dir`, HOME, XDG_CACHE_HOME or CCTOOL_INDEX_DIR.
    #[error("no folder for the search index: set HOME, XDG_CACHE_HOME or CCTOOL_INDEX_DIR, or give --index-dir")]
    NoIndexDir,
    /// `--files-from LIST` that cannot be read.
    #[error("cannot read the list of paths {}: {cause}", escape_str(&.list.display().to_string()))]
    ListUnreadable { list: PathBuf, cause: std::io::Error },
    /// A database of sessions given to a command that reads one session.
    #[error(
        "a database of {n} sessions, not one session: name one as {}#ID (`cctool scan {}` lists them)",
        escape_str(&.path.display().to_string()),
        escape_str(&.path.display().to_string())
    )]
    Container { path: PathBuf, n: usize },
    /// No PATH given, and none of the user's stores exists.
    #[error("no session stores found (looked in {}); name files or directories to read", escape_str(.looked_in))]
    NoStores { looked_in: String },
    /// `backup` with none of the user's stores to back up.
    #[error("no session stores found (looked in {}); set CLAUDE_CONFIG_DIR or CODEX_HOME", escape_str(.looked_in))]
    NoStoresToBackUp { looked_in: String },
    /// No archive named, and no home to put the default one in.
    #[error("no archive folder: HOME and XDG_DATA_HOME are unset; name one with --to DIR")]
    NoArchiveFolder,
    /// The backup archive cannot be written.
    #[error("{}: cannot write the archive: {cause}", escape_str(&.dir.display().to_string()))]
    ArchiveUnwritable { dir: PathBuf, cause: std::io::Error },
    /// `backup --verify` of a folder that is not an archive.
    #[error(
        "{}: not a cctool archive (no snapshots/ folder); run `cctool backup --to DIR` first",
        escape_str(&.dir.display().to_string())
    )]
    NotAnArchiveToVerify { dir: PathBuf },
    /// `restore --from` a folder that is not an archive.
    #[error(
        "{}: not a cctool archive (no snapshots/ folder); name one with --from ARCHIVE",
        escape_str(&.dir.display().to_string())
    )]
    NotAnArchiveToRestore { dir: PathBuf },
    /// `-o -` of `migrate` given several inputs.
    #[error("-o - writes one document to standard output: give exactly one input file")]
    OneDocumentToStdout,
    /// `-o FILE` of `migrate` given a folder or several inputs.
    #[error(
        "-o {}: a folder or several inputs are written to an output folder, and this is a file; name a folder",
        .output.display()
    )]
    OutputNotAFolder { output: PathBuf },
    /// `-o -` of `slim` given several inputs.
    #[error("-o - writes one file to standard output: give exactly one input file")]
    OneFileToStdout,
    /// `slim` told neither where to write nor to only count.
    #[error("say where the result goes: -o OUT, --in-place, or --dry-run to only count")]
    SlimWhere,
    /// `slim --images`/`--max-payload` without a folder to keep what is taken out.
    #[error(
        "--images and --max-payload take payloads out of the file: give --extract DIR, where each is kept, so that nothing is lost"
    )]
    SlimExtractWhere,
    /// `slim` of a database with an option that only a session file takes.
    #[error(
        "{0}: a database is slimmed where it is: --dry-run to see where its space goes, --in-place (with --clear-unloaded-outputs) to take it back; {1} is for session files"
    )]
    SlimDatabaseOption(String, &'static str),
    /// `--clear-unloaded-outputs` given a session file.
    #[error("{0}: --clear-unloaded-outputs is for a database (opencode.db), not a session file")]
    SlimNotDatabase(String),
    /// `slim --restore` with options that take payloads out.
    #[error("--restore puts payloads back; it takes no --images or --max-payload")]
    SlimRestoreTakesOut,
    /// A rules file or rule of `--redact-config`/`--redact-rule` that is not usable.
    #[error("{0}")]
    Redact(crate::redact::BadRule),
    /// An index page of `export` that cannot be written.
    #[error("{}: cannot write: {cause}", escape_str(&.path.display().to_string()))]
    IndexUnwritable { path: PathBuf, cause: std::io::Error },
    /// `export` with nothing to export.
    #[error("no sessions found to export")]
    NothingToExport,
    /// `export` of several sessions to one file.
    #[error("{count} sessions to export: name a folder for them with -o DIR")]
    ExportNeedsFolder { count: usize },
    /// `export --json` whose export would go to standard output.
    #[error("--json prints records on stdout: write the export elsewhere with -o")]
    ExportJsonOnStdout,
    /// The folder of `export -o DIR` cannot be made.
    #[error("{}: cannot create the folder: {cause}", .dir.display())]
    FolderUnmade { dir: PathBuf, cause: std::io::Error },
    /// An export whose output is one of its inputs.
    #[error("{}: the output would replace an input; name another file with -o", escape_str(.input))]
    ExportReplacesInput { input: String },
    /// The options of a resume given to `rebuild-chain` without `--api-view`.
    #[error(
        "--as-of, --model, --settings, --base-url and --thinking-policy describe a resume: use them with --api-view"
    )]
    ResumeWithoutApiView,
    /// An option of `rebuild-chain` that does not apply to the file's agent (the agent's
    /// sentence).
    #[error("{file}: {why}")]
    ChainArgs {
        /// The file, as the user named it.
        file: String,
        /// The agent's refusal.
        why: crate::agents::ChainRefusal,
    },
    /// A configuration option of a resume (`--as-of`, `--settings`) that is not usable.
    #[error("{0}")]
    Resume(Box<dyn std::error::Error + Send + Sync>),
    /// Rows that cannot be written where or as asked.
    #[error("{0}")]
    Rows(crate::tables::sink::SinkError),
    /// A `search` pattern that is empty: it would match everything and mark nothing.
    #[error("the pattern is empty: give some text to look for")]
    EmptyPattern,
    /// A `search` pattern that is not a valid regular expression.
    #[error("{0}")]
    Pattern(crate::search::BadPattern),
    /// A `--since` or `--until` that names no time.
    #[error("{option} {}: not a date (2027-01-22), a time (2027-01-22T09:00:00Z) or a span back from now (7d, 12h)", escape_str(.value))]
    When { option: &'static str, value: String },
    /// Parquet rows asked on a terminal.
    #[error("Parquet is binary: redirect standard output to a file, or use --out-dir DIR")]
    ParquetOnTerminal,
}

/// A file a command will not write, or not write as asked; `Display` says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Two inputs of one `migrate` run would be written to the same file.
    #[error("its output {} is also the output of {first} in this run; import it on its own with -o", .output.display())]
    SharedOutput { output: PathBuf, first: String },
    /// An output that would replace the input (`-o` names it).
    #[error("the output would replace the input; choose another -o")]
    ReplacesInput,
    /// `compact -o` naming its input.
    #[error("the output would replace the input; use --in-place to replace it with a backup")]
    ReplacesInputCompact,
    /// `slim -o` naming its input.
    #[error("the output would replace the input; use --in-place for that (it keeps a backup)")]
    ReplacesInputSlim,
    /// An output of `migrate` that exists, without `--force`.
    #[error("{} exists (an earlier import?); nothing written: pass --force to replace it, or choose another -o", .path.display())]
    ImportExists { path: PathBuf },
    /// An output of `slim` that exists, without `--force`.
    #[error("{} exists; nothing written: pass --force to replace it, or choose another -o", .path.display())]
    SlimExists { path: PathBuf },
    /// An export page that exists, without `--force`.
    #[error("{}: exists; not overwritten (--force replaces it)", .path.display())]
    ExportExists { path: PathBuf },
    /// A conversion target that exists and is not an earlier conversion of the source.
    #[error(
        "{} exists and is not an earlier conversion of this session (line {line} differs; was it resumed since?); choose another -o, or pass --force to replace it",
        .path.display()
    )]
    NotAnEarlierConversion { path: PathBuf, line: u64 },
    /// `convert --json` whose conversion would go to standard output.
    #[error("--json prints the report on standard output: write the conversion with -o OUT")]
    ConvertJsonOnStdout,
    /// `convert --to cctool --into-store`.
    #[error("a cctool session has no agent store to go into: write it with -o OUT")]
    CctoolIntoStore,
    /// `compact --into-store` of a file whose agent keeps no store of sessions (cctool's own).
    #[error("{kind} has no agent store to go into: write the compaction with -o OUT")]
    CompactNoStore { kind: &'static str },
    /// `compact --into-store` of a file whose first records name no session.
    #[error(
        "no session id in the file's first records, so it cannot become a new session in its agent's store: write the compaction with -o OUT"
    )]
    CompactNoSessionId,
    /// `convert --into-store` to an agent whose store is not found (the agent's sentence says
    /// what to set, or to write with `-o`).
    #[error("{0}")]
    NoStore(&'static str),
    /// Standard input given to `migrate` with an output folder.
    #[error("standard input has no name to write under in an output folder: give it -o FILE or -o - on its own")]
    StdinInFolder,
    /// A session of an agent's database, with nowhere to write `migrate`'s result.
    #[error("is a session inside an agent's database, which cctool never writes into: give -o OUT, -o DIR or -o -")]
    MemberMigrate,
    /// A copy kept in a backup archive, with nowhere to write `migrate`'s result.
    #[error("is a copy kept in a backup archive, which cctool never writes into: give -o OUT, -o DIR or -o -")]
    ArchivedMigrate,
    /// A copy kept in a backup archive, with nowhere to write the result but beside it.
    #[error("{}", super::ARCHIVED_NEEDS_OUTPUT)]
    ArchivedNeedsOutput,
    /// `migrate --to` an older version than the latest, of a file that is imported.
    #[error("imports are written as v{latest}; --to v{to} applies to cctool session files")]
    ImportVersion { latest: u32, to: u32 },
    /// An import of standard input without `-o`.
    #[error("importing standard input needs -o OUT (or -o - for standard output)")]
    ImportStdinWhere,
    /// A migration of standard input without `-o`.
    #[error("a session file read from standard input needs -o OUT (or -o - for standard output)")]
    MigrateStdinWhere,
    /// A session of a later version than asked.
    #[error("is v{version}; migrating to v{to} would be a downgrade, which cctool does not do")]
    Downgrade { version: u32, to: u32 },
    /// A file modified moments ago (`verb`: what would have been done to it).
    #[error("not {verb}: modified {secs} s ago, so it may still be written; retry in a minute, or pass --force")]
    Live { verb: &'static str, secs: u64 },
    /// A file `compact` would rewrite, modified moments ago.
    #[error("modified {secs} s ago, so its agent may still be writing it; retry in a minute, or pass --force")]
    LiveCompact { secs: u64 },
    /// A file `decompress` would rewrite, modified moments ago.
    #[error("modified {secs} s ago, so it may still be written; retry in a minute, or pass --force")]
    LiveDecompress { secs: u64 },
    /// A JSON Lines file whose last line is cut short.
    #[error(
        "its last line is not a complete record and has no newline, so it may be half-written; pass --force to compact it anyway"
    )]
    HalfWritten,
    /// `compact` of standard input.
    #[error("compact reads a file, not standard input: name the session file")]
    CompactStdin,
    /// An input that cannot be rewritten in place (the input's own sentence).
    #[error("{0}")]
    InPlace(&'static str),
    /// A file of a format this command does not read.
    #[error(transparent)]
    Format(#[from] FormatRefusal),
}

/// A file of a format a command does not read.
#[derive(Debug, thiserror::Error)]
pub enum FormatRefusal {
    /// `decompress` of a file that is not a cctool session.
    #[error("is a {} file; decompress restores tier-1 placeholders of cctool v5 sessions", .0.name())]
    Decompress(crate::model::AgentId),
    /// `slim` of a file without payloads it knows.
    #[error("a {} file holds no payloads slim knows; it slims Claude Code transcripts and Codex rollouts", .0.name())]
    Slim(crate::model::AgentId),
    /// `convert` from or to a format it does not read or write.
    #[error(
        "convert reads and writes Claude Code transcripts and Codex rollouts; a {} is imported with --to cctool or migrated with cctool migrate",
        .0.name()
    )]
    Convert(crate::model::AgentId),
    /// `convert --to cctool` of a cctool session.
    #[error("already a cctool session: cctool migrate brings it to v5")]
    AlreadyCctool,
}
