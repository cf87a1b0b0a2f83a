//! `cctool migrate --to vN PATH...`: the schema chain in place, and imports into v5.

use rayon::prelude::*;
use serde::Serialize;

use crate::cli::{GlobalArgs, MigrateArgs};
use crate::io::Input;
use crate::io::Source;
use crate::io::atomic::{replace_with_backup_by, write_new_file_by};
use crate::io::paths::{beside, same_file};
use crate::migrate::{self, import};
use crate::model::Format;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::{ExitStatus, Fatal};

/// What happened to one file.
#[derive(Serialize, Debug, Default)]
pub struct Migration {
    pub kind: &'static str,
    pub file: String,
    /// The schema version it had, or the native format it was imported from.
    pub from: Option<String>,
    pub to: u32,
    pub changed: bool,
    pub backup: Option<String>,
    pub output: Option<String>,
    pub error: Option<String>,
}

pub fn run(g: &GlobalArgs, a: &MigrateArgs) -> anyhow::Result<ExitStatus> {
    let (expanded, _) = super::batch_inputs(&a.paths, g)?;
    // Backups and our own outputs found while walking a folder are not inputs.
    let inputs: Vec<Input> = expanded
        .inputs
        .into_iter()
        .filter(|i| match i {
            Input::Path(p) => {
                let n = p.to_string_lossy();
                !n.ends_with(".bak") && !n.ends_with(".v5.json") || a.paths.contains(p)
            }
            Input::Stdin => true,
        })
        .collect();
    if a.output.is_some() && inputs.len() != 1 {
        return Err(Fatal("-o names one output file: give exactly one input".into()).into());
    }
    let bar = super::files_bar("migrate", inputs.len(), g.quiet);
    let results: Vec<Migration> = inputs
        .par_iter()
        .map(|i| {
            let r = one(i, g, a);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    let mut out = Out::new(g.color);
    let mut failed = expanded
        .problems
        .iter()
        .any(|d| d.severity == crate::model::diag::Severity::Error);
    for d in &expanded.problems {
        if !g.quiet {
            eprintln!("cctool: {}", crate::output::style::Paint::stderr(g.color).diagnostic(d));
        }
    }
    let mut would_change = false;
    for r in &results {
        failed |= r.error.is_some();
        would_change |= r.changed && a.dry_run;
        if g.json {
            out.json(r)?;
        } else if let Some(e) = &r.error {
            if !g.quiet {
                eprintln!("cctool: {}: {}", escape_str(&r.file), escape_str(e));
            }
        } else {
            out.text(&format!("{}\n", escape_str(&describe(r, a.dry_run))))?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitStatus::Error
    } else if would_change {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    })
}

fn describe(r: &Migration, dry_run: bool) -> String {
    let from = r.from.as_deref().unwrap_or("?");
    match (&r.output, r.changed, dry_run) {
        (Some(o), _, true) => format!("{}: would import {from} into v{} at {o}", r.file, r.to),
        (Some(o), _, false) => format!("{}: imported {from} into v{} at {o}", r.file, r.to),
        (None, false, _) => format!("{}: already v{}", r.file, r.to),
        (None, true, true) => format!("{}: would migrate {from} -> v{}", r.file, r.to),
        (None, true, false) => format!(
            "{}: migrated {from} -> v{} (backup {})",
            r.file,
            r.to,
            r.backup.as_deref().unwrap_or("?")
        ),
    }
}

fn one(input: &Input, g: &GlobalArgs, a: &MigrateArgs) -> Migration {
    let mut m = Migration {
        kind: "migration",
        file: input.display_name(),
        to: a.to,
        ..Migration::default()
    };
    if let Err(e) = migrate_one(input, g, a, &mut m) {
        m.error = Some(e);
        m.changed = false;
    }
    m
}

fn migrate_one(input: &Input, g: &GlobalArgs, a: &MigrateArgs, m: &mut Migration) -> Result<(), String> {
    let (src, format) = super::open_session(input, g)?;
    match format {
        Format::CctoolSession => {
            let Input::Path(path) = input else {
                return Err("a session file is migrated in place: name the file, not standard input".into());
            };
            if let Some(why) = src.in_place_refusal() {
                return Err(why.to_string());
            }
            let bytes = src.whole().map_err(|e| format!("cannot read: {e}"))?;
            // Large v1/v2 files: the streaming path, when it takes the file.
            let release = |offset, len| src.done_with(offset, len);
            if a.to == migrate::LATEST
                && let Some(doc) = migrate::fast::read_releasing(&bytes, &release)
            {
                m.from = Some(format!("v{}", doc.version()));
                m.changed = true;
                if !a.dry_run {
                    refuse_live(&src, a.force)?;
                    let tag = format!("v{}", doc.version());
                    // Checked before the rename: a truncation under the mapping read as zeros.
                    let backup = replace_with_backup_by(path, &tag, |w| {
                        migrate::fast::write_v5(&doc, w)?;
                        src.check()
                    })
                    .map_err(|e| super::rewrite_failed(&e))?;
                    m.backup = Some(backup.display().to_string());
                }
                return Ok(());
            }
            let doc = migrate::read_json(&bytes)?;
            let version = migrate::version_of(&doc).map_err(|e| e.to_string())?;
            m.from = Some(format!("v{version}"));
            if version > a.to {
                return Err(format!(
                    "is v{version}; migrating to v{} would be a downgrade, which cctool does not do",
                    a.to
                ));
            }
            src.check().map_err(|e| format!("cannot read: {e}"))?;
            // Validate every version, the current one too: an invalid file is reported.
            let session = migrate::parse(doc).map_err(|e| e.to_string())?;
            if version == a.to {
                return Ok(());
            }
            let migrated = migrate::migrate(session, a.to);
            m.changed = true;
            if a.dry_run {
                return Ok(());
            }
            refuse_live(&src, a.force)?;
            let backup = replace_with_backup_by(path, &format!("v{version}"), |w| migrate::write_to(migrated, w))
                .map_err(|e| super::rewrite_failed(&e))?;
            m.backup = Some(backup.display().to_string());
            Ok(())
        }
        Format::ClaudeCode | Format::Codex => {
            m.from = Some(format.name().to_string());
            if a.to != migrate::LATEST {
                return Err(format!(
                    "imports are written as v{}; --to v{} applies to cctool session files",
                    migrate::LATEST,
                    a.to
                ));
            }
            let target = match (&a.output, input) {
                (Some(o), _) => o.clone(),
                (None, Input::Path(p)) => beside(p, "v5.json"),
                (None, Input::Stdin) => return Err("importing standard input needs -o OUT".into()),
            };
            if let Input::Path(p) = input
                && same_file(p, &target)
            {
                return Err("the output would replace the native file; choose another -o".into());
            }
            // Written message by message as the transcript is read: a multi-GB import holds
            // one message, not the session and its document.
            let import_to = |w: &mut dyn std::io::Write| match format {
                Format::ClaudeCode => import::claude_to(&src, a.effective, w),
                _ => import::codex_to(&src, a.effective, w),
            };
            m.changed = true;
            m.output = Some(target.display().to_string());
            if a.dry_run {
                return import_to(&mut std::io::sink()).map_err(|e| format!("cannot read: {e}"));
            }
            let mut read_failed = false;
            write_new_file_by(&target, true, |w| {
                let mut write_failed = false;
                let r = import_to(&mut Watched {
                    w,
                    failed: &mut write_failed,
                });
                read_failed = r.is_err() && !write_failed;
                r
            })
            .map_err(|e| match read_failed {
                true => format!("cannot read: {e}"),
                false => format!("{}: {e}", target.display()),
            })
        }
    }
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
fn refuse_live(src: &Source, force: bool) -> Result<(), String> {
    match src.recently_modified() {
        Some(age) if !force => Err(format!(
            "not migrated: modified {} s ago, so it may still be written; retry in a minute, or pass --force",
            age.as_secs()
        )),
        _ => Ok(()),
    }
}
