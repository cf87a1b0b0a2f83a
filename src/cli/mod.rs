//! The command-line interface: clap definitions only. Man pages and completions are
//! generated from these, so the help text here *is* the documentation.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::agents::claude_code::chain::Loader;
use crate::agents::codex::history::Replay;
use crate::io::MmapChoice;
use crate::model::AgentId;
use crate::model::diag::{Code, Severity};
use crate::model::resume::{Overrides, ThinkingPolicy};
use crate::output::ColorChoice;

mod backup;
mod chain;
mod convert;
mod doctor;
mod export;
mod mcp;
mod relocate;
mod rewrite;
mod scan;
mod search;
mod slim;
mod summary;

pub use backup::*;
pub use chain::*;
pub use convert::*;
pub use doctor::*;
pub use export::*;
pub use mcp::*;
pub use relocate::*;
pub use rewrite::*;
pub use scan::*;
pub use search::*;
pub use slim::*;
pub use summary::*;

/// What `cctool --help` says cctool reads, before the agents' files are named
/// ([`command`]).
const TOP_LEAD: &str = "cctool reads the sessions of coding agents offline and fast";

/// What `cctool --help` says after naming what cctool reads.
const TOP_END: &str = "offline and fast, and answers what a session really holds after compaction: the \
exact conversation a resume loads, the summaries the agent was given, and the integrity problems \
of a file.\n\nData goes to stdout (JSON Lines by default where records are produced); \
diagnostics and progress go to stderr.\n\nExit status: 0 success; 1 a negative answer; \
2 usage or input error; 130 interrupted.";

/// The command line as `--help`, the man pages and the completions show it: the derive's,
/// with what is said of the agents (what cctool reads, what a resume of each loads, which of
/// its records are summaries) made from the registry, so an agent's help comes with its crate.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let agents: Vec<_> = crate::agents::all().collect();
    let paragraphs = |of: fn(&crate::agents::Help) -> &'static str| {
        agents
            .iter()
            .map(|a| of(&a.about().help))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let reads = cctool_core::agents::detect::files_read(&agents);
    let chain = format!("{REBUILD_CHAIN_LEAD}\n\n{}", paragraphs(|h| h.resume));
    let summaries = format!(
        "{EXTRACT_SUMMARY_LEAD}\n\n{}\n\n{EXTRACT_SUMMARY_END}",
        paragraphs(|h| h.summaries)
    );
    Cli::command()
        .long_about(format!("cctool reads {reads} {TOP_END}"))
        .mut_subcommand("rebuild-chain", |c| c.long_about(chain))
        .mut_subcommand("extract-summary", |c| c.long_about(summaries))
}

/// The arguments `args` give, parsed by [`command`].
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut cmd = command();
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

#[derive(Parser, Debug)]
#[command(
    name = "cctool",
    version,
    about = "Transcript forensics and conversion for coding-agent sessions",
    long_about = TOP_LEAD,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Print diagnostics and summaries as JSON Lines records (each with a "kind" field) on
    /// stdout instead of text on stderr.
    #[arg(long, global = true)]
    pub json: bool,

    /// When to use colour (NO_COLOR is honoured by "auto").
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Whether large files may be memory-mapped ("auto" maps files of 4 MiB or more that have
    /// not changed for a minute; everything else is read).
    #[arg(long, global = true, value_enum, default_value_t = MmapChoice::Auto, value_name = "WHEN")]
    pub mmap: MmapChoice,

    /// Inside folders, follow symbolic links, also out of the folder named (each file is read
    /// once; loops are reported). By default links inside folders are not followed.
    #[arg(long, global = true)]
    pub follow: bool,

    /// Read inputs as this format where their content does not say (a file whose content is
    /// another format's is refused).
    #[arg(long, global = true, value_parser = input_formats(), value_name = "FORMAT")]
    pub input_format: Option<AgentId>,

    /// Print no diagnostics on stderr (errors that stop the command are still printed).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The values `--input-format` takes: every agent of the registry, by its format's name.
fn input_formats() -> impl clap::builder::TypedValueParser<Value = AgentId> {
    agent_values(crate::agents::all().map(|a| (a.about().format, a.about().format.name(), a.about().names.input_help)))
}

/// A parser of `values` (the agent, its name, its help) that gives the agent named.
fn agent_values(
    values: impl Iterator<Item = (AgentId, &'static str, &'static str)>,
) -> impl clap::builder::TypedValueParser<Value = AgentId> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values: Vec<_> = values.collect();
    let named = values.iter().map(|&(id, name, _)| (name, id)).collect::<Vec<_>>();
    PossibleValuesParser::new(
        values
            .into_iter()
            .map(|(_, name, help)| PossibleValue::new(name).help(help)),
    )
    .try_map(move |name| {
        named
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, id)| id)
            .ok_or_else(|| format!("no agent is called {name}"))
    })
}

impl GlobalArgs {
    /// The command's voice on stderr, as `--quiet` and `--color` ask.
    pub fn reporter(&self) -> crate::output::report::Reporter {
        crate::output::report::Reporter::new(self.quiet, self.color)
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Backup(BackupArgs),
    Compact(CompactArgs),
    Convert(ConvertArgs),
    Decompress(DecompressArgs),
    Doctor(DoctorArgs),
    Export(ExportArgs),
    ExtractSummary(ExtractSummaryArgs),
    Hooks(HooksArgs),
    Index(IndexArgs),
    Mcp(McpArgs),
    Merge(MergeArgs),
    Migrate(MigrateArgs),
    RebuildChain(RebuildChainArgs),
    Relocate(RelocateArgs),
    Restore(RestoreArgs),
    Scan(ScanArgs),
    Search(SearchArgs),
    Slim(SlimArgs),
    Completions(CompletionsArgs),
    /// Write the man pages (cctool.1 and one page per subcommand) into a directory.
    #[command(hide = true)]
    GenerateMan {
        /// Directory to write the pages into.
        dir: PathBuf,
    },
}

/// Paths read from a list (`--files-from`): the batch commands' way to take work from
/// `find`, `xargs -P`, GNU parallel or Spark's `RDD.pipe`.
#[derive(Args, Debug, Clone, Default)]
pub struct FilesFromArgs {
    /// Also read the paths listed in FILE (`-`: standard input), one per line. Only the files
    /// listed are read (subagent transcripts too are read only when listed; folders listed are
    /// searched), and the user's own stores are not read when the list is empty. Each file's
    /// output depends on that file alone, so the parts of a split list, run apart and
    /// concatenated, give the output of one run.
    #[arg(long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,

    /// With --files-from: the paths are separated by NUL bytes (`find -print0`), not by lines.
    #[arg(short = '0', long = "null", requires = "files_from")]
    pub null: bool,
}

/// `scan --rows`: flat tables for DuckDB, Polars and Spark (`docs/tables.md`).
#[derive(Args, Debug, Clone, Default)]
pub struct RowsArgs {
    /// Print a table instead of the scan: one flat record per session, message, compaction or
    /// tool call, with the columns of `schemas/<table>.json` (see TABLES below).
    #[arg(long, value_enum, value_name = "TABLE")]
    pub rows: Option<crate::tables::Table>,

    /// Format of the table: JSON Lines, or Parquet (when cctool is built with the `parquet`
    /// feature).
    #[arg(long, value_enum, default_value_t = crate::tables::RowFormat::Jsonl, requires = "rows", value_name = "FORMAT")]
    pub format: crate::tables::RowFormat,

    /// Keep the first N characters of each body (message text, tool input and output,
    /// summary) in the table beside its length and SHA-256; 0 keeps none.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "rows")]
    pub max_text: usize,

    /// Write hive-style partitions under DIR (agent=…/date=…/part-….jsonl.zst or .parquet),
    /// one part per input file, instead of standard output. A part already written for the
    /// same file (same path, size and modification time) is kept as it is; a changed file's
    /// part replaces its older one.
    #[arg(long, value_name = "DIR", requires = "rows")]
    pub out_dir: Option<PathBuf>,
}

/// Print a shell completion script.
#[derive(Args, Debug)]
#[command(
    after_long_help = "EXAMPLES\n  cctool completions bash > ~/.local/share/bash-completion/completions/cctool\n  cctool completions zsh > ~/.zfunc/_cctool\n  cctool completions fish > ~/.config/fish/completions/cctool.fish"
)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// How Claude Code would be configured when it resumes: by default the user's own settings
/// files and environment, the local time zone and now; each part can be given instead.
#[derive(Args, Debug, Clone, Default)]
pub struct ResumeArgs {
    /// Claude Code: the time of the resume (default now): an RFC 3339 time
    /// (2027-01-22T09:00:00Z), a local date and time (2027-01-22T09:00) or a date (local noon).
    /// Which model a resume uses changes with the date, at local midnight (TZ is honoured).
    #[arg(long, value_name = "DATETIME", help_heading = "Resume configuration (Claude Code)")]
    pub as_of: Option<String>,

    /// The model the resume runs with. Claude Code: as `claude --model MODEL` (the session's
    /// own model is then not restored). Codex: as `codex -m MODEL` (default: the rollout's last
    /// turn_context model); it decides how much of a tool output is kept.
    #[arg(long, value_name = "MODEL", help_heading = "Resume configuration")]
    pub model: Option<String>,

    /// Claude Code: read this settings file (its model, availableModels and env) instead of
    /// the user's, the project's, the local and the managed settings files.
    #[arg(long, value_name = "FILE", help_heading = "Resume configuration (Claude Code)")]
    pub settings: Option<PathBuf>,

    /// Claude Code: the API base URL, as ANTHROPIC_BASE_URL. Behind a URL that is not
    /// api.anthropic.com the client drops the thinking of other models.
    #[arg(long, value_name = "URL", help_heading = "Resume configuration (Claude Code)")]
    pub base_url: Option<String>,

    /// Claude Code: which thinking blocks of other models the request keeps (default: as the
    /// client decides from the base URL and CLAUDE_CODE_RUSTLING_PIXEL; a server flag can
    /// change it).
    #[arg(
        long,
        value_enum,
        value_name = "POLICY",
        help_heading = "Resume configuration (Claude Code)"
    )]
    pub thinking_policy: Option<ThinkingPolicy>,
}

impl ResumeArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            as_of: self.as_of.clone(),
            model: self.model.clone(),
            settings: self.settings.clone(),
            base_url: self.base_url.clone(),
            thinking_policy: self.thinking_policy,
        }
    }

    /// Whether any part was given.
    pub fn any(&self) -> bool {
        self.as_of.is_some()
            || self.model.is_some()
            || self.settings.is_some()
            || self.base_url.is_some()
            || self.thinking_policy.is_some()
    }
}
