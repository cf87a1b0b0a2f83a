//! The tables read by the engines people run (DuckDB, Polars) as `docs/tables.md` shows,
//! with no reader option beyond the documented ones, give the counts and sums of cctool's
//! own `scan --json` total. The engines come from `.ci/run`'s virtual environment
//! (`.venv-ci/`, or the Python that `CCTOOL_PYTHON` names); without them the test says it
//! skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{cctool, fixture, root, skip_notice};

const TABLES: [&str; 4] = ["sessions", "messages", "compactions", "tool-calls"];

/// A Python that imports `module`, or `None` after a notice.
fn python_with(module: &str) -> Option<PathBuf> {
    let python = std::env::var_os("CCTOOL_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".venv-ci/bin/python"));
    let ok = Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_notice(&format!(
            "{module} not importable by {} (.ci/run installs it)",
            python.display()
        ));
        return None;
    }
    Some(python)
}

/// A small generated corpus (`examples/gen-corpus/`, built by `cargo test`), or `None`
/// after a notice when the example is not built.
fn generated(dir: &Path) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let gen_corpus = exe.parent()?.parent()?.join("examples/gen-corpus");
    if !gen_corpus.is_file() {
        skip_notice("examples/gen-corpus not built");
        return None;
    }
    let out = dir.join("corpus");
    let st = Command::new(gen_corpus)
        .arg(&out)
        .args(["--claude-mib", "2", "--codex-mib", "2", "--seed", "24"])
        .output()
        .expect("gen-corpus");
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    Some(out)
}

fn check(engine: &str, inputs: &[PathBuf]) {
    let Some(python) = python_with(engine) else { return };
    let work = tempfile::tempdir().expect("tempdir");
    let out = cctool().args(["scan", "--json"]).args(inputs).output().expect("scan");
    let total: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|r| r["kind"] == "total")
        .expect("total");
    let calls = cctool()
        .args(["scan", "--rows", "tool-calls", "-q"])
        .args(inputs)
        .output()
        .expect("scan");
    let want = serde_json::json!({
        "files": total["files"],
        "chain_messages": total["chain_messages"],
        "messages_on_chain": total["chain_messages"],
        "compactions": total["compactions"],
        "compaction_rows": total["compactions"],
        "resume_tokens": total["resume_tokens"],
        "tool_calls": calls.stdout.iter().filter(|&&b| b == b'\n').count(),
    });
    let mut formats = vec!["jsonl"];
    if cfg!(feature = "parquet") {
        formats.push("parquet");
    } else {
        skip_notice("the parquet feature is off (cargo test --features parquet)");
    }
    for format in formats {
        let dir = work.path().join(format);
        for table in TABLES {
            let o = cctool()
                .args(["scan", "-q", "--rows", table, "--format", format, "--out-dir"])
                .arg(dir.join(table))
                .args(inputs)
                .output()
                .expect("scan --rows");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let o = Command::new(&python)
            .arg(root().join("scripts/rows/engines.py"))
            .args([engine, format])
            .arg(&dir)
            .output()
            .expect("python");
        assert!(
            o.status.success(),
            "{engine} {format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got: Value = serde_json::from_slice(&o.stdout).expect("engine JSON");
        assert_eq!(got, want, "{engine} reading {format}");
    }
}

fn inputs(work: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["claude", "codex", "session", "compact"]
        .iter()
        .map(|d| fixture(d))
        .collect();
    v.extend(generated(work));
    v
}

#[test]
fn duckdb_reads_the_tables_to_cctools_totals() {
    let work = tempfile::tempdir().expect("tempdir");
    check("duckdb", &inputs(work.path()));
}

#[test]
fn polars_reads_the_tables_to_cctools_totals() {
    let work = tempfile::tempdir().expect("tempdir");
    check("polars", &inputs(work.path()));
}
