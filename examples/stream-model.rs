//! Streams every session file under the paths given through the session model
//! (`Agent::events`, every record read into its typed parts) and counts what comes out: what a
//! command built on the parts stream alone would cost, for `benches/model.md`.
//!
//! ```text
//! cargo run --release --example stream-model -- [--view records|calls|loaded] PATH...
//! ```
//!
//! Files are read on every core, as `scan` reads them, so that the time compares with
//! `scan`'s and `doctor`'s.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use cctool::agents::{BUILTIN, registry};
use cctool::io::{Input, MmapChoice, Source};
use cctool::model::events::{Ask, Event, View};
use rayon::prelude::*;

fn main() -> ExitCode {
    let mut view = View::Records;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--view" => {
                view = match args.next().as_deref() {
                    Some("records") => View::Records,
                    Some("calls") => View::Calls,
                    Some("loaded") => View::Loaded,
                    _ => {
                        eprintln!("--view takes records, calls or loaded");
                        return ExitCode::from(2);
                    }
                }
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if paths.is_empty() {
        eprintln!("usage: stream-model [--view records|calls|loaded] PATH...");
        return ExitCode::from(2);
    }
    registry::install(BUILTIN);
    let files: Vec<PathBuf> = paths
        .iter()
        .flat_map(walkdir::WalkDir::new)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl" || x == "json"))
        .map(|e| e.into_path())
        .collect();
    let (records, parts, marks, failed) = (
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    );
    files.par_iter().for_each(|f| {
        let streamed = Source::open(&Input::Path(f.clone()), MmapChoice::Auto)
            .map_err(|e| e.to_string())
            .and_then(|src| {
                let id = registry::installed().detect(&src).map_err(|e| format!("{e:?}"))?;
                let ask = Ask { view, ..Ask::records() };
                registry::installed()
                    .agent(id)
                    .events(&src, ask, &mut |e| match e {
                        Event::Record(r) => {
                            records.fetch_add(1, Ordering::Relaxed);
                            parts.fetch_add(r.parts.len() as u64, Ordering::Relaxed);
                        }
                        Event::Mark(_) => {
                            marks.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = streamed {
            failed.fetch_add(1, Ordering::Relaxed);
            eprintln!("{}: {e}", f.display());
        }
    });
    let said = writeln!(
        std::io::stdout().lock(),
        "{} files, {} records, {} parts, {} marks, {} unread",
        files.len(),
        records.into_inner(),
        parts.into_inner(),
        marks.into_inner(),
        failed.into_inner()
    );
    match said {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}
