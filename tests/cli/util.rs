use std::path::PathBuf;

use assert_cmd::Command;

/// The binary under test, isolated from the user's own stores and colour settings.
pub fn cctool() -> Command {
    let mut cmd = Command::cargo_bin("cctool").expect("binary");
    cmd.env("NO_COLOR", "1")
        .env("HOME", "/nonexistent-home")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("COPILOT_HOME");
    cmd
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

include!("shared_lookup.rs");

/// The fixture folders that hold well-formed Claude Code transcripts and Codex rollouts.
pub const TRANSCRIPT_FIXTURE_DIRS: &[&str] = &[
    "claude",
    "claude/api",
    "claude/chain",
    "claude/summaries",
    "codex",
    "codex/chain",
    "codex/summaries",
    "compact",
];

/// Every file directly in these fixture folders, sorted.
pub fn fixture_files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(fixture(d)).unwrap_or_else(|e| panic!("fixtures/{d}: {e}")))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Every file in these folders of the shared samples, sorted; `None` as for [`shared`] (one
/// notice, however many folders).
pub fn shared_files(dirs: &[&str]) -> Option<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = shared_all(dirs)?
        .into_iter()
        .flat_map(|d| std::fs::read_dir(d).expect("sample folder"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    Some(files)
}

/// The real clients the harness in `scripts/realclient/` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    ClaudeCode,
    Codex,
    /// GitHub Copilot CLI: proprietary, installed for local checks only, and optional.
    Copilot,
    /// pi 1.6.0 (`scripts/realclient/pi/install.sh`).
    Pi,
    /// opencode (opencode-ai), optional.
    Opencode,
    /// Qwen Code 0.24.4 (`scripts/realclient/qwen/install.sh`).
    Qwen,
    /// Gemini CLI 0.61.0 (`scripts/realclient/gemini/install.sh`), run at the chat's own date
    /// through libfaketime, which must be installed too.
    Gemini,
}

/// The harness script that resumes a file with `client`, or `None` after a one-line notice
/// when the client is not installed (`scripts/realclient/install.sh`). `CCTOOL_HARNESS` names
/// another harness folder with the same interface; `CCTOOL_REALCLIENTS` the install root.
pub fn realclient(client: Client) -> Option<PathBuf> {
    let harness = std::env::var_os("CCTOOL_HARNESS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("scripts/realclient"));
    let installs = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")));
    let (script, name, install) = match client {
        Client::ClaudeCode => ("cc-resume-view.sh", "Claude Code 2.1.332", "install.sh"),
        Client::Codex => ("codex-resume-view.sh", "Codex 0.171", "install.sh"),
        Client::Copilot => ("copilot-resume-view.sh", "Copilot CLI 1.0.102", "install.sh"),
        Client::Pi => ("pi/pi-resume-view.sh", "pi 1.6.0", "pi/install.sh"),
        Client::Opencode => ("opencode-resume-view.sh", "opencode 1.18.33", "install.sh"),
        Client::Qwen => ("qwen/qwen-resume-view.sh", "Qwen Code 0.24.4", "qwen/install.sh"),
        Client::Gemini => ("gemini/resume-view.sh", "Gemini CLI 0.61.0", "gemini/install.sh"),
    };
    let installed = installs.is_some_and(|home| match client {
        Client::ClaudeCode => home
            .join("cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
            .is_file(),
        Client::Codex => std::fs::read_dir(home.join("codex/node_modules/@openai"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("codex-linux-")),
        Client::Copilot => std::fs::read_dir(home.join("copilot/node_modules/@github"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_string_lossy().starts_with("copilot-linux-") && e.path().join("copilot").is_file()
            }),
        Client::Pi => home
            .join("pi/node_modules/@earendil-works/pi-coding-agent/dist/cli.js")
            .is_file(),
        Client::Opencode => std::fs::read_dir(home.join("opencode/node_modules"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_string_lossy().starts_with("opencode-linux-")
                    && e.path().join("bin/opencode").is_file()
            }),
        Client::Qwen => home.join("qwen/node_modules/@qwen-code/qwen-code/cli.js").is_file(),
        Client::Gemini => home
            .join("gemini/node_modules/@google/gemini-cli/bundle/gemini.js")
            .is_file(),
    });
    if !installed {
        skip_notice(&format!("{name} not installed (scripts/realclient/{install})"));
        return None;
    }
    if client == Client::Gemini && !faketime() {
        return None;
    }
    let script = harness.join(script);
    assert!(script.is_file(), "missing harness script {}", script.display());
    Some(script)
}

/// Whether libfaketime is installed, which the harness preloads into the client to resume a
/// file at another date (`VIEW_DATE`); false after a one-line notice. The same places as the
/// harness looks in (`scripts/realclient/cc-resume-view.sh`).
pub fn faketime() -> bool {
    let found = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("faketime/libfaketime.so.1"))
        .chain([PathBuf::from("/usr/lib/faketime/libfaketime.so.1")])
        .any(|p| p.is_file());
    if !found {
        skip_notice(
            "libfaketime is not installed (apt-get install faketime): the real client cannot be run at a set date",
        );
    }
    found
}

/// Resumes `file` with the harness `script` and returns what the client sent, raw.
pub fn resume_with(script: &std::path::Path, file: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&resume_text(script, file, &[])).expect("the harness prints JSON")
}

/// What the harness `script` prints after resuming `file` with the prompt "say ok", with more
/// harness settings in `env` (`VIEW_NORMALISE`…); fails the test when the client sent nothing.
pub fn resume_text(script: &std::path::Path, file: &std::path::Path, env: &[(&str, &str)]) -> String {
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(file)
        .arg("say ok")
        .envs(env.iter().copied())
        .output()
        .expect("run the harness");
    assert!(
        out.status.success(),
        "{} sent nothing: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the harness prints UTF-8")
}

/// The folders of Claude Code samples (real files, excerpts, hand-written cases, resume cases).
pub const CLAUDE_SAMPLE_DIRS: &[&str] = &[
    "claude-code/real",
    "claude-code/real-excerpts",
    "claude-code/synthetic",
    "claude-code/resume-2.1.332",
];

/// Runs cctool with `args`, asserts success, returns stdout.
pub fn stdout_of(args: &[&str]) -> String {
    let out = cctool().args(args).output().expect("run");
    assert!(
        out.status.success(),
        "cctool {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Every stdout line as JSON.
pub fn records(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The `uuid` of every record, shortened to its last `n` characters.
pub fn uuid_tails(stdout: &str, n: usize) -> Vec<String> {
    records(stdout)
        .iter()
        .map(|r| {
            let u = r["uuid"].as_str().expect("uuid");
            u[u.len() - n..].to_string()
        })
        .collect()
}

/// Runs rebuild-chain on `path` with extra args and returns the uuid tails.
pub fn chain(path: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let p = path.to_str().unwrap();
    let mut args = vec!["-q", "rebuild-chain"];
    args.extend_from_slice(extra);
    args.push(p);
    uuid_tails(&stdout_of(&args), 2)
}

/// One compact description per Codex history item that `rebuild-chain` prints: `role:text`
/// for messages (a local compaction summary as `<summary>`), else the type.
pub fn codex_items(path: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["-q", "rebuild-chain"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    records(&stdout_of(&args))
        .iter()
        .map(|r| match r["type"].as_str().unwrap() {
            "message" => {
                let text: String = r["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .collect();
                let text = if text.starts_with("Another language model") {
                    "<summary>".into()
                } else {
                    text
                };
                format!("{}:{}", r["role"].as_str().unwrap(), text)
            }
            other => other.to_string(),
        })
        .collect()
}

pub fn split(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Sets `path`'s modification time ten minutes back, so commands that refuse files that look
/// live (modified in the last minute) treat it as an old session.
pub fn age(path: &std::path::Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(then))
        .expect("set mtime");
}

/// Writes `bytes` to `path` as an old (not live) file.
pub fn write_aged(path: &std::path::Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("write");
    age(path);
}

/// The next number of a seeded linear congruential sequence (Knuth's MMIX constants): random
/// enough for kill points, and the same for the same seed.
pub fn next_random(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

/// Runs `cmd` (its output discarded), kills it with SIGKILL after `delay`, and waits for it.
pub fn kill_after(cmd: &mut std::process::Command, delay: std::time::Duration) {
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
}

/// A v1 session of about 6 MB (20,000 messages: requests with non-ASCII text, tool calls and
/// large tool outputs): more than one part and one render window of the parallel migrate.
pub fn big_v1_session() -> Vec<u8> {
    let messages: Vec<serde_json::Value> = (0..20_000)
        .map(|i| match i % 3 {
            0 => serde_json::json!({"role": "user", "content": format!("request {i} — módulo ✓"), "ts": 1_752_573_600 + i}),
            1 => serde_json::json!({"role": "assistant", "content": "Reading.", "thinking": "plan",
                "tool_calls": [{"id": format!("call_{i}"), "name": "read_file", "arguments": format!("{{\"path\":\"src/m{i}.rs\"}}")}]}),
            _ => serde_json::json!({"role": "tool", "tool_call_id": format!("call_{}", i - 1), "content": "fn main() {}\n".repeat(60)}),
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"version": 1, "id": "big", "messages": messages})).unwrap()
}

/// The fields of the `api_view` record, in order: one record for both agents.
pub const API_VIEW_FIELDS: &[&str] = &[
    "kind",
    "file",
    "format",
    "client",
    "loader",
    "model",
    "model_choice",
    "model_entry",
    "session_model",
    "session_model_retires",
    "notice",
    "thinking_policy",
    "messages",
    "tokens",
    "prompt",
    "rules",
    "assumptions",
    "refused",
];

/// `v` as JSON with object keys sorted and no spaces, for fingerprints; `scalar` writes each
/// string (keys included), number, boolean and null, so a table recorded by another writer
/// (Python's `json.dumps`) can be matched.
pub fn sorted_json(v: &serde_json::Value, scalar: &dyn Fn(&serde_json::Value, &mut String), out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                scalar(&Value::String((*k).clone()), out);
                out.push(':');
                sorted_json(&o[k.as_str()], scalar, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                sorted_json(x, scalar, out);
            }
            out.push(']');
        }
        other => scalar(other, out),
    }
}

/// Copies a fixture tree, each file aged ([`age`]) so that it does not look live to the
/// commands that rewrite files.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
            age(&dest);
        }
    }
}

/// cctool's output on `args` run under an address-space limit of `cap` bytes (`prlimit --as`),
/// as a user with a memory cap runs it, or without a limit when `cap` is `None`; `None` after
/// a skip notice where `prlimit` is missing. The environment is fixed so that what is measured
/// is the memory the command uses: two pool threads and two malloc arenas (glibc reserves
/// 64 MiB of address space for each thread's own heap otherwise, whichever threads happen to
/// allocate first).
pub fn under_cap(args: &[&str], cap: Option<u64>) -> Option<std::process::Output> {
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let mut cmd = match cap {
        Some(cap) => {
            let mut c = std::process::Command::new("prlimit");
            c.arg(format!("--as={cap}")).arg(&bin);
            c
        }
        None => std::process::Command::new(&bin),
    };
    match cmd
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent-home")
        .env("RAYON_NUM_THREADS", "2")
        // One arena: each further one reserves its own 64 MiB of address space whenever a
        // thread first allocates, which made the cap measure the threads' timing, not the data
        // held.
        .env("MALLOC_ARENA_MAX", "1")
        .output()
    {
        Ok(o) => Some(o),
        Err(_) => {
            skip_notice("prlimit is not installed");
            None
        }
    }
}

/// The loopback mock opencode's harness drives the client against (the agent-support
/// research's, beside the shared samples); `None` after a one-line notice when it is absent.
pub fn opencode_mock() -> Option<std::path::PathBuf> {
    let mock = shared_dir()
        .and_then(|d| d.parent().map(|p| p.join("tools/otheragents")))
        .filter(|d| d.join("netrun.sh").is_file());
    if mock.is_none() {
        skip_notice("the agent-support mock (tools/otheragents beside the samples) is not present");
    }
    mock
}

/// What `restore --json --from ARCHIVE` (run with `HOME` at `home`) lists for the file named
/// like `file` (its `bytes`: the size of its last copy), and the whole listing.
pub fn archived_bytes(
    home: &std::path::Path,
    archive: &std::path::Path,
    file: &std::path::Path,
) -> (Option<serde_json::Value>, Vec<serde_json::Value>) {
    let listed = cctool()
        .env("HOME", home)
        .args(["restore", "--json", "--from"])
        .arg(archive)
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(listed.stdout).unwrap());
    let name = file.file_name().unwrap().to_str().unwrap();
    let bytes = recs
        .iter()
        .find(|r| r["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .map(|r| r["bytes"].clone());
    (bytes, recs)
}
