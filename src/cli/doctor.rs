//! `doctor`: its arguments and its help, the codes taken from their one definition.

use super::*;

/// The extra help of `doctor`: the codes come from their one definition.
pub(super) fn doctor_help() -> String {
    format!(
        "CODES (severity)\n{}\n\
JSON RECORDS\n  {{\"kind\":\"finding\",\"file\",\"line\",\"code\",\"severity\",\"message\"}} per finding, \
then {{\"kind\":\"code\",\"code\",\"findings\",\"errors\",\"warnings\",\"infos\"}} per code found, then \
{{\"kind\":\"total\",\"files\",\"errors\",\"warnings\",\"infos\",\"files_with_errors\",\"skipped\",\"unreadable\"}}. \
Inputs that could not be checked are {{\"kind\":\"diagnostic\",…}} records with the same fields as a finding. \
Each field keeps one type in every record; line is null for a finding about a whole file.\\n\n\
The two session-model codes depend on the date, the settings and the environment (the resume \
configuration options below, as for rebuild-chain --api-view).\n\n\
EXIT STATUS\n  0 no error-level finding is reported; 1 an error-level finding is reported (after \
--min-severity and --code); 2 a named file cannot be read.\n\n\
EXAMPLES\n  cctool doctor ~/.claude/projects\n  \
cctool doctor --min-severity warning --code dangling-parent --code cycle SESSION.jsonl\n  \
cctool doctor --json | jq -r 'select(.kind==\"finding\" and .severity==\"error\") | \"\\(.file):\\(.line) \\(.code)\"'",
        crate::model::diag::codes_help(|r| r.doctor)
    )
}

/// Accepts the ids of the codes doctor reports.
pub(super) fn doctor_code_parser() -> impl clap::builder::TypedValueParser<Value = Code> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        Code::ALL
            .iter()
            .filter(|c| c.reported().doctor)
            .map(|c| PossibleValue::new(c.id())),
    )
    .map(|id| Code::from_id(&id).unwrap_or(Code::InvalidJson))
}

/// Integrity findings of session files, one per problem, with file, line and a stable code.
#[derive(Args, Debug)]
#[command(
    long_about = "Check session files and report their integrity problems: by default one line per \
file with findings (its worst severity, what a resume loses, how many findings of each code), \
fitting the terminal's width (or COLUMNS; 80 in a pipe), worst first; then one line per code found \
and a total on stderr. Files with no findings are not listed. --verbose lists every finding, with \
its line and its message, grouped by file; --json writes one record per finding. Read-only: doctor never changes a file. With no PATH, the user's own stores are \
checked; the subagent transcripts of a named session are checked with it.\n\n\
A finding's severity follows its effect on the conversation a resume loads: an error when the \
agent loses or misreads data (a line it cannot parse, a chain that stops and leaves earlier \
messages behind, a summary it never sees), a warning when something is damaged but nothing is \
lost, info for what changes nothing on resume (a broken link off the resumed chain, before the \
last compaction, or on a progress row).",
    after_long_help = doctor_help()
)]
pub struct DoctorArgs {
    /// Session files or directories (searched recursively), a backup archive (or
    /// ARCHIVE/SESSION-ID), or session ids (or prefixes) of your stores; `-` reads standard input.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    #[command(flatten)]
    pub resume: ResumeArgs,
    /// Report only findings of this severity or higher.
    #[arg(long, value_enum, default_value_t = Severity::Info, value_name = "LEVEL")]
    pub min_severity: Severity,

    /// Every finding, grouped under its file, instead of a line per file.
    #[arg(short, long)]
    pub verbose: bool,

    /// Report only findings with this code (repeatable; the codes are listed below).
    #[arg(long = "code", value_name = "CODE", value_parser = doctor_code_parser(), hide_possible_values = true)]
    pub codes: Vec<Code>,
}
