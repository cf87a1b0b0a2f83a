//! `cctool export`: every seeded secret redacted in every format, text without secrets
//! unchanged, Markdown fences intact (read back with a CommonMark parser), an HTML page that
//! escapes everything (and, where Chromium is installed, renders, searches and runs no
//! transcript script), native exports the real clients resume.

use std::path::{Path, PathBuf};

use crate::util::{Client, cctool, fixture, realclient, resume_with, skip_notice};

const CLAUDE: &str = "export/5ec2e700-0000-4000-8000-000000000023.jsonl";
const CODEX: &str = "export/codex_secrets.jsonl";
const FORMATS: &[&str] = &["markdown", "html", "jsonl", "native"];

/// The seeded secrets: each kind's value, and the user's name (`alice`, from `USER`).
fn secrets() -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture("export/secrets.json")).unwrap()).unwrap();
    let mut out: Vec<(String, String)> = v
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    out.push(("user-name".into(), "alice".into()));
    out
}

/// The pieces of a secret to search for: the value, and each body line of a PEM key (an
/// export that kept one line of it would leak part of the key).
fn needles(kind: &str, secret: &str) -> Vec<String> {
    if kind == "private-key" {
        secret
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .map(str::to_string)
            .collect()
    } else {
        vec![secret.to_string()]
    }
}

/// cctool as the user `alice` whose home is `/home/alice`.
fn as_alice() -> assert_cmd::Command {
    let mut c = cctool();
    c.env("HOME", "/home/alice").env("USER", "alice").env("TZ", "UTC");
    c
}

fn export(args: &[&str]) -> (String, String) {
    let out = as_alice().arg("export").args(args).output().expect("run");
    assert!(
        out.status.success(),
        "export {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

#[test]
fn no_seeded_secret_survives_any_format() {
    for file in [CLAUDE, CODEX] {
        let path = fixture(file);
        for format in FORMATS {
            for full in [false, true] {
                let mut args = vec!["--share", "--format", format, path.to_str().unwrap()];
                if full {
                    args.push("--full");
                }
                let (out, err) = export(&args);
                for (kind, secret) in secrets() {
                    for n in needles(&kind, &secret) {
                        assert!(!out.contains(&n), "{file} {format} full={full}: {kind} survived");
                    }
                    // The report names rules and counts, never what they matched.
                    assert!(!err.contains(&secret), "{file}: {kind} in the report");
                }
                // With the whole history every kind was met, under its own name.
                if full || *format == "native" {
                    for (kind, _) in secrets() {
                        assert!(
                            out.contains(&format!("[REDACTED:{kind}#1]")),
                            "{file} {format} full={full}: no placeholder for {kind}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn native_and_jsonl_exports_stay_valid_json_and_keep_the_structure() {
    let (out, _) = export(&["--share", "--format", "native", fixture(CLAUDE).to_str().unwrap()]);
    let input = std::fs::read_to_string(fixture(CLAUDE)).unwrap();
    assert_eq!(out.lines().count(), input.lines().count());
    for (a, b) in out.lines().zip(input.lines()) {
        let a: serde_json::Value = serde_json::from_str(a).expect("valid JSON");
        let b: serde_json::Value = serde_json::from_str(b).unwrap();
        for key in ["uuid", "parentUuid", "sessionId", "type", "timestamp"] {
            assert_eq!(a[key], b[key], "{key}");
        }
    }
    // Codex arguments are JSON text in a string: still JSON after the redaction inside them.
    let (out, _) = export(&["--share", "--format", "native", fixture(CODEX).to_str().unwrap()]);
    let mut calls = 0;
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("valid JSON");
        if v["payload"]["type"] == "function_call" {
            let args: serde_json::Value = serde_json::from_str(v["payload"]["arguments"].as_str().unwrap()).unwrap();
            assert!(args["cmd"].is_string());
            calls += 1;
        }
    }
    assert_eq!(calls, 2);
}

#[test]
fn the_same_secret_has_one_number_across_files_and_the_report_counts() {
    let dir = tempfile::tempdir().unwrap();
    let out = as_alice()
        .args(["--json", "export", "--share", "--format", "markdown", "--full", "-o"])
        .arg(dir.path())
        .arg(fixture(CLAUDE))
        .arg(fixture(CODEX))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.iter().filter(|r| r["kind"] == "export").count(), 2);
    let report = records.iter().find(|r| r["kind"] == "redaction").expect("report");
    let github = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "github-token")
        .unwrap();
    // One token, met once in each file: two matches, one placeholder.
    assert_eq!(
        (github["count"].as_u64(), github["distinct"].as_u64()),
        (Some(2), Some(1))
    );
    for name in ["5ec2e700-0000-4000-8000-000000000023.md", "codex_secrets.md"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.contains("next page token: [REDACTED:github-token#1]"), "{name}");
    }
    let index = std::fs::read_to_string(dir.path().join("index.md")).unwrap();
    assert!(index.contains("(<codex_secrets.md>)"), "{index}");
    assert!(!index.contains("alice"), "{index}");
}

#[test]
fn text_without_secrets_is_unchanged() {
    let clean = fixture("export/clean_claude.jsonl");
    let (native, err) = export(&["--redact", "--format", "native", clean.to_str().unwrap()]);
    assert_eq!(native, std::fs::read_to_string(&clean).unwrap());
    assert!(err.contains("redacted: nothing matched"), "{err}");
    for format in ["markdown", "html", "jsonl"] {
        let (redacted, _) = export(&["--share", "--format", format, clean.to_str().unwrap()]);
        let (plain, _) = export(&["--format", format, clean.to_str().unwrap()]);
        // Only the line saying the export was redacted differs.
        let strip = |s: &str| s.replace(", secrets redacted", "").replace(" · secrets redacted", "");
        assert_eq!(strip(&redacted), plain, "{format}");
    }
}

#[test]
fn a_file_argument_without_redaction_is_copied_as_written() {
    let (out, err) = export(&["--format", "native", fixture(CLAUDE).to_str().unwrap()]);
    assert_eq!(out, std::fs::read_to_string(fixture(CLAUDE)).unwrap());
    assert!(err.is_empty(), "{err}");
    let (out, _) = export(&[
        "--share",
        "--no-redact",
        "--format",
        "native",
        fixture(CLAUDE).to_str().unwrap(),
    ]);
    assert_eq!(out, std::fs::read_to_string(fixture(CLAUDE)).unwrap());
}

/// Code blocks of a Markdown document, as a CommonMark parser reads them.
fn code_blocks(md: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::CodeBlock(_)) => current = Some(String::new()),
            Event::Text(t) if current.is_some() => current.as_mut().unwrap().push_str(&t),
            Event::End(TagEnd::CodeBlock) => blocks.push(current.take().unwrap()),
            _ => {}
        }
    }
    blocks
}

#[test]
fn markdown_fences_in_tool_results_stay_intact() {
    let (md, _) = export(&[
        "--format",
        "markdown",
        fixture("export/clean_claude.jsonl").to_str().unwrap(),
    ]);
    let blocks = code_blocks(&md);
    // The tool call, the tool result whole (its own fences inside), the assistant's block.
    assert_eq!(blocks.len(), 3, "{md}");
    assert_eq!(
        blocks[1],
        "src/client.py:12:    max_tokens = 4096\nsrc/client.py:13:    token = os.environ.get(\"TOKEN\")\n````python\nprint('four backticks')\n````\n```\nthree\n```\n"
    );
    assert_eq!(blocks[2], "max_tokens = 8192\n");
    // The heading after the result is a heading, not text swallowed by a fence.
    let headings = pulldown_cmark::Parser::new(&md)
        .filter(|e| matches!(e, pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { .. })))
        .count();
    assert_eq!(headings, 5, "{md}");
}

#[test]
fn markdown_of_the_redacted_session_parses_with_its_fences() {
    let (md, _) = export(&["--share", "--full", fixture(CLAUDE).to_str().unwrap()]);
    let blocks = code_blocks(&md);
    let result = blocks
        .iter()
        .find(|b| b.starts_with("200 OK"))
        .expect("the tool result with a fence inside");
    assert_eq!(
        result,
        "200 OK\nnext page token: [REDACTED:github-token#1]\n```\nnested fence\n```\n"
    );
    // The subagent's transcript is inlined after the session.
    assert!(md.contains("## Subagent: Check the staging database"), "{md}");
}

#[test]
fn html_escapes_everything_from_the_transcript() {
    let (page, _) = export(&[
        "--format",
        "html",
        fixture("export/hostile_claude.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(page.matches("<script").count(), 1, "only cctool's own script");
    assert_eq!(page.matches("</script>").count(), 1);
    assert!(!page.contains("<img src=x"));
    assert!(!page.contains("href=\"javascript"));
    assert!(!page.contains("</textarea>"));
    assert!(page.contains("&lt;/textarea&gt;"));
    assert!(!page.contains('\u{1b}'), "control characters are shown as escapes");
    assert!(page.contains("\\x1b[31mred"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "nothing is fetched"
    );
    let csp = page
        .lines()
        .find(|l| l.contains("Content-Security-Policy"))
        .expect("a policy");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'sha256-"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"));
}

/// Chromium, or `None` after a one-line notice.
fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        {
            return Some(p);
        }
    }
    skip_notice("Chromium not installed (apt-get install chromium)");
    None
}

/// The page's DOM after its scripts ran, and Chromium's log (console messages included).
fn open_in_chromium(browser: &Path, page: &Path, fragment: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .expect("run chromium");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn html_in_a_real_browser_renders_searches_and_runs_no_transcript_script() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (fixture_name, last_word, messages) in [
        ("export/hostile_claude.jsonl", "quetzalcoatl", 4),
        (CLAUDE, "zanzibar", 3 + 2),
    ] {
        let page = dir.path().join("page.html");
        as_alice()
            .args(["export", "--share", "--format", "html", "--force", "-o"])
            .arg(&page)
            .arg(fixture(fixture_name))
            .assert()
            .success();
        let (dom, log) = open_in_chromium(&browser, &page, &format!("#search={last_word}"));
        let consoles: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
        assert!(consoles.is_empty(), "{fixture_name}: console messages: {consoles:?}");
        assert!(!dom.contains("data-pwned="), "{fixture_name}: a transcript script ran");
        let articles = dom.matches("<article class=\"msg").count();
        assert_eq!(articles, messages, "{fixture_name}: every message rendered");
        // The search (from the address) kept the last message and hid the others.
        let shown: Vec<&str> = dom
            .split("<article class=\"")
            .skip(1)
            .filter(|a| !a.starts_with("msg user nomatch") && !a.contains("nomatch\""))
            .collect();
        assert_eq!(shown.len(), 1, "{fixture_name}: {dom}");
        assert!(shown[0].contains(last_word));
        assert!(dom.contains(&format!("1 of {messages} messages")), "{fixture_name}");
    }
}

#[test]
fn redacted_native_exports_are_resumed_by_the_real_clients() {
    let dir = tempfile::tempdir().unwrap();
    for (client, file, name) in [
        (Client::ClaudeCode, CLAUDE, "5ec2e700-0000-4000-8000-000000000023.jsonl"),
        (
            Client::Codex,
            CODEX,
            "rollout-2026-06-02T10-00-00-019e2300-0000-7000-8000-000000000023.jsonl",
        ),
    ] {
        let Some(script) = realclient(client) else { continue };
        let out = dir.path().join(name);
        as_alice()
            .args(["export", "--redact", "--format", "native", "-o"])
            .arg(&out)
            .arg(fixture(file))
            .assert()
            .success();
        let sent = resume_with(&script, &out).to_string();
        for (kind, secret) in secrets() {
            for n in needles(&kind, &secret) {
                assert!(!sent.contains(&n), "{file}: {kind} reached the client");
            }
        }
        for p in ["[REDACTED:anthropic-key#1]", "[REDACTED:jwt#1]", "[REDACTED:image#1]"] {
            assert!(sent.contains(p), "{file}: {p} not sent: {sent}");
        }
    }
}

#[test]
fn outputs_never_replace_inputs_or_existing_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("s.jsonl");
    std::fs::copy(fixture(CLAUDE), &input).unwrap();
    let out = as_alice()
        .args(["export", "--force", "--format", "native", "-o"])
        .arg(&input)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the output would replace an input"));
    let target = dir.path().join("out.md");
    std::fs::write(&target, "mine").unwrap();
    let out = as_alice()
        .args(["export", "-o"])
        .arg(&target)
        .arg(&input)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not overwritten"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    // Several inputs need a folder.
    let out = as_alice()
        .arg("export")
        .arg(&input)
        .arg(fixture(CODEX))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o DIR"));
}

#[test]
fn rules_from_the_command_line_and_the_rules_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(&rules, "# ours\nproject=\\bzanzibar\\b\n").unwrap();
    let (md, err) = export(&[
        "--share",
        "--redact-config",
        rules.to_str().unwrap(),
        "--redact-rule",
        "dashboard",
        fixture(CLAUDE).to_str().unwrap(),
    ]);
    assert!(
        md.contains("The [REDACTED:custom#1] is green. The deploy to [REDACTED:project#1] finished."),
        "{md}"
    );
    assert!(err.contains("project x1 (1 distinct)"), "{err}");
    std::fs::write(&rules, "ok=fine\nbroken=(\n").unwrap();
    let out = as_alice()
        .args(["export", "--share", "--redact-config"])
        .arg(&rules)
        .arg(fixture(CLAUDE))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:2: rule broken is not a valid regular expression",
            rules.display()
        )),
        "{err}"
    );
}

/// An export reads a session through the same session model as the tables: each call the
/// tool-calls table lists on the resume chain (Codex web and tool searches among them, and a
/// call a compaction's replacement history holds; a cctool session's calls of every version)
/// is a call in the document of what a resume loads, under its id, and each result names its
/// call.
#[test]
fn every_call_the_tables_list_is_a_call_in_the_document() {
    for f in [
        "codex/api/c2_codex_form.jsonl",
        "codex/api/c8_unanswered_calls.jsonl",
        "migrate/v1.json",
        "migrate/v5.json",
    ] {
        let path = fixture(f);
        let rows = cctool()
            .args(["scan", "--rows", "tool-calls", "-q"])
            .arg(&path)
            .output()
            .expect("run");
        let mut calls: Vec<serde_json::Value> = String::from_utf8(rows.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The document shows what a resume loads: the calls on the resume chain.
        calls.retain(|c| c["on_resume_chain"] == true);
        assert!(!calls.is_empty(), "{f}");
        let (doc, _) = export(&["--format", "markdown", path.to_str().unwrap()]);
        let shown = doc.matches("**Tool call**").count();
        assert_eq!(shown, calls.len(), "{f}: calls in the document");
        for c in &calls {
            let Some(id) = c["call_id"].as_str() else { continue };
            assert!(doc.contains(&format!("`{id}`")), "{f}: {id}");
            if c["has_result"] == true {
                assert!(doc.contains(&format!("**Tool result** `{id}`")), "{f}: result of {id}");
            }
        }
    }
}

#[test]
fn a_sub_session_is_left_out_only_where_its_session_carries_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    crate::util::copy_tree(&fixture("export"), &store);
    // A Codex rollout whose name only looks like a Claude Code subagent's.
    std::fs::copy(
        fixture("codex/chain/local_compaction_2026.jsonl"),
        store.join("agent-notes.jsonl"),
    )
    .unwrap();
    let exported = |input: &Path| -> Vec<String> {
        let out = dir.path().join("out");
        let _ = std::fs::remove_dir_all(&out);
        let o = cctool()
            .args(["-q", "--json", "export", "--format", "markdown", "-o"])
            .arg(&out)
            .arg(input)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut files: Vec<String> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["kind"] == "export")
            .map(|r| {
                let file = r["file"].as_str().unwrap();
                file.rsplit('/').next().unwrap().to_string()
            })
            .collect();
        files.sort();
        files
    };
    let all = exported(&store);
    assert!(all.contains(&"agent-notes.jsonl".to_string()), "{all:?}");
    assert!(
        !all.contains(&"agent-a1.jsonl".to_string()),
        "inlined in its session: {all:?}"
    );
    // Without its session, the subagent's transcript is exported on its own.
    let alone = exported(&store.join("5ec2e700-0000-4000-8000-000000000023/subagents"));
    assert_eq!(alone, ["agent-a1.jsonl"]);
}
