//! `doctor`: severities that follow the effect on what a resume loads, filters, one summary
//! line per code, agreement with `scan`, and the code list in `--help` and the man page
//! built from the one definition of the codes.

use std::path::Path;

use cctool::model::diag::Code;
use serde_json::Value;

use crate::util::{cctool, fixture, records, root};

/// Every kind of broken link, with the one whose chain stops and loses messages.
const EFFECTS: &[&str] = &[
    "dangling-parent.jsonl",
    "dangling-parent-through-progress.jsonl",
    "dangling-parent-off-chain.jsonl",
    "dangling-parent-before-compaction.jsonl",
    "dangling-parent-continued-session.jsonl",
    "dangling-parent-bridged.jsonl",
    "cycle.jsonl",
    "cycle-stops-the-chain.jsonl",
];

fn doctor_in_broken(args: &[&str]) -> (String, String, Option<i32>) {
    let out = cctool()
        .current_dir(fixture("broken"))
        .arg("doctor")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

#[test]
fn a_broken_link_is_an_error_only_when_the_resumed_chain_loses_messages() {
    let (stdout, stderr, status) = doctor_in_broken(&[&["--verbose"][..], EFFECTS].concat());
    let m = "99999999-9999-4999-8999-999999999999";
    let nothing = "nothing is lost on resume";
    let want = format!(
        "dangling-parent.jsonl
  line 3: error [dangling-parent] the resumed chain stops here: parent 00000000-0000-4000-8000-000000000003 is not in the file, so a resume loses 2 message(s) written before it

dangling-parent-through-progress.jsonl
  line 5: error [dangling-parent] the resumed chain stops here: parent {m} is not in the file, so a resume loses 4 message(s) written before it

dangling-parent-off-chain.jsonl
  line 3: info [dangling-parent] parent {m} of progress row 00000000-0000-4000-8000-000000000010 is not in the file; progress rows are never loaded and no loaded message descends from this one: off the resumed chain, {nothing}
  line 4: info [dangling-parent] parent {m} of system row 00000000-0000-4000-8000-000000000011 is not in the file; off the resumed chain: {nothing}
  line 5: info [dangling-parent] parent {m} of user row 00000000-0000-4000-8000-000000000012 is not in the file; off the resumed chain: {nothing}

dangling-parent-before-compaction.jsonl
  line 1: info [dangling-parent] parent {m} of user row 00000000-0000-4000-8000-000000000001 is not in the file; written before the last compaction, which a resume replaces with its summary: {nothing}

dangling-parent-continued-session.jsonl
  line 1: info [dangling-parent] the resumed chain starts here: parent {m} is not in the file (continued from another file, or the file's start is missing); nothing written before it in this file is lost

dangling-parent-bridged.jsonl
  line 3: info [dangling-parent] parent {m} of user row 00000000-0000-4000-8000-000000000003 is not in the file; Claude Code 2.1.332 bridges the gap to line 2 (3000 ms older), so {nothing} (2.1.88 did not bridge it)

cycle.jsonl
  line 2: info [cycle] the parent links of the messages on lines 2, 3, 4 form a cycle; Claude Code 2.1.332 bridges it to line 1 (1000 ms older), so {nothing} (2.1.88 did not bridge it)

cycle-stops-the-chain.jsonl
  line 3: error [cycle] the parent links of the messages on lines 3, 4, 5 form a cycle; the resumed chain stops here: its parent link closes a cycle, so a resume loses 2 message(s) written before it

"
    );
    assert_eq!(stdout, want);
    assert_eq!(
        stderr,
        "cctool:      8  dangling-parent  2 errors, 6 infos\n\
         cctool:      2  cycle            1 error, 1 info\n\
         cctool: 8 files checked: 3 errors, 0 warnings, 7 infos (3 files with errors)\n"
    );
    assert_eq!(status, Some(1));
}

#[test]
fn by_default_a_line_per_file_with_findings_that_fits_the_width() {
    // render.jsonl has no finding: it is not listed.
    let files = [
        EFFECTS,
        &[
            "duplicate-uuid.jsonl",
            "two-records-on-one-line.jsonl",
            "../claude/render.jsonl",
        ],
    ]
    .concat();
    let run = |columns: Option<&str>, extra: &[&str]| {
        let mut c = cctool();
        c.current_dir(fixture("broken")).arg("doctor").args(extra).args(&files);
        match columns {
            Some(n) => c.env("COLUMNS", n),
            None => c.env_remove("COLUMNS"),
        };
        let out = c.output().unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    // Not a terminal and no COLUMNS: 80 columns.
    let (stdout, stderr) = run(None, &[]);
    assert_eq!(stdout.lines().count(), files.len(), "{stdout}");
    assert!(!stdout.contains("render.jsonl"), "{stdout}");
    assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
    assert!(stdout.starts_with("worst    file"), "{stdout}");
    assert!(
        stdout.contains("through-progress.jsonl  messages before line 5  dangling-parent 1"),
        "{stdout}"
    );
    assert!(stdout.contains("1 line"), "{stdout}");
    assert!(
        stderr.ends_with("11 files checked: 4 errors, 1 warnings, 8 infos (4 files with errors)\n"),
        "{stderr}"
    );
    // COLUMNS narrows it; the file names keep their ends.
    let (narrow, _) = run(Some("60"), &[]);
    assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
    // --min-severity leaves out the files with nothing at or above it.
    let (errors, _) = run(None, &["--min-severity", "error"]);
    assert_eq!(errors.lines().count(), 5, "{errors}");
    assert!(errors.lines().skip(1).all(|l| l.starts_with("error ")), "{errors}");
}

#[test]
fn rebuild_chain_says_the_same_about_the_walk_it_stops() {
    // rebuild-chain names the message the walk stopped at (line 7, below the progress rows
    // it bridged); doctor names the line that holds the broken reference (line 5).
    for (file, want) in [
        (
            "dangling-parent-through-progress.jsonl",
            ":7: error: the resumed chain stops here: parent 99999999-9999-4999-8999-999999999999 is not in the file, so a resume loses 4 message(s) written before it [dangling-parent]",
        ),
        (
            "dangling-parent-continued-session.jsonl",
            ":1: info: the resumed chain starts here: parent 99999999-9999-4999-8999-999999999999 is not in the file (continued from another file, or the file's start is missing); nothing written before it in this file is lost [dangling-parent]",
        ),
    ] {
        let out = cctool()
            .args(["rebuild-chain", fixture(&format!("broken/{file}")).to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&format!("{file}{want}")), "{stderr}");
    }
}

#[test]
fn filters_by_severity_and_code_and_counts_per_code() {
    // Errors only: the infos disappear from the findings, the counts and the exit status.
    let (stdout, stderr, status) = doctor_in_broken(&[&["--verbose", "--min-severity", "error"][..], EFFECTS].concat());
    assert_eq!(stdout.matches(": error [").count(), 3, "{stdout}");
    assert!(!stdout.contains(": info ["), "{stdout}");
    assert!(stderr.ends_with("8 files checked: 3 errors, 0 warnings, 0 infos (3 files with errors) (filtered)\n"));
    assert_eq!(status, Some(1));

    // One code, as JSON: its findings, one record for the code, the total.
    let (stdout, _, status) = doctor_in_broken(&[&["--json", "--code", "cycle"][..], EFFECTS].concat());
    let recs = records(&stdout);
    let kinds: Vec<&str> = recs.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["finding", "finding", "code", "total"]);
    assert!(recs[..2].iter().all(|r| r["code"] == "cycle"));
    assert_eq!(
        recs[2],
        serde_json::json!({"kind": "code", "code": "cycle", "findings": 2, "errors": 1, "warnings": 0, "infos": 1})
    );
    assert_eq!(recs[3]["errors"], 1);
    assert_eq!(status, Some(1));

    // Nothing at or above the threshold: exit 0.
    let (_, _, status) = doctor_in_broken(&["--min-severity", "error", "dangling-parent-off-chain.jsonl"]);
    assert_eq!(status, Some(0));

    // An unknown code is a usage error that names the valid ones.
    let (_, stderr, status) = doctor_in_broken(&["--code", "no-such-code", "cycle.jsonl"]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("dangling-parent"), "{stderr}");
}

/// A store with a session, its subagent, a file that is not a session and hostile files.
fn store(dir: &Path) {
    let proj = dir.join("projects/-home-dev-app");
    let sid = "5e551000-0000-4000-8000-0000000000f0";
    std::fs::create_dir_all(proj.join(sid).join("subagents")).unwrap();
    std::fs::copy(
        fixture("broken/dangling-parent-off-chain.jsonl"),
        proj.join(format!("{sid}.jsonl")),
    )
    .unwrap();
    std::fs::copy(
        fixture("claude/sidechain_newer.jsonl"),
        proj.join(sid).join("subagents/agent-a1.jsonl"),
    )
    .unwrap();
    for f in ["dangling-parent.jsonl", "cycle.jsonl", "invalid-json.jsonl"] {
        std::fs::copy(fixture(&format!("broken/{f}")), proj.join(f)).unwrap();
    }
    std::fs::write(proj.join("sessions-index.json"), "{\"entries\":[]}\n").unwrap();
}

fn last_total(stdout: &str) -> Value {
    records(stdout).into_iter().rfind(|r| r["kind"] == "total").unwrap()
}

#[test]
fn scan_and_doctor_count_the_same_files_and_links() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let session = dir
        .path()
        .join("projects/-home-dev-app/5e551000-0000-4000-8000-0000000000f0.jsonl");
    for target in [dir.path().to_path_buf(), session] {
        let run = |cmd: &str| {
            let out = cctool()
                .args([cmd, "--json", target.to_str().unwrap()])
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let (scan, doctor) = (run("scan"), run("doctor"));
        let (st, dt) = (last_total(&scan), last_total(&doctor));
        assert_eq!(st["files"], dt["files"], "{}", target.display());
        assert_eq!(st["skipped"], dt["skipped"], "{}", target.display());
        let scanned: u64 = records(&scan)
            .iter()
            .filter(|r| r["kind"] == "session")
            .map(|r| r["dangling_parents"].as_u64().unwrap_or(0))
            .sum();
        let found = records(&doctor)
            .iter()
            .filter(|r| r["kind"] == "finding" && r["code"] == "dangling-parent")
            .count() as u64;
        assert_eq!(scanned, found, "{}", target.display());
        assert!(scanned >= 3, "{}", target.display());
    }
}

#[test]
fn scan_and_doctor_agree_on_the_shared_samples() {
    let Some(dir) = crate::util::shared("") else { return };
    let run = |cmd: &str| {
        let out = cctool().args([cmd, "--json", dir.to_str().unwrap()]).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let (scan, doctor) = (run("scan"), run("doctor"));
    let scanned: u64 = records(&scan)
        .iter()
        .filter(|r| r["kind"] == "session")
        .filter_map(|r| r["dangling_parents"].as_u64())
        .sum();
    assert_eq!(last_total(&scan)["dangling_parents"], scanned);
    let findings: Vec<Value> = records(&doctor)
        .into_iter()
        .filter(|r| r["kind"] == "finding" && r["code"] == "dangling-parent")
        .collect();
    assert_eq!(scanned, findings.len() as u64);
    assert_eq!(last_total(&scan)["files"], last_total(&doctor)["files"]);
    // An error only where the resumed chain loses messages (a real chain break, and the
    // resume cases whose gap Claude Code does not bridge).
    for f in findings.iter().filter(|f| f["severity"] == "error") {
        let m = f["message"].as_str().unwrap();
        assert!(
            m.starts_with("the resumed chain stops here") && m.contains("so a resume loses"),
            "{f}"
        );
    }
}

fn doctor_codes() -> Vec<Code> {
    Code::ALL.iter().copied().filter(|c| c.reported().doctor).collect()
}

#[test]
fn help_lists_every_code_one_line_each_at_any_width() {
    for cols in ["60", "80", "200"] {
        let out = cctool()
            .env("COLUMNS", cols)
            .args(["doctor", "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let section = help
            .split("CODES (severity)\n")
            .nth(1)
            .and_then(|s| s.split("\n\n").next())
            .unwrap();
        let mut listed = Vec::new();
        for line in section.lines() {
            if let Some(desc) = line.strip_prefix("      ") {
                assert!(!desc.starts_with(' '), "COLUMNS={cols}: {line:?}");
            } else {
                // A code line, never wrapped.
                let head = line
                    .strip_prefix("  ")
                    .unwrap_or_else(|| panic!("COLUMNS={cols}: {line:?}"));
                let (id, sev) = head.split_once(" (").unwrap();
                let code = Code::from_id(id).unwrap_or_else(|| panic!("{id}"));
                assert_eq!(sev, format!("{})", code.severities_text()));
                listed.push(code);
            }
        }
        assert_eq!(listed, doctor_codes(), "COLUMNS={cols}");
    }
}

#[test]
fn man_page_and_guide_list_every_code() {
    let man = std::fs::read_to_string(root().join("man/cctool-doctor.1")).unwrap();
    let guide = std::fs::read_to_string(root().join("docs/guide/survey.md")).unwrap();
    for c in doctor_codes() {
        let entry = format!(
            ".TP\n\\fB{}\\fR ({})\n",
            c.id().replace('-', "\\-"),
            c.severities_text()
        );
        assert!(man.contains(&entry), "man page: {entry}");
        assert!(guide.contains(&format!("`{}`", c.id())), "docs/guide/survey.md: {c}");
    }
}

#[test]
fn doctor_reports_only_codes_it_documents() {
    let dir = fixture("broken");
    let out = cctool()
        .args([
            "doctor",
            "--json",
            dir.to_str().unwrap(),
            fixture("claude").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let codes: std::collections::BTreeSet<String> = records(&String::from_utf8(out.stdout).unwrap())
        .iter()
        .filter_map(|r| r["code"].as_str().map(str::to_string))
        .collect();
    assert!(codes.len() > 15, "{codes:?}");
    for id in codes {
        let code = Code::from_id(&id).unwrap();
        assert!(code.reported().doctor, "{id}");
    }
}
