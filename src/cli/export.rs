//! `export` (docs/export.md).

use super::*;

/// What `cctool export` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A Markdown document: the conversation, tool calls and results in fences.
    #[default]
    Markdown,
    /// One self-contained HTML page: table of contents, search, collapsible tool calls.
    Html,
    /// The records of the chain (or, with --full, the whole history) as JSON Lines.
    Jsonl,
    /// The whole file in its own format (Claude Code, Codex, cctool), still resumable.
    Native,
}

/// Export sessions as Markdown, one HTML page, JSON Lines or their own format, with secrets redacted.
#[derive(Args, Debug)]
#[command(
    long_about = "Export sessions to share them: as Markdown, as one self-contained HTML page, as the \
JSON Lines of the chain, or as the file in its own format. Markdown and HTML show the conversation a \
resume loads (--full: the whole history, each compaction marked with its summary), in local time, with \
a Claude Code session's subagent transcripts after it.\n\n\
With --share (or --redact), secrets and personal data are replaced by placeholders such as \
[REDACTED:github-token#3]; the same secret gets the same placeholder in every file of the export. \
The rules are described in docs/export.md; more come from --redact-rule and from the rules file \
($XDG_CONFIG_HOME/cctool/redact-rules, else ~/.config/cctool/redact-rules; one NAME=REGEX per line). \
The report (stderr, or a --json record) counts matches per rule and never shows them.",
    after_long_help = "OUTPUT\n  \
One input: stdout, or -o FILE. Several inputs: -o DIR (created if missing), one file per input and \
an index page (index.html or index.md). Outputs are written atomically and never replace a file \
(an input above all) unless --force.\n\n\
JSON RECORDS (--json)\n  \
{\"kind\":\"export\",\"file\",\"output\",\"format\",\"messages\"} per input, then \
{\"kind\":\"redaction\",\"rules\":[{\"rule\",\"count\",\"distinct\"}],\"total\"} when redacting.\n\n\
EXIT STATUS\n  0 every input exported; 1 some inputs could not be read (the others were written); 2 bad usage."
)]
pub struct ExportArgs {
    /// Sessions to export (files, folders searched for sessions, or session ids or prefixes of
    /// your stores; - for standard input).
    #[arg(required_unless_present = "files_from", value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub list: FilesFromArgs,

    /// What to write.
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,

    /// Where to write: a file for one input, a folder for several (default: stdout for one).
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// The whole history, each compaction marked with its summary, instead of what a resume
    /// loads (markdown, html and jsonl).
    #[arg(long)]
    pub full: bool,

    /// Prepare the export for other people: redaction is on unless --no-redact.
    #[arg(long)]
    pub share: bool,

    /// Replace secrets and personal data with placeholders.
    #[arg(long, overrides_with = "no_redact")]
    pub redact: bool,

    /// Do not redact, even with --share.
    #[arg(long, overrides_with = "redact")]
    pub no_redact: bool,

    /// One more redaction rule, NAME=REGEX or REGEX (placeholder [REDACTED:NAME#n]; default
    /// name "custom"). Repeatable.
    #[arg(long = "redact-rule", value_name = "[NAME=]REGEX")]
    pub redact_rules: Vec<String>,

    /// Read more rules from this file instead of the default rules file.
    #[arg(long, value_name = "FILE")]
    pub redact_config: Option<PathBuf>,

    /// Keep images when redacting (by default each becomes a placeholder: a screenshot can
    /// show what no rule reads).
    #[arg(long)]
    pub keep_images: bool,

    /// Leave out the subagent transcripts of Claude Code sessions.
    #[arg(long)]
    pub no_subagents: bool,

    /// Replace existing outputs.
    #[arg(long)]
    pub force: bool,
}
