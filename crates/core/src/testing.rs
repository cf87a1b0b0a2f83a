//! What the agents' tests read: the project's fixtures of an agent, and the real sessions the
//! project is developed with where `CCTOOL_SAMPLES` names them (a clone has none beside it).

use std::path::{Path, PathBuf};

/// Every `.jsonl` file under the repository's `fixtures/<fixtures>`, then under
/// `$CCTOOL_SAMPLES/<samples>`; a `skipped:` line says when the samples are not there.
pub fn fixtures_and_samples(fixtures: &str, samples: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    jsonl_under(&root.join("fixtures").join(fixtures), &mut files);
    match std::env::var_os("CCTOOL_SAMPLES").map(|d| PathBuf::from(d).join(samples)) {
        Some(dir) if dir.is_dir() => jsonl_under(&dir, &mut files),
        _ => eprintln!("skipped: the real {samples} sessions (CCTOOL_SAMPLES names no folder with {samples}/)"),
    }
    files
}

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            jsonl_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}
