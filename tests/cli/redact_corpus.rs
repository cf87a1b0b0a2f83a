//! `export --share` against a corpus of planted secrets: a Claude Code transcript and a Codex
//! rollout, written by the test in a project folder named after another user, each secret
//! known. Every format is exported and every leak counted: the target is none.

use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{Value, json};

use crate::util::cctool;

const HOME: &str = "/home/alice";
const CWD: &str = "/home/alice/webapp";

/// The planted secrets: a name for the report of a leak, and the text that must not survive.
struct Corpus {
    secrets: Vec<(&'static str, String)>,
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn pem() -> String {
    let body: Vec<String> = (0..6)
        .map(|i| format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{i}gcwggSjAgEAAoIBAQC7x9Zq2ErtY3kLmPqS"))
        .collect();
    format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        body.join("\n")
    )
}

impl Corpus {
    fn new() -> Corpus {
        let key_pem = pem();
        let encoded_key = b64(&key_pem);
        let pdf = b64("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n(quarterly figures)\ntrailer\n%%EOF\n");
        let mut secrets: Vec<(&'static str, String)> = vec![
            ("huggingface", "hf_kJqWmTzXbVnRpLsYdGhFcAeUiOoPtMwQzXy".into()),
            (
                "sendgrid",
                "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".into(),
            ),
            (
                "pypi",
                "pypi-AgEIcHlwaS5vcmcCJGE4ZWNkYjk2LTU1ZDItNGI3Ny1hNjU5LTlmYjM1NzMzMjU2YwACKlszLCJ".into(),
            ),
            ("vault", "hvs.CAESIJk2ZmQ0NzYxLWE5OTgtNGJmZi1i".into()),
            ("docker", "dckr_pat_Xq3vB7nM1kL9pR5tW2yZ8aC4dF6".into()),
            ("twilio", "SK0123456789abcdef0123456789abcdef".into()),
            ("url password", "Cl0ne-Passw0rd".into()),
            ("basic auth", b64("deploy:B4sic-Passw0rd")),
            ("curl -u", "Curl-Passw0rd9".into()),
            ("netrc", "N3trc-Passw0rd!".into()),
            ("gcp private_key_id", "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a".into()),
            ("base64 key", encoded_key[..76].to_string()),
            ("split github token", "ghp_VJ7VtD4Q9OiwyXt17cFzwUnWPIknuABdcuVB".into()),
            ("pdf", pdf),
            ("token before its assignment", "q7Zr9LmX2pW4tN8vB3kC".into()),
            ("json number password", "98765432101".into()),
            ("home", HOME.into()),
            ("user", "alice".into()),
            ("other user", "bob".into()),
        ];
        // Each body line of the key: a line kept would leak part of it.
        for l in key_pem.lines().filter(|l| !l.starts_with("-----")) {
            secrets.push(("gcp private key", l.to_string()));
        }
        Corpus { secrets }
    }

    fn get(&self, name: &str) -> &str {
        &self.secrets.iter().find(|(n, _)| *n == name).expect("planted").1
    }
}

/// A Claude Code record on the chain: `n` its uuid's number, `parent` the one before.
fn claude(n: u32, ty: &str, content: Value) -> Value {
    let parent = (n > 1).then(|| format!("00000000-0000-4000-8000-{:012}", n - 1));
    json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": CWD,
        "sessionId": "5ec2e700-0000-4000-8000-000000000035", "version": "2.1.332", "type": ty,
        "message": {"role": ty, "content": content},
        "uuid": format!("00000000-0000-4000-8000-{n:012}"),
        "timestamp": format!("2026-06-01T09:00:{n:02}.000Z"),
    })
}

fn claude_transcript(c: &Corpus) -> Vec<Value> {
    let gcp = json!({
        "type": "service_account", "project_id": "shop-prod",
        "private_key_id": c.get("gcp private_key_id"),
        "private_key": pem(), "client_email": "ci@shop-prod.iam.gserviceaccount.com"
    });
    let encoded_key = b64(&pem());
    let wrapped: Vec<&str> = encoded_key
        .as_bytes()
        .chunks(76)
        .map(|l| std::str::from_utf8(l).unwrap())
        .collect();
    let token = c.get("split github token");
    let tool_output = format!(
        "$ cat ~/.netrc\nmachine api.example.com\n  login deploy\n  password {}\n$ cat sa.json\n{}\n$ base64 key.pem\n{}\n",
        c.get("netrc"),
        serde_json::to_string_pretty(&gcp).unwrap(),
        wrapped.join("\n"),
    );
    let prose = format!(
        "Tokens: HF {}, SendGrid {}, PyPI {}, Vault {}, Docker {}, Twilio {}. The build token is {} for now.",
        c.get("huggingface"),
        c.get("sendgrid"),
        c.get("pypi"),
        c.get("vault"),
        c.get("docker"),
        c.get("twilio"),
        c.get("token before its assignment"),
    );
    let commands = format!(
        "git clone https://alice:{}@git.example.com/shop.git && curl -H 'Authorization: Basic {}' -u deploy:{} https://api.example.com",
        c.get("url password"),
        c.get("basic auth"),
        c.get("curl -u"),
    );
    vec![
        claude(1, "user", json!(prose)),
        claude(
            2,
            "assistant",
            json!([{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": commands}}]),
        ),
        claude(
            3,
            "user",
            json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": tool_output}]),
        ),
        claude(
            4,
            "assistant",
            json!([
                {"type": "text", "text": format!("Use {}", &token[..16])},
                {"type": "text", "text": format!("{} to push.", &token[16..])},
                {"type": "tool_use", "id": "toolu_2", "name": "Db", "input": {"user": "svc", "password": 98765432101u64}}
            ]),
        ),
        claude(
            5,
            "user",
            json!([
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": c.get("pdf")}},
                {"type": "text", "text": format!("Set BUILD_SECRET={} in CI.", c.get("token before its assignment"))}
            ]),
        ),
        json!({"type": "file-history-snapshot", "messageId": "m1", "isSnapshotUpdate": false, "snapshot": {
            "messageId": "m1", "timestamp": "2026-06-01T09:00:06.000Z",
            "trackedFileBackups": {format!("{CWD}/.env"): {"backupFileName": "abc@v1", "version": 1}}
        }}),
    ]
}

fn codex_rollout(c: &Corpus) -> Vec<Value> {
    let line = |ts: u32, ty: &str, payload: Value| json!({"timestamp": format!("2026-06-02T10:00:{ts:02}.000Z"), "type": ty, "payload": payload});
    let hf = c.get("huggingface");
    vec![
        line(
            1,
            "session_meta",
            json!({"id": "019e2300-0000-7000-8000-000000000035", "timestamp": "2026-06-02T10:00:00.000Z",
                   "cwd": CWD, "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli",
                   "model_provider": "openai"}),
        ),
        line(
            2,
            "response_item",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": format!("Download the model with {hf} and keep {} handy.", c.get("token before its assignment"))}
            ]}),
        ),
        line(
            3,
            "compacted",
            json!({"message": format!("The user gave the token {hf}."), "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("token {hf}")}]}
            ]}),
        ),
        line(
            4,
            "response_item",
            json!({"type": "function_call", "name": "shell", "call_id": "call_1",
                   "arguments": json!({"command": ["bash", "-lc", format!("HF_TOKEN={hf} BUILD_SECRET={} python train.py", c.get("token before its assignment"))]}).to_string()}),
        ),
        line(
            5,
            "response_item",
            json!({"type": "function_call_output", "call_id": "call_1",
                   "output": format!("cloned https://alice:{}@git.example.com/shop.git into {CWD}", c.get("url password"))}),
        ),
    ]
}

fn write_jsonl(path: &Path, records: &[Value]) {
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// The corpus in a project folder named as Claude Code names another user's project.
fn corpus_files(dir: &Path, c: &Corpus) -> Vec<PathBuf> {
    let project = dir.join("projects").join("-home-bob-webapp");
    std::fs::create_dir_all(&project).unwrap();
    let claude_file = project.join("5ec2e700-0000-4000-8000-000000000035.jsonl");
    let codex_file = project.join("rollout-2026-06-02T10-00-00-019e2300-0000-7000-8000-000000000035.jsonl");
    write_jsonl(&claude_file, &claude_transcript(c));
    write_jsonl(&codex_file, &codex_rollout(c));
    vec![claude_file, codex_file]
}

#[test]
fn no_planted_secret_survives_any_format() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new();
    let files = corpus_files(dir.path(), &c);
    let mut leaks = Vec::new();
    let mut exports = 0;
    for file in &files {
        for format in ["markdown", "html", "native"] {
            for full in [false, true] {
                let mut cmd = cctool();
                cmd.env("HOME", HOME).env("USER", "alice").env("TZ", "UTC");
                cmd.args(["export", "--share", "--format", format]).arg(file);
                if full {
                    cmd.arg("--full");
                }
                let out = cmd.output().unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                let text = String::from_utf8(out.stdout).unwrap();
                assert!(text.contains("[REDACTED:"), "{format}: nothing redacted");
                exports += 1;
                for (name, secret) in &c.secrets {
                    if text.contains(secret.as_str()) {
                        leaks.push(format!("{} {format} full={full}: {name}", file.display()));
                    }
                }
            }
        }
    }
    assert_eq!(exports, 12);
    assert!(leaks.is_empty(), "{} leaks:\n{}", leaks.len(), leaks.join("\n"));
}

#[test]
fn native_exports_of_the_corpus_stay_json_with_their_keys_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new();
    let files = corpus_files(dir.path(), &c);
    let out = cctool()
        .env("HOME", HOME)
        .env("USER", "alice")
        .args(["export", "--share", "--format", "native"])
        .arg(&files[0])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(lines.len(), 6);
    let backups = lines[5]["snapshot"]["trackedFileBackups"].as_object().unwrap();
    let key = backups.keys().next().unwrap();
    assert!(
        key.starts_with("[REDACTED:home-path#") && key.ends_with("/.env"),
        "{key}"
    );
    assert_eq!(lines[0]["cwd"], lines[1]["cwd"]);
    assert!(lines[0]["cwd"].as_str().unwrap().starts_with("[REDACTED:home-path#"));
    assert!(lines[3]["message"]["content"][2]["input"]["password"].is_string());
}

/// A file of several parts (searched and redacted in parallel): secrets are numbered in file
/// order and replaced in parts before the one they were recognised in, the same every run.
#[test]
fn parts_of_a_large_file_number_their_secrets_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.jsonl");
    let filler = "ordinary output line of a build log ".repeat(60);
    let mut lines = Vec::new();
    for i in 0..3000u32 {
        let text = match i {
            // Known only from its assignment, 2900 lines on.
            10 => "the deploy value is Zq8Wn3Xr5Tp7Lm2Kd9Vb".to_string(),
            2910 => "DEPLOY_SECRET=Zq8Wn3Xr5Tp7Lm2Kd9Vb".to_string(),
            _ if i % 500 == 499 => format!("token ghp_{:0>36}", i),
            _ => filler.clone(),
        };
        lines.push(json!({"type": "user", "uuid": format!("u{i}"), "message": {"content": text}}));
    }
    write_jsonl(&path, &lines);
    assert!(std::fs::metadata(&path).unwrap().len() > 4 << 20, "several parts");
    let run = || {
        let out = cctool()
            .env("HOME", HOME)
            .env("USER", "alice")
            .args(["export", "--share", "--format", "native"])
            .arg(&path)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run();
    assert_eq!(first, run());
    assert!(!first.contains("Zq8Wn3Xr5Tp7Lm2Kd9Vb"));
    let out: Vec<&str> = first.lines().collect();
    assert!(out[10].contains("[REDACTED:secret-assignment#1]"), "{}", out[10]);
    for (n, i) in (499..3000).step_by(500).enumerate() {
        assert!(
            out[i].contains(&format!("[REDACTED:github-token#{}]", n + 1)),
            "{}",
            out[i]
        );
    }
}
