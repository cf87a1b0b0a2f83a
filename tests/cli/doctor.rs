//! `cctool doctor`: one finding per problem, with stable codes; read-only.

use serde_json::Value;

use crate::util::{cctool, fixture, records, shared};

fn findings(path: &std::path::Path) -> (Vec<Value>, Option<i32>) {
    let out = cctool()
        // A fixed date: the model findings change as the client's models retire.
        .args([
            "doctor",
            "--json",
            "--as-of",
            "2026-11-29T12:00:00Z",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    (
        recs.into_iter().filter(|r| r["kind"] == "finding").collect(),
        out.status.code(),
    )
}

fn has(f: &[Value], code: &str, line: u64) -> bool {
    f.iter().any(|r| r["code"] == code && r["line"] == line)
}

#[test]
fn concatenated_lines_excerpt_gives_two_records_on_line_4() {
    let Some(path) = shared("claude-code/real-excerpts/entire_37995ebed6e4_concatenated-lines_v2.1.x.excerpt.jsonl")
    else {
        return;
    };
    let (f, status) = findings(&path);
    assert!(has(&f, "two-records-on-one-line", 4), "{f:?}");
    assert_eq!(status, Some(1));
}

#[test]
fn dangling_parent_excerpt_gives_the_break_on_line_10() {
    // Line 10 is a progress row whose parent was never written; the chain walk only notices
    // it at line 12, where the bridged child points into the void.
    let Some(path) =
        shared("claude-code/real-excerpts/entire_38346dbfe2e0_dangling-parent-chain-break_v2.1.29.excerpt.jsonl")
    else {
        return;
    };
    let (f, _) = findings(&path);
    let d = f
        .iter()
        .find(|r| r["code"] == "dangling-parent" && r["line"] == 10)
        .unwrap();
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("627198fe-9ee1-4657-be67-4d8cfe112921")
    );
    assert_eq!(d["severity"], "error");
}

/// The codes doctor documents; `fixtures/broken/<code>.jsonl` must produce its code.
const CODES: &[&str] = &[
    "truncated-last-line",
    "two-records-on-one-line",
    "invalid-json",
    "invalid-utf8",
    "lone-surrogate",
    "not-an-object",
    "unknown-record-type",
    "dangling-parent",
    "cycle",
    "duplicate-uuid",
    "preserved-segment-broken",
    "stale-preserved-segment",
    "boundary-without-summary",
    "logical-parent-unresolved",
    "tool-call-without-result",
    "tool-result-without-call",
    "chain-misses-last-boundary",
    "rollback-crosses-checkpoint",
    "unusable-compacted",
];

#[test]
fn every_broken_fixture_gives_its_code_and_none_crashes() {
    let dir = fixture("broken");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let code = path.file_stem().unwrap().to_str().unwrap().to_string();
        // The other hostile files (empty, binary, deep nesting…) are covered in hostile.rs.
        if !CODES.contains(&code.as_str()) {
            continue;
        }
        let (f, status) = findings(&path);
        assert!(matches!(status, Some(0 | 1)), "{code}: exit {status:?}");
        assert!(f.iter().any(|r| r["code"] == code.as_str()), "{code}: {f:?}");
        let errors = f.iter().any(|r| r["severity"] == "error");
        assert_eq!(
            status,
            Some(i32::from(errors)),
            "{code}: exit 1 exactly when an error is found"
        );
        n += 1;
    }
    assert_eq!(n, CODES.len(), "a fixture per code");
}

#[test]
fn severities_of_the_main_codes() {
    let sev = |file: &str, code: &str| -> String {
        let (f, _) = findings(&fixture(&format!("broken/{file}.jsonl")));
        f.iter().find(|r| r["code"] == code).unwrap()["severity"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(sev("truncated-last-line", "truncated-last-line"), "warning");
    assert_eq!(sev("stale-preserved-segment", "stale-preserved-segment"), "info");
    assert_eq!(sev("logical-parent-unresolved", "logical-parent-unresolved"), "info");
    assert_eq!(sev("unknown-record-type", "unknown-record-type"), "info");
    // Claude Code 2.1.332 bridges this cycle: nothing is lost on resume.
    assert_eq!(sev("cycle", "cycle"), "info");
    assert_eq!(sev("cycle-stops-the-chain", "cycle"), "error");
    assert_eq!(sev("dangling-parent", "dangling-parent"), "error");
    assert_eq!(sev("chain-misses-last-boundary", "chain-misses-last-boundary"), "error");
    assert_eq!(sev("unusable-compacted", "unusable-compacted"), "error");
}

#[test]
fn clean_files_exit_0_and_records_have_stable_fields() {
    let out = cctool()
        .args([
            "doctor",
            "--json",
            "--as-of",
            "2026-11-29T12:00:00Z",
            fixture("claude/parallel_tool_calls.jsonl").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["kind"], "total");
    let (f, _) = findings(&fixture("broken/cycle.jsonl"));
    let keys: Vec<&str> = f[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["kind", "file", "line", "code", "severity", "message"]);
}

#[test]
fn verbose_text_output_groups_findings_by_file() {
    let out = cctool()
        .args([
            "doctor",
            "--verbose",
            "--as-of",
            "2026-11-29T12:00:00Z",
            fixture("broken/cycle.jsonl").to_str().unwrap(),
            fixture("broken/duplicate-uuid.jsonl").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let cycle = fixture("broken/cycle.jsonl").display().to_string();
    assert!(
        text.starts_with(&format!(
            "{cycle}\n  line 2: info [cycle] the parent links of the messages on lines 2, 3, 4 form a cycle; Claude Code 2.1.332 bridges it to line 1 (1000 ms older), so nothing is lost on resume (2.1.88 did not bridge it)\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("duplicate-uuid.jsonl\n  line 3: warning [duplicate-uuid]"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 files checked: 0 errors, 1 warnings, 1 infos"));
}

#[test]
fn doctor_never_changes_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(fixture("broken")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    let snapshot = |d: &std::path::Path| {
        let mut v: Vec<(String, Vec<u8>, std::time::SystemTime)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let m = std::fs::metadata(&p).unwrap();
                (
                    p.display().to_string(),
                    std::fs::read(&p).unwrap(),
                    m.modified().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = snapshot(dir.path());
    let _ = cctool()
        .args(["doctor", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(before, snapshot(dir.path()));
}
