//! The fuzz targets' bodies (`fuzz/targets_common.rs`, shared with the cargo-fuzz workspace)
//! run on stable over every fixture (`fixtures/**`, minimized fuzzer findings in
//! `fixtures/fuzz/` included), and over every shared sample where those are present, so a
//! regression is caught without nightly. Each target gets every file: a transcript is also junk input for the migration,
//! and the other way round.

use std::path::{Path, PathBuf};

mod bodies {
    include!("../../fuzz/targets_common.rs");
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

/// Every fixture, and every shared sample when present, in a stable order.
fn inputs() -> Vec<(PathBuf, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files_under(&root.join("fixtures"), &mut paths);
    let fixtures = paths.len();
    assert!(fixtures > 0, "no fixtures found");
    // The samples beside the checkout too, where there are any.
    if let Some(dir) = crate::util::shared("") {
        files_under(&dir, &mut paths);
        assert!(paths.len() > fixtures, "no files in {}", dir.display());
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}

/// Runs `body` on every input, naming the file that made it panic.
fn run_all(target: &str, body: fn(&[u8])) {
    let mut failed = Vec::new();
    for (path, bytes) in inputs() {
        if std::panic::catch_unwind(|| body(&bytes)).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "{target} panicked on: {failed:#?}");
}

#[test]
fn claude_chain_on_every_fixture() {
    run_all("claude_chain", bodies::claude_chain);
}

#[test]
fn codex_reconstruct_on_every_fixture() {
    run_all("codex_reconstruct", bodies::codex_reconstruct);
}

#[test]
fn session_migrate_on_every_fixture() {
    run_all("session_migrate", bodies::session_migrate);
}

#[test]
fn lines_and_detect_on_every_fixture() {
    run_all("lines_and_detect", bodies::lines_and_detect);
}

/// The compaction target reads its first byte as the format and the options: every file is
/// compacted as each format, with no budget and with budgets, a tail of 0 tokens up to 3000,
/// and once as it is, its own first byte choosing.
#[test]
fn compaction_cut_on_every_fixture() {
    let mut failed = Vec::new();
    for (path, bytes) in inputs() {
        // As the fuzzer saw it (its findings in fixtures/fuzz/ keep their selector byte).
        if std::panic::catch_unwind(|| bodies::compaction_cut(&bytes)).is_err() {
            failed.push(format!("{} (as is)", path.display()));
        }
        for rest in [0u8, 2, 5, 7, 8 + 3, 16 + 4, 24 + 6, 24 + 1] {
            for format in 0..3u8 {
                let selector = rest * 3 + format;
                let mut data = vec![selector];
                data.extend_from_slice(&bytes);
                if std::panic::catch_unwind(|| bodies::compaction_cut(&data)).is_err() {
                    failed.push(format!("{} (selector {selector})", path.display()));
                }
            }
        }
    }
    assert!(failed.is_empty(), "compaction_cut panicked on: {failed:#?}");
}
