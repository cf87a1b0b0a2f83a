// The one lookup of the optional samples folder beside a checkout, included by the integration
// tests (`tests/cli/util.rs`) and by the library's unit tests (`src/lib.rs`), so both skip the
// same way. A clean clone has no such folder: every check that needs it prints one line and
// returns. Where the folder exists, a file missing from it is a failure, so no test passes
// vacuously there.

/// The samples folder: the one `CCTOOL_SAMPLES` names (as `scripts/compare-builds.sh` takes
/// it), else `../shared/samples` beside the project, when there is one.
#[allow(dead_code)]
pub fn shared_dir() -> Option<std::path::PathBuf> {
    let p = match std::env::var_os("CCTOOL_SAMPLES") {
        Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples"),
    };
    p.is_dir().then_some(p)
}

/// A file or folder of the samples, or `None` after a one-line notice on stderr when the
/// folder is absent: the caller returns early (or goes on with the project's fixtures alone).
/// A path missing from a folder that is present is a failure.
///
/// ```ignore
/// let Some(path) = shared("claude-code/real/x.jsonl") else { return };
/// ```
#[allow(dead_code)]
pub fn shared(rel: &str) -> Option<std::path::PathBuf> {
    let Some(dir) = shared_dir() else {
        skip_notice("../shared/samples not present (CCTOOL_SAMPLES names another folder)");
        return None;
    };
    let p = dir.join(rel);
    assert!(p.exists(), "missing shared sample {}", p.display());
    Some(p)
}

/// Several files of the samples, or `None` after one notice, as for [`shared`].
#[allow(dead_code)]
pub fn shared_all(rels: &[&str]) -> Option<Vec<std::path::PathBuf>> {
    shared("")?;
    Some(rels.iter().map(|r| shared(r).expect("the folder is present")).collect())
}

/// Says on stderr, in one line, that a check was skipped, why, and in which test. Written to
/// the stream itself rather than through `eprintln!`, which the test harness captures and
/// shows only for failing tests: a skip must be visible in a passing run.
#[allow(dead_code)]
pub fn skip_notice(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let line = format!("skipped: {why} ({test})\n");
    // One write of the whole line, so lines of tests running in parallel do not interleave.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
