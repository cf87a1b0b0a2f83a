//! What a resume sends of each fixture (`cctool_pi::model::sent`) equals what pi 1.6.0's own
//! `SessionManager` loaded and `convertToLlm` converted, as `scripts/realclient/pi/
//! refresh-context.sh` recorded it beside the fixture; and, where pi is installed
//! (`scripts/realclient/pi/install.sh`), equals what it loads now on the fixtures and on the
//! shared real sessions.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sent(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    let src = cctool_core::io::Source::from_bytes(&path.display().to_string(), bytes);
    let s = cctool_pi::file::read(&src).unwrap();
    let t = cctool_pi::tree::Tree::of(&s);
    Value::Array(cctool_pi::model::sent(&s, &t).into_iter().map(|(_, m)| m).collect())
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/pi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn sent_equals_the_recorded_context_of_every_fixture() {
    let all = fixtures();
    assert!(all.len() >= 6, "the pi fixtures are missing");
    for f in all {
        let recorded = f.with_extension("context.json");
        let want: Value = serde_json::from_slice(&std::fs::read(&recorded).unwrap()).unwrap();
        assert_eq!(sent(&f), want, "{}", f.display());
    }
}

/// Says on stderr itself, which the harness does not capture, that a check was skipped.
fn skip(why: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("skipped: {why}\n").as_bytes());
}

fn pi_context() -> Option<PathBuf> {
    let root = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")))?;
    root.join("pi/node_modules/.bin/node")
        .exists()
        .then(|| repo().join("scripts/realclient/pi/pi-context.sh"))
}

#[test]
fn sent_equals_what_the_installed_pi_loads() {
    let Some(script) = pi_context() else {
        skip("pi is not installed (scripts/realclient/pi/install.sh)");
        return;
    };
    let mut files = fixtures();
    // The shared real sessions, where `CCTOOL_SAMPLES` names their folder (as for
    // `scripts/compare-builds.sh`).
    match std::env::var_os("CCTOOL_SAMPLES").map(|d| PathBuf::from(d).join("pi/real")) {
        Some(samples) if samples.is_dir() => files.extend(
            std::fs::read_dir(&samples)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl")),
        ),
        _ => skip("no real pi sessions (CCTOOL_SAMPLES names no folder with pi/real)"),
    }
    for f in files {
        let out = Command::new(&script).arg(&f).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(sent(&f), want, "{}", f.display());
    }
}
