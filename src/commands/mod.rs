//! One module per subcommand. Each takes its parsed arguments and returns the exit status.

pub mod backup;
pub mod compact;
pub mod completions;
pub mod convert;
pub mod decompress;
pub mod doctor;
pub mod error;
pub mod export;
pub mod extract_summary;
pub mod hooks;
pub mod ids;
pub mod index;
pub mod man;
pub mod mcp;
pub mod merge;
pub mod migrate;
pub mod rebuild_chain;
pub mod record;
pub mod relocate;
pub mod restore;
pub mod scan;
pub mod scan_rows;
pub mod search;
pub mod slim;
pub mod slim_database;

use crate::ExitStatus;
use crate::cli::{Cli, Command};
pub use error::{Error, Result};

/// Runs the command `cli` names.
pub fn dispatch(cli: &Cli) -> Result<ExitStatus> {
    match &cli.command {
        Command::Compact(args) => compact::run(&cli.global, args),
        Command::Convert(args) => convert::run(&cli.global, args),
        Command::Decompress(args) => decompress::run(&cli.global, args),
        Command::Doctor(args) => doctor::run(&cli.global, args),
        Command::Export(args) => export::run(&cli.global, args),
        Command::ExtractSummary(args) => extract_summary::run(&cli.global, args),
        Command::Migrate(args) => migrate::run(&cli.global, args),
        Command::RebuildChain(args) => rebuild_chain::run(&cli.global, args),
        Command::Scan(args) => scan::run(&cli.global, args),
        Command::Search(args) => search::run(&cli.global, args),
        Command::Index(args) => index::run(&cli.global, args),
        Command::Slim(args) => slim::run(&cli.global, args),
        Command::Relocate(args) => relocate::run(&cli.global, args),
        Command::Completions(args) => completions::run(args),
        Command::GenerateMan { dir } => man::run(dir),
        Command::Backup(args) => backup::run(&cli.global, args),
        Command::Restore(args) => restore::run(&cli.global, args),
        Command::Hooks(args) => hooks::run(&cli.global, args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Merge(args) => merge::run(&cli.global, args),
    }
}

/// The inputs of a batch command: PATH arguments expanded, or the user's own stores when
/// there are none (saying on stderr which store asked for is absent). Also returns the inputs
/// named directly, whose problems are errors rather than files skipped while walking.
pub fn batch_inputs(
    paths: &[std::path::PathBuf],
    files: &crate::cli::FilesFromArgs,
    g: &crate::cli::GlobalArgs,
) -> Result<(crate::io::paths::Expanded, std::collections::HashSet<crate::io::Input>), error::Usage> {
    batch_inputs_writing(paths, files, g, &[])
}

/// [`batch_inputs`] of a command that writes into `outputs` (`-o DIR`, `--out-dir`): folders
/// walked for inputs never enter them.
pub fn batch_inputs_writing(
    paths: &[std::path::PathBuf],
    files: &crate::cli::FilesFromArgs,
    g: &crate::cli::GlobalArgs,
    outputs: &[std::path::PathBuf],
) -> Result<(crate::io::paths::Expanded, std::collections::HashSet<crate::io::Input>), error::Usage> {
    use crate::io::Input;
    // A list names the work exactly: an empty one (a part of a split with nothing in it) is
    // no work, never the user's own stores.
    let mut listed = Vec::new();
    if let Some(list) = &files.files_from {
        listed = crate::io::paths::read_list(list, files.null).map_err(|cause| error::Usage::ListUnreadable {
            list: list.clone(),
            cause,
        })?;
    }
    let arg_paths = paths;
    let given = [paths, &listed[..]].concat();
    let (paths, mut unresolved) = ids::resolve_all(&given);
    let paths = &paths;
    let roots = if given.is_empty() && files.files_from.is_some() {
        Vec::new()
    } else if given.is_empty() {
        default_roots(g)?
    } else {
        paths.to_vec()
    };
    // A backup archive, or a path below one, names the files the archive keeps.
    let mut archived = crate::io::paths::Expanded::default();
    let mut named_archived = Vec::new();
    let mut in_archive = std::collections::HashSet::new();
    for r in &roots {
        let Some(found) = crate::backup::named::resolve(r) else {
            continue;
        };
        in_archive.insert(r.clone());
        match found {
            Ok(n) => {
                for u in &n.unreadable {
                    archived.problems.push(crate::model::diag::Diagnostic::new(
                        n.archive.display().to_string(),
                        None,
                        crate::model::diag::Code::UnreadablePath,
                        crate::model::diag::Severity::Warning,
                        format!("a snapshot of the backup archive cannot be read, its files are not read: {u}"),
                    ));
                }
                let inputs = n.inputs();
                if !n.whole {
                    named_archived.extend(inputs.iter().cloned());
                }
                archived.inputs.extend(inputs);
            }
            Err(e) => archived.problems.push(crate::model::diag::Diagnostic::new(
                r.display().to_string(),
                None,
                crate::model::diag::Code::UnreadablePath,
                crate::model::diag::Severity::Error,
                e.to_string(),
            )),
        }
    }
    let roots: Vec<std::path::PathBuf> = roots.into_iter().filter(|r| !in_archive.contains(r)).collect();
    // Everything named on the command line that is not a folder is read for what it is: a
    // pipe, a device or a missing file is the user's input, and its problem an error, never a
    // file skipped. A file listed by --files-from is skipped when it is not a session, as
    // one found in a folder is: a survey's list names every file of a store.
    let on_command_line: std::collections::HashSet<&std::path::PathBuf> = arg_paths.iter().collect();
    let listed: std::collections::HashSet<&std::path::PathBuf> = listed.iter().collect();
    let only_listed = |p: &std::path::PathBuf| listed.contains(p) && !on_command_line.contains(p);
    let named = paths
        .iter()
        .filter(|p| !p.is_dir() && !in_archive.contains(*p) && !only_listed(p))
        .map(|p| {
            if p.as_os_str() == "-" {
                Input::Stdin
            } else {
                crate::io::member::input_of(p)
            }
        })
        .chain(named_archived)
        .collect();
    let mut expanded = crate::io::paths::expand_skipping(&roots, g.follow, outputs);
    expanded.listed = paths
        .iter()
        .filter(|p| !p.is_dir() && !in_archive.contains(*p) && only_listed(p))
        .map(|p| Input::Path(p.clone()))
        .collect();
    expanded.inputs.append(&mut archived.inputs);
    expanded.problems.append(&mut archived.problems);
    expanded.problems.append(&mut unresolved);
    Ok((expanded, named))
}

/// The user's own stores, read when no PATH is given (saying which store asked for is
/// absent).
fn default_roots(g: &crate::cli::GlobalArgs) -> Result<Vec<std::path::PathBuf>, error::Usage> {
    let stores = crate::io::paths::default_stores();
    let say = g.reporter();
    for n in &stores.notes {
        say.note(n);
    }
    if stores.found.is_empty() {
        return Err(error::Usage::NoStores {
            looked_in: stores.looked_in(),
        });
    }
    Ok(stores.found)
}

/// What a command that would write beside its input says of a file kept in a backup archive.
pub const ARCHIVED_NEEDS_OUTPUT: &str =
    "is a copy kept in a backup archive, which cctool never writes into: write the result with -o OUT";

/// The input a command that reads one file names: standard input (`-`), a file, one
/// session kept in a backup archive (`ARCHIVE/<session id>`), one session of an agent's
/// database (`FILE#ID`), or a session of the user's stores named by its id (see [`ids`]).
pub fn file_input(path: &std::path::Path) -> Result<crate::io::Input> {
    if path.as_os_str() == "-" {
        return Ok(crate::io::Input::Stdin);
    }
    match crate::backup::named::resolve(path) {
        None => match crate::io::member::input_of(&ids::session_path(path)?) {
            // A database is many sessions: which one is for the user to say.
            crate::io::Input::Path(p) if let Some(m) = crate::io::member::members_of(&p) => {
                Err(error::Usage::Container {
                    path: p,
                    n: m.sessions.len(),
                }
                .into())
            }
            input => Ok(input),
        },
        Some(found) => Ok(found?.single(path)?),
    }
}

/// The file a single-file command writes beside or in place of: the path `input` was read
/// from, or the argument itself for standard input and archived copies.
pub fn input_path(input: &crate::io::Input, arg: &std::path::Path) -> std::path::PathBuf {
    match input {
        crate::io::Input::Path(p) => p.clone(),
        crate::io::Input::Stdin | crate::io::Input::Archived(_) | crate::io::Input::Member(_) => arg.to_path_buf(),
    }
}

/// [`batch_inputs`] plus the subagent transcripts of the Claude Code sessions among them:
/// the inputs of `scan` and `doctor`, which must count the same files.
/// With `--files-from`, only the files listed: a subagent transcript added beside its session
/// would be read twice when the list, split in parts, names it in another part.
pub fn session_inputs(
    paths: &[std::path::PathBuf],
    files: &crate::cli::FilesFromArgs,
    g: &crate::cli::GlobalArgs,
) -> Result<(crate::io::paths::Expanded, std::collections::HashSet<crate::io::Input>), error::Usage> {
    session_inputs_writing(paths, files, g, &[])
}

/// [`session_inputs`] of a command that writes into `outputs` (`scan --rows --out-dir`).
pub fn session_inputs_writing(
    paths: &[std::path::PathBuf],
    files: &crate::cli::FilesFromArgs,
    g: &crate::cli::GlobalArgs,
    outputs: &[std::path::PathBuf],
) -> Result<(crate::io::paths::Expanded, std::collections::HashSet<crate::io::Input>), error::Usage> {
    let (mut expanded, named) = batch_inputs_writing(paths, files, g, outputs)?;
    if files.files_from.is_none() {
        crate::agents::claude_code::subagents::add_subagent_files(&mut expanded.inputs, g.follow);
    }
    Ok((expanded, named))
}

/// What a batch command got from one input.
pub enum FileOutcome<T> {
    Done(T),
    /// Found while walking a folder, and not a session (sidecars, indexes): skipped.
    NotSession(String),
    /// Unreadable, or not a session although named directly: an input error.
    Error(String),
}

impl<T> FileOutcome<T> {
    /// The diagnostic of an input that gave no result.
    pub fn problem(&self, input: &crate::io::Input) -> Option<crate::model::diag::Diagnostic> {
        use crate::model::diag::{Code, Diagnostic, Severity};
        match self {
            FileOutcome::Done(_) => None,
            FileOutcome::NotSession(why) => Some(Diagnostic::new(
                input.display_name(),
                None,
                Code::NotASession,
                Severity::Info,
                why.clone(),
            )),
            FileOutcome::Error(msg) => Some(Diagnostic::new(
                input.display_name(),
                None,
                Code::Unreadable,
                Severity::Error,
                msg.clone(),
            )),
        }
    }

    /// [`problem`](Self::problem), counted: an error (an unreadable file) in `errors`,
    /// anything else (not a session) in `skipped`.
    pub fn problem_counted(
        &self,
        input: &crate::io::Input,
        errors: &mut usize,
        skipped: &mut usize,
    ) -> Option<crate::model::diag::Diagnostic> {
        let d = self.problem(input)?;
        if d.severity == crate::model::diag::Severity::Error {
            *errors += 1;
        } else {
            *skipped += 1;
        }
        Some(d)
    }
}

/// Opens every input, decides its format and runs `work` on it, in parallel over files with
/// a progress bar; results come back in input order. A failure names the file.
pub fn each_session<T: Send, E: std::fmt::Display>(
    inputs: &[crate::io::Input],
    named: &std::collections::HashSet<crate::io::Input>,
    g: &crate::cli::GlobalArgs,
    what: &str,
    work: impl Fn(&crate::io::Source, crate::model::AgentId) -> Result<T, E> + Sync,
) -> Vec<FileOutcome<T>> {
    each_session_reading(inputs, named, g, what, crate::io::ReadMode::Whole, work)
}

/// [`each_session`], each file read as `mode` says (a search over every file reads through
/// buffers reused by each thread: see `io::source::ReadMode`).
pub fn each_session_reading<T: Send, E: std::fmt::Display>(
    inputs: &[crate::io::Input],
    named: &std::collections::HashSet<crate::io::Input>,
    g: &crate::cli::GlobalArgs,
    what: &str,
    mode: crate::io::ReadMode,
    work: impl Fn(&crate::io::Source, crate::model::AgentId) -> Result<T, E> + Sync,
) -> Vec<FileOutcome<T>> {
    use rayon::prelude::*;
    let bar = files_bar(what, inputs.len(), g.quiet);
    // Largest files first, each taken by the next free core: a large file started last would
    // leave the other cores idle at the end. Results come back in the order of `inputs`.
    let size = |input: &crate::io::Input| match input {
        crate::io::Input::Path(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
        crate::io::Input::Archived(s) => s.size,
        crate::io::Input::Member(m) => m.size,
        crate::io::Input::Stdin => 0,
    };
    let sizes: Vec<u64> = inputs.par_iter().map(size).collect();
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let mut done: Vec<(usize, FileOutcome<T>)> = order
        .into_iter()
        .par_bridge()
        .map(|i| {
            let input = &inputs[i];
            let named = named.contains(input);
            let o = match open_input_reading(input, g, named, mode) {
                Ok((src, format)) => {
                    // A panic of code that read a mapped page as it turned to zeros is the
                    // truncation's (see `io::mapguard::any_fault`); any other is a bug, and
                    // goes on up.
                    let job = std::panic::AssertUnwindSafe(|| work(&src, format));
                    let r = std::panic::catch_unwind(job);
                    // A file truncated under its mapping read as zeros somewhere: whatever
                    // `work` made of it (a result, another error, a panic) is not used.
                    match (src.check(), r) {
                        (Err(e), _) => FileOutcome::Error(format!("cannot read: {e}")),
                        (Ok(()), Err(panic)) => std::panic::resume_unwind(panic),
                        (Ok(()), Ok(Ok(v))) => FileOutcome::Done(v),
                        (Ok(()), Ok(Err(e))) => FileOutcome::Error(e.to_string()),
                    }
                }
                Err(e) if !named && e.is_not_session() => FileOutcome::NotSession(e.to_string()),
                Err(e) => FileOutcome::Error(e.to_string()),
            };
            bar.inc(1);
            (i, o)
        })
        .collect();
    bar.finish_and_clear();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, o)| o).collect()
}

/// Each diagnostic above `info` as the batch commands show it: a record on stdout with
/// `--json`, a line on stderr otherwise.
pub(crate) fn show_diagnostics(
    out: &mut crate::output::Out,
    say: &mut crate::output::report::Reporter,
    g: &crate::cli::GlobalArgs,
    diags: &[crate::model::diag::Diagnostic],
) -> std::io::Result<()> {
    for d in diags.iter().filter(|d| d.severity > crate::model::diag::Severity::Info) {
        if g.json {
            out.json(&record::Record::diagnostic(d))?;
        } else {
            say.diagnostic(d);
        }
    }
    Ok(())
}

/// `n` inputs read, `members` of them sessions of a database (`DB#ID`), as the closing lines
/// count them: files, sessions, or both.
pub(crate) fn inputs_read(n: usize, members: usize) -> String {
    let files = n - members.min(n);
    match (files, members) {
        (_, 0) => format!("{files} files"),
        (0, _) => format!("{members} sessions"),
        _ => format!("{files} files, {members} sessions"),
    }
}

/// The closing note of a batch run that skipped `n` files found that are not sessions.
pub fn skipped_note(n: usize) -> String {
    format!("{n} file{} skipped as not sessions", if n == 1 { "" } else { "s" })
}

/// A progress bar counting files, shown only on a terminal for runs long enough to need it.
pub fn files_bar(what: &str, n: usize, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || n < 50 || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(n as u64), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!("{what} {{wide_bar}} {{pos}}/{{len}} files ({{eta}})"))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// A cctool session file read whole, validated and migrated to the latest version in memory.
pub fn read_session(src: &crate::io::Source) -> crate::error::Result<crate::v5::schema::Session> {
    crate::v5::schema::read_source(src)
}

/// Why an input gave no session.
#[derive(Debug, thiserror::Error)]
pub enum NoSession {
    /// It could not be opened or read.
    #[error("cannot read: {0}")]
    Unreadable(std::io::Error),
    /// Found inside a folder, and not a file that can be a session (a FIFO, a socket, a
    /// device): what opening it said.
    #[error("{0}")]
    NotAFile(std::io::Error),
    /// `--input-format` names one format and the content reads as another: read as said, it
    /// would be read as empty.
    #[error(
        "--input-format {}, but the content reads as {}: drop --input-format, or give --input-format {}",
        .said.name(),
        .seen.name(),
        .seen.name()
    )]
    FormatContradicted {
        said: crate::model::AgentId,
        seen: crate::model::AgentId,
    },
    /// Its content is of no format cctool reads.
    #[error("{}", undetected(.0))]
    Undetected(crate::agents::detect::Undetected),
}

impl NoSession {
    /// Whether the input was read and is not a session (skipped when found in a folder), not
    /// one that could not be read.
    pub fn is_not_session(&self) -> bool {
        !matches!(self, NoSession::Unreadable(_))
    }
}

/// What the content looks like, and, where it could be one of cctool's formats, that
/// `--input-format` is advice only for such content.
fn undetected(u: &crate::agents::detect::Undetected) -> String {
    match u.1.plausible() {
        true => format!(
            "{} ({}); if it is a {}, say which with --input-format",
            u.1.describe(),
            u.0,
            crate::agents::detect::one_of(crate::agents::registry().agents())
        ),
        false => format!("{}: {}", u.1.describe(), u.0),
    }
}

/// Opens an input and decides its format (`--input-format` wins over detection). The error
/// is a sentence naming the file and what to do.
pub fn open_session(
    input: &crate::io::Input,
    g: &crate::cli::GlobalArgs,
) -> Result<(crate::io::Source, crate::model::AgentId)> {
    Ok(open_input(input, g, true)?)
}

/// [`open_session`] for an input named by the user (`named`) or found inside a folder, where
/// only regular files are opened.
pub fn open_input(
    input: &crate::io::Input,
    g: &crate::cli::GlobalArgs,
    named: bool,
) -> Result<(crate::io::Source, crate::model::AgentId), NoSession> {
    open_input_reading(input, g, named, crate::io::ReadMode::Whole)
}

/// [`open_input`], the file to be read as `mode` says.
pub fn open_input_reading(
    input: &crate::io::Input,
    g: &crate::cli::GlobalArgs,
    named: bool,
    mode: crate::io::ReadMode,
) -> Result<(crate::io::Source, crate::model::AgentId), NoSession> {
    use crate::io::Source;
    let opened = match named {
        true => Source::open_reading(input, g.mmap, mode),
        false => Source::open_found_reading(input, g.mmap, mode),
    };
    let src = match opened {
        Ok(src) => src,
        // A FIFO, socket or device met inside a folder is not a session file; anything
        // else that cannot be opened (permissions, I/O) is an error the user must see.
        Err(e) if !named && e.kind() == std::io::ErrorKind::InvalidInput => {
            return Err(NoSession::NotAFile(e));
        }
        Err(e) => return Err(NoSession::Unreadable(e)),
    };
    let detected = crate::agents::detect::detect(&src);
    let format = match (g.input_format, detected) {
        // Said, and the content is another format's: read as said, it would be read as empty.
        (Some(said), Ok(seen)) if seen != said => Err(NoSession::FormatContradicted { said, seen }),
        (Some(said), _) => Ok(said),
        (None, detected) => detected.map_err(NoSession::Undetected),
    };
    // Detection reads the head of a mapping: a truncation there is the answer, not the
    // verdict made of zeros.
    src.check().map_err(NoSession::Unreadable)?;
    Ok((src, format?))
}
