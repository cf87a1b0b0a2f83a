//! What a reader of `cctool export` sees: the same titles as `scan`, the Markdown of messages
//! rendered on the HTML page, and an index grouped by project, newest first.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{cctool, fixture, records};

/// The store fixtures: two Claude Code sessions with a title row (one the user's, one the
/// agent's) and others titled by their first prompt.
fn store_sessions() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(fixture("store"))
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && !p.to_string_lossy().contains("subagents"))
        .collect();
    files.sort();
    files
}

fn export_to(dir: &Path, format: &str, files: &[PathBuf]) {
    let out = cctool()
        .args(["export", "--no-redact", "--format", format, "-o"])
        .arg(dir)
        .args(files)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn export_titles_are_scans_titles() {
    let files = store_sessions();
    assert!(files.len() >= 3, "{files:?}");
    let scan = cctool().args(["scan", "--json"]).args(&files).output().expect("run");
    let titles: Vec<(String, String)> = records(&String::from_utf8(scan.stdout).expect("utf-8"))
        .into_iter()
        .filter(|r| r["kind"] == "session" && r["title"].is_string())
        .filter(|r| files.iter().any(|f| f.to_str() == r["path"].as_str()))
        .map(|r: Value| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // The fixtures' own title rows are among them.
    for want in ["Checkout flow refactor", "Rate limiter rejects every second request"] {
        assert!(titles.iter().any(|(_, t)| t == want), "{titles:?}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    export_to(dir.path(), "markdown", &files);
    for (path, title) in &titles {
        let stem = Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
        let page = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(&stem))
            .unwrap_or_else(|| panic!("no export of {path}"));
        let md = std::fs::read_to_string(&page).unwrap();
        let first = md.lines().next().unwrap_or_default();
        assert_eq!(
            first.strip_prefix("# ").map(|t| t.replace('\\', "")),
            Some(title.clone()),
            "{path}"
        );
    }
}

#[test]
fn the_index_groups_sessions_by_project_newest_first() {
    let files = store_sessions();
    let dir = tempfile::tempdir().expect("tempdir");
    export_to(dir.path(), "markdown", &files);
    let index = std::fs::read_to_string(dir.path().join("index.md")).unwrap();
    let headings: Vec<&str> = index.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    // api's newest session (04-07) is newer than shop's (04-06).
    assert_eq!(headings, ["api", "shop"], "{index}");
    let api: Vec<&str> = index
        .split("## ")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("- ["))
        .collect();
    assert_eq!(api.len(), 3, "{index}");
    assert!(
        api[0].contains("c3d4e5f6") && api[1].contains("019d2a29") && api[2].contains("d4e5f6a7"),
        "{index}"
    );
    // Each page names its project.
    let page = std::fs::read_to_string(dir.path().join("c3d4e5f6-3333-4ccc-8ccc-00000000000c.md")).unwrap();
    assert!(page.contains("_project `/home/dev/api`, Claude Code session"), "{page}");

    let html_dir = tempfile::tempdir().expect("tempdir");
    export_to(html_dir.path(), "html", &files);
    let index = std::fs::read_to_string(html_dir.path().join("index.html")).unwrap();
    let (api, shop) = (index.find("<h2>api</h2>"), index.find("<h2>shop</h2>"));
    assert!(api.is_some() && api < shop, "{index}");
}

#[test]
fn the_html_page_renders_the_markdown_of_messages_and_keeps_html_as_text() {
    let out = cctool()
        .args(["export", "--no-redact", "--format", "html"])
        .arg(fixture("export/markdown_claude.jsonl"))
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = String::from_utf8(out.stdout).expect("utf-8");
    for want in [
        "<h2>Plan</h2>",
        "<strong>Two</strong>",
        "<li>read</li>",
        "<th>step</th>",
        "<code>in.txt</code>",
        "<pre><code>ls -l\n</code></pre>",
        "<em>plan</em>",
    ] {
        assert!(page.contains(want), "{want}: {page}");
    }
    // Raw HTML is text, and a link is its text and its address, never a link.
    assert!(page.contains("&lt;b&gt;now&lt;/b&gt;"), "{page}");
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "{page}");
    assert!(
        !page.contains("<img src=x") && !page.contains("href=\"javascript"),
        "{page}"
    );
    assert!(page.contains("the docs &lt;javascript:alert(1)&gt;"), "{page}");
}
