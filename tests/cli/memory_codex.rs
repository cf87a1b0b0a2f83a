//! Memory of the commands that index a whole Codex rollout (its records, and the history a
//! resume reconstructs) on a rollout of many small records: what is held for each record is
//! a few words, not its `type` and `role` as strings of their own. Each command runs under an
//! address-space limit that the index of owned strings exceeded on this file.

/// The address space each run may use (two pool threads): the index of owned strings needed
/// more on this file, by a fifth to a half.
const CAP: u64 = 84 * 1024 * 1024;

/// A rollout of a prompt and `pairs` small calls with their outputs, and no compaction, so that
/// a resume loads every item.
fn rollout(pairs: usize) -> String {
    let mut s = String::with_capacity(pairs * 260 + 512);
    s.push_str(r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"019a0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/","originator":"codex_cli_rs","cli_version":"0.171.0"}}"#);
    s.push('\n');
    s.push_str(r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#);
    s.push('\n');
    for i in 0..pairs {
        s.push_str(&format!(
            "{{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{}}\",\"call_id\":\"c{i}\"}}}}\n"
        ));
        s.push_str(&format!(
            "{{\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c{i}\",\"output\":\"ok\"}}}}\n"
        ));
    }
    s
}

#[test]
fn a_rollout_of_many_small_records_is_indexed_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    std::fs::write(&path, rollout(60_000)).unwrap();
    let path = path.to_str().unwrap();
    for args in [
        &["scan"][..],
        &["rebuild-chain", "--format", "jsonl"],
        &["export", "--format", "jsonl"],
    ] {
        let args = [args, &["--mmap", "never", path]].concat();
        let Some(capped) = crate::util::under_cap(&args, Some(CAP)) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&capped.stderr);
        assert_eq!(capped.status.code(), Some(0), "{args:?} under the cap: {stderr:.500}");
        let free = crate::util::under_cap(&args, None).unwrap();
        assert!(
            capped.stdout == free.stdout,
            "{args:?}: the output differs under the cap"
        );
    }
}
