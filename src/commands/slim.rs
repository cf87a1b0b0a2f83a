//! `cctool slim FILE...`: payloads a resume does not need out of a session, and back.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::{FormatRefusal, Refusal, Usage};
use crate::ExitStatus;
use crate::cli::{GlobalArgs, SlimArgs};
use crate::error::Error as CoreError;
use crate::io::Source;
use crate::io::atomic::{InPlace, Output, Seen, replace_with_backup_by, write_new_file_by, write_stdout};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::slim::payload::size_text;
use crate::slim::{self, Counts, Images, Slimmer};

/// What happened to one file.
#[derive(Serialize, Debug, Default)]
pub struct SlimRecord {
    pub file: String,
    #[serde(flatten)]
    pub counts: Counts,
    /// With --restore: the payloads put back.
    pub restored: Option<u64>,
    pub dry_run: bool,
    pub output: Option<String>,
    pub backup: Option<String>,
    pub error: Option<String>,
}

pub fn run(g: &GlobalArgs, a: &SlimArgs) -> super::Result<ExitStatus> {
    if a.output.is_none() && !a.in_place && !a.dry_run {
        return Err(Usage::SlimWhere.into());
    }
    let extracts = a.images != Images::None || a.max_payload.is_some();
    if extracts && a.extract.is_none() && !a.dry_run {
        return Err(Usage::SlimExtractWhere.into());
    }
    if a.restore.is_some() && extracts {
        return Err(Usage::SlimRestoreTakesOut.into());
    }
    let to_dir = a.paths.len() > 1 || a.output.as_deref().is_some_and(Path::is_dir);
    if a.output.as_deref().is_some_and(|o| o.as_os_str() == "-") && a.paths.len() > 1 {
        return Err(Usage::OneFileToStdout.into());
    }
    let mut out = Out::new(g.color);
    let to_stderr = a.output.as_deref().is_some_and(|o| o.as_os_str() == "-");
    let mut say = g.reporter();
    for p in &a.paths {
        if let Some(db) = super::slim_database::slimmer_of(p) {
            super::slim_database::run_one(g, a, p, db, &mut out, &mut say)?;
            continue;
        }
        if a.clear_unloaded_outputs {
            return Err(Usage::SlimNotDatabase(p.display().to_string()).into());
        }
        let mut r = SlimRecord {
            file: p.display().to_string(),
            dry_run: a.dry_run,
            ..SlimRecord::default()
        };
        if let Err(e) = one(g, a, p, to_dir, &mut r) {
            r.error = Some(e.to_string());
        }
        let would_change = r.counts.bytes_after != r.counts.bytes_before || r.restored.is_some_and(|n| n > 0);
        if a.dry_run && would_change {
            say.merge(ExitStatus::Negative);
        }
        if g.json {
            if r.error.is_some() {
                say.merge(ExitStatus::Error);
            }
            match to_stderr {
                true => say.record(&super::record::Record::Slim(&r))?,
                false => out.json(&super::record::Record::Slim(&r))?,
            }
        } else if let Some(e) = &r.error {
            say.file_error(&r.file, e);
        } else if to_stderr {
            say.note(&describe(&r));
        } else {
            out.text(&format!("{}\n", escape_str(&describe(&r))))?;
        }
    }
    out.flush()?;
    say.swept();
    Ok(say.status())
}

fn describe(r: &SlimRecord) -> String {
    let c = &r.counts;
    let sizes = format!("{} -> {}", size_text(c.bytes_before), size_text(c.bytes_after));
    let what = match r.restored {
        Some(n) => format!("{n} payloads put back"),
        None => format!(
            "{} payloads, {} copies replaced by a reference, {} by a placeholder, {} files extracted, {} sent on resume and kept",
            c.payloads, c.deduplicated, c.replaced, c.extracted, c.kept_sent
        ),
    };
    let verb = if r.dry_run { "would be " } else { "" };
    let whereto = match (&r.output, &r.backup) {
        (_, Some(b)) => format!(" (backup {b})"),
        (Some(o), None) if o == "-" => " to standard output".into(),
        (Some(o), None) => format!(" into {o}"),
        _ => String::new(),
    };
    format!("{}: {verb}{sizes}: {what}{whereto}", r.file)
}

fn one(g: &GlobalArgs, a: &SlimArgs, p: &Path, to_dir: bool, r: &mut SlimRecord) -> super::Result<()> {
    let p = &super::ids::session_path(p)?;
    r.file = p.display().to_string();
    let input = crate::io::member::input_of(p);
    let (src, format) = super::open_session(&input, g)?;
    let Some(slimmer) = crate::agents::agent(format).slimmer() else {
        return Err(Refusal::from(FormatRefusal::Slim(format)).into());
    };
    let opts = slim::Options {
        images: a.images,
        max_payload: a.max_payload,
        extract: a.extract.clone(),
        dry_run: a.dry_run,
    };
    let run = |w: &mut dyn std::io::Write, r: &mut SlimRecord| -> std::io::Result<()> {
        match &a.restore {
            Some(dir) => {
                let x = slim::restore(&src, slimmer, dir, w)?;
                r.counts.bytes_before = x.bytes_before;
                r.counts.bytes_after = x.bytes_after;
                r.restored = Some(x.restored);
            }
            None => r.counts = slim::slim(&src, slimmer, &opts, w)?,
        }
        src.settle()
    };
    if a.dry_run {
        if a.restore.is_some() {
            // Restoring reads the payloads it needs; counting does the same work.
            return Ok(run(&mut std::io::sink(), r).map_err(CoreError::Io)?);
        }
        return Ok(run(&mut std::io::sink(), r).map_err(CoreError::Read)?);
    }
    if a.in_place {
        return in_place(a, p, &src, slimmer, &opts, r, run);
    }
    let Some(o) = &a.output else { return Ok(()) };
    if o.as_os_str() == "-" {
        r.output = Some("-".into());
        return write_stdout(|w| run(w, r)).or_else(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => Ok(()),
            _ => Err(CoreError::Io(e).into()),
        });
    }
    let target: PathBuf = if to_dir {
        o.join(p.file_name().unwrap_or_default())
    } else {
        o.clone()
    };
    if crate::io::paths::same_file(p, &target) {
        return Err(Refusal::ReplacesInputSlim.into());
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        std::fs::create_dir_all(dir).map_err(|e| CoreError::Io(e).about(dir.display().to_string()))?;
    }
    r.output = Some(target.display().to_string());
    write_new_file_by(&target, a.force, |w: &mut Output| run(w, r)).map_err(|cause| match cause.kind() {
        std::io::ErrorKind::AlreadyExists => Refusal::SlimExists { path: target.clone() }.into(),
        _ => CoreError::NotWritten {
            path: target.clone(),
            cause,
        }
        .into(),
    })
}

/// The file replaced, with a backup, as `migrate` replaces one; left alone when nothing in it
/// would change.
fn in_place(
    a: &SlimArgs,
    p: &Path,
    src: &Source,
    slimmer: &dyn Slimmer,
    opts: &slim::Options,
    r: &mut SlimRecord,
    run: impl FnOnce(&mut dyn std::io::Write, &mut SlimRecord) -> std::io::Result<()>,
) -> super::Result<()> {
    if let Some(why) = src.in_place_refusal() {
        return Err(Refusal::InPlace(why).into());
    }
    let verb = if a.restore.is_some() { "restored" } else { "slimmed" };
    // A file with nothing to slim is left alone, live or not.
    if a.restore.is_none() {
        let counted = slim::slim(
            src,
            slimmer,
            &slim::Options {
                dry_run: true,
                ..opts.clone()
            },
            &mut std::io::sink(),
        )
        .map_err(CoreError::Read)?;
        if counted.bytes_after == counted.bytes_before {
            r.counts = counted;
            return Ok(());
        }
    }
    super::migrate::refuse_live(src, a.force, verb)?;
    let how = InPlace {
        tag: if a.restore.is_some() { "restore" } else { "slim" },
        seen: Seen::of(src),
        force: a.force,
    };
    let done = replace_with_backup_by(p, &how, |w: &mut Output| run(w, r)).map_err(crate::error::rewrite_failed)?;
    if done.target != p {
        r.output = Some(done.target.display().to_string());
    }
    r.backup = Some(done.backup.display().to_string());
    Ok(())
}
