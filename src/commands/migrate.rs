//! `cctool migrate --to vN PATH...`: the schema chain in place, and imports into v5.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::Error;
use super::error::{Refusal, Usage};
use crate::ExitStatus;
use crate::cli::{GlobalArgs, MigrateArgs};
use crate::error::Error as CoreError;
use crate::io::Input;
use crate::io::Source;
use crate::io::atomic::{InPlace, Output, Seen, replace_with_backup_by, write_new_file_by, write_stdout};
use crate::io::paths::{beside, same_file};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::v5::schema as migrate;

/// What happened to one file.
#[derive(Serialize, Debug, Default)]
pub struct Migration {
    pub file: String,
    /// The schema version it had (`v1`…), or the native format it was imported from.
    pub from: Option<String>,
    /// The schema version written, as `from` names versions (`v5`).
    pub to: String,
    pub changed: bool,
    pub backup: Option<String>,
    pub output: Option<String>,
    /// Why a file was left alone although it could have been changed.
    pub note: Option<String>,
    pub error: Option<String>,
    /// Found in a folder or a list and not a session: what it looks like. Reported as a
    /// `not-a-session` diagnostic, not as a migration.
    #[serde(skip)]
    pub skipped: Option<String>,
}

/// Where `-o` sends what is written.
#[derive(Clone, Debug)]
enum Dest {
    /// No `-o`: session files in place, a native file named directly beside itself.
    Default,
    Stdout,
    File(PathBuf),
    /// A folder: each output at the input's path under the folder named (or its name).
    Dir(PathBuf),
}

/// One input, and where its output would go if it writes one.
struct Job {
    input: Input,
    /// Named on the command line, not found by walking a folder.
    named: bool,
    /// Listed by `--files-from`: imported beside itself like a named file.
    listed: bool,
    /// The file an import (or, with `-o`, a migration) writes; `None` for standard output.
    planned: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, a: &MigrateArgs) -> super::Result<ExitStatus> {
    let outputs: Vec<std::path::PathBuf> = a.output.iter().cloned().collect();
    let (expanded, named_inputs) = super::batch_inputs_writing(&a.paths, &a.files, g, &outputs)?;
    // Backups, our own outputs and temporary files found while walking a folder are not
    // inputs; one file reached twice (a link beside its target) is migrated once.
    let mut seen = std::collections::HashSet::new();
    let inputs: Vec<Input> = expanded
        .inputs
        .into_iter()
        .filter(|i| match i {
            Input::Path(p) => {
                let n = p.to_string_lossy();
                // A `.v5.json` found is a session like any other: `--check` says whether it
                // is current, and a damaged one is reported.
                let ours = n.ends_with(".bak") || n.ends_with(".tmp");
                (!ours || named_inputs.contains(&Input::Path(p.clone())))
                    && seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone()))
            }
            Input::Stdin | Input::Archived(_) | Input::Member(_) => true,
        })
        .collect();
    let dest = destination(a, &inputs)?;
    let jobs: Vec<Job> = inputs
        .into_iter()
        .map(|input| {
            let named = match &input {
                Input::Path(p) => named_inputs.contains(&Input::Path(p.clone())),
                Input::Archived(_) | Input::Member(_) => named_inputs.contains(&input),
                Input::Stdin => true,
            };
            let planned = planned_output(&dest, &input, &a.paths);
            let listed = expanded.listed.contains(&input);
            Job {
                input,
                named,
                listed,
                planned,
            }
        })
        .collect();
    // Jobs that would write the same file run one after the other, in input order, so the
    // first one writes it and the others are told so; the rest run in parallel.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<PathBuf, usize> = HashMap::new();
    for (i, j) in jobs.iter().enumerate() {
        match j.planned.as_ref().and_then(|p| group_of.get(p)) {
            Some(&k) => groups[k].push(i),
            None => {
                if let Some(p) = &j.planned {
                    group_of.insert(p.clone(), groups.len());
                }
                groups.push(vec![i]);
            }
        }
    }
    let bar = super::files_bar("migrate", jobs.len(), g.quiet);
    let mut results: Vec<(usize, Migration)> = groups
        .par_iter()
        .flat_map_iter(|group| {
            let mut written_by: Option<String> = None;
            group
                .iter()
                .map(|&i| {
                    let r = one(&jobs[i], &dest, g, a, &mut written_by);
                    bar.inc(1);
                    (i, r)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    bar.finish_and_clear();
    results.sort_unstable_by_key(|(i, _)| *i);
    report(
        g,
        a,
        &dest,
        &expanded.problems,
        results.into_iter().map(|(_, r)| r).collect(),
    )
}

fn report(
    g: &GlobalArgs,
    a: &MigrateArgs,
    dest: &Dest,
    problems: &[crate::model::diag::Diagnostic],
    results: Vec<Migration>,
) -> super::Result<ExitStatus> {
    // With `-o -` standard output carries the document; the report goes to stderr.
    let to_stderr = matches!(dest, Dest::Stdout);
    let mut out = Out::new(g.color);
    let mut say = g.reporter();
    for d in problems {
        if d.severity == crate::model::diag::Severity::Error {
            say.merge(ExitStatus::Error);
        }
        say.diagnostic(d);
    }
    let mut not_imported = 0;
    let mut skipped = 0;
    for r in &results {
        if let Some(why) = &r.skipped {
            skipped += 1;
            let d = crate::model::diag::Diagnostic::new(
                r.file.clone(),
                None,
                crate::model::diag::Code::NotASession,
                crate::model::diag::Severity::Info,
                why.clone(),
            );
            match (g.json, to_stderr) {
                (true, true) => say.record(&super::record::Record::diagnostic(&d))?,
                (true, false) => out.json(&super::record::Record::diagnostic(&d))?,
                (false, _) => say.diagnostic(&d),
            }
            continue;
        }
        if r.changed && a.dry_run {
            say.merge(ExitStatus::Negative);
        }
        if g.json {
            if r.error.is_some() {
                say.merge(ExitStatus::Error);
            }
            match to_stderr {
                true => say.record(&super::record::Record::Migration(r))?,
                false => out.json(&super::record::Record::Migration(r))?,
            }
        } else if let Some(e) = &r.error {
            say.file_error(&r.file, e);
        } else if r.note.is_some() {
            not_imported += 1;
        } else if to_stderr {
            say.note(&describe(r, a.dry_run));
        } else {
            out.text(&format!("{}\n", escape_str(&describe(r, a.dry_run))))?;
        }
    }
    out.flush()?;
    if skipped > 0 && !g.json {
        say.note(&super::skipped_note(skipped));
    }
    if not_imported > 0 {
        say.note(&format!(
            "{not_imported} Claude Code or Codex file{} found in a folder not imported: imports of a folder \
             go to an output folder you name (-o DIR), never beside the agent's own files",
            if not_imported == 1 { "" } else { "s" }
        ));
    }
    say.swept();
    Ok(say.status())
}

/// What `-o` means here: a file for one input file, a folder for a folder or several inputs
/// (or a folder that exists), standard output for `-`.
fn destination(a: &MigrateArgs, inputs: &[Input]) -> Result<Dest, Usage> {
    let Some(o) = &a.output else {
        return Ok(Dest::Default);
    };
    let folder_input = a.paths.iter().any(|p| p.is_dir());
    if o.as_os_str() == "-" {
        if inputs.len() != 1 || folder_input {
            return Err(Usage::OneDocumentToStdout);
        }
        return Ok(Dest::Stdout);
    }
    let wants_dir = o.is_dir() || o.as_os_str().to_string_lossy().ends_with('/') || folder_input || inputs.len() > 1;
    if !wants_dir {
        return Ok(Dest::File(o.clone()));
    }
    if o.exists() && !o.is_dir() {
        return Err(Usage::OutputNotAFolder { output: o.clone() });
    }
    Ok(Dest::Dir(o.clone()))
}

/// The file an input's import (or, with `-o`, its migration) is written to.
fn planned_output(dest: &Dest, input: &Input, roots: &[PathBuf]) -> Option<PathBuf> {
    let p = match (input, dest) {
        (Input::Path(p), _) => p,
        (Input::Archived(s), Dest::Dir(d)) => return Some(beside(&d.join(&s.rel), "v5.json")),
        (Input::Member(m), Dest::Dir(d)) => return Some(d.join(format!("{}.v5.json", m.id))),
        _ => {
            return match dest {
                Dest::File(o) => Some(o.clone()),
                _ => None,
            };
        }
    };
    match dest {
        Dest::Default => Some(beside(p, "v5.json")),
        Dest::Stdout => None,
        Dest::File(o) => Some(o.clone()),
        Dest::Dir(d) => {
            // Found under a folder named: the same place under the output folder.
            let rel = roots
                .iter()
                .filter(|r| r.is_dir())
                .find_map(|r| p.strip_prefix(r).ok())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| p.file_name().map(PathBuf::from).unwrap_or_default());
            Some(beside(&d.join(rel), "v5.json"))
        }
    }
}

fn describe(r: &Migration, dry_run: bool) -> String {
    let from = r.from.as_deref().unwrap_or("?");
    let to = &r.to;
    let imported = r.from.as_deref().is_some_and(|f| !f.starts_with('v'));
    let stdout = r.output.as_deref() == Some("-");
    let at = |o: &str| {
        if stdout {
            "to standard output".to_string()
        } else {
            format!("at {o}")
        }
    };
    if let Some(b) = &r.backup {
        let link = r
            .output
            .as_deref()
            .map(|t| format!(", the file {t} its link points to"))
            .unwrap_or_default();
        return format!("{}: migrated {from} -> {to}{link} (backup {b})", r.file);
    }
    match (&r.output, r.changed, dry_run) {
        (_, false, _) => format!("{}: already {to}", r.file),
        (Some(o), _, true) if imported => format!("{}: would import {from} into {to} {}", r.file, at(o)),
        (Some(o), _, false) if imported => format!("{}: imported {from} into {to} {}", r.file, at(o)),
        (Some(o), _, true) => format!("{}: would migrate {from} -> {to} {}", r.file, at(o)),
        (Some(o), _, false) => format!("{}: migrated {from} -> {to} {}", r.file, at(o)),
        (None, true, true) => format!("{}: would migrate {from} -> {to}", r.file),
        (None, true, false) => format!("{}: migrated {from} -> {to}", r.file),
    }
}

fn one(job: &Job, dest: &Dest, g: &GlobalArgs, a: &MigrateArgs, written_by: &mut Option<String>) -> Migration {
    let mut m = Migration {
        file: job.input.display_name(),
        to: format!("v{}", a.to),
        ..Migration::default()
    };
    if let Err(e) = migrate_one(job, dest, g, a, &mut m, written_by) {
        m.error = Some(e.to_string());
        m.changed = false;
    }
    m
}

/// Where this job writes: `None` for standard output. Refused when an earlier input of the
/// run writes the same file, when the output would replace the input, and (in the write
/// itself) when a file is there and `--force` was not given.
fn output_of(job: &Job, written_by: &mut Option<String>, m: &Migration) -> super::Result<Option<PathBuf>> {
    let Some(target) = job.planned.clone() else {
        return Ok(None);
    };
    if let Some(first) = written_by {
        return Err(Refusal::SharedOutput {
            output: target,
            first: first.clone(),
        }
        .into());
    }
    if let Input::Path(p) = &job.input
        && same_file(p, &target)
    {
        return Err(Refusal::ReplacesInput.into());
    }
    *written_by = Some(m.file.clone());
    Ok(Some(target))
}

fn not_written(target: &Path, cause: std::io::Error) -> Error {
    match cause.kind() {
        std::io::ErrorKind::AlreadyExists => Refusal::ImportExists {
            path: target.to_path_buf(),
        }
        .into(),
        _ => CoreError::NotWritten {
            path: target.to_path_buf(),
            cause,
        }
        .into(),
    }
}

/// Writes a new document with `write`: to `target`, or to standard output.
fn write_out(
    target: Option<&Path>,
    force: bool,
    write: impl FnOnce(&mut Output) -> std::io::Result<()>,
) -> Result<(), std::io::Error> {
    match target {
        Some(t) => {
            // An output folder's tree is made as it is filled.
            if let Some(dir) = t.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
                std::fs::create_dir_all(dir)?;
            }
            write_new_file_by(t, force, write)
        }
        // A reader that closed the pipe wanted no more: not an error (`… -o - | head`).
        None => match write_stdout(write) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r,
        },
    }
}

fn migrate_one(
    job: &Job,
    dest: &Dest,
    g: &GlobalArgs,
    a: &MigrateArgs,
    m: &mut Migration,
    written_by: &mut Option<String>,
) -> super::Result<()> {
    let input = &job.input;
    if matches!(input, Input::Stdin) && matches!(dest, Dest::Dir(_)) {
        return Err(Refusal::StdinInFolder.into());
    }
    match (input, dest) {
        (Input::Archived(_), Dest::Default) => return Err(Refusal::ArchivedMigrate.into()),
        (Input::Member(_), Dest::Default) => return Err(Refusal::MemberMigrate.into()),
        _ => {}
    }
    // A file found in a folder or a list that is not a session is skipped; one named on the
    // command line is an error.
    let (src, format) = match super::open_input(input, g, job.named) {
        Ok(opened) => opened,
        Err(e) if !job.named && e.is_not_session() => {
            m.skipped = Some(e.to_string());
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    // Only a file that is not yet a cctool session has an import; the others are migrated.
    let Some(import) = crate::agents::agent(format).import() else {
        return migrate_session(job, dest, &src, a, m, written_by);
    };
    m.from = Some(format.name().to_string());
    if a.to != migrate::LATEST {
        return Err(Refusal::ImportVersion {
            latest: migrate::LATEST,
            to: a.to,
        }
        .into());
    }
    if matches!(dest, Dest::Default) && !job.named && !job.listed {
        m.note =
            Some("not imported: a folder's transcripts are imported into an output folder named with -o DIR".into());
        return Ok(());
    }
    if matches!(input, Input::Stdin) && matches!(dest, Dest::Default) {
        return Err(Refusal::ImportStdinWhere.into());
    }
    let target = output_of(job, written_by, m)?;
    // Written message by message as the transcript is read: a multi-GB import holds
    // one message, not the session and its document.
    let import_to = |w: &mut dyn std::io::Write| import(&src, a.effective, w);
    m.changed = true;
    m.output = Some(target.as_ref().map_or_else(|| "-".into(), |t| t.display().to_string()));
    if a.dry_run {
        return Ok(import_to(&mut std::io::sink()).map_err(CoreError::Read)?);
    }
    let mut read_failed = false;
    write_out(target.as_deref(), a.force, |w| {
        let mut write_failed = false;
        let r = import_to(&mut Watched {
            w,
            failed: &mut write_failed,
        });
        read_failed = r.is_err() && !write_failed;
        r
    })
    .map_err(|e| match (read_failed, &target) {
        (true, _) => CoreError::Read(e).into(),
        (false, Some(t)) => not_written(t, e),
        (false, None) => CoreError::Stdout(e).into(),
    })
}

/// A cctool session file: migrated in place with a backup, or with `-o` written anew.
fn migrate_session(
    job: &Job,
    dest: &Dest,
    src: &Source,
    a: &MigrateArgs,
    m: &mut Migration,
    written_by: &mut Option<String>,
) -> super::Result<()> {
    let in_place = match (&job.input, dest) {
        (Input::Path(p), Dest::Default) => Some(p),
        (Input::Stdin, Dest::Default) => {
            return Err(Refusal::MigrateStdinWhere.into());
        }
        _ => None,
    };
    if in_place.is_some()
        && let Some(why) = src.in_place_refusal()
    {
        return Err(Refusal::InPlace(why).into());
    }
    let bytes = src.whole().map_err(CoreError::Read)?;
    // Large v1/v2 files: the streaming path, when it takes the file.
    let release = |offset, len| src.done_with(offset, len);
    if a.to == migrate::LATEST
        && let Some(doc) = crate::agents::cctool::fast::read_releasing(&bytes, &release)
    {
        let version = doc.version();
        m.from = Some(format!("v{version}"));
        m.changed = true;
        return write_session(job, in_place, src, &format!("v{version}"), a, m, written_by, |w| {
            crate::agents::cctool::fast::write_v5(&doc, w)
        });
    }
    // Validate every version, the current one too: an invalid file is reported.
    let session = migrate::read_session(&bytes).map_err(CoreError::from)?;
    src.check().map_err(CoreError::Read)?;
    let version = session.version();
    m.from = Some(format!("v{version}"));
    if version > a.to {
        return Err(Refusal::Downgrade { version, to: a.to }.into());
    }
    if version == a.to {
        return Ok(());
    }
    let migrated = migrate::migrate(session, a.to);
    m.changed = true;
    write_session(job, in_place, src, &format!("v{version}"), a, m, written_by, |w| {
        migrate::write_to(migrated, w)
    })
}

/// Writes a migrated session: over `in_place` (backup tagged `tag`), or to the job's output.
#[allow(clippy::too_many_arguments)]
fn write_session(
    job: &Job,
    in_place: Option<&PathBuf>,
    src: &Source,
    tag: &str,
    a: &MigrateArgs,
    m: &mut Migration,
    written_by: &mut Option<String>,
    write: impl FnOnce(&mut Output) -> std::io::Result<()>,
) -> super::Result<()> {
    // Checked before the rename: a truncation under the mapping read as zeros somewhere. A
    // truncation after it cannot touch what was written, nor turn the run into an error.
    let write = |w: &mut Output| {
        write(w)?;
        src.settle()
    };
    let Some(path) = in_place else {
        let target = output_of(job, written_by, m)?;
        m.output = Some(target.as_ref().map_or_else(|| "-".into(), |t| t.display().to_string()));
        if a.dry_run {
            return Ok(());
        }
        return write_out(target.as_deref(), a.force, write).map_err(|e| match &target {
            Some(t) => not_written(t, e),
            None => CoreError::Stdout(e).into(),
        });
    };
    if a.dry_run {
        return Ok(());
    }
    refuse_live(src, a.force, "migrated")?;
    let how = InPlace {
        tag,
        seen: Seen::of(src),
        force: a.force,
    };
    let done = replace_with_backup_by(path, &how, write).map_err(crate::error::rewrite_failed)?;
    if done.target != *path {
        m.output = Some(done.target.display().to_string());
    }
    m.backup = Some(done.backup.display().to_string());
    Ok(())
}

/// A writer that notes when writing failed, so that an error of the import it is given to
/// can be told apart: the output's, or the input's.
struct Watched<'a, W: std::io::Write> {
    w: W,
    failed: &'a mut bool,
}

impl<W: std::io::Write> std::io::Write for Watched<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.w.write(buf);
        *self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.w.flush();
        *self.failed |= r.is_err();
        r
    }
}

/// A session file that changed within [`COLD_AFTER`](crate::io::source::COLD_AFTER) may be mid-write by its harness: rewriting
/// it now would race that writer and lose whichever write lands second.
/// `verb` says what was not done (`migrated`, `slimmed`).
pub(crate) fn refuse_live(src: &Source, force: bool, verb: &'static str) -> super::Result<()> {
    match src.recently_modified() {
        Some(age) if !force => Err(Refusal::Live {
            verb,
            secs: age.as_secs(),
        }
        .into()),
        _ => Ok(()),
    }
}
