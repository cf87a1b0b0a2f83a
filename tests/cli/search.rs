//! `search`: on every fixture, phrases taken from what the user and the model said (with
//! quotes, newlines, tabs, non-ASCII and emoji among them) are found in their session and
//! message, with `--json` offsets that point at the phrase in the decoded text; the prefilter
//! on raw bytes changes no hit; `--scope` tells what a compaction replaced; nothing of the
//! metadata is ever matched; every id a hit prints is an input of `rebuild-chain` and `export`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{cctool, fixture, root};

/// Every session fixture: each file under `fixtures/` that `scan --rows messages` reads
/// messages from.
pub(crate) fn session_fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk(&root().join("fixtures"), &mut files);
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
            out.push(p);
        }
    }
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The messages of a file as the messages table gives them, with their whole text.
pub(crate) fn messages(file: &Path) -> Vec<Value> {
    let o = cctool()
        .args(["scan", "--rows", "messages", "--max-text", "1000000"])
        .arg(file)
        .output()
        .unwrap();
    json_lines(&o.stdout)
}

/// What a phrase was chosen for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Plain,
    Quote,
    Newline,
    Tab,
    NonAscii,
    Emoji,
}

/// Whether a character is one a phrase is chosen around.
type IsOfKind = fn(char) -> bool;

/// The phrases of one text: a plain one, and one around the first character of each kind.
pub(crate) fn phrases(text: &str) -> Vec<(Kind, String)> {
    let chars: Vec<char> = text.chars().collect();
    // Eight characters either side, within the line unless the phrase is about a line break:
    // the table joins the texts of a message with line breaks of its own.
    let window = |at: usize, kind: Kind| -> String {
        let mut from = at.saturating_sub(8);
        let mut to = (at + 9).min(chars.len());
        if kind != Kind::Newline {
            from = (from..at).rev().find(|&i| chars[i] == '\n').map_or(from, |i| i + 1);
            to = (at..to).find(|&i| chars[i] == '\n').unwrap_or(to);
        }
        chars[from..to].iter().collect()
    };
    let mut out = Vec::new();
    if let Some(line) = text.lines().map(str::trim).find(|l| l.chars().count() >= 12) {
        out.push((
            Kind::Plain,
            line.chars().take(30).collect::<String>().trim().to_string(),
        ));
    }
    let kinds: [(Kind, IsOfKind); 5] = [
        (Kind::Quote, |c| c == '"'),
        (Kind::Newline, |c| c == '\n'),
        (Kind::Tab, |c| c == '\t'),
        (Kind::NonAscii, |c| !c.is_ascii() && (c as u32) < 0x10000),
        (Kind::Emoji, |c| (c as u32) >= 0x1F000),
    ];
    for (kind, is) in kinds {
        // A line break between two texts of one message is the table's, not the text's: one
        // with words on both sides is taken.
        let words = |r: &[char]| r.iter().filter(|c| c.is_alphanumeric()).count() >= 3;
        let inside = |at: usize| {
            kind != Kind::Newline
                || (words(&chars[at.saturating_sub(8)..at]) && words(&chars[at + 1..(at + 9).min(chars.len())]))
        };
        if let Some(at) = (0..chars.len()).find(|&at| is(chars[at]) && inside(at)) {
            out.push((kind, window(at, kind)));
        }
    }
    // A phrase that is all spaces around a tab or a newline says nothing.
    out.retain(|(_, p)| p.chars().any(|c| c.is_alphanumeric()));
    out
}

/// The hits of `pattern` in `file`.
fn hits(file: &Path, pattern: &str, extra: &[&str]) -> Vec<Value> {
    let o = cctool()
        .args(["search", "--json", "-s", "--thinking"])
        .args(extra)
        .arg("--")
        .arg(pattern)
        .arg(file)
        .output()
        .unwrap();
    json_lines(&o.stdout)
        .into_iter()
        .filter(|r| r["kind"] == "hit")
        .collect()
}

/// The text the hit's offsets point at, read from its snippet.
fn matched(h: &Value) -> Option<String> {
    let snippet = h["snippet"].as_str()?;
    let base = h["snippet_start"].as_u64()? as usize;
    let (start, end) = (h["start"].as_u64()? as usize, h["end"].as_u64()? as usize);
    snippet
        .get(start.checked_sub(base)?..end.checked_sub(base)?)
        .map(str::to_string)
}

#[test]
fn phrases_of_every_fixture_are_found_in_their_message() {
    let mut tried: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in session_fixtures() {
        let mut per_file = 0;
        for m in messages(&file) {
            let said = matches!(m["role"].as_str(), Some("user" | "assistant"));
            if !said || m["is_meta"] == true || m["on_resume_chain"] != true || per_file >= 6 {
                continue;
            }
            let Some(text) = m["text"].as_str() else { continue };
            for (kind, phrase) in phrases(text) {
                per_file += 1;
                *tried.entry(kind).or_default() += 1;
                // What a resume loads, where each message is at the line the table gives it
                // (a Codex compaction's replacement history is written in its line).
                let found = hits(&file, &phrase, &["--scope", "effective"]);
                let at_line = |h: &&Value| h["line"] == m["line"] && matched(h).as_deref() == Some(phrase.as_str());
                if !found.iter().any(|h| at_line(&h)) {
                    problems.push(format!(
                        "{}: line {}: {kind:?} {phrase:?} not found",
                        file.display(),
                        m["line"]
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for kind in [Kind::Plain, Kind::Quote, Kind::Newline, Kind::NonAscii, Kind::Emoji] {
        assert!(
            tried.get(&kind).is_some_and(|&n| n > 0),
            "no {kind:?} phrase in the fixtures: {tried:?}"
        );
    }
}

/// Patterns of every kind the prefilter treats apart (a run of plain characters, a quote, a
/// backslash, a newline, non-ASCII text, an emoji, ignored case), and text only a reader
/// makes (Codex's marker of what a rebuilt legacy compaction cut, its summary when none was
/// written: the fixture's file holds neither, and is read whole for them).
const PREFILTER_PATTERNS: [&str; 20] = [
    "e",
    "the",
    "\"",
    "\\",
    "\n",
    "\t",
    "/",
    "é",
    "日本",
    "😀",
    "it's",
    "README",
    "a b",
    "<",
    "k",
    "S",
    "truncated",
    "5 tokens",
    "…",
    "(no summary",
];

/// The flags of each run that compares the prefilter on and off: every field, whole words,
/// ignored case, two patterns.
const PREFILTER_FLAGS: [&[&str]; 5] = [
    &[],
    &["--tools", "--thinking"],
    &["--scope", "effective", "--tools"],
    &["-w", "-i"],
    &["-s", "--and", "a"],
];

/// The hits of every fixture with the prefilter (on lines, and on whole files) on and off are
/// the same, for every kind of pattern and every field.
#[test]
fn the_prefilter_changes_no_hit() {
    let (patterns, flags) = (PREFILTER_PATTERNS, PREFILTER_FLAGS);
    let fixtures = fixture("");
    let run = |p: &str, f: &[&str], off: bool| {
        let mut c = cctool();
        c.args(["search", "--json"]).args(f);
        if off {
            c.arg("--no-prefilter");
        }
        let o = c.arg("--").arg(p).arg(&fixtures).output().unwrap();
        json_lines(&o.stdout)
            .into_iter()
            .filter(|r| r["kind"] == "hit")
            .collect::<Vec<_>>()
    };
    let mut total = 0;
    for p in patterns {
        for f in flags {
            let on = run(p, f, false);
            assert_eq!(on, run(p, f, true), "{p:?} {f:?}");
            total += on.len();
        }
    }
    assert!(total > 1000, "{total} hits in all");
}

/// `-l` for people stops decoding a file at its first hit; with the prefilter off it reads
/// every line: the sessions named are the same, for every kind of pattern and every field.
#[test]
fn files_with_matches_name_the_same_sessions_with_and_without_the_prefilter() {
    let fixtures = fixture("");
    let run = |p: &str, f: &[&str], off: bool| {
        let mut c = cctool();
        c.args(["search", "-l"]).args(f).env("COLUMNS", "400");
        if off {
            c.arg("--no-prefilter");
        }
        let o = c.arg("--").arg(p).arg(&fixtures).output().unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let mut named = 0;
    for p in PREFILTER_PATTERNS {
        // Fewer runs than the hits' test: the first hit ends the same way whatever the field.
        for f in [PREFILTER_FLAGS[0], PREFILTER_FLAGS[2], PREFILTER_FLAGS[4]] {
            let on = run(p, f, false);
            assert_eq!(on, run(p, f, true), "{p:?} {f:?}");
            named += on.lines().count();
        }
    }
    assert!(named > 500, "{named} sessions named in all");
}

#[test]
fn scope_effective_leaves_out_what_a_compaction_replaced() {
    let file = fixture("claude/chain/three_compactions_2_1_7.jsonl");
    // Said before the first compaction, replaced by its summary.
    let full = hits(&file, "Profile the importer", &[]);
    assert!(full.iter().any(|h| h["scope"] == "full" && h["line"] == 1), "{full:?}");
    assert!(
        hits(&file, "Profile the importer", &["--scope", "effective"])
            .iter()
            .all(|h| h["line"] != 1)
    );
    // Said after the last one: found in both, as effective.
    for scope in ["full", "effective"] {
        let h = hits(&file, "wrap up", &["--scope", scope]);
        assert!(
            h.iter().any(|h| h["scope"] == "effective" && h["line"] == 16),
            "{scope}: {h:?}"
        );
    }
}

#[test]
fn exit_status_is_grep_s() {
    let file = fixture("claude/chain/three_compactions_2_1_7.jsonl");
    let status = |args: &[&str]| cctool().arg("search").args(args).output().unwrap().status.code();
    assert_eq!(status(&["wrap up", file.to_str().unwrap()]), Some(0));
    assert_eq!(status(&["no such words anywhere", file.to_str().unwrap()]), Some(1));
    assert_eq!(status(&["-e", "(", file.to_str().unwrap()]), Some(2));
    assert_eq!(status(&["wrap up", "/nonexistent/file.jsonl"]), Some(2));
    assert_eq!(status(&["", file.to_str().unwrap()]), Some(2));
}

/// Ids, paths, the working directory, record types: none of it is text anyone said.
#[test]
fn metadata_is_never_matched() {
    let file = fixture("claude/chain/three_compactions_2_1_7.jsonl");
    let first: Value = serde_json::from_str(std::fs::read_to_string(&file).unwrap().lines().next().unwrap()).unwrap();
    // (The session id is left out: a compaction summary names the transcript's path, which
    // holds it, and that is text the model was given.)
    for key in ["uuid", "cwd", "timestamp", "version"] {
        let value = first[key].as_str().unwrap_or_else(|| panic!("{key}"));
        let o = cctool()
            .args(["search", "--tools", "--thinking", "--", value])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{key} {value} matched: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // A record type, and a key of the JSON around the text.
    for word in ["isCompactSummary", "parentUuid", "\"type\""] {
        let o = cctool()
            .args(["search", "--tools", "--", word])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{word}");
    }
}

/// A store in a scratch HOME: the Claude Code and Codex sessions of `fixtures/store`.
fn store() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    crate::util::copy_tree(&fixture("store"), home.path());
    home
}

#[test]
fn every_id_a_hit_prints_is_an_input_of_rebuild_chain_and_export() {
    let home = store();
    let o = cctool()
        .env("HOME", home.path())
        .args(["search", "--json", "-e", "."])
        .output()
        .unwrap();
    let hits: Vec<Value> = json_lines(&o.stdout)
        .into_iter()
        .filter(|r| r["kind"] == "hit")
        .collect();
    let agents: std::collections::BTreeSet<&str> = hits.iter().filter_map(|h| h["agent"].as_str()).collect();
    assert!(agents.len() >= 2, "{agents:?}");
    let run = |args: &[&str]| {
        let o = cctool().env("HOME", home.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let mut tips = 0;
    for h in &hits {
        let session = h["session_id"].as_str().expect("a session id");
        run(&["export", session]);
        run(&["rebuild-chain", session]);
        if let Some(message) = h["message_id"].as_str() {
            // A subagent's transcript is named by its file: the session id names the session's.
            let input = match h["subagent"].as_bool().unwrap() {
                true => h["file"].as_str().unwrap(),
                false => session,
            };
            let chain = run(&["rebuild-chain", input, "--tip", message]);
            assert!(chain.contains(message), "{session} --tip {message}");
            tips += 1;
        }
    }
    assert!(tips > 0);
}

#[test]
fn and_asks_every_pattern_in_one_message() {
    let file = fixture("claude/chain/three_compactions_2_1_7.jsonl");
    assert_eq!(hits(&file, "Import", &["--and", "before"]).len(), 1);
    assert!(hits(&file, "Import", &["--and", "wrap up"]).is_empty());
}

#[test]
fn filters_by_role_agent_and_time() {
    let file = fixture("claude/chain/three_compactions_2_1_7.jsonl");
    let roles = |extra: &[&str]| -> Vec<String> {
        hits(&file, ".", &[&["-e"], extra].concat())
            .iter()
            .map(|h| h["role"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(roles(&["--role", "summary"]).iter().all(|r| r == "summary"));
    assert!(roles(&["--role", "user"]).iter().all(|r| r == "user"));
    assert!(roles(&["--agent", "codex"]).is_empty());
    assert!(!roles(&["--since", "2020-01-01"]).is_empty());
    assert!(roles(&["--until", "2020-01-01"]).is_empty());
}

/// The fields of a record that name a session in `search` (`SessionRecord::LISTING`), as
/// JSON, with `last_ms`, which the record's JSON leaves out.
fn listing_fields(r: &cctool::model::session::SessionRecord) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    let m = v.as_object_mut().unwrap();
    m.retain(|k, _| cctool::model::session::SessionRecord::LISTING.contains(&k.as_str()));
    m.insert("last_ms".into(), r.last_ms.into());
    v
}

/// Compares, on every session file under `root`, `scan`'s record with what names the session
/// in `search`: the agent's `listing`, and the record its `events_listed` gives after a stream
/// in each view a search asks; how many files were compared.
fn compare_listings(root: &Path) -> usize {
    use cctool::agents::{agent, detect::detect};
    use cctool::model::events::{Ask, View};
    let mut files = Vec::new();
    walk(root, &mut files);
    files.sort();
    let mut compared = 0;
    for p in files {
        let Ok(bytes) = std::fs::read(&p) else { continue };
        let src = cctool::io::Source::from_bytes(&p.display().to_string(), bytes);
        let Ok(format) = detect(&src) else { continue };
        let a = agent(format);
        let Ok(scanned) = a.scan(&src, &Default::default()) else {
            assert!(
                a.listing(&src).is_err(),
                "{}: scan fails, the listing does not",
                p.display()
            );
            continue;
        };
        let want = listing_fields(&scanned);
        assert_eq!(
            want.as_object().unwrap().len(),
            cctool::model::session::SessionRecord::LISTING.len()
        );
        let listed = a.listing(&src).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(listing_fields(&listed), want, "{}: listing", p.display());
        for view in [View::Records, View::Loaded] {
            let ask = Ask { view, ..Ask::records() };
            // A stream that fails fails the file's search, listed or not: nothing is named.
            let Ok((_, named)) = a.events_listed(&src, ask, &mut |_| {}, &|| true) else {
                assert!(a.events(&src, ask, &mut |_| {}).is_err(), "{}: {view:?}", p.display());
                continue;
            };
            let named = named.unwrap_or_else(|| panic!("{}: no listing after the stream", p.display()));
            assert_eq!(listing_fields(&named), want, "{}: events_listed {view:?}", p.display());
        }
        compared += 1;
    }
    compared
}

/// What `search` names a session by is `scan`'s record, field for field, on every fixture
/// (Claude Code and Codex read it with less than a scan; the other agents cut their scan).
#[test]
fn the_listing_is_scan_s_record_on_every_fixture() {
    let n = compare_listings(&root().join("fixtures"));
    assert!(n > 100, "{n} fixtures compared");
}

/// The same on every file of the shared samples, when they are present.
#[test]
fn the_listing_is_scan_s_record_on_the_shared_samples() {
    let Some(dir) = crate::util::shared("") else { return };
    let n = compare_listings(&dir);
    assert!(n > 10, "{n} samples compared");
}
