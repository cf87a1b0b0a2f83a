//! Documentation that is generated from the clap definitions must match them.

use crate::util::{cctool, root, stdout_of};

#[test]
fn committed_man_pages_are_current() {
    let dir = tempfile::tempdir().unwrap();
    cctool().args(["generate-man"]).arg(dir.path()).assert().success();
    let mut generated: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    generated.sort();
    assert!(generated.contains(&"cctool.1".to_string()));
    assert!(generated.contains(&"cctool-rebuild-chain.1".to_string()));
    for name in generated {
        let fresh = std::fs::read(dir.path().join(&name)).unwrap();
        let committed = std::fs::read(root().join("man").join(&name)).unwrap_or_default();
        assert!(
            fresh == committed,
            "man/{name} is stale: run `cargo run -- generate-man man` and commit the result"
        );
    }
}

#[test]
fn completions_are_generated_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = stdout_of(&["completions", shell]);
        assert!(out.contains("rebuild-chain"), "{shell}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = cctool().args(["rebuild-chain"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = cctool().args(["no-such-command"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    cctool().arg("--help").assert().success();
    cctool().arg("--version").assert().success();
}

// ---- the project's own documentation ------------------------------------------------------

/// Every file under `dir` (relative to the project), recursively, sorted.
fn files_in(dir: &str) -> Vec<std::path::PathBuf> {
    fn walk(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    out
}

/// The anchors GitHub gives a page's headings: lower case, inline code and link syntax
/// dropped, every character but letters, digits, spaces, `-` and `_` removed, spaces as `-`,
/// and `-1`, `-2` … after a repeated one.
fn anchors(markdown: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let Some(title) = line.strip_prefix('#').filter(|_| !fenced) else {
            continue;
        };
        let title = title.trim_start_matches('#').trim();
        let mut text = String::new();
        let mut rest = title;
        // [text](url) keeps only the text.
        while let Some(i) = rest.find('[') {
            text.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            match (after.find("]("), after.find(')')) {
                (Some(j), Some(k)) if j < k => {
                    text.push_str(&after[..j]);
                    rest = &after[k + 1..];
                }
                _ => {
                    text.push('[');
                    rest = after;
                }
            }
        }
        text.push_str(rest);
        let slug: String = text
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = out
            .iter()
            .filter(|a| a.as_str() == slug || a.starts_with(&format!("{slug}-")))
            .count();
        out.push(if n == 0 { slug.clone() } else { format!("{slug}-{n}") });
    }
    out
}

/// Checks that `target` (a path relative to `from`'s folder, maybe with `#anchor`) names a
/// file of the project and, for a page, one of its headings.
fn check_link(from: &std::path::Path, target: &str, problems: &mut Vec<String>) {
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    let Ok(file) = file.canonicalize() else {
        problems.push(format!("{}: {target}: no such file", from.display()));
        return;
    };
    if !file.starts_with(root().canonicalize().unwrap()) {
        problems.push(format!("{}: {target}: outside the repository", from.display()));
    }
    if !anchor.is_empty() && file.extension().is_some_and(|e| e == "md") {
        let page = std::fs::read_to_string(&file).unwrap();
        if !anchors(&page).iter().any(|a| a == anchor) {
            problems.push(format!("{}: {target}: no heading with that anchor", from.display()));
        }
    }
}

#[test]
fn anchors_follow_github_rules() {
    let page = "# What 2.1.332 changes\n## B1: gap bridging\n```\n# not a heading\n```\n### `--strip-template`\n## A [link](x.md) here\n## B1: gap bridging\n";
    assert_eq!(
        anchors(page),
        [
            "what-21332-changes",
            "b1-gap-bridging",
            "--strip-template",
            "a-link-here",
            "b1-gap-bridging-1"
        ]
    );
}

#[test]
fn links_of_the_documentation_resolve_to_files_and_headings() {
    let mut pages = files_in("docs");
    pages.push(root().join("README.md"));
    pages.push(root().join("scripts/realclient/README.md"));
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in pages.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(page).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") && !target.contains(' ') {
                check_link(page, target, &mut problems);
                checked += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(checked > 100, "{checked} links");
}

#[test]
fn code_cites_the_documentation_by_existing_anchors() {
    let mut problems = Vec::new();
    let mut cited = 0;
    // Snapshots hold what commands print, fixture text included, and the data files beside an
    // agent's request emulation (`src/api/`: its prompt texts, its tool declarations) are the
    // client's own words as it sends them (pi's name pi's docs): not citations.
    let cited_in = |f: &&std::path::PathBuf| {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let client_data = ext != "rs" && f.to_string_lossy().contains("/src/api/");
        ext != "snap" && ext != "prompt" && !client_data
    };
    for file in files_in("src")
        .iter()
        .chain(files_in("crates").iter())
        .chain(files_in("tests").iter())
        .filter(cited_in)
    {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (i, _) in text.match_indices("docs/") {
            let cite: String = text[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '-' | '_' | '#'))
                .collect();
            let cite = cite.trim_end_matches('.');
            if !cite.contains(".md") {
                continue;
            }
            // A citation is relative to the project's root, whatever file it is in.
            let mut found = Vec::new();
            check_link(&root().join("Cargo.toml"), cite, &mut found);
            let anchor = format!("{}: ", root().join("Cargo.toml").display());
            problems.extend(
                found
                    .iter()
                    .map(|p| format!("{}: {}", file.display(), p.replacen(&anchor, "", 1))),
            );
            cited += 1;
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(cited > 10, "{cited} citations");
}

#[test]
fn nothing_a_user_reads_points_outside_the_repository() {
    // A clone has no notes, samples or tools beside it: README, man pages, docs, scripts and
    // the code's comments cite `docs/` instead.
    let forbidden = [
        "../shared",
        "shared/research",
        "shared/samples",
        "shared/spec",
        "shared/tools",
        "research note",
        "seed 0",
        "claude-code-format.md",
        "codex-rollout-format.md",
        "2.1.332-resume.md",
        "session-schema.md",
        "`cli.md`",
    ];
    let mut files = vec![root().join("README.md")];
    for dir in ["man", "src", "crates", "docs", "scripts", "benches", "examples"] {
        files.extend(files_in(dir));
    }
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let section = line
                .char_indices()
                .any(|(i, c)| c == '§' && line[i + c.len_utf8()..].starts_with(|d: char| d.is_ascii_digit()));
            if section || forbidden.iter().any(|f| lower.contains(f)) {
                problems.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
