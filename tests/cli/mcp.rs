//! `cctool mcp`: the server run as a client runs it, spoken to in JSON-RPC over its stdin and
//! stdout, over a fake home holding the fixture stores (as `ids.rs` builds it). Each tool's
//! answer is held against the command it answers as (`scan`, `search`, `rebuild-chain
//! --format markdown`, `extract-summary`), and the store is hashed before and after: the
//! server writes nothing.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::util::{fixture, records};

pub(crate) const SHOP: &str = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
const VAULT: &str = "e5f6a7b8-5555-4eee-8eee-00000000000e";
const SECRET: &str = "ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// A home holding the fixture stores and one session with a secret in it.
pub(crate) struct Home {
    pub(crate) dir: tempfile::TempDir,
}

impl Home {
    pub(crate) fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        crate::util::copy_tree(&fixture("store/.claude"), &dir.path().join(".claude"));
        crate::util::copy_tree(&fixture("store/.codex"), &dir.path().join(".codex"));
        let vault = dir.path().join(".claude/projects/-home-dev-vault");
        std::fs::create_dir_all(&vault).unwrap();
        let line = |uuid: &str, parent: Value, kind: &str, content: Value| {
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/vault",
                "sessionId": VAULT, "version": "2.1.205", "type": kind, "message": content, "uuid": uuid,
                "timestamp": "2026-04-05T10:00:00.000Z"})
            .to_string()
        };
        let text = [
            line(
                "e5f6a7b8-0000-4000-8000-000000000001",
                Value::Null,
                "user",
                json!({"role": "user", "content": format!("deploy the vault with token {SECRET} please")}),
            ),
            line(
                "e5f6a7b8-0000-4000-8000-000000000002",
                json!("e5f6a7b8-0000-4000-8000-000000000001"),
                "assistant",
                json!({"id": "msg_e5_2", "type": "message", "role": "assistant", "model": "claude-opus-4-5-20251101",
                    "content": [{"type": "text", "text": "The vault is deployed."}]}),
            ),
        ]
        .join("\n")
            + "\n";
        std::fs::write(vault.join(format!("{VAULT}.jsonl")), text).unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        Home { dir }
    }

    /// A command run in the home's `work` folder, with that home and no login name (the
    /// redactor would replace it).
    pub(crate) fn cmd(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env("HOME", self.dir.path())
            .env_remove("USER")
            .env_remove("LOGNAME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .current_dir(self.dir.path().join("work"));
        c
    }

    fn stdout(&self, args: &[&str]) -> String {
        let out = self.cmd(&bin()).args(args).output().unwrap();
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Every file under the home with its content's hash.
    fn digest(&self) -> Vec<(PathBuf, String)> {
        let mut all: Vec<(PathBuf, String)> = walkdir::WalkDir::new(self.dir.path())
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let hash = Sha256::digest(std::fs::read(e.path()).unwrap());
                let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
                (e.path().to_path_buf(), hex)
            })
            .collect();
        all.sort();
        all
    }
}

pub(crate) fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cctool"))
}

/// A client of `cctool mcp`: requests written one per line, answers read by a thread so that
/// a server that never answers fails the test instead of hanging it.
pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next: u64,
}

impl Client {
    pub(crate) fn start(home: &Home, args: &[&str]) -> Client {
        let mut child = home
            .cmd(&bin())
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut c = Client {
            child,
            stdin,
            lines,
            next: 0,
        };
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cctool-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "cctool", "{init}");
        assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
        // The client is told every agent whose sessions it can read, not the first two.
        let told = init["result"]["instructions"].as_str().unwrap_or_default();
        for agent in [
            "Claude Code",
            "Codex",
            "GitHub Copilot CLI",
            "pi",
            "opencode",
            "Gemini CLI",
            "Qwen Code",
        ] {
            assert!(told.contains(agent), "{agent}: {told}");
        }
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// The answer to one request (notifications the server sends meanwhile skipped).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// A tool's answer: its JSON, or the error's text.
    fn call(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &v["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{v}"));
        match result["isError"].as_bool().unwrap_or(false) {
            true => Err(text.to_string()),
            false => Ok(serde_json::from_str(text).unwrap()),
        }
    }

    /// Closes stdin, as a client ends the session, and waits for the server to exit.
    pub(crate) fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the server did not exit when its stdin closed");
    }
}

/// Every page of a session's conversation, joined.
fn read_all(c: &mut Client, session: &str, max_bytes: usize) -> (String, usize) {
    let (mut text, mut offset, mut pages) = (String::new(), 0, 0);
    loop {
        let page = c
            .call(
                "read_session",
                json!({"session": session, "offset": offset, "max_bytes": max_bytes}),
            )
            .unwrap();
        let md = page["markdown"].as_str().unwrap();
        assert!(md.len() <= max_bytes, "{} > {max_bytes}", md.len());
        assert_eq!(page["offset"], offset);
        text.push_str(md);
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(n) => offset = n as usize,
            None => return (text, pages),
        }
    }
}

#[test]
fn every_tool_answers_as_its_command_and_nothing_is_written() {
    let home = Home::new();
    let before = home.digest();
    // As the sessions hold it, to be compared with the commands' output.
    let mut c = Client::start(&home, &["--no-redact"]);

    let tools = c.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_sessions", "search", "read_session", "get_summaries"]);
    let list = tools["result"]["tools"][0]["description"].as_str().unwrap();
    assert!(list.contains("Gemini CLI, Qwen Code"), "{list}");
    assert!(
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["annotations"]["readOnlyHint"] == true)
    );

    // list_sessions: the sessions scan reads, subagent transcripts counted with theirs.
    let scanned: Vec<Value> = records(&home.stdout(&["scan", "--json"]))
        .into_iter()
        .filter(|r| r["kind"] == "session" && r["role"] == "session")
        .collect();
    let listed = c.call("list_sessions", json!({})).unwrap();
    assert_eq!(listed["total"], scanned.len());
    for s in listed["sessions"].as_array().unwrap() {
        let r = scanned
            .iter()
            .find(|r| r["session_id"] == s["id"])
            .unwrap_or_else(|| panic!("{s}"));
        assert_eq!(s["title"], r["title"]);
        assert_eq!(s["messages"], r["chain_messages"]);
        assert_eq!(s["last_timestamp"], r["last_timestamp"]);
        assert_eq!(s["agent"], r["format"]);
    }
    let only_codex = c.call("list_sessions", json!({"agent": "codex", "limit": 1})).unwrap();
    assert_eq!(only_codex["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(only_codex["sessions"][0]["agent"], "codex");
    assert_eq!(only_codex["truncated"], true);
    let shop = c.call("list_sessions", json!({"project": "/home/dev/shop"})).unwrap();
    assert!(
        shop["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["project"] == "shop" || s["cwd"] == "/home/dev/shop"),
        "{shop}"
    );
    assert!(
        c.call("list_sessions", json!({"since": "yesterday"}))
            .unwrap_err()
            .contains("since")
    );

    // search: the hits of `cctool search --json`.
    let cli: Vec<Value> = records(&home.stdout(&["search", "--json", "checkout"]));
    let hits = c.call("search", json!({"pattern": "checkout"})).unwrap();
    let key = |h: &Value| {
        (
            h["session_id"].to_string(),
            h["message_id"].to_string(),
            h["role"].to_string(),
        )
    };
    let mut want: Vec<_> = cli.iter().map(key).collect();
    let mut got: Vec<_> = hits["hits"].as_array().unwrap().iter().map(key).collect();
    want.sort();
    got.sort();
    assert!(!got.is_empty());
    assert_eq!(got, want);
    let effective = c
        .call(
            "search",
            json!({"pattern": "checkout", "scope": "effective", "session": &SHOP[..8]}),
        )
        .unwrap();
    assert!(
        effective["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["scope"] == "effective" && h["session_id"] == SHOP)
    );
    assert!(
        c.call("search", json!({"pattern": "(", "regex": true}))
            .unwrap_err()
            .contains("regular expression")
    );

    // read_session: the Markdown of rebuild-chain, in pages that join up.
    let shop_file = home
        .dir
        .path()
        .join(format!(".claude/projects/-home-dev-shop/{SHOP}.jsonl"));
    let markdown = home.stdout(&["rebuild-chain", "--format", "markdown", shop_file.to_str().unwrap()]);
    let (whole, one) = read_all(&mut c, &SHOP[..8], 256 * 1024);
    assert_eq!(one, 1);
    assert_eq!(whole, markdown);
    let (paged, pages) = read_all(&mut c, SHOP, 1024);
    assert_eq!(paged, markdown);
    assert!(
        pages > 1 || markdown.len() <= 1024,
        "{pages} pages of {} bytes",
        markdown.len()
    );

    // get_summaries: extract-summary's records.
    let summaries = c.call("get_summaries", json!({"session": &SHOP[..8]})).unwrap();
    let cli: Vec<Value> = records(&home.stdout(&["extract-summary", "--json", &SHOP[..8]]))
        .into_iter()
        .filter(|r| r["kind"] == "summary")
        .collect();
    assert!(!cli.is_empty());
    assert_eq!(summaries["summaries"].as_array().unwrap(), &cli);

    assert!(c.close().success());
    assert_eq!(home.digest(), before, "the server changed the store");
}

#[test]
fn a_bad_id_bad_arguments_and_a_bad_offset_are_errors_the_client_reads() {
    let home = Home::new();
    let mut c = Client::start(&home, &[]);
    for tool in ["read_session", "get_summaries"] {
        let e = c.call(tool, json!({"session": "ffff0000"})).unwrap_err();
        assert!(
            e.contains("ffff0000") && e.contains("no session id starts with it"),
            "{e}"
        );
    }
    let e = c.call("read_session", json!({"session": "019d2a2"})).unwrap_err();
    assert!(e.contains("sessions have an id starting with it"), "{e}");
    let e = c
        .call("search", json!({"pattern": "x", "session": "ffff0000"}))
        .unwrap_err();
    assert!(e.contains("no session id starts with it"), "{e}");
    let e = c.call("search", json!({"patern": "x"})).unwrap_err();
    assert!(e.contains("bad arguments"), "{e}");
    let e = c
        .call("read_session", json!({"session": SHOP, "offset": 1_000_000}))
        .unwrap_err();
    assert!(e.contains("offset 1000000"), "{e}");
    // An error names the stores it looked in, under the user's home: redacted as any answer.
    let e = c.call("get_summaries", json!({"session": "ffff0000"})).unwrap_err();
    assert!(
        !e.contains(home.dir.path().to_str().unwrap()) && e.contains("[REDACTED:home-path#"),
        "{e}"
    );
    let unknown = c.request("tools/call", json!({"name": "write_session", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(c.close().success());
}

#[test]
fn secrets_are_redacted_unless_no_redact() {
    let home = Home::new();
    let mut c = Client::start(&home, &[]);
    let hits = c.call("search", json!({"pattern": "deploy the vault"})).unwrap();
    let snippet = hits["hits"][0]["snippet"].as_str().unwrap();
    assert!(
        !snippet.contains(SECRET) && snippet.contains("[REDACTED:github-token#1]"),
        "{snippet}"
    );
    assert_eq!(hits["hits"][0]["session_id"], VAULT);
    let (md, _) = read_all(&mut c, &VAULT[..8], 4096);
    assert!(!md.contains(SECRET) && md.contains("[REDACTED:github-token#1]"), "{md}");
    // The home folder is the user's too.
    let listed = c.call("list_sessions", json!({})).unwrap().to_string();
    assert!(!listed.contains(home.dir.path().to_str().unwrap()), "{listed}");
    assert!(c.close().success());

    let mut c = Client::start(&home, &["--no-redact"]);
    let hits = c.call("search", json!({"pattern": "deploy the vault"})).unwrap();
    assert!(hits["hits"][0]["snippet"].as_str().unwrap().contains(SECRET));
    let (md, _) = read_all(&mut c, VAULT, 4096);
    assert!(md.contains(SECRET));
    assert!(c.close().success());
}

#[test]
fn install_writes_through_a_linked_configuration_and_refuses_a_dangling_link() {
    let home = Home::new();
    let dotfiles = home.dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("claude.json");
    std::fs::write(&target, "{\n  \"numStartups\": 3\n}\n").unwrap();
    let link = home.dir.path().join(".claude.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let install = |home: &Home| {
        home.cmd(&bin())
            .args(["mcp", "--install", "claude-code", "--write", "--command", "cctool"])
            .output()
            .unwrap()
    };
    let out = install(&home);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "the link was replaced"
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["numStartups"], 3);
    assert_eq!(written["mcpServers"]["cctool"]["args"], json!(["mcp"]));

    std::fs::remove_file(&target).unwrap();
    let out = install(&home);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    assert!(!target.exists(), "a dangling link's target was created");
}
