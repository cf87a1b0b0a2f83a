//! What every agent answers, behind one interface: the questions the commands ask about one
//! file ([`Agent`]) and the optional capabilities an agent may have ([`Store`] with its
//! [`Retention`], [`Hooks`], [`Converter`]).
//!
//! Each agent implements them in its own crate; the registry above the agents (the CLI's
//! `agents` module) is the one place that lists them, so nothing else branches on which agent
//! a file is. A trait object rather than an enum: the compiler lists every question a new
//! agent has not answered yet, and the call is made once per file, so the indirection costs
//! nothing measurable.

pub mod detect;
pub mod registry;
pub mod view;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::ExitStatus;
use crate::agents::view::ChainOptions;
use crate::compact;
use crate::compact::file::Target;
use crate::io::Source;
use crate::model::AgentId;
use crate::model::diag::Diagnostic;
use crate::model::doc::ExportError;
use crate::model::events::{Ask, MadeText, Sink, Streamed, View};
use crate::model::hooks::{COMPACTION_EVENTS, Compaction, Edit, HookAction, SettingsError};
use crate::model::resume::Loader;
use crate::model::resume::Overrides;
use crate::model::session::SessionRecord;
use crate::output::Out;
use crate::output::render::Render;
use crate::summary::SummaryRecord;
use crate::v5::schema::Session;

/// Writes a file imported into a v5 session to `w`, message by message as it is read;
/// `effective` keeps only what a resume loads.
pub type Import = fn(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()>;

/// The facts about an agent that need no file.
pub struct About {
    /// The format this agent reads.
    pub format: AgentId,
    /// The agent's name in the scan table's agent column.
    pub short_name: &'static str,
    /// The agent's name in sentences and documents (`Claude Code`): what an export's page
    /// shows and what a backup's refusals name.
    pub display_name: &'static str,
    /// Whether its files are JSON Lines written a record at a time (else one JSON document).
    pub json_lines: bool,
    /// What `compact` counts: the tokens that matter to this agent on resume.
    pub measure: compact::Measure,
    /// Whether `--loader` chooses among this agent's loading rules (else it is said to be
    /// ignored).
    pub loaders: bool,
    /// What sentences and `--input-format`'s help call its files.
    pub names: Names,
    /// The keys whose values the agent itself writes to resume a session (ids, links between
    /// records, signatures, encrypted blobs): never a secret of the user's, and changing them
    /// would break the file, so redaction leaves them as written.
    pub structural_keys: &'static [&'static str],
    /// What the long help of the commands whose answer is the agent's own says of it.
    pub help: Help,
}

/// The agent's paragraphs of the long help of the commands whose answer is the agent's own,
/// each starting with what it reads (`Claude Code: …`): the CLI lists every registered
/// agent's, in the registry's order, so a new agent's help comes with its crate.
pub struct Help {
    /// `rebuild-chain`: what a resume loads, and what `--api-view` prints.
    pub resume: &'static str,
    /// `extract-summary`: which records are summaries, and which one is current.
    pub summaries: &'static str,
}

/// What sentences that list every agent call one agent's files, and what `--input-format`
/// says of it: each list is made from the registry, so it grows with it.
pub struct Names {
    /// One file, in an advice that names one of each agent's (`Claude Code transcript`).
    pub file: &'static str,
    /// Its files, in the sentence that says what cctool reads (`Claude Code transcripts`).
    pub files: &'static str,
    /// What its records look like, in the sentence that lists every agent's (`Claude Code`).
    pub kind: &'static str,
    /// `--input-format`'s help for the agent's name.
    pub input_help: &'static str,
}

/// A value a command-line option takes, with its help: what `convert --to` lists.
pub struct ArgValue {
    /// The value.
    pub name: &'static str,
    /// What `--help` says of it.
    pub help: &'static str,
}

/// What is said, once per run, when `--loader` was given and a file of an agent with one way
/// of loading was read.
pub const LOADER_IGNORED: &str =
    "--loader chooses among Claude Code's loading rules: it is ignored for Codex rollouts and cctool sessions";

/// What the commands ask of an agent about one file. Errors are shown after the file's name.
pub trait Agent: Sync {
    /// The facts about the agent that need no file.
    fn about(&self) -> &'static About;

    /// How surely one record of a file (`record`, among the file's first) says the file is
    /// this agent's ([`detect`]); `None` when it does not.
    fn sniff(&self, record: &detect::Record<'_>) -> Option<detect::Sureness>;

    /// Whether a file that is one JSON document with these top-level keys is this agent's.
    fn sniff_document(&self, keys: &detect::Keys) -> bool {
        let _ = keys;
        false
    }

    /// The value `convert --to` takes for this agent, when `convert` writes its files (or,
    /// with [`Agent::import_target`], its import).
    fn convert_to(&self) -> Option<ArgValue> {
        None
    }

    /// The compaction summaries of the file (`extract-summary`), and its count of unreadable
    /// lines.
    fn summaries(
        &self,
        src: &Source,
        loader: Loader,
        opts: crate::summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)>;

    /// What `doctor` finds in the file, judged by what a resume loads.
    fn doctor(&self, src: &Source, resume: &Overrides) -> crate::error::Result<Vec<Diagnostic>>;

    /// The file at a glance (`scan`).
    fn scan(&self, src: &Source, resume: &Overrides) -> crate::error::Result<SessionRecord>;

    /// What `search` names a session by (the fields of [`LISTING`](SessionRecord::listing)),
    /// each exactly as [`scan`](Agent::scan) with the default resume fills it, the others
    /// left at their default: an agent whose scan sizes the resumed request or reads
    /// payloads answers it with less reading. Search calls it once per file with a hit.
    fn listing(&self, src: &Source) -> crate::error::Result<SessionRecord> {
        self.scan(src, &Overrides::default()).map(SessionRecord::listing)
    }

    // What `scan` and `doctor` ask of an agent apart from a file: once per run, and of the
    // records it gave.

    /// Why `resume` cannot configure this agent's resume (an option given on the command line
    /// that is not usable), said once per run before any file is read, if it cannot.
    fn check_resume(&self, resume: &Overrides) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let _ = resume;
        Ok(())
    }

    /// The model a resume runs with (`SessionRecord::resume_model`) as the scan table shows it.
    fn short_model_name(&self, model: &str) -> String {
        model.to_string()
    }

    /// Whether this agent's subagent transcripts keep the session id of the session they
    /// belong to, so that `scan` links each to the session file of that id.
    fn links_subagents(&self) -> bool {
        false
    }

    /// How a file of this agent is imported into a v5 session, or `None` when it already is
    /// a cctool session (it is migrated, not imported).
    fn import(&self) -> Option<Import>;

    /// The whole session, with its full history, as the latest cctool session.
    fn full_session(&self, src: &Source) -> crate::error::Result<Session>;

    /// Why `rebuild-chain` cannot do what `a` asks of a file of this agent (an option that
    /// describes another agent's resume or loader), if it cannot: the agent's own error.
    fn refuse_chain_args(&self, a: &ChainOptions) -> Option<ChainRefusal> {
        let _ = a;
        None
    }

    /// `rebuild-chain`: what a resume loads (or with `--api-view` the request sent after it),
    /// printed to `out` as records or rendered with `style`; the diagnostics and the closing
    /// record.
    fn rebuild_chain(
        &self,
        src: &Source,
        a: &ChainOptions,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> crate::error::Result<(Vec<Diagnostic>, view::Report)>;

    /// `compact`: the file compacted into `target` as `opts` ask, what was done told in `r`.
    fn compact(
        &self,
        src: &Source,
        opts: &compact::Options,
        target: &Target,
        r: &mut compact::Report,
    ) -> crate::error::Result<ExitStatus>;

    /// `slim`: where payloads sit in this agent's files and what a resume loads; `None`
    /// when its files hold none that slim knows.
    fn slimmer(&self) -> Option<&'static dyn crate::slim::Slimmer> {
        None
    }

    /// `slim` of a database that holds this agent's sessions (a PATH that is the database,
    /// not one session in it): where its space goes and what can be taken back; `None` when
    /// the agent keeps no such database.
    fn database_slimmer(&self) -> Option<&'static dyn crate::slim::database::DatabaseSlimmer> {
        None
    }

    /// The session model: the file's records as [`Event`](crate::model::events::Event)s,
    /// in the view asked ([`View`](crate::model::events::View): every record, or what a resume
    /// loads, or the whole history with its compactions marked), each read by the ask's
    /// `parse`. `scan --rows`'s messages and tool-calls tables and `export`'s documents are
    /// made from them, the same for every agent.
    fn events(&self, src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> crate::error::Result<Streamed>;

    /// Whether [`events`](Agent::events), in `view`, hands on to `parse` text its file does
    /// not hold as written (text it makes, such as a marker of what a resume cuts). `search`
    /// skips a file whose bytes hold none of a pattern's needles only when it does not.
    fn made_text(&self, view: View) -> MadeText {
        let _ = view;
        MadeText::Maybe
    }

    /// [`events`](Agent::events), then, when `named` says so once the stream has ended (the
    /// search found a hit), [`listing`](Agent::listing)'s record: what `search` asks of each
    /// file. An agent whose stream and listing read the same index answers both from one
    /// reading of the file; the record is the listing's, field for field.
    fn events_listed(
        &self,
        src: &Source,
        ask: Ask<'_>,
        sink: Sink<'_>,
        named: &dyn Fn() -> bool,
    ) -> crate::error::Result<(Streamed, Option<SessionRecord>)> {
        let streamed = self.events(src, ask, sink)?;
        let listed = if named() { Some(self.listing(src)?) } else { None };
        Ok((streamed, listed))
    }

    /// `export --format jsonl`: the records the document shows, as written, each handed to
    /// `emit` in order.
    fn export_records(
        &self,
        src: &Source,
        full: bool,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
    ) -> Result<(), ExportError>;

    /// The files that belong with the session file `session` and are read with it (Claude
    /// Code's subagent transcripts), sorted; none for an agent that writes a session to one
    /// file. `follow` follows symbolic links.
    fn sub_sessions(&self, session: &Path, follow: bool) -> Vec<PathBuf> {
        let _ = (session, follow);
        Vec::new()
    }

    /// Whether `path` names, by its name alone, a file that belongs with another session
    /// file ([`Agent::sub_sessions`]).
    fn is_sub_session_path(&self, path: &Path) -> bool {
        let _ = path;
        false
    }
    // The store and hooks capabilities (`backup`, `restore`, `hooks`, session ids): what
    // the features that work on the user's own stores ask of the agent that keeps them.

    /// Where this agent keeps its sessions and how it names them; `None` for an agent with
    /// no store of its own.
    fn store(&self) -> Option<&'static dyn Store> {
        None
    }

    /// The folders of this agent's own store that the reading commands read when no PATH is
    /// given, from the variables in `env`: the folders that exist, and a note for each folder a
    /// variable names that does not. [`crate::io::paths::stores_from`] adds them to the stores
    /// every command reads (session ids, `backup` and `restore` among them), as this agent's
    /// whatever their name.
    fn session_roots(&self, env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> (Vec<PathBuf>, Vec<String>) {
        let _ = env;
        (Vec::new(), Vec::new())
    }

    /// The file that holds many of this agent's sessions (a database), through which each is
    /// read as an input of its own ([`crate::io::member`]); `None` for an agent that writes a
    /// session to a file.
    fn container(&self) -> Option<&'static dyn Container> {
        None
    }

    /// How its sessions follow a project folder that moved (`cctool relocate`); `None`: its
    /// sessions are not relocated, and `relocate` says so for each one under the folder.
    fn relocator(&self) -> Option<&'static dyn crate::relocate::Relocator> {
        None
    }

    /// The compaction hooks cctool installs in this agent's settings; `None` when it has
    /// none.
    fn hooks(&self) -> Option<&'static dyn Hooks> {
        None
    }

    /// `convert`: this agent's tools in neutral terms, through which a call of one agent
    /// becomes another's (`convert::tools`), and through which a compaction's recap reads its
    /// calls (`compact::recap::Tools`); `None` when it has no tools of its own (its calls
    /// keep their names).
    fn tools(&self) -> Option<&'static dyn crate::convert::tools::Vocabulary> {
        None
    }

    // `convert`: what is read and written, and where a converted session goes.

    /// `convert`'s reader and writer of this agent's files and its store; `None` when
    /// `convert` neither reads nor writes them.
    fn converter(&self) -> Option<&'static dyn Converter> {
        None
    }

    /// When `convert --to` this agent writes the source's v5 import (`migrate`'s) instead of
    /// converting it: the name the report gives the target.
    fn import_target(&self) -> Option<&'static str> {
        None
    }
}

/// An agent's own store of sessions: the folders below its root that hold them, how its
/// files there are named and what a backup keeps of them.
pub trait Store: Sync {
    /// The folders below a store's root that hold sessions: a store found at
    /// `ROOT/<folder>` is this agent's.
    fn session_folders(&self) -> &'static [&'static str];

    /// The folder under a backup archive (and under `restore --to DIR`) that holds this
    /// agent's files.
    fn archive_folder(&self) -> &'static str;

    /// The file beside the session folders that a backup takes too, and its role in a
    /// manifest (`history`, `index`).
    fn side_file(&self) -> Option<SideFile>;

    /// The role in a manifest of a session file found at `path` in the store: `session`, or
    /// `subagent` for a sub-session stored beside its session.
    fn role(&self, path: &Path) -> &'static str {
        let _ = path;
        "session"
    }

    /// The session id a store file's stem (its name without `.jsonl`, `.json`, `.zst`)
    /// carries, if the agent names its files that way.
    fn id_in_stem<'a>(&self, stem: &'a str) -> Option<&'a str>;

    /// Whether a session file named by an id ([`Store::id_in_stem`]) is found by that name
    /// when the agent resumes it, so the name wins over the id recorded inside.
    fn resumes_by_name(&self) -> bool {
        false
    }

    /// Whether a folder of this name in a store holds no sessions of their own (a session's
    /// side folder), so a search for sessions does not enter it.
    fn is_side_folder(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// Whether the file at `path`, found while walking a folder, is one this agent's store
    /// keeps beside its sessions and never a session (a session folder's bookkeeping), so it
    /// is passed over without a "not a session" notice. A file named directly is still read.
    fn holds_no_session(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// The id of the session whose folder holds the file at `rel` (its path below the store's
    /// root), when it is a file the agent keeps beside a session's own and that belongs to it
    /// (Copilot CLI's `workspace.yaml`, by which the client lists the session, and its
    /// checkpoints): a backup takes it with the session and a restore puts it back with it.
    fn companion_of<'a>(&self, rel: &'a Path) -> Option<&'a str> {
        let _ = rel;
        None
    }

    /// Whether the file at `path` is a sub-session (a subagent's transcript), not a session
    /// a user names.
    fn is_sub_session(&self, path: &str) -> bool {
        let _ = path;
        false
    }

    /// Reads one record of a session file's head into `head`; whether it was this agent's.
    fn read_head(&self, rec: &serde_json::Value, head: &mut crate::model::store::SessionHead) -> bool;

    /// What `restore` does after putting a session file back at `path` in the store `root`
    /// (Codex's thread index lists it again).
    fn register_restored(&self, root: &Path, path: &Path) -> crate::error::Result<()> {
        let _ = (root, path);
        Ok(())
    }

    /// The sweep by which the agent deletes this store's old sessions itself; `None` when it
    /// keeps them.
    fn retention(&self) -> Option<&'static dyn Retention> {
        None
    }
}

/// A file in which an agent keeps many sessions (a database): which sessions it holds, and
/// each one's content as the agent's own session document, which its [`Agent`] then reads as
/// it reads a file. Nothing is ever written to it.
pub trait Container: Sync {
    /// Whether a file or folder of this name, met while walking a folder, may be one (its
    /// content decides: [`Container::members`]). A folder, or a file that is no SQLite
    /// database, is offered to [`Container::members`] only when this says it may be.
    fn may_be(&self, path: &Path) -> bool;

    /// The sessions the file at `path` holds, when it is this agent's; `None` when it is not.
    /// A row that cannot be read is a problem naming the file and the row, never the end of
    /// the run.
    fn members(&self, path: &Path) -> Option<crate::io::member::Members>;

    /// The session `id` of the file at `path`, as the bytes of the agent's own session
    /// document, read in one consistent snapshot.
    fn read(&self, path: &Path, id: &str) -> io::Result<Vec<u8>>;

    /// Writes to `to` (an empty file the caller made) a consistent copy of the whole file at
    /// `path`, taken while the agent may be writing it: what a backup stores. The agent's
    /// own way of copying its database (SQLite's backup API), never a copy of bytes that a
    /// writer may be changing.
    fn snapshot(&self, path: &Path, to: &Path) -> io::Result<()>;

    /// The length and last change of everything the file's content lives in (a database
    /// and its write-ahead log): when both are as a backup last saw them, nothing changed
    /// and it is not copied again.
    fn state(&self, path: &Path) -> io::Result<(u64, Option<std::time::SystemTime>)>;

    /// The folder under a backup archive's `restore --to DIR` that holds this agent's
    /// sessions restored from such a file.
    fn archive_folder(&self) -> &'static str;

    /// How a session document [`Container::read`] gave goes back into the agent's own
    /// file, in the agent's words (its import command): what `restore` tells the user after
    /// writing one out.
    fn import_hint(&self) -> &'static str;
}

/// An agent's own retention sweep of its store: what `doctor` reads to warn before the sweep
/// deletes sessions, and what `restore --from-history` reads of the sessions it deleted.
/// `roots` are the store roots found (`ROOT` of each `ROOT/<session folder>`).
pub trait Retention: Sync {
    /// The days a session is kept when no settings file sets them.
    fn default_days(&self) -> u64;

    /// The settings files the agent reads the setting from, highest precedence first, for the
    /// store roots `roots` and the working folder `cwd`.
    fn settings_files(&self, roots: &[PathBuf], cwd: &Path) -> Vec<PathBuf>;

    /// The effective setting: the first of `files` that sets it; `None` when none does. A file
    /// whose setting the agent does not read is said in `problems`.
    fn setting(&self, files: &[PathBuf], problems: &mut Vec<String>) -> Option<crate::model::retention::Setting>;

    /// Whether the file at `path`, found under one of the store's session folders, is a
    /// session the sweep deletes once it is old enough.
    fn swept(&self, path: &Path) -> bool;

    /// The warning's sentence about the next sweep: the agent's own words for its setting and
    /// what the sweep does.
    fn warning(&self, sweep: &crate::model::retention::Sweep<'_>) -> String;

    /// What the agent's prompt history under `roots` still holds of the sessions whose files
    /// are gone; a line it cannot read is said in `problems`.
    fn history_of_deleted(
        &self,
        roots: &[PathBuf],
        problems: &mut Vec<String>,
    ) -> Vec<crate::model::retention::FromHistory>;
}

/// A file beside an agent's session folders that a backup keeps with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideFile {
    /// Its role in a manifest.
    pub role: &'static str,
    /// Its name in the store's root.
    pub name: &'static str,
}

/// The compaction hooks of an agent: where its settings are, how cctool's command is added
/// to them and taken out again, and what its transcript says of a compaction.
pub trait Hooks: Sync {
    /// The settings file at `scope`, from the variables in `env` and the folder `cwd`; `None`
    /// when the home folder it is under is unknown.
    fn settings_path(
        &self,
        scope: crate::model::hooks::Scope,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        cwd: &Path,
    ) -> Option<PathBuf>;

    /// Whether cctool installs hooks at `scope` for this agent (`settings_path` is `None` there).
    fn has_scope(&self, scope: crate::model::hooks::Scope) -> bool {
        let _ = scope;
        true
    }

    /// The transcript a hook's `input` is about: its `transcript_path` unless the agent says
    /// otherwise (an input that names only the session, found with the variables in `env`).
    fn transcript(
        &self,
        input: &serde_json::Value,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Option<PathBuf> {
        let _ = env;
        let p = input.get("transcript_path")?.as_str().filter(|p| !p.is_empty())?;
        Some(PathBuf::from(p))
    }

    /// The events cctool's hooks are installed on, and what `hooks run` does on each.
    fn events(&self) -> &'static [(&'static str, HookAction)] {
        COMPACTION_EVENTS
    }

    /// What `hooks run` does on `event`; `None` for an event cctool does not hook into.
    fn action(&self, event: &str) -> Option<HookAction> {
        self.events().iter().find(|(e, _)| *e == event).map(|&(_, a)| a)
    }

    /// The settings `text` with `command` run on each event that has none of cctool's.
    fn install(&self, text: &str, command: &str) -> Result<Edit, SettingsError>;

    /// The settings `text` without any of cctool's hooks.
    fn uninstall(&self, text: &str) -> Result<Edit, SettingsError>;

    /// What the transcript at `path` says of the compaction a PostCompact hook is called
    /// about.
    fn compaction(&self, path: &Path) -> Compaction;

    /// Where an archived summary of this agent came from (`extract-summary`'s
    /// `summary_source`).
    fn summary_source(&self) -> &'static str;

    /// What the user must do before the agent runs a hook newly installed at `scope`, if
    /// anything.
    fn trust_note(&self, scope: crate::model::hooks::Scope) -> Option<&'static str> {
        let _ = scope;
        None
    }

    /// The file where the agent reads the MCP servers of every project (its user scope), from
    /// the variables in `env`; `None` when the home folder it is under is unknown or the agent
    /// has no such file (`mcp --install` then refuses it).
    fn mcp_config_path(&self, env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        let _ = env;
        None
    }

    /// `server`'s entry as the agent's MCP configuration writes it, on its own: what
    /// `mcp --install` prints.
    fn mcp_entry(&self, server: &crate::model::hooks::McpServer) -> String {
        let _ = server;
        String::new()
    }

    /// The configuration `text` with `server` added, everything else kept as written. An
    /// entry of that name already there is never replaced: `Unchanged` when it starts the
    /// same command, refused when it starts another.
    fn mcp_install(&self, text: &str, server: &crate::model::hooks::McpServer) -> Result<Edit, SettingsError> {
        let _ = (text, server);
        Err(SettingsError::NoMcpConfig)
    }
}

/// `convert`'s side of one agent: its reader of the conversation, its writer of its own lines,
/// and where its store keeps a converted session.
pub trait Converter: Sync {
    /// Streams the conversation a resume of `src` loads (`full`: all of it) to `sink`;
    /// `answered`: the head carries the calls the conversation answers.
    fn read(
        &self,
        src: &Source,
        full: bool,
        answered: bool,
        sink: crate::convert::model::Sink<'_>,
    ) -> io::Result<crate::convert::model::Conversation>;

    /// The writer of this agent's lines.
    fn writer(&self) -> crate::convert::MakeWriter;

    /// Whether the writer needs the answered calls (it closes the others).
    fn needs_answered(&self) -> bool;

    /// Which lines of this agent's own, found in an earlier conversion, may be left where they
    /// are when the conversion is compared with it ([`crate::convert::incremental`]).
    fn passable(&self) -> fn(&[u8]) -> bool {
        |_| false
    }

    /// What one of this agent's files is called in a sentence (`a Codex rollout`).
    fn noun(&self) -> &'static str;

    /// Whether the written lines name the source's model even when another agent wrote it
    /// (without `--model`); an agent's own model is always kept.
    fn keeps_foreign_model(&self) -> bool;

    /// Where this agent's store keeps the converted session `o` (whose first line is `first`),
    /// and the session its own importer already made of `source`, if it did (looked up unless
    /// `force`).
    fn place(
        &self,
        first: Option<&[u8]>,
        o: &crate::convert::WriteOptions,
        source: Option<&std::path::Path>,
        force: bool,
    ) -> Result<crate::convert::store::Placement, crate::convert::store::StoreError>;

    /// How a line of this agent's own session becomes a line of a new session of another id
    /// ([`crate::convert::store::Rename`]), so that a session rewritten by cctool (`compact
    /// --into-store`) is placed ([`Converter::place`]) and registered
    /// ([`Converter::register`]) as a session of its own; `None` when the agent cannot.
    fn rename(&self) -> Option<crate::convert::store::Rename> {
        None
    }

    /// Registers a session placed in the store in the agent's index of sessions, when it keeps
    /// one: what was done, for the report. The session resumes by id whatever happens here, so
    /// a failure is a warning (naming `resume`) and `None`.
    fn register(&self, path: &std::path::Path, resume: Option<&str>) -> Option<&'static str> {
        let _ = (path, resume);
        None
    }
}

/// Why `rebuild-chain` refuses what it was asked for a file: an agent's own error, its sentence
/// shown after the file's name.
pub type ChainRefusal = Box<dyn std::error::Error + Send + Sync>;

/// `--tip` or `--full` given for a file whose agent has no parent links to choose a tip among or
/// history to put back.
#[derive(Debug, thiserror::Error)]
#[error("--tip and --full apply to Claude Code transcripts; this file is {}", .file.name())]
pub struct TipAndFullRefused {
    /// The file's agent.
    pub file: AgentId,
}

/// `--api-view` given for a file of an agent whose request cctool does not rebuild.
#[derive(Debug, thiserror::Error)]
#[error("--api-view applies to Claude Code transcripts and Codex rollouts; this file is {}", .file.name())]
pub struct ApiViewRefused {
    /// The file's agent.
    pub file: AgentId,
}

/// What `rebuild-chain` refuses for a file of `format`, an agent whose files hold one
/// conversation (no tip to choose, no history to put back) and no request cctool rebuilds:
/// `--tip`, `--full` and `--api-view`.
pub fn one_chain_no_view_refused(a: &ChainOptions, format: AgentId) -> Option<ChainRefusal> {
    tip_and_full_refused(a, format).or_else(|| a.api_view.then(|| ApiViewRefused { file: format }.into()))
}

/// What `rebuild-chain` says of `--tip` or `--full` on a file of `format`, when either was
/// given.
pub fn tip_and_full_refused(a: &ChainOptions, format: AgentId) -> Option<ChainRefusal> {
    (a.tip.is_some() || a.full).then(|| TipAndFullRefused { file: format }.into())
}
