//! `cctool convert --to FORMAT FILE`: arguments, where the conversion goes, the report, the
//! exit status. What is read and written is `crate::convert` and each agent's `convert.rs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Error as JobError;
use super::error::{FormatRefusal, Refusal};
use crate::ExitStatus;
use crate::agents::Converter;
use crate::cli::{ConvertArgs, GlobalArgs};
use crate::convert::WriteOptions;
use crate::convert::incremental::{Against, Plan, Step};
use crate::convert::model::Counts;
use crate::convert::store::StoreError;
use crate::convert::stream::Lines;
use crate::error::Error as CoreError;
use crate::io::Input;
use crate::io::atomic::{
    Ending, HeldOpen, Seen, extend_until, refusal, write_new_file_by, write_new_file_until, write_stdout,
    write_stdout_until,
};
use crate::model::AgentId;
use crate::output::Out;
use crate::output::sanitize::escape_str;

/// The `--json` record of a conversion.
#[derive(Serialize, Default)]
pub struct Report {
    file: String,
    from: String,
    to: String,
    output: String,
    session_id: Option<String>,
    full: bool,
    /// What became of the output; none when nothing was converted.
    written: Option<Written>,
    lines_written: u64,
    carried: Option<Counts>,
    mapped: Option<BTreeMap<String, u64>>,
    dropped: Option<BTreeMap<String, u64>>,
    tokens: Option<u64>,
    /// Calls the source left unanswered, closed with an `aborted` result.
    closed: Option<u64>,
    /// The command that resumes the session placed with `--into-store`.
    resume: Option<String>,
    /// The thread Codex's own importer already made of the source (nothing written).
    imported_by_codex: Option<String>,
    /// With `--into-store` to Codex: what registering the rollout in Codex's thread index did
    /// (`added`, `updated`, `unchanged`, `no-database`), so that `codex resume` lists it.
    registered: Option<&'static str>,
    error: Option<String>,
}

/// What became of a conversion's output, as the `--json` record's `written` says it.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum Written {
    /// A new file, or standard output.
    New,
    /// An earlier conversion, extended by the lines it lacked.
    Appended,
    /// An earlier conversion that had every line: nothing written.
    UpToDate,
    /// A file that was not an earlier conversion, replaced (`--force`).
    Replaced,
    /// Nothing written: the target agent's own importer already made a session of the source.
    ImportedByCodex,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Written::New => "new",
            Written::Appended => "appended",
            Written::UpToDate => "up-to-date",
            Written::Replaced => "replaced",
            Written::ImportedByCodex => "imported-by-codex",
        })
    }
}

pub fn run(g: &GlobalArgs, a: &ConvertArgs) -> super::Result<ExitStatus> {
    let mut r = Report {
        file: a.file.display().to_string(),
        to: {
            let to = a.to;
            crate::agents::agent(to).import_target().unwrap_or(to.name()).into()
        },
        output: a
            .output
            .as_ref()
            .map_or_else(|| "-".into(), |p| p.display().to_string()),
        full: a.full,
        ..Report::default()
    };
    let mut say = g.reporter();
    match convert(g, a, &mut r) {
        // A reader that closed the pipe wanted no more: nothing to report (`convert F | head`).
        Err(ConvertError::StdoutClosed) => return Ok(say.status()),
        Err(e) => {
            r.error = Some(e.to_string());
            say.merge(ExitStatus::Error);
        }
        Ok(()) => {}
    }
    let mut out = Out::new(g.color);
    if g.json {
        out.json(&super::record::Record::Conversion(&r))?;
    } else if let Some(e) = &r.error {
        say.fatal_for(&r.file, e);
    } else {
        // What was done, then its details, indented.
        for line in describe(&r).lines() {
            match line.strip_prefix("  ") {
                Some(detail) => say.detail(detail),
                None => say.note(line),
            }
        }
        // The command that resumes a placed session is what --into-store is run for: data.
        if let Some(c) = &r.resume {
            out.text(&format!("{}\n", escape_str(c)))?;
        }
    }
    Ok(say.status())
}

fn to_stdout(a: &ConvertArgs) -> Option<&Path> {
    a.output.as_deref().filter(|p| p.as_os_str() != "-")
}

fn convert(g: &GlobalArgs, a: &ConvertArgs, r: &mut Report) -> Result<(), ConvertError> {
    let input = super::file_input(&a.file)?;
    // A session named by its id is reported by the file read.
    r.file = super::input_path(&input, &a.file).display().to_string();
    let (src, format) = super::open_session(&input, g)?;
    r.from = format.name().to_string();
    let out = to_stdout(a).map(Path::to_path_buf);
    if g.json && out.is_none() && !a.into_store {
        return Err(JobError::from(Refusal::ConvertJsonOnStdout).into());
    }
    if let (Some(o), Input::Path(i)) = (&out, &input)
        && crate::io::paths::same_file(o, i)
    {
        return Err(JobError::from(Refusal::ReplacesInput).into());
    }
    let to = a.to;
    if crate::agents::agent(to).import_target().is_some() {
        if a.into_store {
            return Err(JobError::from(Refusal::CctoolIntoStore).into());
        }
        return to_import(&src, format, a, out.as_deref(), r);
    }
    if format == to
        && let Some(c) = crate::agents::agent(to).converter()
    {
        return Err(ConvertError::AlreadyTarget {
            noun: c.noun(),
            name: to.name(),
        });
    }
    let side = |f: AgentId| {
        crate::agents::agent(f)
            .converter()
            .ok_or_else(|| JobError::from(Refusal::from(FormatRefusal::Convert(f))))
    };
    let (from, into) = (side(format)?, side(to)?);
    // The reader streams on its own thread; the lines are written as they come.
    let run = |r: &mut Report, replace: bool| {
        std::thread::scope(|scope| {
            let (tx, rx) = crate::convert::stream::channel();
            let reader = scope.spawn(|| {
                crate::convert::stream::send_all(tx, |sink| {
                    let c = from.read(&src, a.full, into.needs_answered(), sink)?;
                    src.check()?;
                    Ok(c)
                })
            });
            let done = match crate::convert::stream::head(&rx) {
                Some(head) => write_conversion(a, r, &input, out.clone(), to, into, head, rx, replace),
                None => Ok(()),
            };
            let read = reader
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other(ReaderPanicked)));
            match (done, read) {
                // The reader's own error says why the lines stopped short.
                (_, Err(e)) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CoreError::Read(e).into()),
                // A write that stopped early (refused, or nothing to write) stops the reader.
                (Err(e), _) => Err(e),
                (Ok(()), _) => Ok(()),
            }
        })
    };
    match run(r, false) {
        // The target is not an earlier conversion, and --force replaces it: converted again,
        // every line written.
        Err(ConvertError::Replace) => run(r, true),
        done => done,
    }
}

/// Why a conversion stopped without the file asked for.
#[derive(Debug, thiserror::Error)]
enum ConvertError {
    #[error(transparent)]
    Job(#[from] JobError),
    /// An error of the core (reading, writing), as a job's.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The reader stopped before the source's end; its own error, when it has one, is
    /// reported instead.
    #[error("cannot read the source to its end")]
    SourceCutShort,
    /// The reader of standard output closed it: the conversion stops there, and nothing is
    /// reported (never shown).
    #[error("standard output was closed")]
    StdoutClosed,
    /// Codex's import ledger cannot be read.
    #[error("{0}")]
    Ledger(Box<dyn std::error::Error + Send + Sync>),
    /// Not reported: the target is not an earlier conversion and `--force` replaces it, so
    /// the conversion runs again from its start, every line written.
    #[error("the target is replaced by a conversion from the start")]
    Replace,
    /// The source is already in the target's format: converting it again would write it
    /// anew from the conversation both agents share, leaving out its reasoning and events.
    #[error(
        "the file is already {noun}: convert --to {name} takes the other agent's sessions, and converting this one again would drop its reasoning"
    )]
    AlreadyTarget {
        /// What the file is called (`a Codex rollout`).
        noun: &'static str,
        /// The format's name, as `--to` takes it.
        name: &'static str,
    },
}

/// A failed write to standard output: a closed pipe ends the conversion quietly.
fn stdout_error(e: std::io::Error) -> ConvertError {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => ConvertError::StdoutClosed,
        _ => CoreError::Io(e).about("cannot write standard output").into(),
    }
}

/// Why a write into the temporary file stopped without a new file.
enum Stop {
    UpToDate,
    Differs(u64),
    /// The source could not be read to its end.
    Read,
}

/// Whether a write into the temporary file went to its end, or stopped without a new file
/// (nothing renamed into place), and why.
type Flow = Ending<Stop>;

/// The reader's thread panicked.
#[derive(Debug, thiserror::Error)]
#[error("the reader panicked")]
struct ReaderPanicked;

/// The next line of the conversion, or the stop of a source that could not be read to its end.
fn next_line(lines: &mut Lines<'_>) -> Result<Option<Vec<u8>>, Stop> {
    lines.next_line().map_err(|_| Stop::Read)
}

/// Writes the conversion whose head the reader sent, pulling its lines from `rx`, to standard
/// output, a new file, a file an earlier conversion wrote, or a place in the target's store.
#[allow(clippy::too_many_arguments)]
fn write_conversion(
    a: &ConvertArgs,
    r: &mut Report,
    input: &Input,
    out: Option<PathBuf>,
    to: AgentId,
    into: &dyn Converter,
    head: crate::convert::model::Conversation,
    rx: std::sync::mpsc::Receiver<crate::convert::model::Msg>,
    replace: bool,
) -> Result<(), ConvertError> {
    let session_id = target_session_id(&head, to, a.full);
    let opts = write_options(a, &head, to, into, session_id.clone());
    let answered = head.answered.clone().unwrap_or_default();
    let make = into.writer();
    let o = opts.clone();
    let mut lines = Lines::new(
        rx,
        a.reasoning_as_text,
        Box::new(move |first, out| make(&o, first, answered, out)),
    );
    r.session_id = Some(session_id);
    let out = match a.into_store {
        false => out,
        true => match place(a, r, input, into, &opts, &mut lines)? {
            Some(path) => Some(path),
            None => return Ok(()),
        },
    };
    match out {
        None => write_to_stdout(r, &mut lines),
        Some(path) => write_to_file(a, r, into, &path, &mut lines, replace),
    }
}

/// What the target's writer is told: the session's id, folder and model, and whose tools the
/// calls are in.
fn write_options(
    a: &ConvertArgs,
    head: &crate::convert::model::Conversation,
    to: AgentId,
    into: &dyn Converter,
    session_id: String,
) -> WriteOptions {
    let cwd = head
        .cwd
        .clone()
        .unwrap_or_else(|| std::env::current_dir().map_or_else(|_| "/".into(), |d| d.display().to_string()));
    WriteOptions {
        session_id,
        cwd,
        model: a.model.clone().or_else(|| {
            (head.source == Some(to) || into.keeps_foreign_model())
                .then(|| head.model.clone())
                .flatten()
        }),
        reasoning_as_text: a.reasoning_as_text,
        // The calls are read through the tools of the agent that wrote them.
        tools: head
            .source
            .and_then(|f| crate::agents::agent(f).tools())
            .unwrap_or(&crate::convert::tools::Verbatim),
    }
}

/// The path in the target's store the conversion goes to, its folder made; `None` when the
/// store's own client imported it instead, which is then the whole of the write.
fn place(
    a: &ConvertArgs,
    r: &mut Report,
    input: &Input,
    into: &dyn Converter,
    opts: &WriteOptions,
    lines: &mut Lines<'_>,
) -> Result<Option<PathBuf>, ConvertError> {
    // The rollout's path holds its start, the time on its first line.
    let first = lines.next_line().map_err(CoreError::Read)?;
    let source = match input {
        Input::Path(p) => Some(p.as_path()),
        _ => None,
    };
    let placed = into
        .place(first.as_deref(), opts, source, a.force)
        .map_err(|e| match e {
            StoreError::NoStore(why) => ConvertError::Job(JobError::from(Refusal::NoStore(why))),
            StoreError::Ledger(e) => ConvertError::Ledger(e),
        })?;
    let path = placed.path;
    if let Some(l) = first {
        lines.unread(l);
    }
    r.resume = Some(placed.resume);
    if let Some(imported) = placed.imported {
        r.resume = Some(imported.resume);
        r.imported_by_codex = Some(imported.id);
        r.written = Some(Written::ImportedByCodex);
        return Ok(None);
    }
    r.output = path.display().to_string();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| CoreError::Io(e).about(format!("cannot create {}", parent.display())))?;
    }
    Ok(Some(path))
}

/// What the conversion carried, mapped and dropped, into the report once its lines are read.
fn finish(r: &mut Report, lines: &mut Lines<'_>) {
    let conv = lines.conversation().unwrap_or_default();
    r.carried = Some(lines.counts.clone());
    r.mapped = Some(lines.tally.mapped.clone());
    let mut dropped = conv.dropped.clone();
    for (k, n) in &lines.tally.dropped {
        *dropped.entry(k.clone()).or_insert(0) += n;
    }
    r.dropped = Some(dropped);
    r.tokens = Some(lines.tally.tokens);
    r.closed = Some(lines.tally.closed);
}

/// Writes every line to standard output.
fn write_to_stdout(r: &mut Report, lines: &mut Lines<'_>) -> Result<(), ConvertError> {
    let mut n = 0;
    if let Ending::GaveUp(_) = write_stdout_until(|w| write_all(w, lines, &mut n)).map_err(stdout_error)? {
        return Err(ConvertError::SourceCutShort);
    }
    finish(r, lines);
    r.written = Some(Written::New);
    r.lines_written = n;
    Ok(())
}

/// The file already at the target, unless it is to be replaced: when it was last seen and
/// the lines it holds, to compare the conversion against.
fn existing(path: &Path, replace: bool, into: &dyn Converter) -> Result<Option<(Seen, Against)>, ConvertError> {
    Ok(match std::fs::metadata(path) {
        Ok(m) if m.is_file() && !replace => Some(
            std::fs::File::open(path)
                .and_then(|f| {
                    // Taken before the length the comparison keeps: a line appended between
                    // the two changes the time, and the re-check before the rename sees it.
                    let modified = f.metadata()?.modified().ok();
                    let old = Against::open(f, into.passable())?;
                    Ok((Seen { len: old.len, modified }, old))
                })
                .map_err(|e| CoreError::Io(e).about(format!("cannot read the existing {}", path.display())))?,
        ),
        _ => None,
    })
}

/// Writes the conversion to `path`: a new file, or the lines an earlier conversion there lacks.
fn write_to_file(
    a: &ConvertArgs,
    r: &mut Report,
    into: &dyn Converter,
    path: &Path,
    lines: &mut Lines<'_>,
    replace: bool,
) -> Result<(), ConvertError> {
    let existing = existing(path, replace, into)?;
    let mut n = 0;
    let written = match existing {
        None => write_new_file_until(path, true, |w| write_all(w, lines, &mut n))
            .map(|end| (end, if replace { Written::Replaced } else { Written::New })),
        Some((seen, mut old)) => {
            let keep = std::fs::File::open(path)
                .map_err(|e| CoreError::Io(e).about(format!("cannot read the existing {}", path.display())))?;
            // What the target's agent appends while the conversion runs would be lost to the
            // rename: the target is re-checked under a lock right before it.
            extend_until(path, seen, a.force, |w| append(w, lines, &mut old, &keep, &mut n))
                .map(|end| (end, Written::Appended))
        }
    };
    let how = match written {
        Ok((Ending::Kept, how)) => how,
        Ok((Ending::GaveUp(stop), _)) => return stopped(a, r, into, path, lines, stop),
        Err(e) => return Err(write_failed(path, e)),
    };
    finish(r, lines);
    r.written = Some(how);
    r.lines_written = n;
    if a.into_store {
        register(into, path, r);
    }
    Ok(())
}

/// What a write that the conversion's lines stopped comes to: their stop says why (an earlier
/// conversion up to date is no failure).
fn stopped(
    a: &ConvertArgs,
    r: &mut Report,
    into: &dyn Converter,
    path: &Path,
    lines: &mut Lines<'_>,
    stop: Stop,
) -> Result<(), ConvertError> {
    match stop {
        Stop::UpToDate => {
            finish(r, lines);
            r.written = Some(Written::UpToDate);
            // A run killed between its rename and the registration left the rollout in
            // place without its row: registering is idempotent, so it is done again.
            if a.into_store {
                register(into, path, r);
            }
            Ok(())
        }
        // Replaced: the conversion again from its start, every line written.
        Stop::Differs(_) if a.force => Err(ConvertError::Replace),
        Stop::Differs(l) => Err(JobError::from(Refusal::NotAnEarlierConversion {
            path: path.to_path_buf(),
            line: l,
        })
        .into()),
        Stop::Read => Err(ConvertError::SourceCutShort),
    }
}

/// A write to `path` that failed with `e`: refused (the target changed, is locked or held
/// open), or an error of the disk.
fn write_failed(path: &Path, e: std::io::Error) -> ConvertError {
    if refusal(&e).is_some() || e.get_ref().is_some_and(|r| r.is::<HeldOpen>()) {
        crate::error::rewrite_failed(e).about(path.display().to_string()).into()
    } else {
        CoreError::Io(e)
            .about(format!("cannot write {}", path.display()))
            .into()
    }
}

/// The target's session id: a UUID derived from the source session, the target format and
/// what is carried, so converting again names the same session.
fn target_session_id(c: &crate::convert::model::Conversation, to: crate::model::AgentId, full: bool) -> String {
    let from = c.source.map_or("", |f| f.name());
    let scope = if full { "full" } else { "resumed" };
    crate::compact::ids::uuid(&["cctool-convert", from, &c.session_id, to.name(), scope])
}

/// Every line of the conversion, each with its newline; `n` counts them.
fn write_all(w: &mut dyn Write, lines: &mut Lines<'_>, n: &mut u64) -> std::io::Result<Flow> {
    loop {
        let l = match next_line(lines) {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(Ending::Kept),
            Err(s) => return Ok(Ending::GaveUp(s)),
        };
        w.write_all(&l)?;
        w.write_all(b"\n")?;
        *n += 1;
    }
}

/// The existing target `keep`, then the lines of the conversion it does not have yet
/// (`old` compares them); stops without a file when there are none or the target differs.
fn append(
    w: &mut crate::io::atomic::Output,
    lines: &mut Lines<'_>,
    old: &mut Against,
    keep: &std::fs::File,
    n: &mut u64,
) -> std::io::Result<Flow> {
    let mut kept = false;
    loop {
        let l = match next_line(lines) {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(s) => return Ok(Ending::GaveUp(s)),
        };
        match old.next(&l)? {
            Step::Same => {}
            Step::Differs(at) => return Ok(Ending::GaveUp(Stop::Differs(at))),
            Step::New => {
                if !kept {
                    w.copy_from(keep, old.len)?;
                    kept = true;
                }
                w.write_all(&l)?;
                w.write_all(b"\n")?;
                *n += 1;
            }
        }
    }
    match old.end()? {
        None => {
            if !kept {
                w.copy_from(keep, old.len)?;
            }
            Ok(Ending::Kept)
        }
        Some(Plan::Differs(at)) => Ok(Ending::GaveUp(Stop::Differs(at))),
        Some(_) => Ok(Ending::GaveUp(Stop::UpToDate)),
    }
}

/// Registers a session placed in the target's store in the agent's index, when it keeps one.
fn register(into: &dyn Converter, path: &Path, r: &mut Report) {
    if let Some(done) = into.register(path, r.resume.as_deref()) {
        r.registered = Some(done);
    }
}

/// `--to cctool`: the import `migrate` writes, effective unless `--full`.
fn to_import(
    src: &crate::io::Source,
    format: AgentId,
    a: &ConvertArgs,
    out: Option<&Path>,
    r: &mut Report,
) -> Result<(), ConvertError> {
    let Some(import) = crate::agents::agent(format).import() else {
        return Err(JobError::from(Refusal::from(FormatRefusal::AlreadyCctool)).into());
    };
    let effective = !a.full;
    match out {
        None => write_stdout(|w| import(src, effective, w)).map_err(stdout_error)?,
        Some(p) => {
            if !a.force && crate::io::atomic::occupied(p) {
                return Err(CoreError::exists(p).into());
            }
            write_new_file_by(p, a.force, |w| import(src, effective, w))
                .map_err(|e| CoreError::Io(e).about(format!("cannot write {}", p.display())))?
        }
    }
    r.written = Some(Written::New);
    Ok(())
}

/// `n` and the noun, in the plural unless one.
fn counted(n: impl Into<u64>, what: &str) -> String {
    let n = n.into();
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The report on stderr: what was done, then its details, each indented by two spaces.
fn describe(r: &Report) -> String {
    let mut s = match r.written {
        Some(Written::UpToDate) => format!("{} is up to date with {}: nothing written\n", r.output, r.file),
        Some(_) if r.carried.is_none() => format!("{} → {}: imported as a v5 session\n", r.file, r.output),
        Some(how) => format!(
            "{} → {} ({}{}): {how}, {} lines\n",
            r.file,
            r.output,
            r.to,
            r.session_id
                .as_deref()
                .map(|s| format!(", session {s}"))
                .unwrap_or_default(),
            r.lines_written
        ),
        None => String::new(),
    };
    let list = |m: &BTreeMap<String, u64>| m.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ");
    if let Some(c) = &r.carried {
        let mut carried: Vec<String> = [
            (c.user_texts, "user text"),
            (c.assistant_texts, "assistant text"),
            (c.tool_calls, "tool call"),
            (c.tool_results, "tool result"),
            (c.images, "image"),
            (c.compactions, "compaction"),
        ]
        .into_iter()
        .map(|(n, what)| counted(n, what))
        .collect();
        if c.reasoning_as_text > 0 {
            carried.push(format!("{} as text", counted(c.reasoning_as_text, "reasoning block")));
        }
        s.push_str(&format!("  carried: {}\n", carried.join(", ")));
    }
    if let Some(m) = r.mapped.as_ref().filter(|m| !m.is_empty()) {
        s.push_str(&format!("  mapped: {}\n", list(m)));
    }
    if let Some(m) = r.dropped.as_ref().filter(|m| !m.is_empty()) {
        s.push_str(&format!("  left out: {}\n", list(m)));
    }
    if let Some(n) = r.closed.filter(|&n| n > 0) {
        s.push_str(&format!(
            "  closed: {n} calls the source left unanswered, with an aborted result\n"
        ));
    }
    if let Some(t) = r.tokens {
        s.push_str(&format!("  tokens the target receives on resume: ~{t}\n"));
    }
    if let Some(t) = &r.imported_by_codex {
        s.push_str(&format!(
            "{}: Codex already imported this transcript as thread {t}; nothing written (--force converts it anyway)\n",
            r.file
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::Written;

    /// The sentence on stderr and the `--json` record name what was written the same way.
    #[test]
    fn written_reads_the_same_in_the_record_and_the_sentence() {
        for w in [
            Written::New,
            Written::Appended,
            Written::UpToDate,
            Written::Replaced,
            Written::ImportedByCodex,
        ] {
            assert_eq!(serde_json::to_value(w).unwrap(), serde_json::json!(w.to_string()));
        }
    }
}
