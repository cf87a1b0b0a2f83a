//! Every shell recipe of README.md and of the user guide (`docs/guide/`) runs as written: with `cctool` on PATH, HOME pointed at a
//! fake store made from `fixtures/store` (`~/.claude/projects`, `~/.codex/sessions`), and a
//! working folder holding the files the recipes name (`SESSION.jsonl`, `ROLLOUT.jsonl`,
//! `session.json`, `old.json`, `sessions/`). Recipes run in reading order (the README, then the
//! guide's pages in `GUIDE` order) in one folder, as a reader following along would run them: a
//! recipe may use what an earlier one wrote.
//!
//! Each must exit 0 (1 where its command documents a negative answer), print no JSON `null`
//! where a jq filter selected nothing real, no jq error and no panic, and print something
//! unless it writes a file. Recipes using jq are skipped, with a notice, where jq is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{fixture, root, skip_notice};

/// The pages whose recipes run, in the order a reader meets them.
const PAGES: &[&str] = &[
    "README.md",
    "docs/guide/read.md",
    "docs/guide/survey.md",
    "docs/guide/search.md",
    "docs/guide/mcp.md",
    "docs/guide/rewrite.md",
    "docs/guide/keep-and-share.md",
    "docs/guide/convert.md",
    "docs/guide/inputs.md",
];

/// One command line of a `sh` block (continuation lines joined, comments dropped).
#[derive(Debug)]
struct Recipe {
    page: &'static str,
    line: usize,
    text: String,
}

/// Every recipe of every page of `PAGES`, in order.
fn all_recipes() -> Vec<Recipe> {
    let mut all = Vec::new();
    for page in PAGES {
        let text = std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        all.extend(recipes(&text).into_iter().map(|r| Recipe { page, ..r }));
    }
    all
}

#[test]
fn every_page_of_the_guide_is_run() {
    let listed: std::collections::BTreeSet<String> = PAGES.iter().map(|p| p.to_string()).collect();
    for entry in std::fs::read_dir(root().join("docs/guide")).unwrap() {
        let name = format!("docs/guide/{}", entry.unwrap().file_name().to_string_lossy());
        if name.ends_with(".md") && !name.ends_with("README.md") {
            assert!(
                listed.contains(&name),
                "{name} is not in PAGES: its recipes would not run"
            );
        }
    }
}

fn recipes(readme: &str) -> Vec<Recipe> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<Recipe> = None;
    for (i, raw) in readme.lines().enumerate() {
        let line = raw.trim_end();
        if line.starts_with("```") {
            in_sh = !in_sh && line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = strip_comment(line);
        if code.trim().is_empty() {
            continue;
        }
        let (body, more) = match code.trim_end().strip_suffix('\\') {
            Some(b) => (b.to_string(), true),
            None => (code.trim_end().to_string(), false),
        };
        let r = pending.get_or_insert_with(|| Recipe {
            page: "",
            line: i + 1,
            text: String::new(),
        });
        if !r.text.is_empty() {
            r.text.push(' ');
        }
        r.text.push_str(body.trim());
        if !more {
            out.extend(pending.take());
        }
    }
    out
}

/// The line without a trailing `# comment` (a `#` outside quotes that starts a word).
fn strip_comment(line: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The fake home and the working folder.
fn world(dir: &Path) -> (PathBuf, PathBuf) {
    let home = dir.join("home");
    let work = dir.join("work");
    crate::util::copy_tree(&fixture("store/.claude"), &home.join(".claude"));
    crate::util::copy_tree(&fixture("store/.codex"), &home.join(".codex"));
    let session = fixture("store/.claude/projects/-home-dev-shop/a1b2c3d4-1111-4aaa-8aaa-00000000000a.jsonl");
    let rollout = fixture(
        "store/.codex/sessions/2026/04/03/rollout-2026-04-03T14-00-00-019d2a29-fe67-7632-b14f-5419a515b120.jsonl",
    );
    // The README's own project: the store's session that has a compaction, under the name
    // the recipes give it.
    let app = home.join(".claude/projects/-home-me-app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::rename(
        home.join(".claude/projects/-home-dev-shop")
            .join(session.file_name().unwrap()),
        app.join("SESSION.jsonl"),
    )
    .unwrap();
    std::fs::create_dir_all(work.join("sessions")).unwrap();
    for (from, to) in [
        (session, work.join("SESSION.jsonl")),
        (rollout, work.join("ROLLOUT.jsonl")),
        (fixture("compact/session-v5.json"), work.join("session.json")),
        (fixture("migrate/v1.json"), work.join("old.json")),
        (fixture("migrate/v2.json"), work.join("sessions/a.json")),
        (fixture("migrate/v3.json"), work.join("sessions/b.json")),
    ] {
        std::fs::copy(&from, &to).unwrap();
        crate::util::age(&to);
    }
    // The set-up recipes run from the project folder.
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("fixtures"), work.join("fixtures")).unwrap();
    (home, work)
}

/// A recipe's command for the test: `cargo run --release --` is the cctool under test.
fn as_run(text: &str) -> Option<String> {
    if let Some(rest) = text.strip_prefix("cargo run --release -- ") {
        return Some(format!("cctool {rest}"));
    }
    text.starts_with("cctool ").then(|| text.to_string())
}

/// Commands whose exit status 1 is a documented negative answer.
fn may_exit_1(text: &str) -> bool {
    text.starts_with("cctool doctor")
        || text.contains(" --check")
        || text.contains(" --dry-run")
        || text.contains(" --current")
}

/// Recipes that write files instead of printing.
fn writes(text: &str) -> bool {
    text.contains(" > ")
        || text.contains(" -o ")
        || text.contains("--in-place")
        || (text.starts_with("cctool migrate ") && !text.contains("--json") && !text.contains("--check"))
}

/// Recipes whose filter selects nothing in the small store, and why that is right.
const MAY_BE_EMPTY: &[(&str, &str)] = &[
    ("resume_tokens > 150000", "no session of the store is that large"),
    (
        "select(.kind == \"diagnostic\")",
        "the README's session loads without a diagnostic",
    ),
];

#[test]
fn every_readme_recipe_runs_as_written() {
    let all = all_recipes();
    assert!(all.len() >= 30, "recipes found: {}", all.len());
    let jq = have("jq");
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = world(dir.path());
    let bin_dir = assert_cmd::cargo::cargo_bin("cctool").parent().unwrap().to_path_buf();
    let shims = dir.path().join("shims");
    std::fs::create_dir_all(&shims).unwrap();
    if !have("less") {
        std::fs::write(shims.join("less"), "#!/bin/sh\nexec cat\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(shims.join("less"), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let path = format!(
        "{}:{}:{}",
        bin_dir.display(),
        shims.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    let mut failures = Vec::new();
    for r in &all {
        let Some(cmd) = as_run(&r.text) else {
            skip_notice(&format!("{}:{} is not a cctool recipe: {}", r.page, r.line, r.text));
            continue;
        };
        if cmd.contains("jq ") && !jq {
            skip_notice(&format!("jq is not installed: {}:{}", r.page, r.line));
            continue;
        }
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &cmd])
            .current_dir(&work)
            .env("HOME", &home)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("COLUMNS")
            .output()
            .unwrap();
        ran += 1;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let mut why = Vec::new();
        if !(code == Some(0) || (code == Some(1) && may_exit_1(&cmd))) {
            why.push(format!("exit {code:?}"));
        }
        if stdout.lines().any(|l| l.trim() == "null") {
            why.push("prints a stray null".into());
        }
        if stderr.contains("jq: error") || stderr.contains("panicked") || stderr.contains("command not found") {
            why.push("errors on stderr".into());
        }
        let empty_ok = MAY_BE_EMPTY.iter().any(|(part, _)| cmd.contains(part));
        if stdout.trim().is_empty() && !writes(&cmd) && !empty_ok {
            why.push("prints nothing".into());
        }
        if !why.is_empty() {
            failures.push(format!(
                "{}:{}: {}\n  {}\n  stdout: {}\n  stderr: {}",
                r.page,
                r.line,
                cmd,
                why.join(", "),
                stdout.chars().take(400).collect::<String>(),
                stderr.chars().take(400).collect::<String>()
            ));
        }
    }
    assert!(ran >= 30, "recipes run: {ran}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_scan_example_is_what_scan_prints() {
    for page in ["README.md", "docs/guide/survey.md"] {
        let text = std::fs::read_to_string(root().join(page)).unwrap();
        let example = text
            .split("```text\n$ COLUMNS=80 cctool scan\n")
            .nth(1)
            .and_then(|s| s.split("```").next())
            .unwrap_or_else(|| panic!("{page}: the scan example"));
        assert_eq!(scan_of_the_store(), example, "{page}");
    }
}

/// What `COLUMNS=80 cctool scan` prints for the recipes' fake store.
fn scan_of_the_store() -> String {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = world(dir.path());
    let out = crate::util::cctool()
        .current_dir(work)
        .env("HOME", &home)
        .env("COLUMNS", "80")
        .env("TZ", "UTC")
        .arg("scan")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn recipes_are_read_like_a_shell_reads_them() {
    let rs = recipes(
        "```sh\n# a comment\ncctool a | jq -r '\"#x\" | .y'   # trailing\ncctool b \\\n  --c\n```\n```text\ncctool no\n```\n",
    );
    let texts: Vec<&str> = rs.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(texts, ["cctool a | jq -r '\"#x\" | .y'", "cctool b --c"]);
}
