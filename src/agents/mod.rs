//! One folder per agent whose sessions cctool reads, behind one interface.
//!
//! Everything cctool knows about one format lives in its folder (`ARCHITECTURE.md`): its
//! records, what a resume loads, the request the client sends, import to v5, compaction. The
//! commands ask their questions through [`Agent`], found with [`agent`] from the [`Format`]
//! that [`detect`] reads off the content; they never branch on the format themselves.
//!
//! A trait object rather than an enum: each agent's answers sit in its own folder
//! (`agent.rs`), so adding an agent is one folder, one [`Format`] variant and one line in
//! [`agent`], and the compiler lists every question the new agent has not answered yet. The
//! call is made once per file, so the indirection costs nothing measurable.

pub mod cctool;
pub mod claude_code;
pub mod codex;
pub mod detect;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod view;

use std::io::{self, Write};

use crate::ExitStatus;
use crate::agents::cctool::schema::Session;
use crate::agents::claude_code::chain::Loader;
use crate::agents::claude_code::config::Overrides;
use crate::cli::{CompactArgs, RebuildChainArgs};
use crate::compact;
use crate::compact::file::Target;
use crate::io::Source;
use crate::model::Format;
use crate::model::diag::Diagnostic;
use crate::output::Out;
use crate::output::render::Render;
use crate::scan::SessionRecord;
use crate::summary::SummaryRecord;

/// Writes a file imported into a v5 session to `w`, message by message as it is read;
/// `effective` keeps only what a resume loads.
pub type Import = fn(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()>;

/// The facts about an agent that need no file.
pub struct About {
    /// The format this agent reads.
    pub format: Format,
    /// The agent's name in the scan table's agent column.
    pub short_name: &'static str,
    /// Whether its files are JSON Lines written a record at a time (else one JSON document).
    pub json_lines: bool,
    /// What `compact` counts: the tokens that matter to this agent on resume.
    pub measure: compact::Measure,
    /// Whether `--loader` chooses among this agent's loading rules (else it is said to be
    /// ignored).
    pub loaders: bool,
}

/// What is said, once per run, when `--loader` was given and a file of an agent with one way
/// of loading was read.
pub const LOADER_IGNORED: &str =
    "--loader chooses among Claude Code's loading rules: it is ignored for Codex rollouts and cctool sessions";

/// What the commands ask of an agent about one file. Errors are shown after the file's name.
pub trait Agent: Sync {
    /// The facts about the agent that need no file.
    fn about(&self) -> &'static About;

    /// The compaction summaries of the file (`extract-summary`), and its count of unreadable
    /// lines.
    fn summaries(
        &self,
        src: &Source,
        loader: Loader,
        opts: crate::summary::Options,
    ) -> crate::error::Result<(Vec<SummaryRecord>, u64)>;

    /// What `doctor` finds in the file, judged by what a resume loads.
    fn doctor(&self, src: &Source, resume: &Overrides) -> io::Result<Vec<Diagnostic>>;

    /// The file at a glance (`scan`).
    fn scan(&self, src: &Source, resume: &Overrides) -> io::Result<SessionRecord>;

    /// How a file of this agent is imported into a v5 session, or `None` when it already is
    /// a cctool session (it is migrated, not imported).
    fn import(&self) -> Option<Import>;

    /// The whole session, with its full history, as the latest cctool session.
    fn full_session(&self, src: &Source) -> crate::error::Result<Session>;

    /// Why `rebuild-chain` cannot do what `a` asks of a file of this agent (an option that
    /// describes another agent's resume or loader), if it cannot.
    fn refuse_chain_args(&self, a: &RebuildChainArgs) -> Option<String> {
        let _ = a;
        None
    }

    /// `rebuild-chain`: what a resume loads (or with `--api-view` the request sent after it),
    /// printed to `out` as records or rendered with `style`; the diagnostics and the closing
    /// record.
    fn rebuild_chain(
        &self,
        src: &Source,
        a: &RebuildChainArgs,
        style: Option<Render>,
        out: &mut Out,
        bar: &indicatif::ProgressBar,
    ) -> anyhow::Result<(Vec<Diagnostic>, view::Report)>;

    /// `compact`: the file compacted into `target` as `opts` ask, what was done told in `r`.
    fn compact(
        &self,
        src: &Source,
        a: &CompactArgs,
        opts: &compact::Options,
        target: &Target,
        r: &mut compact::Report,
    ) -> crate::error::Result<ExitStatus>;

    /// `slim`: where payloads sit in this agent's files and what a resume loads; `None`
    /// when its files hold none that slim knows.
    fn slimmer(&self) -> Option<&'static dyn crate::slim::Slimmer> {
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

    /// Registers a session placed in the store in the agent's index of sessions, when it keeps
    /// one: what was done, for the report. The session resumes by id whatever happens here, so
    /// a failure is a warning (naming `resume`) and `None`.
    fn register(&self, path: &std::path::Path, resume: Option<&str>) -> Option<&'static str> {
        let _ = (path, resume);
        None
    }
}

/// What `rebuild-chain` says of `--tip` or `--full` on a file whose agent has no parent links to
/// choose a tip among or history to put back.
pub fn tip_and_full_refused(a: &RebuildChainArgs, format: Format) -> Option<String> {
    (a.tip.is_some() || a.full).then(|| {
        format!(
            "--tip and --full apply to Claude Code transcripts; this file is {}",
            format.name()
        )
    })
}

/// The agent that reads `format`: the registration of every agent.
pub fn agent(format: Format) -> &'static dyn Agent {
    match format {
        Format::ClaudeCode => &claude_code::agent::ClaudeCode,
        Format::Codex => &codex::agent::Codex,
        Format::CctoolSession => &cctool::agent::Cctool,
    }
}

/// The agent whose format is called `name` ([`Format::name`]).
pub fn by_name(name: &str) -> Option<&'static dyn Agent> {
    use clap::ValueEnum;
    Format::value_variants()
        .iter()
        .find(|f| f.name() == name)
        .map(|&f| agent(f))
}
