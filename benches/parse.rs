//! Parsing benchmarks: line splitting, envelope parsing (serde_json vs simd-json vs a
//! serde_json DOM) and the full Claude Code index + chain rebuild.
//!
//! Input: the file named by `CCTOOL_BENCH_FILE` (a Claude Code transcript, e.g. one made by
//! `cargo run --release --example gen-corpus -- /tmp/corpus --single-claude-mib 64`), or a
//! synthetic transcript of about 16 MiB generated here. Every group reports bytes/s over
//! the whole input.
//!
//! simd-json parses in place, so each line must first be copied into a mutable buffer. The
//! `simd_json/copy+parse*` benches include that copy (what a real reader would pay); the
//! `simd_json/pre-copied` bench makes the copies in an untimed setup step and times the
//! parse alone.
//!
//! Before the benches run, a lone-surrogate probe prints on stderr whether serde_json,
//! serde_json after `cctool::io::json::repair_surrogates`, and simd-json accept a line with
//! a lone UTF-16 surrogate escape (valid for `JSON.parse`, so Claude Code keeps such lines).

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use cctool::agents::claude_code::records::Envelope;
use criterion::{BatchSize, Criterion, Throughput};

const SYNTH_TARGET: usize = 16 * 1024 * 1024;

/// SplitMix64, for a deterministic synthetic transcript.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    fn log_uniform(&mut self, lo: u64, hi: u64) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (lo as f64 * (hi as f64 / lo as f64).powf(u)) as usize
    }

    fn uuid(&mut self) -> String {
        let h = format!("{:016x}{:016x}", self.next(), self.next());
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }
}

/// Tool-output-like text with quotes, backslashes, tabs, ANSI escapes and non-ASCII.
fn text_pool(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "parser", "session", "buffer", "index", "chain", "token", "render", "stream", "handler", "cursor", "schema",
        "record", "offset", "client", "worker", "cache", "error", "value", "writer", "reader", "parent", "commit",
    ];
    const UNI: &[&str] = &["é", "—", "→", "✓", "中文", "🚀", "naïve", "Größe", "👍🏽"];
    let mut s = String::with_capacity(2 << 20);
    while s.len() < 2 << 20 {
        let w = |r: &mut Rng| WORDS[r.below(WORDS.len() as u64) as usize];
        let (a, b) = (w(rng), w(rng));
        let u = UNI[rng.below(UNI.len() as u64) as usize];
        let n = rng.below(100_000);
        let line = match rng.below(6) {
            0 => format!("    let {a} = {b}(\"{a} {u}\")?; // {n}\n"),
            1 => format!("\u{1b}[32m✓\u{1b}[0m {a}::{b} ... ok ({n} ms)\n"),
            2 => format!("{{\"{a}\": \"C:\\\\Users\\\\{b}\", \"n\": {n}}}\n"),
            3 => format!("{n:>6}→\tfn {a}_{b}(&self) -> {u} {{\n"),
            4 => format!("src/{a}/{b}.rs:{}:{}: warning: unused `{a}`\r\n", n % 900, n % 80),
            _ => format!("The {a} should {b} the {u} value before {a}.\n"),
        };
        s.push_str(&line);
    }
    s
}

fn piece<'a>(pool: &'a str, rng: &mut Rng, len: usize) -> &'a str {
    let len = len.min(pool.len() - 8);
    let mut start = rng.below((pool.len() - len) as u64) as usize;
    while !pool.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start + len;
    while !pool.is_char_boundary(end) {
        end -= 1;
    }
    &pool[start..end]
}

fn js(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// A Claude Code transcript in the real key order: prompts, assistant messages split one
/// block per line, tool results with `toolUseResult` copies (10% of them 10–200 KB), legacy
/// progress rows, snapshots, turn durations, and a compaction every ~2 MB.
fn synthetic_transcript(target: usize) -> Vec<u8> {
    let mut rng = Rng(42);
    let pool = text_pool(&mut rng);
    let session = rng.uuid();
    let head = format!(
        r#","isSidechain":false,"userType":"external","cwd":"/Users/dev/app","sessionId":"{session}","version":"2.1.14","gitBranch":"main","slug":"joyful-wandering-plum""#
    );
    let mut out: Vec<u8> = Vec::with_capacity(target + (1 << 20));
    let mut last: Option<String> = None;
    let mut ms: u64 = 0;
    let mut since_compact = 0usize;
    let ts = |ms: &mut u64, rng: &mut Rng| {
        *ms += 1 + rng.below(20_000);
        let s = *ms / 1000;
        format!(
            "2026-01-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            1 + s / 86_400 % 28,
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            *ms % 1000
        )
    };
    let parent = |p: &Option<String>| p.as_ref().map_or("null".to_string(), |u| format!("\"{u}\""));
    while out.len() < target {
        let before = out.len();
        // One turn: snapshot, prompt, assistant rounds, end-of-turn rows.
        let user = rng.uuid();
        let t = ts(&mut ms, &mut rng);
        let _ = writeln!(
            out,
            r#"{{"type":"file-history-snapshot","messageId":"{user}","snapshot":{{"messageId":"{user}","trackedFileBackups":{{"src/lib.rs":{{"backupFileName":"{:016x}@v2","version":2,"backupTime":"{t}"}}}},"timestamp":"{t}"}},"isSnapshotUpdate":false}}"#,
            rng.next()
        );
        let n = rng.log_uniform(20, 1500);
        let _ = writeln!(
            out,
            r#"{{"parentUuid":{}{head},"type":"user","message":{{"role":"user","content":{}}},"uuid":"{user}","timestamp":"{t}","thinkingMetadata":{{"level":"high","disabled":false,"triggers":[]}},"todos":[]}}"#,
            parent(&last),
            js(piece(&pool, &mut rng, n))
        );
        last = Some(user);
        let rounds = 1 + rng.below(8);
        for r in 0..rounds {
            let msg = format!("msg_01{:022x}", rng.next());
            let line = |block: String, rng: &mut Rng, ms: &mut u64, last: &mut Option<String>, out: &mut Vec<u8>| {
                let u = rng.uuid();
                let t = ts(ms, rng);
                let _ = writeln!(
                    out,
                    r#"{{"parentUuid":{}{head},"message":{{"model":"claude-opus-4-5-20251101","id":"{msg}","type":"message","role":"assistant","content":[{block}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":142439,"cache_creation":{{"ephemeral_5m_input_tokens":5,"ephemeral_1h_input_tokens":0}},"output_tokens":8,"service_tier":"standard"}}}},"requestId":"req_011C{:020x}","type":"assistant","uuid":"{u}","timestamp":"{t}"}}"#,
                    parent(last),
                    rng.next() as u128
                );
                *last = Some(u.clone());
                u
            };
            let n = rng.log_uniform(60, 4000);
            let thinking = format!(
                r#"{{"type":"thinking","thinking":{},"signature":"EoUCCkYIBxgCKkB{:032x}"}}"#,
                js(piece(&pool, &mut rng, n)),
                rng.next() as u128 * 7
            );
            line(thinking, &mut rng, &mut ms, &mut last, &mut out);
            if r + 1 == rounds {
                let n = rng.log_uniform(40, 3000);
                let text = format!(r#"{{"type":"text","text":{}}}"#, js(piece(&pool, &mut rng, n)));
                line(text, &mut rng, &mut ms, &mut last, &mut out);
                break;
            }
            // One or (sometimes) two parallel tool calls; results hang off their tool_use line.
            let calls = if rng.below(5) == 0 { 2 } else { 1 };
            let mut uses = Vec::new();
            for _ in 0..calls {
                let id = format!("toolu_01{:022x}", rng.next());
                let block = format!(
                    r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"cargo test 2>&1 | tail -n 40","description":"Run the tests"}}}}"#
                );
                let u = line(block, &mut rng, &mut ms, &mut last, &mut out);
                uses.push((u, id));
            }
            for (k, (tool_line, id)) in uses.iter().enumerate() {
                let mut p = tool_line.clone();
                for i in 0..rng.below(4) {
                    let u = rng.uuid();
                    let t = ts(&mut ms, &mut rng);
                    let _ = writeln!(
                        out,
                        r#"{{"parentUuid":"{p}"{head},"type":"progress","data":{{"type":"bash_progress","output":"","fullOutput":"","elapsedTimeSeconds":{i},"totalLines":0}},"toolUseID":"bash-progress-{i}","parentToolUseID":"{id}","uuid":"{u}","timestamp":"{t}"}}"#
                    );
                    p = u;
                }
                let size = if rng.below(10) == 0 {
                    rng.log_uniform(10_000, 200_000)
                } else {
                    rng.log_uniform(80, 8_000)
                };
                let body = js(piece(&pool, &mut rng, size));
                let u = rng.uuid();
                let t = ts(&mut ms, &mut rng);
                let _ = writeln!(
                    out,
                    r#"{{"parentUuid":"{tool_line}"{head},"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":{body},"is_error":false}}]}},"uuid":"{u}","timestamp":"{t}","toolUseResult":{{"stdout":{body},"stderr":"","interrupted":false,"isImage":false}},"sourceToolAssistantUUID":"{tool_line}"}}"#
                );
                if k + 1 == uses.len() {
                    last = Some(u);
                }
            }
        }
        let u = rng.uuid();
        let t = ts(&mut ms, &mut rng);
        let _ = writeln!(
            out,
            r#"{{"parentUuid":{}{head},"type":"system","subtype":"turn_duration","durationMs":{},"timestamp":"{t}","uuid":"{u}","isMeta":false}}"#,
            parent(&last),
            rng.below(600_000)
        );
        last = Some(u);
        since_compact += out.len() - before;
        if since_compact > 2_000_000 {
            since_compact = 0;
            let (b, s) = (rng.uuid(), rng.uuid());
            let t = ts(&mut ms, &mut rng);
            let _ = writeln!(
                out,
                r#"{{"parentUuid":null,"logicalParentUuid":{}{head},"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"{t}","uuid":"{b}","level":"info","compactMetadata":{{"trigger":"auto","preTokens":{}}}}}"#,
                parent(&last),
                140_000 + rng.below(30_000)
            );
            let n = rng.log_uniform(8_000, 20_000);
            let summary = format!(
                "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n{}",
                piece(&pool, &mut rng, n)
            );
            let _ = writeln!(
                out,
                r#"{{"parentUuid":"{b}"{head},"type":"user","message":{{"role":"user","content":{}}},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"{s}","timestamp":"{t}"}}"#,
                js(&summary)
            );
            last = Some(s);
        }
    }
    out
}

fn load_input() -> (String, Vec<u8>) {
    match std::env::var_os("CCTOOL_BENCH_FILE") {
        Some(p) => {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("CCTOOL_BENCH_FILE {}: {e}", p.display()));
            (p.to_string_lossy().into_owned(), bytes)
        }
        None => ("synthetic".to_string(), synthetic_transcript(SYNTH_TARGET)),
    }
}

/// Which parsers accept a line with a lone surrogate escape.
fn surrogate_probe() {
    let cases: [(&str, &[u8]); 3] = [
        (
            "lone high surrogate in message.content (a string cctool reads)",
            br#"{"type":"user","uuid":"0a1b2c3d-0000-4000-8000-00000000abcd","parentUuid":null,"message":{"role":"user","content":"cut emoji \ud83d here"}}"#,
        ),
        (
            "lone low surrogate in toolUseResult (a value cctool skips)",
            br#"{"type":"user","uuid":"0a1b2c3d-0000-4000-8000-00000000abce","parentUuid":null,"toolUseResult":{"stdout":"x \udc00 y"}}"#,
        ),
        (
            "high surrogate followed by a non-surrogate escape",
            br#"{"type":"user","uuid":"0a1b2c3d-0000-4000-8000-00000000abcf","parentUuid":null,"message":{"role":"user","content":"\ud83d\u0041"}}"#,
        ),
    ];
    let verdict = |ok: bool, err: String| {
        if ok {
            "accepts".to_string()
        } else {
            format!("rejects ({err})")
        }
    };
    for (what, line) in cases {
        let serde = serde_json::from_slice::<Envelope<'_>>(line);
        let repaired = cctool::io::json::repair_surrogates(line).map(|fixed| {
            serde_json::from_slice::<Envelope<'_>>(&fixed)
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        let mut copy = line.to_vec();
        let simd = simd_json::serde::from_slice::<Envelope<'_>>(&mut copy).map(|_| ());
        let mut copy = line.to_vec();
        let simd_dom = simd_json::to_borrowed_value(&mut copy).map(|_| ());
        eprintln!("surrogate probe: {what}");
        eprintln!(
            "  serde_json Envelope:           {}",
            verdict(serde.is_ok(), serde.err().map(|e| e.to_string()).unwrap_or_default())
        );
        eprintln!(
            "  serde_json after repair:       {}",
            match repaired {
                None => "nothing to repair".to_string(),
                Some(r) => verdict(r.is_ok(), r.err().unwrap_or_default()),
            }
        );
        eprintln!(
            "  simd-json Envelope (serde):    {}",
            verdict(simd.is_ok(), simd.err().map(|e| e.to_string()).unwrap_or_default())
        );
        eprintln!(
            "  simd-json BorrowedValue (DOM): {}",
            verdict(
                simd_dom.is_ok(),
                simd_dom.err().map(|e| e.to_string()).unwrap_or_default()
            )
        );
    }
}

fn count_uuids_serde(lines: &[&[u8]]) -> usize {
    let mut n = 0;
    for l in lines {
        if let Ok(e) = serde_json::from_slice::<Envelope<'_>>(l) {
            n += usize::from(e.uuid.as_str().is_some());
        }
    }
    n
}

fn benches(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let (lines, stats) = cctool::io::lines::lines_of(bytes);
    let line_bytes: Vec<&[u8]> = lines.iter().map(|l| l.bytes).collect();
    let owned: Vec<Vec<u8>> = line_bytes.iter().map(|l| l.to_vec()).collect();
    let max_line = line_bytes.iter().map(|l| l.len()).max().unwrap_or(0);
    eprintln!(
        "input: {name}: {} bytes, {} lines ({} non-blank), longest line {} bytes; {} records with a uuid (serde_json)",
        bytes.len(),
        stats.lines,
        lines.len(),
        max_line,
        count_uuids_serde(&line_bytes)
    );
    let throughput = Throughput::Bytes(bytes.len() as u64);

    let mut g = c.benchmark_group("lines");
    g.throughput(throughput.clone());
    g.bench_function("lines_of", |b| {
        b.iter(|| black_box(cctool::io::lines::lines_of(black_box(bytes)).0.len()))
    });
    g.finish();

    let mut g = c.benchmark_group("envelope");
    g.throughput(throughput.clone());
    g.bench_function("serde_json/Envelope", |b| {
        b.iter(|| black_box(count_uuids_serde(&line_bytes)))
    });
    g.bench_function("simd_json/copy+parse Envelope", |b| {
        let mut buf: Vec<u8> = Vec::with_capacity(max_line);
        b.iter(|| {
            let mut n = 0usize;
            for l in &line_bytes {
                buf.clear();
                buf.extend_from_slice(l);
                if let Ok(e) = simd_json::serde::from_slice::<Envelope<'_>>(&mut buf) {
                    n += usize::from(e.uuid.as_str().is_some());
                }
            }
            black_box(n)
        })
    });
    g.bench_function("simd_json/copy+parse Envelope, reused Buffers", |b| {
        let mut buf: Vec<u8> = Vec::with_capacity(max_line);
        let mut buffers = simd_json::Buffers::new(max_line);
        b.iter(|| {
            let mut n = 0usize;
            for l in &line_bytes {
                buf.clear();
                buf.extend_from_slice(l);
                if let Ok(e) = simd_json::serde::from_slice_with_buffers::<Envelope<'_>>(&mut buf, &mut buffers) {
                    n += usize::from(e.uuid.as_str().is_some());
                }
            }
            black_box(n)
        })
    });
    g.bench_function("simd_json/pre-copied (copy untimed) Envelope", |b| {
        b.iter_batched_ref(
            || owned.clone(),
            |copies| {
                let mut n = 0usize;
                for l in copies.iter_mut() {
                    if let Ok(e) = simd_json::serde::from_slice::<Envelope<'_>>(l) {
                        n += usize::from(e.uuid.as_str().is_some());
                    }
                }
                black_box(n)
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("serde_json/Value DOM", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for l in &line_bytes {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(l) {
                    n += usize::from(v.get("uuid").is_some());
                }
            }
            black_box(n)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("claude_chain");
    g.throughput(throughput);
    g.bench_function("read+rebuild (input copy untimed)", |b| {
        b.iter_batched(
            || bytes.to_vec(),
            |v| {
                let src = cctool::io::Source::from_bytes("bench", v);
                let t = cctool::agents::claude_code::chain::read(&src).expect("in-memory reads cannot fail");
                let chain = t.rebuild(&cctool::agents::claude_code::chain::Options::default());
                black_box(chain.map(|c| c.positions.len()).unwrap_or(0))
            },
            BatchSize::PerIteration,
        )
    });
    let src = cctool::io::Source::from_bytes("bench", bytes.to_vec());
    let t = cctool::agents::claude_code::chain::read(&src).expect("in-memory reads cannot fail");
    g.bench_function("rebuild only (index prebuilt)", |b| {
        b.iter(|| {
            let chain = t.rebuild(&cctool::agents::claude_code::chain::Options::default());
            black_box(chain.map(|c| c.positions.len()).unwrap_or(0))
        })
    });
    g.finish();
}

fn main() {
    surrogate_probe();
    let (name, bytes) = load_input();
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    benches(&mut c, &name, &bytes);
    c.final_summary();
}
