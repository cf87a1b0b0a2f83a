//! Memory of a redacted export without a mapping (`--mmap never`, or a file too recent to
//! map): both passes read the file a window at a time, so what the export holds does not grow
//! with the file. Each format runs under an address-space limit smaller than the file, which
//! reading it whole went past, and a secret learned at its end is still replaced at its start.

/// The address space each run may use (two pool threads), as the other memory tests: less
/// than the file, which the export read whole before.
const CAP: u64 = 256 * 1024 * 1024;

/// A value only the second record's assignment tells to be a secret.
const SECRET: &str = "q7Zr9LmX2pW4tN8v";

/// A Claude Code transcript of `filler` bytes of blank lines between its two records: the
/// prompt, which mentions the secret where no rule can read it, and the reply, which assigns
/// it.
fn transcript(filler: usize) -> Vec<u8> {
    let u = |i: u8| format!("00000000-0000-4000-8000-00000000000{i}");
    let prompt = format!(
        "{{\"parentUuid\":null,\"type\":\"user\",\"uuid\":\"{}\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"cwd\":\"/\",\"message\":{{\"role\":\"user\",\"content\":\"the token {SECRET} goes here\"}}}}\n",
        u(1)
    );
    let reply = format!(
        "{{\"parentUuid\":\"{}\",\"type\":\"assistant\",\"uuid\":\"{}\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"sessionId\":\"s\",\"cwd\":\"/\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"text\",\"text\":\"MY_APP_SECRET={SECRET}\"}}]}}}}\n",
        u(1),
        u(2)
    );
    // Lines of spaces: read and split like any line, and cheap to search.
    let mut blank = vec![b' '; 1 << 20];
    blank.push(b'\n');
    let mut out = prompt.into_bytes();
    out.reserve(filler + reply.len());
    while out.len() < filler {
        out.extend_from_slice(&blank);
    }
    out.extend_from_slice(reply.as_bytes());
    out
}

#[test]
fn a_redacted_export_without_a_mapping_reads_the_file_a_window_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::write(&file, transcript(CAP as usize)).unwrap();
    let file = file.to_str().unwrap();
    for format in ["native", "jsonl", "markdown", "html"] {
        let args = ["export", "--share", "--mmap", "never", "--format", format, file];
        let Some(out) = crate::util::under_cap(&args, Some(CAP)) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr:.500}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains(SECRET), "{format}: the secret is left");
        assert!(
            stdout.contains("the token [REDACTED:secret-assignment#1] goes here"),
            "{format}: {stdout:.2000}"
        );
    }
}
