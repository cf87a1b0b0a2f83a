use std::path::PathBuf;

use assert_cmd::Command;

/// The binary under test, isolated from the user's own stores and colour settings.
pub fn cctool() -> Command {
    let mut cmd = Command::cargo_bin("cctool").expect("binary");
    cmd.env("NO_COLOR", "1")
        .env("HOME", "/nonexistent-home")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME");
    cmd
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// The shared samples folder beside the project, when this checkout has one. A clean clone
/// has none: tests that compare against it then skip (see [`shared`]).
pub fn shared_dir() -> Option<PathBuf> {
    let p = root().join("../shared/samples");
    p.is_dir().then_some(p)
}

/// A file of the shared samples, or `None` after a one-line notice on stderr when the folder
/// is absent (a clean clone): the caller returns early, so the test is reported as skipped
/// rather than failed. A file missing from a folder that is present is still a failure.
///
/// ```ignore
/// let Some(path) = shared("claude-code/real/x.jsonl") else { return };
/// ```
pub fn shared(rel: &str) -> Option<PathBuf> {
    let Some(dir) = shared_dir() else {
        skip_notice("../shared/samples not present");
        return None;
    };
    let p = dir.join(rel);
    assert!(p.exists(), "missing shared sample {}", p.display());
    Some(p)
}

/// Every file in these folders of the shared samples, sorted; `None` as for [`shared`].
#[allow(dead_code)] // used as the tests move off `sample`
pub fn shared_files(dirs: &[&str]) -> Option<Vec<PathBuf>> {
    shared("")?;
    Some(sample_files(dirs))
}

/// Says once per test, on stderr, that a check was skipped and why.
pub fn skip_notice(why: &str) {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    eprintln!("skipped: {why} ({test})");
}

/// A file of the shared samples (present in the workplace and in CI beside the project).
pub fn sample(rel: &str) -> PathBuf {
    let p = root().join("../shared/samples").join(rel);
    assert!(p.exists(), "missing shared sample {}", p.display());
    p
}

/// Every file in these folders of the shared samples, sorted.
pub fn sample_files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(sample(d)).expect("sample folder"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
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
