//! The `scan` table, exactly, at fixed widths and time zones, on `fixtures/store` (a small
//! fake `~/.claude` and `~/.codex` plus a cctool session); and what its records say about
//! each format.

use serde_json::{Value, json};
use unicode_width::UnicodeWidthStr;

use crate::util::{cctool, fixture, records};

fn scan_store(args: &[&str], columns: Option<&str>, tz: &str) -> String {
    let mut cmd = cctool();
    cmd.current_dir(fixture("store"))
        .env("TZ", tz)
        .arg("scan")
        // The model column is the model a resume would use, which changes with the date.
        .args(["--as-of", "2026-12-01T12:00:00Z"])
        .args(args)
        .arg(".");
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const AT_80: &str = "\
last activity     id            project   title                              ctx
2026-04-08 08:06  …0408-e5f6a7  sessions  prepare the release notes          138
2026-04-07 09:11  c3d4e5f6      api       Rate limiter rejects every secon…   33
2026-04-06 14:12  019d2a2a      shop      Write a changelog entry for the …  106
2026-04-05 09:21  b2c3d4e5      shop      Translate the product page into …  163
2026-04-03 14:12  019d2a29      api       Make the rate limiter window con…  116
2026-04-02 09:32  a1b2c3d4      shop      Checkout flow refactor             112
2026-04-01 09:12  d4e5f6a7      api       Pagination for the users endpoint   34
total                                     7 sessions, 1 subagent             738
";

const AT_120: &str = "\
last activity     id            project   title                            msgs  ctx   compact      size  agent
2026-04-08 08:06  …0408-e5f6a7  sessions  prepare the release notes           3  138         1   1.1 KiB  cctool
2026-04-07 09:11  c3d4e5f6      api       Rate limiter rejects every sec…     2   33         -   1.8 KiB  claude 2.1.219
2026-04-06 14:12  019d2a2a      shop      Write a changelog entry for th…     3  106  1 remote   2.0 KiB  codex 0.171.0
2026-04-05 09:21  b2c3d4e5      shop      Translate the product page int…     5  163         -   2.3 KiB  claude 2.1.217
2026-04-03 14:12  019d2a29      api       Make the rate limiter window c…     3  116         1   2.1 KiB  codex 0.171.0
2026-04-02 09:32  a1b2c3d4      shop      Checkout flow refactor              4  112    1 auto   3.9 KiB  claude 2.1.205
2026-04-01 09:12  d4e5f6a7      api       Pagination for the users endpo…     3   34  1 manual   2.3 KiB  claude 2.0.76
total                                     7 sessions, 1 subagent             25  738         5  16.4 KiB
";

const AT_200: &str = "\
last activity     id            project   title                                                                                       msgs  ctx   compact      size  agent           model     subs  bad
2026-04-08 08:06  …0408-e5f6a7  sessions  prepare the release notes                                                                      3  138         1   1.1 KiB  cctool          -
2026-04-07 09:11  c3d4e5f6      api       Rate limiter rejects every second request                                                      2   33         -   1.8 KiB  claude 2.1.219  opus-4-5          1
2026-04-06 14:12  019d2a2a      shop      Write a changelog entry for the checkout split                                                 3  106  1 remote   2.0 KiB  codex 0.171.0   -
2026-04-05 09:21  b2c3d4e5      shop      Translate the product page into Japanese: 製品ページを日本語に翻訳してください。 Keep the…     5  163         -   2.3 KiB  claude 2.1.217  opus-4-5     1
2026-04-03 14:12  019d2a29      api       Make the rate limiter window configurable                                                      3  116         1   2.1 KiB  codex 0.171.0   -
2026-04-02 09:32  a1b2c3d4      shop      Checkout flow refactor                                                                         4  112    1 auto   3.9 KiB  claude 2.1.205  opus-4-5
2026-04-01 09:12  d4e5f6a7      api       Pagination for the users endpoint                                                              3   34  1 manual   2.3 KiB  claude 2.0.76   opus-4-5
total                                     7 sessions, 1 subagent                                                                        25  738         5  16.4 KiB                               1    1
";

#[test]
fn one_line_per_session_at_80_120_and_200_columns() {
    for (cols, want) in [("80", AT_80), ("120", AT_120), ("200", AT_200)] {
        let got = scan_store(&[], Some(cols), "UTC0");
        assert_eq!(got, want, "COLUMNS={cols}");
        let max: usize = cols.parse().unwrap();
        for line in got.lines() {
            assert!(UnicodeWidthStr::width(line) <= max, "COLUMNS={cols}: {line}");
            assert!(!line.ends_with(' '), "{line:?}");
        }
    }
}

#[test]
fn narrower_still_keeps_headers_whole() {
    for cols in ["30", "45", "60"] {
        let got = scan_store(&[], Some(cols), "UTC0");
        let header = got.lines().next().unwrap();
        assert!(
            header.starts_with("last activity     title") || header.starts_with("last activity     project"),
            "{header}"
        );
        assert_eq!(
            got.lines().count(),
            9,
            "COLUMNS={cols}: a line per session and the total\n{got}"
        );
    }
}

#[test]
fn times_are_local_to_tz() {
    // 09:32 UTC is 15:02 in India (UTC+05:30) and 05:32 in New York (UTC-4 in April).
    let got = scan_store(&["--sort", "size"], Some("80"), "IST-5:30");
    assert!(
        got.lines().nth(1).unwrap().starts_with("2026-04-02 15:02  a1b2c3d4"),
        "{got}"
    );
    let got = scan_store(&["--sort", "size"], Some("80"), "EST5EDT,M3.2.0,M11.1.0");
    assert!(
        got.lines().nth(1).unwrap().starts_with("2026-04-02 05:32  a1b2c3d4"),
        "{got}"
    );
}

#[test]
fn wide_shows_paths_and_subagents_under_their_session() {
    let got = scan_store(&["--wide", "--sort", "path"], Some("80"), "UTC0");
    let lines: Vec<&str> = got.lines().collect();
    assert!(lines[0].ends_with("  bad  path"), "{}", lines[0]);
    let session = lines
        .iter()
        .position(|l| l.ends_with("b2c3d4e5-2222-4bbb-8bbb-00000000000b.jsonl"))
        .unwrap();
    assert!(lines[session].contains("Translate the product page into Japanese: 製品ページを日本語に翻訳してください。 Keep the prices in euros and the layout unchanged."));
    assert!(lines[session + 1].contains("↳ Translate src/product.html"), "{got}");
    assert!(lines[session + 1].ends_with("b2c3d4e5-2222-4bbb-8bbb-00000000000b/subagents/agent-b2c3.jsonl"));
    assert_eq!(lines.len(), 10, "8 files and the header and the total\n{got}");
}

#[test]
fn records_name_each_session_and_count_every_format_right() {
    let out = cctool()
        .current_dir(fixture("store"))
        .args(["scan", "--json", "."])
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    let by = |part: &str| -> Value {
        recs.iter()
            .find(|r| r["path"].as_str().is_some_and(|p| p.contains(part)))
            .unwrap_or_else(|| panic!("{part}"))
            .clone()
    };
    let pick = |r: &Value| {
        json!({"project": r["project"], "title": r["title"], "from": r["title_source"], "cwd": r["cwd"],
               "compactions": r["compactions"], "first": r["first_timestamp"], "last": r["last_timestamp"]})
    };
    assert_eq!(
        pick(&by("a1b2c3d4")),
        json!({"project": "shop", "title": "Checkout flow refactor", "from": "custom-title", "cwd": "/home/dev/shop",
               "compactions": 1, "first": "2026-04-02T09:00:00.000Z", "last": "2026-04-02T09:32:00.000Z"})
    );
    assert_eq!(by("c3d4e5f6")["title_source"], "ai-title");
    // The summary row whose leaf is in this file names it, not the one of another session.
    assert_eq!(by("d4e5f6a7")["title"], "Pagination for the users endpoint");
    assert_eq!(by("d4e5f6a7")["title_source"], "summary");
    // The first prompt a person typed, not the /init command before it, on one line.
    assert_eq!(
        by("b2c3d4e5-2222-4bbb-8bbb-00000000000b.jsonl")["title"],
        "Translate the product page into Japanese: 製品ページを日本語に翻訳してください。 Keep the prices in euros and the layout unchanged."
    );
    let codex = by("019d2a29");
    assert_eq!(
        pick(&codex),
        json!({"project": "api", "title": "Make the rate limiter window configurable", "from": "first-prompt",
               "cwd": "/home/dev/api", "compactions": 1, "first": "2026-04-03T14:00:00.000Z", "last": "2026-04-03T14:12:00.000Z"})
    );
    // v5: one summary item is one compaction, whatever else says "summary"; times from the
    // messages.
    let v5 = by("release.v5.json");
    assert_eq!(v5["compactions"], 1);
    assert_eq!(v5["compaction_origins"], json!({"local": 1}));
    assert_eq!(v5["first_timestamp"], "2026-04-08T08:00:00.000Z");
    assert_eq!(v5["last_timestamp"], "2026-04-08T08:06:00.000Z");
    // The broken session: a chain break, as doctor reports it.
    let broken = by("c3d4e5f6");
    assert_eq!(
        (broken["dangling_parents"].as_u64(), broken["chain_breaks"].as_u64()),
        (Some(1), Some(1))
    );
    let total = recs.last().unwrap();
    assert_eq!(
        (total["sessions"].as_u64(), total["subagent_files"].as_u64()),
        (Some(7), Some(1))
    );
}

#[test]
fn v5_summaries_are_counted_as_items_not_as_text() {
    // Every message quoting `"type":"summary"` in its text once counted as a compaction.
    let dir = tempfile::tempdir().unwrap();
    let quote = r#"the record {"type":"summary"} is a branch title"#;
    let doc = json!({"schema_version": 5, "session_id": "s", "messages": [
        {"role": "user", "items": [{"type": "text", "text": quote}], "id": 1, "timestamp": "2026-04-08T08:00:00Z"},
        {"role": "assistant", "items": [{"type": "text", "text": quote}], "id": 2, "timestamp": "2026-04-08T08:01:00Z"},
        {"role": "user", "items": [{"type": "summary", "text": "[Summary]", "origin": "remote", "encrypted": true}], "id": 3, "timestamp": "2026-04-08T08:02:00Z"}
    ]});
    let path = dir.path().join("s.json");
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    let recs = records(&crate::util::stdout_of(&["scan", "--json", path.to_str().unwrap()]));
    assert_eq!(recs[0]["compactions"], 1);
    assert_eq!(recs[0]["compaction_origins"], json!({"remote": 1}));
    assert_eq!(recs[0]["last_timestamp"], "2026-04-08T08:02:00.000Z");
}

/// A Claude Code session of one prompt that ran in `cwd`.
fn session_in(dir: &std::path::Path, n: u8, cwd: &std::path::Path, prompt: &str) -> std::path::PathBuf {
    let id = format!("5ca1ab1e-0000-4000-8000-0000000000{n:02}");
    let row = json!({"parentUuid": null, "isSidechain": false, "type": "user", "cwd": cwd, "sessionId": id,
        "version": "2.1.219", "uuid": format!("5ca1ab1e-0000-4000-8000-0000000001{n:02}"),
        "timestamp": format!("2026-04-07T09:{n:02}:00.000Z"), "message": {"role": "user", "content": prompt}});
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, format!("{row}\n")).unwrap();
    path
}

#[test]
fn projects_are_named_by_the_shortest_path_that_tells_them_apart_and_worktrees_by_their_repository() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // A repository with two linked worktrees, and two other repositories both named `cli`.
    let main = h.join("src/tool");
    std::fs::create_dir_all(main.join(".git/worktrees")).unwrap();
    for wt in ["1", "2"] {
        let gitdir = main.join(".git/worktrees").join(wt);
        std::fs::create_dir_all(&gitdir).unwrap();
        std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(h.join("wt").join(wt)).unwrap();
        std::fs::write(
            h.join("wt").join(wt).join(".git"),
            format!("gitdir: {}\n", gitdir.display()),
        )
        .unwrap();
    }
    let sessions = h.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let files = [
        session_in(&sessions, 1, &h.join("wt/1"), "first worktree"),
        session_in(&sessions, 2, &h.join("wt/2"), "second worktree"),
        session_in(&sessions, 3, std::path::Path::new("/nowhere/work/cli"), "work cli"),
        session_in(&sessions, 4, std::path::Path::new("/nowhere/other/cli"), "other cli"),
    ];
    let out = cctool()
        .env("COLUMNS", "200")
        .args(["scan", "--sort", "path"])
        .args(&files)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let project_of = |title: &str| {
        let line = text
            .lines()
            .find(|l| l.contains(title))
            .unwrap_or_else(|| panic!("{title}: {text}"));
        line.split_whitespace().nth(3).unwrap().to_string()
    };
    assert_eq!(project_of("first worktree"), "tool", "{text}");
    assert_eq!(project_of("second worktree"), "tool", "{text}");
    assert_eq!(project_of("work cli"), "work/cli", "{text}");
    assert_eq!(project_of("other cli"), "other/cli", "{text}");
    // The records' project is the folder's own name, the worktree's repository's too.
    let recs =
        records(&String::from_utf8(cctool().args(["scan", "--json"]).args(&files).output().unwrap().stdout).unwrap());
    let names: Vec<&str> = recs.iter().filter_map(|r| r["project"].as_str()).collect();
    assert_eq!(names, ["tool", "tool", "cli", "cli"]);
}
