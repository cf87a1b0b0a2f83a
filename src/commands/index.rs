//! `cctool index [PATH...]`: brings the search index up to date with the files named (the
//! user's stores by default), reading only what changed (`crate::search::index`). Files are
//! read in parallel; their updates are written one at a time, each in its own transaction.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::ExitStatus;
use crate::cli::{GlobalArgs, IndexArgs};
use crate::io::Input;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::output::Out;
use crate::search::index::{Change, Plan, Writer};

/// `--json`: what a run did.
#[derive(Serialize, Default)]
pub struct Stats {
    index: String,
    files: usize,
    unchanged: usize,
    grown: usize,
    whole: usize,
    removed: usize,
    /// Bytes read from the files (what a grown file gained and its last indexed line, a
    /// whole file's size).
    bytes_read: u64,
    rows: u64,
}

/// The index's folder: `--index-dir`, else where [`crate::search::index::default_dir`] says.
pub fn index_dir(given: Option<&Path>) -> Option<PathBuf> {
    given
        .map(Path::to_path_buf)
        .or_else(|| crate::search::index::default_dir(&|k| std::env::var_os(k).filter(|v| !v.is_empty())))
}

pub fn run(g: &GlobalArgs, a: &IndexArgs) -> super::Result<ExitStatus> {
    let Some(dir) = index_dir(a.index_dir.as_deref()) else {
        return Err(super::error::Usage::NoIndexDir.into());
    };
    let mut say = g.reporter();
    let (expanded, named) = super::session_inputs(&a.paths, &a.files, g)?;
    let opened = {
        let mut waiting = || say.note("another `cctool index` is writing the index; waiting for it");
        Writer::open(&dir, Some(&mut waiting)).map_err(crate::search::index::Error::from)?
    };
    let Some(writer) = opened else {
        unreachable!("a writer that waits always opens")
    };
    let writer = Mutex::new(writer);
    let counts: [AtomicUsize; 3] = Default::default();
    let (bytes, rows) = (AtomicU64::new(0), AtomicU64::new(0));
    let bar = super::files_bar("index", expanded.inputs.len(), g.quiet);
    let problems: Vec<Diagnostic> = expanded
        .inputs
        .par_iter()
        .filter_map(|input| {
            let r = one(g, &writer, input, named.contains(input));
            bar.inc(1);
            match r {
                Ok(Some((change, read, n))) => {
                    counts[change as usize].fetch_add(1, Ordering::Relaxed);
                    bytes.fetch_add(read, Ordering::Relaxed);
                    rows.fetch_add(n, Ordering::Relaxed);
                    None
                }
                Ok(None) => None,
                Err(d) => Some(d),
            }
        })
        .collect();
    bar.finish_and_clear();
    let mut writer = writer.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut removed = 0;
    for key in writer.keys().map_err(crate::search::index::Error::from)? {
        if !key.exists() && writer.remove(&key).map_err(crate::search::index::Error::from)? {
            removed += 1;
        }
    }
    let [unchanged, grown, whole] = counts.map(AtomicUsize::into_inner);
    let stats = Stats {
        index: crate::search::index::FILE.to_string(),
        files: unchanged + grown + whole,
        unchanged,
        grown,
        whole,
        removed,
        bytes_read: bytes.into_inner(),
        rows: rows.into_inner(),
    };
    let stats = Stats {
        index: dir.join(stats.index).display().to_string(),
        ..stats
    };
    let mut out = Out::new(g.color);
    let mut diags: Vec<Diagnostic> = expanded.problems.clone();
    diags.extend(problems);
    if g.json {
        out.json(&super::record::Record::Index(&stats))?;
    } else {
        say.note(&format!(
            "{} files in {}: {} unchanged, {} grown, {} read whole, {} removed; {} bytes read",
            stats.files, stats.index, stats.unchanged, stats.grown, stats.whole, stats.removed, stats.bytes_read
        ));
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    super::show_diagnostics(&mut out, &mut say, g, &diags)?;
    out.flush()?;
    say.merge(if errors > 0 {
        ExitStatus::Error
    } else {
        ExitStatus::Success
    });
    Ok(say.status())
}

/// `hooks run --index`: brings the index in `dir` up to date with the one file `path` (the
/// transcript of the hook's call), unless another run is writing it; what it did, for the
/// hook's log.
pub fn refresh(g: &GlobalArgs, dir: &Path, path: &Path) -> Result<String, String> {
    let Some(writer) = Writer::open(dir, None).map_err(|e| e.to_string())? else {
        return Ok("index: another run is writing the index; it takes the transcript".into());
    };
    let writer = Mutex::new(writer);
    match one(g, &writer, &Input::Path(path.to_path_buf()), true) {
        Ok(Some((change, read, rows))) => Ok(format!(
            "index: {}: {change:?}, {read} bytes read, {rows} texts indexed",
            path.display()
        )),
        Ok(None) => Ok(format!("index: {}: not indexed", path.display())),
        Err(d) => Err(format!("index: {}", d.message)),
    }
}

/// Brings one input up to date: what changed, the bytes read and the rows written; `None`
/// for what is not indexed (not a session, a pipe, a compressed file or an archive's copy:
/// search reads those every time).
fn one(
    g: &GlobalArgs,
    writer: &Mutex<Writer>,
    input: &Input,
    named: bool,
) -> Result<Option<(Change, u64, u64)>, Diagnostic> {
    let fail = |msg: String| Diagnostic::new(input.display_name(), None, Code::Unreadable, Severity::Error, msg);
    let Input::Path(path) = input else { return Ok(None) };
    let lock = || writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let plan = Plan::of(&lock(), path).map_err(|e| fail(e.to_string()))?;
    match plan.change {
        Change::Unchanged => return Ok(Some((Change::Unchanged, plan.bytes_read, 0))),
        Change::Grown => {
            // A suffix its reader cannot read alone is read whole instead.
            if let Ok(Some((u, agent))) = plan.read_grown() {
                lock().store(&plan.key, agent, &u).map_err(|e| fail(e.to_string()))?;
                return Ok(Some((Change::Grown, u.bytes_read, u.rows_count as u64)));
            }
        }
        Change::Whole => {}
    }
    let (src, format) = match super::open_input_reading(input, g, named, crate::io::ReadMode::Whole) {
        Ok(v) => v,
        Err(e) if !named && e.is_not_session() => return Ok(None),
        Err(e) => return Err(fail(e.to_string())),
    };
    if src.held() != crate::io::source::Held::AsStored {
        return Ok(None);
    }
    let u = plan.read_whole(&src, format).map_err(|e| fail(e.to_string()))?;
    src.check().map_err(|e| fail(format!("cannot read: {e}")))?;
    lock()
        .store(&plan.key, format.name(), &u)
        .map_err(|e| fail(e.to_string()))?;
    Ok(Some((Change::Whole, u.bytes_read, u.rows_count as u64)))
}
