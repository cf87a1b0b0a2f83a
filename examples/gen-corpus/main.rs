//! Generates a synthetic, deterministic corpus of Claude Code transcripts and Codex rollouts
//! for benchmarks and scale tests.
//!
//! ```text
//! cargo run --release --example gen-corpus -- OUT [--claude-mib N] [--codex-mib M]
//!     [--single-claude-mib S] [--single-codex-mib T] [--boundaries B] [--seed SEED]
//! ```
//!
//! Writes `OUT/claude/projects/<slug>/<uuid>.jsonl` and
//! `OUT/codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` until N and M MiB are reached
//! (defaults 64 and 64; 0 skips a tree), with file sizes drawn from ccusage's published
//! session-file profile (p50 105 KB, p90 654 KB, p99 5.4 MB, max 87 MB). `--single-*-mib`
//! adds one session of that size at `OUT/single/claude.jsonl` / `OUT/single/codex.jsonl`.
//! `--boundaries B` adds `OUT/single/boundaries.jsonl`: a Claude Code session of B short turns,
//! each followed by a compaction (about 4 KB per boundary), for the cost of many boundaries.
//! The same seed always gives the same bytes. Everything is synthetic: no real transcript
//! text is used.
//!
//! Shapes follow `docs/claude-code.md#records` and `docs/codex.md#envelope-lines`: the
//! parentUuid chain, assistant messages split one content block per line, parallel tool
//! calls whose results hang off their own tool_use line, legacy progress rows in the chain,
//! file-history snapshots, compact boundaries with their summary (some with a preserved
//! segment); Codex session_meta with ~13 KB base instructions, turns with reasoning, function
//! calls and big outputs, local and remote compactions. Lines are written by hand in the real
//! key order (serde_json's map does not keep insertion order in this crate); serde_json
//! escapes every string.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;

const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Deterministic randomness

#[path = "../shared/rng.rs"]
mod rng;
use rng::Rng;

/// ccusage's published session-file size profile as a piecewise log-linear quantile
/// function (decimal bytes). Knots below p50 extrapolate the log-normal the upper ones imply.
const PROFILE: &[(f64, f64)] = &[
    (0.0, 2_000.0),
    (0.1, 17_000.0),
    (0.5, 105_000.0),
    (0.9, 654_000.0),
    (0.99, 5_400_000.0),
    (0.999, 30_000_000.0),
    (1.0, 87_000_000.0),
];

fn profile_size(rng: &mut Rng) -> u64 {
    let u = rng.unit();
    for w in PROFILE.windows(2) {
        let ((u0, s0), (u1, s1)) = (w[0], w[1]);
        if u <= u1 {
            let f = (u - u0) / (u1 - u0);
            return (s0.ln() + f * (s1.ln() - s0.ln())).exp() as u64;
        }
    }
    PROFILE[PROFILE.len() - 1].1 as u64
}

// ---------------------------------------------------------------------------------------
// Text pools: built once, sliced everywhere (so 1 GiB takes seconds, not minutes)

const WORDS: &[&str] = &[
    "config", "parser", "session", "buffer", "index", "chain", "token", "render", "stream", "request", "handler",
    "cursor", "schema", "module", "record", "offset", "client", "worker", "cache", "error", "result", "value",
    "writer", "reader", "parent", "child", "commit", "branch", "summary", "compact", "layout", "signal", "future",
    "socket", "header", "payload", "metric", "window", "thread", "queue", "table", "column", "filter", "map", "vector",
    "string", "bytes", "path", "file", "line", "node", "graph", "edge", "tree", "leaf", "root", "hash", "state",
    "event", "task", "turn", "model", "prompt", "reply", "tool", "call", "output", "input", "limit",
];

const UNI: &[&str] = &[
    "é",
    "ü",
    "ß",
    "—",
    "→",
    "✓",
    "✗",
    "…",
    "“quoted”",
    "中文",
    "日本語のテキスト",
    "한국어",
    "🚀",
    "🔥",
    "✅",
    "ñ",
    "Ω",
    "π≈3.14",
    "€",
    "Größe",
    "naïve café",
    "Ünïcödé",
    "👍🏽",
    "∑",
    "≤",
    "≥",
    "¿qué?",
];

const PROSE_WORDS: &[&str] = &[
    "the", "a", "we", "this", "that", "it", "should", "will", "now", "then", "because", "so", "and", "but", "also",
    "first", "next", "finally", "check", "update", "fix", "add", "remove", "test", "run", "build", "look", "at",
    "function", "file", "error", "change", "value", "case", "code", "call", "path", "line", "make", "sure", "let",
    "me", "see", "why", "how", "when", "where", "which", "is", "are", "was", "not", "with", "from", "into", "for",
];

struct Pools {
    /// Tool output: code, logs, JSON snippets, ANSI colours, tabs, CRs, quotes, unicode.
    code: String,
    /// Natural-language-ish text with markdown.
    prose: String,
    /// Base64 alphabet only (images, signatures, encrypted content).
    b64: String,
    /// Codex `base_instructions.text` (~13 KB).
    instructions: String,
}

fn word(rng: &mut Rng) -> &'static str {
    rng.one(WORDS)
}

fn push_code_line(rng: &mut Rng, s: &mut String) {
    use std::fmt::Write as _;
    let indent = ["", "    ", "        ", "\t", "\t\t", "            "][rng.below(6) as usize];
    let (a, b, c, d) = (word(rng), word(rng), word(rng), word(rng));
    let n = rng.range(0, 99_999);
    let _ = match rng.below(16) {
        0 => writeln!(s, "{indent}let {a}_{b} = {c}::{d}(&{a}, \"{b} {c}\")?;"),
        1 => writeln!(
            s,
            "{indent}if {a}.{b}() > {n} {{ return Err(Error::new(\"{c} \\\"{d}\\\" failed: {}\")); }}",
            rng.pick(UNI)
        ),
        2 => writeln!(s, "{indent}// {a} the {b} before {c}: {} {d}", rng.pick(UNI)),
        3 => writeln!(s, "\u{1b}[32m✓\u{1b}[0m {a}::{b}::{c} ... ok ({n} ms)"),
        4 => writeln!(
            s,
            "{{\"{a}\": \"{b}\\\\{c}\", \"{d}\": [{n}, {}], \"path\": \"C:\\\\Users\\\\{a}\\\\{b}.rs\"}}",
            n / 7
        ),
        5 => writeln!(
            s,
            "src/{a}/{b}.rs:{}:{}: warning: unused variable: `{c}`",
            n % 900,
            n % 80
        ),
        6 => writeln!(s, "{a}\t{n}\t{b}\t{}", rng.pick(UNI)),
        7 => writeln!(s, "{:>6}→{indent}fn {a}_{b}(&self) -> {c} {{", n % 5000),
        8 => writeln!(s, "{a} {b} {c}\r"),
        9 => writeln!(
            s,
            "\u{1b}[1;31merror[E0{}]\u{1b}[0m: mismatched types `{a}` vs `{b}`",
            n % 1000
        ),
        10 => writeln!(s, "{indent}<{a} class=\"{b}-{c}\" data-x='{n}'>{}</{a}>", rng.pick(UNI)),
        11 => writeln!(
            s,
            "{indent}SELECT {a}, {b} FROM {c} WHERE {d} = '{n}' AND note LIKE '%\\_%';"
        ),
        12 => writeln!(s, "drwxr-xr-x  {} user staff  {n} Jan 12 09:4{} {a}_{b}", n % 9, n % 10),
        13 => writeln!(s, "{indent}assert_eq!({a}, \"{b}\\n{c}\\t{d}\");"),
        14 => writeln!(s, "bell\u{7} nul\u{0} del\u{7f} {a}"),
        _ => writeln!(s, "{indent}{a}.{b}({c}, {d}); // {n}"),
    };
}

fn push_sentence(rng: &mut Rng, s: &mut String) {
    let n = rng.range(5, 18);
    for i in 0..n {
        let w = match rng.below(20) {
            0 => format!("`{}`", word(rng)),
            1 => format!("**{}**", word(rng)),
            2 => rng.pick(UNI).to_string(),
            3 | 4 => word(rng).to_string(),
            _ => rng.pick(PROSE_WORDS).to_string(),
        };
        if i == 0 {
            let mut cs = w.chars();
            if let Some(f) = cs.next() {
                s.extend(f.to_uppercase());
                s.push_str(cs.as_str());
            }
        } else {
            s.push(' ');
            s.push_str(&w);
        }
    }
    s.push_str([".", ".", ".", ":", "?", "!"][rng.below(6) as usize]);
    match rng.below(8) {
        0 => s.push_str("\n\n"),
        1 => s.push_str("\n- "),
        2 => s.push_str("\n\n## "),
        _ => s.push(' '),
    }
}

impl Pools {
    fn new(seed: u64) -> Pools {
        let mut rng = Rng::new(seed ^ 0x706F_6F6C);
        let mut code = String::with_capacity(4 * MIB as usize + 256);
        while code.len() < 4 * MIB as usize {
            push_code_line(&mut rng, &mut code);
        }
        let mut prose = String::with_capacity(MIB as usize + 256);
        while prose.len() < MIB as usize {
            push_sentence(&mut rng, &mut prose);
        }
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let b64: String = (0..2 * MIB).map(|_| B64[rng.below(64) as usize] as char).collect();
        let mut instructions = String::from(
            "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer.\n\n## General\n\n",
        );
        while instructions.len() < 13_100 {
            instructions.push_str("- ");
            push_sentence(&mut rng, &mut instructions);
            instructions.push('\n');
        }
        Pools {
            code,
            prose,
            b64,
            instructions,
        }
    }
}

/// About `len` bytes of `pool` from a random place, cut on character boundaries.
fn slice<'a>(pool: &'a str, rng: &mut Rng, len: usize) -> &'a str {
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

/// Base64 of about `len` characters (a multiple of 4, so it is well-formed).
fn b64<'a>(p: &'a Pools, rng: &mut Rng, len: usize) -> &'a str {
    let len = (len / 4 * 4).clamp(4, p.b64.len() - 4);
    let start = rng.below((p.b64.len() - len) as u64) as usize;
    &p.b64[start..start + len]
}

// ---------------------------------------------------------------------------------------
// Ids and timestamps

#[derive(Clone, Copy)]
struct Uuid([u8; 36]);

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Uuid {
    fn from_bits(v: u128) -> Uuid {
        let mut out = [b'-'; 36];
        let mut nib = 0;
        for (i, o) in out.iter_mut().enumerate() {
            if matches!(i, 8 | 13 | 18 | 23) {
                continue;
            }
            *o = HEX[((v >> (124 - 4 * nib)) & 0xF) as usize];
            nib += 1;
        }
        Uuid(out)
    }

    fn v4(rng: &mut Rng) -> Uuid {
        let v = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        let v = (v & !(0xF << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
        Uuid::from_bits(v)
    }

    fn v7(rng: &mut Rng, ms: i64) -> Uuid {
        let r = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        let v = (u128::from(ms as u64 & 0xFFFF_FFFF_FFFF) << 80) | (r & ((1u128 << 80) - 1));
        let v = (v & !(0xF << 76) & !(0x3 << 62)) | (0x7 << 76) | (0x2 << 62);
        Uuid::from_bits(v)
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex and dashes")
    }
}

/// `prefix` followed by `n` base62 characters (message, request and tool-call ids).
fn base62_id(rng: &mut Rng, prefix: &str, n: usize) -> String {
    const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        s.push(A[rng.below(62) as usize] as char);
    }
    s
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

struct Parts {
    y: i64,
    mo: u32,
    d: u32,
    h: i64,
    mi: i64,
    s: i64,
    ms: i64,
}

fn parts(ms: i64) -> Parts {
    let (y, mo, d) = civil(ms.div_euclid(86_400_000));
    let t = ms.rem_euclid(86_400_000);
    Parts {
        y,
        mo,
        d,
        h: t / 3_600_000,
        mi: t / 60_000 % 60,
        s: t / 1000 % 60,
        ms: t % 1000,
    }
}

/// Writes `"2026-01-22T01:41:10.233Z"` (with the quotes).
fn push_ts(b: &mut Vec<u8>, ms: i64) {
    let p = parts(ms);
    let _ = write!(
        b,
        "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"",
        p.y, p.mo, p.d, p.h, p.mi, p.s, p.ms
    );
}

// ---------------------------------------------------------------------------------------
// Line building

fn raw(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(s.as_bytes());
}

/// A JSON string literal, escaped by serde_json.
fn js(b: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *b, s).expect("writing to a Vec cannot fail");
}

fn num(b: &mut Vec<u8>, n: u64) {
    let _ = write!(b, "{n}");
}

fn uuid(b: &mut Vec<u8>, u: &Uuid) {
    b.push(b'"');
    b.extend_from_slice(&u.0);
    b.push(b'"');
}

struct Sink {
    w: BufWriter<File>,
    bytes: u64,
    lines: u64,
}

impl Sink {
    fn create(path: &Path) -> io::Result<Sink> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        Ok(Sink {
            w: BufWriter::with_capacity(1 << 20, File::create(path)?),
            bytes: 0,
            lines: 0,
        })
    }

    /// Writes the line in `b` plus a newline, and clears `b`.
    fn emit(&mut self, b: &mut Vec<u8>) -> io::Result<()> {
        b.push(b'\n');
        self.w.write_all(b)?;
        self.bytes += b.len() as u64;
        self.lines += 1;
        b.clear();
        Ok(())
    }

    fn finish(mut self) -> io::Result<(u64, u64)> {
        self.w.flush()?;
        Ok((self.bytes, self.lines))
    }
}

// ---------------------------------------------------------------------------------------
// Claude Code

const CLAUDE_VERSIONS_PROGRESS: &[&str] = &["2.1.14", "2.1.17", "2.1.29", "2.1.42"];
const CLAUDE_VERSIONS_OTHER: &[&str] = &["2.0.76", "2.1.7", "2.1.88", "2.1.119"];
const CLAUDE_MODELS: &[&str] = &[
    "claude-opus-4-5-20251101",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5-20251001",
];
const SLUG_WORDS: &[&str] = &[
    "delegated",
    "sauteeing",
    "moon",
    "joyful",
    "wandering",
    "plum",
    "structured",
    "popping",
    "tome",
];

#[derive(Clone)]
struct ClaudeSession {
    seed: u64,
    target: u64,
    path: PathBuf,
    cwd: String,
    start_ms: i64,
    session: Uuid,
    /// Short turns each followed by a compaction, this many (`--boundaries`); None for the
    /// realistic shape.
    boundaries: Option<u64>,
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Bash,
    Read,
    Edit,
    Grep,
    Write,
}

struct ToolCall {
    line: Uuid,
    id: String,
    tool: Tool,
}

struct Claude<'p> {
    p: &'p Pools,
    rng: Rng,
    sink: Sink,
    b: Vec<u8>,
    /// `,"isSidechain":false,…,"gitBranch":"…"[,"slug":"…"]`: the fixed part after parentUuid.
    head_rest: Vec<u8>,
    session: Uuid,
    clock: i64,
    /// The chain cursor: the message the next one is parented on.
    last: Option<Uuid>,
    /// Which messages started the current turn (the head of a preserved segment).
    turn_head: Option<Uuid>,
    progress: bool,
    snapshots: bool,
    segments: f64,
    model: &'static str,
    tracked: Vec<(String, u32)>,
    seg_bytes: u64,
    compact_at: u64,
    target: u64,
    transcript_path: String,
    boundaries: Option<u64>,
}

impl<'p> Claude<'p> {
    fn new(p: &'p Pools, s: &ClaudeSession, home: &str) -> io::Result<Claude<'p>> {
        let mut rng = Rng::new(s.seed);
        let progress = rng.chance(0.35);
        let version = if progress {
            rng.one(CLAUDE_VERSIONS_PROGRESS)
        } else {
            rng.one(CLAUDE_VERSIONS_OTHER)
        };
        let segments = if version == "2.1.88" || version == "2.1.119" {
            0.5
        } else {
            0.0
        };
        let mut head_rest = Vec::with_capacity(256);
        raw(
            &mut head_rest,
            ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":",
        );
        js(&mut head_rest, &s.cwd);
        raw(&mut head_rest, ",\"sessionId\":");
        uuid(&mut head_rest, &s.session);
        raw(&mut head_rest, ",\"version\":");
        js(&mut head_rest, version);
        raw(&mut head_rest, ",\"gitBranch\":");
        let branch = format!("{}/{}-{}", word(&mut rng), word(&mut rng), rng.range(1, 400));
        js(&mut head_rest, if rng.chance(0.3) { "main" } else { &branch });
        if version != "2.0.76" {
            raw(&mut head_rest, ",\"slug\":");
            let slug = format!(
                "{}-{}-{}",
                rng.pick(SLUG_WORDS),
                rng.pick(SLUG_WORDS),
                rng.pick(SLUG_WORDS)
            );
            js(&mut head_rest, &slug);
        }
        let compact_at = rng.range(600_000, 2_500_000);
        let transcript_path = format!(
            "{home}/.claude/projects/{}/{}.jsonl",
            project_slug(&s.cwd),
            s.session.as_str()
        );
        Ok(Claude {
            p,
            model: rng.one(CLAUDE_MODELS),
            rng,
            sink: Sink::create(&s.path)?,
            b: Vec::with_capacity(1 << 20),
            head_rest,
            session: s.session,
            clock: s.start_ms,
            last: None,
            turn_head: None,
            progress,
            snapshots: version != "2.0.76" || s.seed.is_multiple_of(2),
            segments,
            tracked: Vec::new(),
            seg_bytes: 0,
            compact_at,
            target: s.target,
            transcript_path,
            boundaries: s.boundaries,
        })
    }

    fn remaining(&self) -> u64 {
        self.target.saturating_sub(self.sink.bytes)
    }

    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.clock += self.rng.range(lo, hi) as i64;
        self.clock
    }

    fn emit(&mut self) -> io::Result<()> {
        let before = self.sink.bytes;
        self.sink.emit(&mut self.b)?;
        self.seg_bytes += self.sink.bytes - before;
        Ok(())
    }

    /// `{"parentUuid":…` and the session's fixed envelope fields.
    fn open(&mut self, parent: Option<Uuid>) {
        raw(&mut self.b, "{\"parentUuid\":");
        match parent {
            Some(p) => uuid(&mut self.b, &p),
            None => raw(&mut self.b, "null"),
        }
        self.b.extend_from_slice(&self.head_rest);
    }

    /// `,"uuid":…,"timestamp":…`.
    fn id_ts(&mut self, u: &Uuid) {
        raw(&mut self.b, ",\"uuid\":");
        uuid(&mut self.b, u);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, self.clock);
    }

    fn run(mut self) -> io::Result<(u64, u64)> {
        if let Some(n) = self.boundaries {
            for _ in 0..n {
                self.short_turn()?;
                self.compaction()?;
            }
            return self.sink.finish();
        }
        if self.progress {
            // The first row of many 2.1.1x sessions: a SessionStart hook, parentUuid null.
            self.hook_progress("SessionStart", "SessionStart:startup")?;
        }
        while self.remaining() > 0 {
            self.turn()?;
            if self.seg_bytes >= self.compact_at && self.remaining() > 0 {
                self.compaction()?;
            }
        }
        self.sink.finish()
    }

    /// A prompt and a one-line answer (`--boundaries`).
    fn short_turn(&mut self) -> io::Result<()> {
        let p = self.p;
        self.tick(20_000, 900_000);
        let n = self.rng.range(20, 200) as usize;
        let prompt = slice(&p.prose, &mut self.rng, n);
        self.plain_user(prompt, false)?;
        self.turn_head = self.last;
        let msg_id = base62_id(&mut self.rng, "msg_01", 22);
        let req_id = base62_id(&mut self.rng, "req_011C", 20);
        let n = self.rng.range(20, 200) as usize;
        let text = slice(&p.prose, &mut self.rng, n);
        self.assistant_line(&msg_id, &req_id, (3, 0, 10_000, 40), |b| {
            raw(b, "{\"type\":\"text\",\"text\":");
            js(b, text);
            b.push(b'}');
        })?;
        Ok(())
    }

    fn turn(&mut self) -> io::Result<()> {
        let user = Uuid::v4(&mut self.rng);
        self.tick(20_000, 900_000);
        if self.snapshots && self.rng.chance(0.6) {
            self.file_snapshot(&user)?;
        }
        self.user_prompt(&user)?;
        self.turn_head = Some(user);
        let rounds = if self.rng.chance(0.2) {
            1
        } else {
            self.rng.log_uniform(2, 30)
        };
        for r in 0..rounds {
            let last = r + 1 == rounds || self.remaining() == 0;
            self.assistant_round(last)?;
            if last {
                break;
            }
        }
        self.end_of_turn()
    }

    fn file_snapshot(&mut self, msg: &Uuid) -> io::Result<()> {
        if self.tracked.len() < 40 && self.rng.chance(0.5) {
            let path = format!(
                "src/{}/{}_{}.rs",
                word(&mut self.rng),
                word(&mut self.rng),
                self.tracked.len()
            );
            self.tracked.push((path, 1));
        }
        raw(&mut self.b, "{\"type\":\"file-history-snapshot\",\"messageId\":");
        uuid(&mut self.b, msg);
        raw(&mut self.b, ",\"snapshot\":{\"messageId\":");
        uuid(&mut self.b, msg);
        raw(&mut self.b, ",\"trackedFileBackups\":{");
        for i in 0..self.tracked.len() {
            if self.rng.chance(0.2) {
                self.tracked[i].1 += 1;
            }
            if i > 0 {
                self.b.push(b',');
            }
            let (path, version) = (&self.tracked[i].0, self.tracked[i].1);
            js(&mut self.b, path);
            raw(&mut self.b, ":{\"backupFileName\":\"");
            let _ = write!(self.b, "{:016x}@v{version}", self.rng.next_u64());
            raw(&mut self.b, "\",\"version\":");
            num(&mut self.b, u64::from(version));
            raw(&mut self.b, ",\"backupTime\":");
            push_ts(&mut self.b, self.clock - self.rng.range(0, 3_600_000) as i64);
            self.b.push(b'}');
        }
        raw(&mut self.b, "},\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, "},\"isSnapshotUpdate\":false}");
        self.emit()
    }

    fn user_prompt(&mut self, user: &Uuid) -> io::Result<()> {
        let p = self.p;
        self.open(self.last);
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":",
        );
        let len = if self.rng.chance(0.05) {
            self.rng.log_uniform(3_000, 60_000) as usize
        } else {
            self.rng.log_uniform(15, 1_500) as usize
        };
        let pool = if len > 3_000 { &p.code } else { &p.prose };
        let len = len.min(self.remaining() as usize + 15);
        let text = slice(pool, &mut self.rng, len);
        if self.rng.chance(0.02) {
            // A pasted screenshot.
            let size = self.rng.log_uniform(20_000, 400_000).min(self.remaining() + 100) as usize;
            raw(
                &mut self.b,
                "[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"",
            );
            raw(&mut self.b, b64(p, &mut self.rng, size));
            raw(&mut self.b, "\"}},{\"type\":\"text\",\"text\":");
            js(&mut self.b, text);
            raw(&mut self.b, "}]");
        } else {
            js(&mut self.b, text);
        }
        self.b.push(b'}');
        self.id_ts(user);
        raw(
            &mut self.b,
            ",\"thinkingMetadata\":{\"level\":\"high\",\"disabled\":false,\"triggers\":[]},\"todos\":[]}",
        );
        self.last = Some(*user);
        self.emit()
    }

    /// One API response: optional thinking and text lines, then tool calls and their results
    /// (or the final answer).
    fn assistant_round(&mut self, last: bool) -> io::Result<()> {
        let p = self.p;
        let msg_id = base62_id(&mut self.rng, "msg_01", 22);
        let req_id = base62_id(&mut self.rng, "req_011C", 20);
        let usage = (
            self.rng.range(3, 12),
            self.rng.range(0, 4_000),
            self.rng.range(10_000, 160_000),
            self.rng.range(1, 2_000),
        );
        self.tick(1_500, 20_000);
        if self.rng.chance(0.7) {
            let n = self.rng.log_uniform(60, 6_000) as usize;
            let text = slice(&p.prose, &mut self.rng, n);
            let n = self.rng.range(200, 1_200) as usize;
            let sig = b64(p, &mut self.rng, n);
            self.assistant_line(&msg_id, &req_id, usage, |b| {
                raw(b, "{\"type\":\"thinking\",\"thinking\":");
                js(b, text);
                raw(b, ",\"signature\":\"");
                raw(b, sig);
                raw(b, "\"}");
            })?;
        }
        if last || self.rng.chance(0.3) {
            let n = self.rng.log_uniform(40, 4_000) as usize;
            let text = slice(&p.prose, &mut self.rng, n);
            self.assistant_line(&msg_id, &req_id, usage, |b| {
                raw(b, "{\"type\":\"text\",\"text\":");
                js(b, text);
                b.push(b'}');
            })?;
        }
        if last {
            return Ok(());
        }
        let n = if self.rng.chance(0.18) { self.rng.range(2, 4) } else { 1 };
        let mut calls = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let tool = self.rng.one(&[
                Tool::Bash,
                Tool::Bash,
                Tool::Read,
                Tool::Read,
                Tool::Edit,
                Tool::Grep,
                Tool::Write,
            ]);
            let id = base62_id(&mut self.rng, "toolu_01", 22);
            self.tick(50, 2_000);
            let line = self.tool_use_line(&msg_id, &req_id, usage, tool, &id)?;
            calls.push(ToolCall { line, id, tool });
        }
        // Results arrive in completion order; each hangs off its own tool_use line.
        for i in (1..calls.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            calls.swap(i, j);
        }
        for call in &calls {
            if self.progress && call.tool == Tool::Bash {
                self.bash_progress(call)?;
            }
            self.tool_result(call)?;
        }
        Ok(())
    }

    fn assistant_line(
        &mut self,
        msg_id: &str,
        req_id: &str,
        usage: (u64, u64, u64, u64),
        block: impl FnOnce(&mut Vec<u8>),
    ) -> io::Result<Uuid> {
        let u = Uuid::v4(&mut self.rng);
        self.tick(100, 3_000);
        self.open(self.last);
        raw(&mut self.b, ",\"message\":{\"model\":");
        js(&mut self.b, self.model);
        raw(&mut self.b, ",\"id\":");
        js(&mut self.b, msg_id);
        raw(
            &mut self.b,
            ",\"type\":\"message\",\"role\":\"assistant\",\"content\":[",
        );
        block(&mut self.b);
        raw(
            &mut self.b,
            "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":",
        );
        num(&mut self.b, usage.0);
        raw(&mut self.b, ",\"cache_creation_input_tokens\":");
        num(&mut self.b, usage.1);
        raw(&mut self.b, ",\"cache_read_input_tokens\":");
        num(&mut self.b, usage.2);
        raw(&mut self.b, ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":");
        num(&mut self.b, usage.1);
        raw(&mut self.b, ",\"ephemeral_1h_input_tokens\":0},\"output_tokens\":");
        num(&mut self.b, usage.3);
        raw(&mut self.b, ",\"service_tier\":\"standard\"}},\"requestId\":");
        js(&mut self.b, req_id);
        raw(&mut self.b, ",\"type\":\"assistant\"");
        self.id_ts(&u);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()?;
        Ok(u)
    }

    fn tool_use_line(
        &mut self,
        msg_id: &str,
        req_id: &str,
        usage: (u64, u64, u64, u64),
        tool: Tool,
        id: &str,
    ) -> io::Result<Uuid> {
        let p = self.p;
        let path = format!("{}/src/{}/{}.rs", "/repo", word(&mut self.rng), word(&mut self.rng));
        let (name, input) = match tool {
            Tool::Bash => {
                let cmd = format!(
                    "cargo test -p {} -- {} 2>&1 | tail -n {}",
                    word(&mut self.rng),
                    word(&mut self.rng),
                    self.rng.range(5, 200)
                );
                let mut v = Vec::new();
                raw(&mut v, "{\"command\":");
                js(&mut v, &cmd);
                raw(&mut v, ",\"description\":");
                js(&mut v, slice(&p.prose, &mut self.rng, 40));
                v.push(b'}');
                ("Bash", v)
            }
            Tool::Read => {
                let mut v = Vec::new();
                raw(&mut v, "{\"file_path\":");
                js(&mut v, &path);
                v.push(b'}');
                ("Read", v)
            }
            Tool::Edit | Tool::Write => {
                let mut v = Vec::new();
                raw(&mut v, "{\"file_path\":");
                js(&mut v, &path);
                let n = self.rng.log_uniform(40, 3_000) as usize;
                if tool == Tool::Edit {
                    raw(&mut v, ",\"old_string\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n));
                    raw(&mut v, ",\"new_string\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n));
                    v.push(b'}');
                    ("Edit", v)
                } else {
                    raw(&mut v, ",\"content\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n * 3));
                    v.push(b'}');
                    ("Write", v)
                }
            }
            Tool::Grep => {
                let mut v = Vec::new();
                raw(&mut v, "{\"pattern\":");
                js(&mut v, &format!("fn {}_\\w+\\(", word(&mut self.rng)));
                raw(&mut v, ",\"path\":\"/repo\",\"output_mode\":\"content\",\"-n\":true}");
                ("Grep", v)
            }
        };
        self.assistant_line(msg_id, req_id, usage, |b| {
            raw(b, "{\"type\":\"tool_use\",\"id\":");
            js(b, id);
            raw(b, ",\"name\":");
            js(b, name);
            raw(b, ",\"input\":");
            b.extend_from_slice(&input);
            b.push(b'}');
        })
    }

    /// Size of one tool result: mostly small, a tenth of them 10–200 KB.
    fn result_size(&mut self) -> usize {
        let r = self.rng.unit();
        let s = if r < 0.62 {
            self.rng.log_uniform(80, 2_000)
        } else if r < 0.88 {
            self.rng.log_uniform(2_000, 10_000)
        } else {
            self.rng.log_uniform(10_000, 200_000)
        };
        s.min(self.remaining() / 2).max(60) as usize
    }

    fn bash_progress(&mut self, call: &ToolCall) -> io::Result<()> {
        let p = self.p;
        // Progress rows chain off the tool_use line; the result later hangs off the tool_use
        // line itself, so these form a side branch (as in 2.1.1x files).
        let mut parent = call.line;
        for k in 0..self.rng.range(0, 12) {
            let u = Uuid::v4(&mut self.rng);
            self.tick(500, 1_500);
            self.open(Some(parent));
            raw(
                &mut self.b,
                ",\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\",\"output\":",
            );
            let out = slice(&p.code, &mut self.rng, (k * 40) as usize);
            js(&mut self.b, out);
            raw(&mut self.b, ",\"fullOutput\":");
            js(&mut self.b, out);
            raw(&mut self.b, ",\"elapsedTimeSeconds\":");
            num(&mut self.b, k + 2);
            raw(&mut self.b, ",\"totalLines\":");
            num(&mut self.b, k * 3);
            raw(&mut self.b, "},\"toolUseID\":\"bash-progress-");
            num(&mut self.b, k);
            raw(&mut self.b, "\",\"parentToolUseID\":");
            js(&mut self.b, &call.id);
            self.id_ts(&u);
            self.b.push(b'}');
            self.emit()?;
            parent = u;
        }
        Ok(())
    }

    fn tool_result(&mut self, call: &ToolCall) -> io::Result<()> {
        let p = self.p;
        let u = Uuid::v4(&mut self.rng);
        self.tick(200, 30_000);
        let size = self.result_size();
        let text = slice(&p.code, &mut self.rng, size);
        let is_error = self.rng.chance(0.04);
        self.open(Some(call.line));
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":",
        );
        js(&mut self.b, &call.id);
        raw(&mut self.b, ",\"type\":\"tool_result\",\"content\":");
        js(&mut self.b, text);
        raw(
            &mut self.b,
            if is_error {
                ",\"is_error\":true}]}"
            } else {
                ",\"is_error\":false}]}"
            },
        );
        self.id_ts(&u);
        raw(&mut self.b, ",\"toolUseResult\":");
        match call.tool {
            Tool::Bash => {
                raw(&mut self.b, "{\"stdout\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
            }
            Tool::Read => {
                let lines = text.matches('\n').count() as u64;
                raw(&mut self.b, "{\"type\":\"text\",\"file\":{\"filePath\":\"/repo/src/");
                raw(&mut self.b, word(&mut self.rng));
                raw(&mut self.b, ".rs\",\"content\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"numLines\":");
                num(&mut self.b, lines);
                raw(&mut self.b, ",\"startLine\":1,\"totalLines\":");
                num(&mut self.b, lines);
                raw(&mut self.b, "}}");
            }
            Tool::Edit | Tool::Write => {
                raw(&mut self.b, "{\"filePath\":\"/repo/src/lib.rs\",\"oldString\":");
                js(&mut self.b, slice(&p.code, &mut self.rng, 80));
                raw(&mut self.b, ",\"newString\":");
                js(&mut self.b, slice(&p.code, &mut self.rng, 90));
                raw(&mut self.b, ",\"originalFile\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"userModified\":false,\"replaceAll\":false}");
            }
            Tool::Grep => {
                raw(&mut self.b, "{\"mode\":\"content\",\"numFiles\":");
                num(&mut self.b, self.rng.range(1, 40));
                raw(&mut self.b, ",\"filenames\":[],\"content\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"numLines\":");
                num(&mut self.b, text.matches('\n').count() as u64);
                self.b.push(b'}');
            }
        }
        raw(&mut self.b, ",\"sourceToolAssistantUUID\":");
        uuid(&mut self.b, &call.line);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()
    }

    fn hook_progress(&mut self, event: &str, name: &str) -> io::Result<()> {
        let u = Uuid::v4(&mut self.rng);
        self.tick(5, 200);
        self.open(self.last);
        raw(
            &mut self.b,
            ",\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\",\"hookEvent\":",
        );
        js(&mut self.b, event);
        raw(&mut self.b, ",\"hookName\":");
        js(&mut self.b, name);
        raw(
            &mut self.b,
            ",\"command\":\"terminal-notifier -title \\\"Claude: $(basename $PWD)\\\" -message \\\"Done\\\"\"},\"parentToolUseID\":",
        );
        let id = Uuid::v4(&mut self.rng);
        uuid(&mut self.b, &id);
        raw(&mut self.b, ",\"toolUseID\":");
        uuid(&mut self.b, &id);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, ",\"uuid\":");
        uuid(&mut self.b, &u);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()
    }

    fn end_of_turn(&mut self) -> io::Result<()> {
        if self.progress {
            for _ in 0..self.rng.range(1, 2) {
                self.hook_progress("Stop", "Stop")?;
            }
        }
        if self.progress || self.rng.chance(0.2) {
            let u = Uuid::v4(&mut self.rng);
            self.tick(5, 300);
            self.open(self.last);
            raw(
                &mut self.b,
                ",\"type\":\"system\",\"subtype\":\"stop_hook_summary\",\"hookCount\":1,\"hookInfos\":[{\"command\":\"./hooks/stop.sh --quiet\"}],\"hookErrors\":[],\"preventedContinuation\":false,\"stopReason\":\"\",\"hasOutput\":true,\"level\":\"suggestion\",\"timestamp\":",
            );
            push_ts(&mut self.b, self.clock);
            raw(&mut self.b, ",\"uuid\":");
            uuid(&mut self.b, &u);
            raw(&mut self.b, ",\"toolUseID\":");
            uuid(&mut self.b, &Uuid::v4(&mut self.rng));
            self.b.push(b'}');
            self.last = Some(u);
            self.emit()?;
        }
        if self.rng.chance(0.6) {
            let u = Uuid::v4(&mut self.rng);
            self.tick(1, 20);
            self.open(self.last);
            raw(
                &mut self.b,
                ",\"type\":\"system\",\"subtype\":\"turn_duration\",\"durationMs\":",
            );
            num(&mut self.b, self.rng.range(2_000, 1_500_000));
            raw(&mut self.b, ",\"timestamp\":");
            push_ts(&mut self.b, self.clock);
            raw(&mut self.b, ",\"uuid\":");
            uuid(&mut self.b, &u);
            raw(&mut self.b, ",\"isMeta\":false}");
            self.last = Some(u);
            self.emit()?;
        }
        Ok(())
    }

    fn plain_user(&mut self, text: &str, meta: bool) -> io::Result<()> {
        let u = Uuid::v4(&mut self.rng);
        self.open(self.last);
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":",
        );
        js(&mut self.b, text);
        self.b.push(b'}');
        if meta {
            raw(&mut self.b, ",\"isMeta\":true");
        }
        self.id_ts(&u);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()
    }

    /// A full compaction: boundary (parentUuid null) + summary parented on it; sometimes a
    /// preserved segment naming the last turn (session-memory style, anchor = summary).
    fn compaction(&mut self) -> io::Result<()> {
        let p = self.p;
        let manual = self.rng.chance(0.3);
        let boundary = Uuid::v4(&mut self.rng);
        let summary = Uuid::v4(&mut self.rng);
        let segment = match (self.turn_head, self.last) {
            (Some(h), Some(t)) if self.rng.chance(self.segments) => Some((h, t)),
            _ => None,
        };
        if manual {
            // A prompt typed while /compact runs is queued, then taken off the queue.
            for op in ["enqueue", "dequeue"] {
                self.tick(100, 20_000);
                raw(&mut self.b, "{\"type\":\"queue-operation\",\"operation\":\"");
                raw(&mut self.b, op);
                raw(&mut self.b, "\",\"timestamp\":");
                push_ts(&mut self.b, self.clock);
                raw(&mut self.b, ",\"sessionId\":");
                uuid(&mut self.b, &self.session);
                self.b.push(b'}');
                self.emit()?;
            }
        }
        self.tick(30_000, 120_000);
        raw(&mut self.b, "{\"parentUuid\":null,\"logicalParentUuid\":");
        match self.last {
            // A third of real logical parents name a message that was never persisted.
            Some(l) if self.rng.chance(0.7) => uuid(&mut self.b, &l),
            _ => uuid(&mut self.b, &Uuid::v4(&mut self.rng)),
        }
        self.b.extend_from_slice(&self.head_rest);
        raw(
            &mut self.b,
            ",\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"timestamp\":",
        );
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, ",\"uuid\":");
        uuid(&mut self.b, &boundary);
        raw(&mut self.b, ",\"level\":\"info\",\"compactMetadata\":{\"trigger\":");
        raw(&mut self.b, if manual { "\"manual\"" } else { "\"auto\"" });
        raw(&mut self.b, ",\"preTokens\":");
        num(&mut self.b, self.rng.range(90_000, 170_000));
        if let Some((head, tail)) = segment {
            raw(&mut self.b, ",\"preservedSegment\":{\"headUuid\":");
            uuid(&mut self.b, &head);
            raw(&mut self.b, ",\"anchorUuid\":");
            uuid(&mut self.b, &summary);
            raw(&mut self.b, ",\"tailUuid\":");
            uuid(&mut self.b, &tail);
            self.b.push(b'}');
        }
        raw(&mut self.b, "}}");
        self.emit()?;

        let mut text = String::from(
            "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n",
        );
        let short = self.boundaries.is_some();
        let n = if short {
            40
        } else {
            self.rng.range(2_000, 8_000) as usize
        };
        text.push_str(slice(&p.prose, &mut self.rng, n));
        text.push_str("\n\nSummary:\n1. Primary Request and Intent:\n");
        let n = if short {
            80
        } else {
            self.rng.range(4_000, 14_000) as usize
        };
        text.push_str(slice(&p.prose, &mut self.rng, n));
        text.push_str("\n\n9. Optional Next Step:\n");
        text.push_str(slice(&p.prose, &mut self.rng, 300));
        if segment.is_some() {
            text.push_str("\n\nRecent messages are preserved verbatim.");
        }
        text.push_str("\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: ");
        text.push_str(&self.transcript_path);
        if !manual {
            text.push_str("\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.");
        }
        self.open(Some(boundary));
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":",
        );
        js(&mut self.b, &text);
        raw(
            &mut self.b,
            "},\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true",
        );
        self.id_ts(&summary);
        self.b.push(b'}');
        self.last = Some(summary);
        self.emit()?;

        if manual {
            self.plain_user("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>", true)?;
            self.plain_user(
                "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>",
                false,
            )?;
            self.plain_user(
                "<local-command-stdout>\u{1b}[2mCompacted (ctrl+o to see full summary)\u{1b}[22m</local-command-stdout>",
                false,
            )?;
        }
        if self.progress {
            self.hook_progress("SessionStart", "SessionStart:compact")?;
        }
        self.seg_bytes = 0;
        self.compact_at = self.rng.range(600_000, 2_500_000);
        Ok(())
    }
}

/// Claude Code's project directory name: every non-alphanumeric character becomes `-`.
fn project_slug(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Codex

const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

#[derive(Clone)]
struct CodexSession {
    seed: u64,
    target: u64,
    path: PathBuf,
    cwd: String,
    start_ms: i64,
    id: Uuid,
}

struct Codex<'p> {
    p: &'p Pools,
    rng: Rng,
    sink: Sink,
    b: Vec<u8>,
    clock: i64,
    cwd: String,
    model: &'static str,
    /// Tool outputs as the pre-2025-11 JSON-in-a-string, or as plain text.
    json_outputs: bool,
    remote: bool,
    prompts: Vec<&'p str>,
    answers: Vec<&'p str>,
    seg_bytes: u64,
    compact_at: u64,
    target: u64,
    window: u64,
}

impl<'p> Codex<'p> {
    fn new(p: &'p Pools, s: &CodexSession) -> io::Result<Codex<'p>> {
        let mut rng = Rng::new(s.seed);
        let compact_at = rng.range(500_000, 2_000_000);
        Ok(Codex {
            p,
            model: rng.one(&["gpt-5.2-codex", "gpt-5.1-codex-max", "gpt-5-codex"]),
            json_outputs: rng.chance(0.3),
            remote: rng.chance(0.6),
            rng,
            sink: Sink::create(&s.path)?,
            b: Vec::with_capacity(1 << 20),
            clock: s.start_ms,
            cwd: s.cwd.clone(),
            prompts: Vec::new(),
            answers: Vec::new(),
            seg_bytes: 0,
            compact_at,
            target: s.target,
            window: 0,
        })
    }

    fn remaining(&self) -> u64 {
        self.target.saturating_sub(self.sink.bytes)
    }

    fn emit(&mut self) -> io::Result<()> {
        let before = self.sink.bytes;
        self.sink.emit(&mut self.b)?;
        self.seg_bytes += self.sink.bytes - before;
        Ok(())
    }

    /// `{"timestamp":…,"type":…,"payload":` (the caller closes with `}}`).
    fn open(&mut self, ty: &str) {
        self.clock += self.rng.range(5, 4_000) as i64;
        raw(&mut self.b, "{\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, ",\"type\":\"");
        raw(&mut self.b, ty);
        raw(&mut self.b, "\",\"payload\":");
    }

    fn close(&mut self) -> io::Result<()> {
        raw(&mut self.b, "}");
        self.emit()
    }

    fn run(mut self, s: &CodexSession) -> io::Result<(u64, u64)> {
        let p = self.p;
        self.open("session_meta");
        raw(&mut self.b, "{\"id\":");
        uuid(&mut self.b, &s.id);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, s.start_ms);
        raw(&mut self.b, ",\"cwd\":");
        js(&mut self.b, &self.cwd);
        raw(
            &mut self.b,
            ",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.104.0\",\"source\":\"cli\",\"model_provider\":\"openai\",\"base_instructions\":{\"text\":",
        );
        js(&mut self.b, &p.instructions);
        raw(&mut self.b, "},\"git\":{\"commit_hash\":\"");
        let _ = write!(
            self.b,
            "{:016x}{:016x}{:08x}",
            self.rng.next_u64(),
            self.rng.next_u64(),
            self.rng.below(1 << 32)
        );
        raw(
            &mut self.b,
            "\",\"branch\":\"main\",\"repository_url\":\"git@example.invalid:acme/app.git\"}}",
        );
        self.close()?;
        self.message("developer", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>")?;
        let env = format!(
            "<environment_context>\n  <cwd>{}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
            self.cwd
        );
        self.message("user", &env)?;
        while self.remaining() > 0 {
            if self.seg_bytes >= self.compact_at && self.rng.chance(0.5) {
                self.manual_compaction()?;
            } else {
                self.turn()?;
            }
        }
        self.sink.finish()
    }

    fn message(&mut self, role: &str, text: &str) -> io::Result<()> {
        self.open("response_item");
        raw(&mut self.b, "{\"type\":\"message\",\"role\":\"");
        raw(&mut self.b, role);
        raw(
            &mut self.b,
            if role == "assistant" {
                "\",\"content\":[{\"type\":\"output_text\",\"text\":"
            } else {
                "\",\"content\":[{\"type\":\"input_text\",\"text\":"
            },
        );
        js(&mut self.b, text);
        raw(&mut self.b, "}]}");
        self.close()
    }

    fn event(&mut self, body: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        self.open("event_msg");
        body(&mut self.b);
        self.close()
    }

    fn turn_context(&mut self, turn: &Uuid) -> io::Result<()> {
        self.open("turn_context");
        raw(&mut self.b, "{\"turn_id\":");
        uuid(&mut self.b, turn);
        raw(&mut self.b, ",\"cwd\":");
        js(&mut self.b, &self.cwd);
        raw(
            &mut self.b,
            ",\"approval_policy\":\"on-request\",\"sandbox_policy\":{\"type\":\"workspace-write\",\"writable_roots\":[],\"network_access\":false,\"exclude_tmpdir_env_var\":false,\"exclude_slash_tmp\":false},\"model\":",
        );
        js(&mut self.b, self.model);
        raw(&mut self.b, ",\"effort\":\"medium\",\"summary\":\"auto\"}");
        self.close()
    }

    fn task_started(&mut self, turn: &Uuid) -> io::Result<()> {
        self.event(|b| {
            raw(b, "{\"type\":\"task_started\",\"turn_id\":");
            uuid(b, turn);
            raw(
                b,
                ",\"model_context_window\":258400,\"collaboration_mode_kind\":\"default\"}",
            );
        })
    }

    fn task_complete(&mut self, turn: &Uuid, last: Option<&str>) -> io::Result<()> {
        self.event(|b| {
            raw(b, "{\"type\":\"task_complete\",\"turn_id\":");
            uuid(b, turn);
            raw(b, ",\"last_agent_message\":");
            match last {
                Some(t) => js(b, t),
                None => raw(b, "null"),
            }
            b.push(b'}');
        })
    }

    fn reasoning(&mut self) -> io::Result<()> {
        let p = self.p;
        let n = self.rng.log_uniform(40, 800) as usize;
        let summary = slice(&p.prose, &mut self.rng, n);
        let n = self.rng.log_uniform(600, 8_000) as usize;
        let enc = b64(p, &mut self.rng, n);
        self.open("response_item");
        raw(
            &mut self.b,
            "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":",
        );
        js(&mut self.b, summary);
        raw(&mut self.b, "}],\"content\":null,\"encrypted_content\":\"gAAAAA");
        raw(&mut self.b, enc);
        raw(&mut self.b, "\"}");
        self.close()?;
        if self.rng.chance(0.5) {
            self.event(|b| {
                raw(b, "{\"type\":\"agent_reasoning\",\"text\":");
                js(b, summary);
                b.push(b'}');
            })?;
        }
        Ok(())
    }

    fn token_count(&mut self) -> io::Result<()> {
        let (i, c, o) = (
            self.rng.range(10_000, 200_000),
            self.rng.range(0, 150_000),
            self.rng.range(10, 4_000),
        );
        self.event(|b| {
            let _ = write!(
                b,
                "{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":{c},\"output_tokens\":{o},\"reasoning_output_tokens\":{},\"total_tokens\":{}}},\"last_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":{c},\"output_tokens\":{o},\"reasoning_output_tokens\":0,\"total_tokens\":{}}},\"model_context_window\":258400}},\"rate_limits\":{{\"primary\":{{\"used_percent\":{}.0,\"window_minutes\":300,\"resets_at\":1769000000}},\"secondary\":null}}}}",
                o / 2,
                i + o,
                i + o,
                o % 100
            );
        })
    }

    fn tool_call(&mut self) -> io::Result<()> {
        let p = self.p;
        let call = base62_id(&mut self.rng, "call_", 24);
        let r = self.rng.unit();
        let size = if r < 0.6 {
            self.rng.log_uniform(60, 2_000)
        } else if r < 0.88 {
            self.rng.log_uniform(2_000, 12_000)
        } else {
            self.rng.log_uniform(12_000, 200_000)
        }
        .min(self.remaining() / 2)
        .max(40) as usize;
        let out = slice(&p.code, &mut self.rng, size);
        if self.rng.chance(0.15) {
            let patch = format!(
                "*** Begin Patch\n*** Update File: src/{}.rs\n@@\n-{}\n+{}\n*** End Patch\n",
                word(&mut self.rng),
                slice(&p.code, &mut self.rng, 200).replace('\n', "\n-"),
                slice(&p.code, &mut self.rng, 200).replace('\n', "\n+"),
            );
            self.open("response_item");
            raw(
                &mut self.b,
                "{\"type\":\"custom_tool_call\",\"status\":\"completed\",\"call_id\":",
            );
            js(&mut self.b, &call);
            raw(&mut self.b, ",\"name\":\"apply_patch\",\"input\":");
            js(&mut self.b, &patch);
            self.b.push(b'}');
            self.close()?;
            self.open("response_item");
            raw(&mut self.b, "{\"type\":\"custom_tool_call_output\",\"call_id\":");
            js(&mut self.b, &call);
            raw(&mut self.b, ",\"output\":");
            js(
                &mut self.b,
                "{\"output\":\"Success. Updated the following files:\\nM src/lib.rs\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}",
            );
            self.b.push(b'}');
            return self.close();
        }
        let args = format!(
            "{{\"command\":[\"bash\",\"-lc\",\"rg -n '{}' src | head -n {}\"],\"workdir\":\"{}\",\"timeout_ms\":120000}}",
            word(&mut self.rng),
            self.rng.range(10, 400),
            self.cwd
        );
        self.open("response_item");
        raw(
            &mut self.b,
            "{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":",
        );
        js(&mut self.b, &args);
        raw(&mut self.b, ",\"call_id\":");
        js(&mut self.b, &call);
        self.b.push(b'}');
        self.close()?;
        let secs = self.rng.range(1, 90_000) as f64 / 1000.0;
        let output = if self.json_outputs {
            // JSON in a JSON string: every quote and backslash escaped twice.
            let mut v = Vec::with_capacity(out.len() + 100);
            raw(&mut v, "{\"output\":");
            js(&mut v, out);
            let _ = write!(v, ",\"metadata\":{{\"exit_code\":0,\"duration_seconds\":{secs}}}}}");
            String::from_utf8(v).expect("serde_json writes UTF-8")
        } else {
            format!("Exit code: 0\nWall time: {secs} seconds\nOutput:\n{out}")
        };
        self.open("response_item");
        raw(&mut self.b, "{\"type\":\"function_call_output\",\"call_id\":");
        js(&mut self.b, &call);
        raw(&mut self.b, ",\"output\":");
        js(&mut self.b, &output);
        self.b.push(b'}');
        self.close()
    }

    fn turn(&mut self) -> io::Result<()> {
        let p = self.p;
        self.clock += self.rng.range(20_000, 900_000) as i64;
        let turn = Uuid::v7(&mut self.rng, self.clock);
        self.task_started(&turn)?;
        let n = if self.rng.chance(0.05) {
            self.rng.log_uniform(3_000, 40_000)
        } else {
            self.rng.log_uniform(15, 1_500)
        } as usize;
        let n = n.min(self.remaining() as usize + 15);
        let prompt = slice(&p.prose, &mut self.rng, n);
        self.prompts.push(prompt);
        self.message("user", prompt)?;
        self.event(|b| {
            raw(b, "{\"type\":\"user_message\",\"message\":");
            js(b, prompt);
            raw(b, ",\"images\":[],\"local_images\":[],\"text_elements\":[]}");
        })?;
        self.turn_context(&turn)?;
        let rounds = if self.rng.chance(0.2) {
            0
        } else {
            self.rng.log_uniform(1, 30)
        };
        for _ in 0..rounds {
            if self.remaining() == 0 {
                break;
            }
            self.reasoning()?;
            self.tool_call()?;
            if self.rng.chance(0.05) {
                self.tool_call()?;
            }
            self.token_count()?;
            if self.seg_bytes >= self.compact_at && self.remaining() > 0 && self.rng.chance(0.3) {
                self.compacted(true, &turn)?;
            }
        }
        self.reasoning()?;
        let n = self.rng.log_uniform(40, 3_000) as usize;
        let answer = slice(&p.prose, &mut self.rng, n);
        self.answers.push(answer);
        self.message("assistant", answer)?;
        self.event(|b| {
            raw(b, "{\"type\":\"agent_message\",\"message\":");
            js(b, answer);
            b.push(b'}');
        })?;
        self.token_count()?;
        self.task_complete(&turn, Some(answer))
    }

    fn manual_compaction(&mut self) -> io::Result<()> {
        self.clock += self.rng.range(20_000, 300_000) as i64;
        let turn = Uuid::v7(&mut self.rng, self.clock);
        self.task_started(&turn)?;
        self.compacted(false, &turn)?;
        self.task_complete(&turn, None)
    }

    /// A `compacted` record: local (summary text + replacement_history ending in the summary
    /// user message) or remote (empty message, history ending in an encrypted compaction item).
    fn compacted(&mut self, mid_turn: bool, turn: &Uuid) -> io::Result<()> {
        let p = self.p;
        let summary = if self.remote {
            None
        } else {
            // The summarizer's own output is recorded just before the compacted line.
            self.reasoning()?;
            let n = self.rng.range(1_500, 9_000) as usize;
            let s = slice(&p.prose, &mut self.rng, n);
            self.message("assistant", s)?;
            Some(format!("{SUMMARY_PREFIX}\n{s}"))
        };
        // The newest real user messages within ~20k tokens (local) or ~64k tokens (remote).
        let budget = if self.remote { 256_000 } else { 80_000 };
        let mut kept = Vec::new();
        let mut used = 0;
        for p in self.prompts.iter().rev() {
            if used + p.len() > budget || kept.len() >= 40 {
                break;
            }
            used += p.len();
            kept.push(*p);
        }
        kept.reverse();
        let answers: Vec<&str> = self.answers.iter().rev().take(3).copied().collect();
        self.open("compacted");
        raw(&mut self.b, "{\"message\":");
        js(&mut self.b, summary.as_deref().unwrap_or(""));
        raw(&mut self.b, ",\"replacement_history\":[");
        for (i, p) in kept.iter().enumerate() {
            if i > 0 {
                self.b.push(b',');
            }
            raw(
                &mut self.b,
                "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":",
            );
            js(&mut self.b, p);
            raw(&mut self.b, "}]}");
        }
        if !kept.is_empty() {
            self.b.push(b',');
        }
        match &summary {
            Some(s) => {
                raw(
                    &mut self.b,
                    "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":",
                );
                js(&mut self.b, s);
                raw(&mut self.b, "}]}");
            }
            None => {
                for a in answers.iter().rev() {
                    raw(
                        &mut self.b,
                        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":",
                    );
                    js(&mut self.b, a);
                    raw(&mut self.b, "}]},");
                }
                let n = self.rng.range(4_000, 40_000) as usize;
                raw(&mut self.b, "{\"type\":\"compaction\",\"encrypted_content\":\"gAAAAB");
                raw(&mut self.b, b64(p, &mut self.rng, n));
                raw(&mut self.b, "\"}");
            }
        }
        self.window += 1;
        raw(&mut self.b, "],\"window_number\":");
        num(&mut self.b, self.window);
        raw(&mut self.b, "}");
        self.close()?;
        if mid_turn {
            self.turn_context(turn)?;
        }
        self.event(|b| raw(b, "{\"type\":\"context_compacted\"}"))?;
        self.seg_bytes = 0;
        self.compact_at = self.rng.range(500_000, 2_000_000);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Planning and driving

const USERS: &[&str] = &["alex", "sam", "kim", "jo", "dev"];
const DIRS: &[&str] = &["workspace", "src", "code", "projects", "work/repos"];

fn random_cwd(rng: &mut Rng) -> String {
    format!(
        "/Users/{}/{}/{}-{}",
        rng.pick(USERS),
        rng.pick(DIRS),
        word(rng),
        word(rng)
    )
}

/// 2025-10-01T00:00:00Z plus up to ~9 months.
fn random_start(rng: &mut Rng) -> i64 {
    1_759_276_800_000 + rng.below(270 * 86_400_000) as i64
}

fn sizes(rng: &mut Rng, total: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut sum = 0;
    while sum < total {
        let s = profile_size(rng).min(total - sum).max(1_000);
        sum += s;
        out.push(s);
    }
    out
}

fn plan_claude(rng: &mut Rng, out: &Path, total: u64) -> Vec<ClaudeSession> {
    let sizes = sizes(rng, total);
    let projects: Vec<String> = (0..sizes.len() / 12 + 3).map(|_| random_cwd(rng)).collect();
    sizes
        .into_iter()
        .map(|target| {
            let cwd = rng.pick(&projects).clone();
            let session = Uuid::v4(rng);
            let path = out
                .join("claude/projects")
                .join(project_slug(&cwd))
                .join(format!("{}.jsonl", session.as_str()));
            ClaudeSession {
                seed: rng.next_u64(),
                target,
                path,
                cwd,
                start_ms: random_start(rng),
                session,
                boundaries: None,
            }
        })
        .collect()
}

fn codex_path(root: &Path, start_ms: i64, id: &Uuid) -> PathBuf {
    let p = parts(start_ms);
    root.join(format!("{:04}", p.y))
        .join(format!("{:02}", p.mo))
        .join(format!("{:02}", p.d))
        .join(format!(
            "rollout-{:04}-{:02}-{:02}T{:02}-{:02}-{:02}-{}.jsonl",
            p.y,
            p.mo,
            p.d,
            p.h,
            p.mi,
            p.s,
            id.as_str()
        ))
}

fn plan_codex(rng: &mut Rng, out: &Path, total: u64) -> Vec<CodexSession> {
    let sizes = sizes(rng, total);
    let projects: Vec<String> = (0..sizes.len() / 12 + 3).map(|_| random_cwd(rng)).collect();
    sizes
        .into_iter()
        .map(|target| {
            let start_ms = random_start(rng);
            let id = Uuid::v7(rng, start_ms);
            CodexSession {
                seed: rng.next_u64(),
                target,
                path: codex_path(&out.join("codex/sessions"), start_ms, &id),
                cwd: rng.pick(&projects).clone(),
                start_ms,
                id,
            }
        })
        .collect()
}

fn gen_claude(p: &Pools, s: &ClaudeSession) -> io::Result<(u64, u64)> {
    let home = s.cwd.split('/').take(3).collect::<Vec<_>>().join("/");
    Claude::new(p, s, &home)?.run()
}

fn gen_codex(p: &Pools, s: &CodexSession) -> io::Result<(u64, u64)> {
    Codex::new(p, s)?.run(s)
}

fn report(what: &str, files: usize, (bytes, lines): (u64, u64), t: Instant) {
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "gen-corpus: {what}: {files} files, {bytes} bytes ({:.1} MiB), {lines} lines in {secs:.2} s ({:.0} MiB/s)",
        bytes as f64 / MIB as f64,
        bytes as f64 / MIB as f64 / secs.max(1e-9)
    );
}

fn sum(results: Vec<io::Result<(u64, u64)>>) -> io::Result<(u64, u64)> {
    let mut total = (0, 0);
    for r in results {
        let (b, l) = r?;
        total.0 += b;
        total.1 += l;
    }
    Ok(total)
}

struct Args {
    out: PathBuf,
    claude_mib: u64,
    codex_mib: u64,
    single_claude_mib: Option<u64>,
    single_codex_mib: Option<u64>,
    boundaries: Option<u64>,
    seed: u64,
}

const USAGE: &str = "usage: gen-corpus OUT [--claude-mib N] [--codex-mib M] [--single-claude-mib S] [--single-codex-mib T] [--boundaries B] [--seed SEED]";

fn parse_args() -> Result<Args, String> {
    let mut out = None;
    let mut a = Args {
        out: PathBuf::new(),
        claude_mib: 64,
        codex_mib: 64,
        single_claude_mib: None,
        single_codex_mib: None,
        boundaries: None,
        seed: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .ok_or_else(|| format!("{name} needs a value"))?
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match arg.as_str() {
            "--claude-mib" => a.claude_mib = value("--claude-mib")?,
            "--codex-mib" => a.codex_mib = value("--codex-mib")?,
            "--single-claude-mib" => a.single_claude_mib = Some(value("--single-claude-mib")?),
            "--single-codex-mib" => a.single_codex_mib = Some(value("--single-codex-mib")?),
            "--boundaries" => a.boundaries = Some(value("--boundaries")?),
            "--seed" => a.seed = value("--seed")?,
            "-h" | "--help" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s if out.is_none() => out = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s}\n{USAGE}")),
        }
    }
    a.out = out.ok_or_else(|| USAGE.to_string())?;
    Ok(a)
}

fn run(a: &Args) -> io::Result<()> {
    let t = Instant::now();
    let pools = Pools::new(a.seed);
    let mut rng = Rng::new(a.seed);
    let mut claude_rng = rng.fork();
    let mut codex_rng = rng.fork();
    let mut single_rng = rng.fork();
    eprintln!("gen-corpus: text pools ready in {:.2} s", t.elapsed().as_secs_f64());

    if a.claude_mib > 0 {
        let t = Instant::now();
        let plan = plan_claude(&mut claude_rng, &a.out, a.claude_mib * MIB);
        let r = sum(plan.par_iter().map(|s| gen_claude(&pools, s)).collect())?;
        report("claude", plan.len(), r, t);
    }
    if a.codex_mib > 0 {
        let t = Instant::now();
        let plan = plan_codex(&mut codex_rng, &a.out, a.codex_mib * MIB);
        let r = sum(plan.par_iter().map(|s| gen_codex(&pools, s)).collect())?;
        report("codex", plan.len(), r, t);
    }
    let claude_single = a.single_claude_mib.map(|mib| {
        let cwd = random_cwd(&mut single_rng);
        ClaudeSession {
            seed: single_rng.next_u64(),
            target: mib * MIB,
            path: a.out.join("single/claude.jsonl"),
            cwd,
            start_ms: random_start(&mut single_rng),
            session: Uuid::v4(&mut single_rng),
            boundaries: None,
        }
    });
    let boundaries = a.boundaries.map(|n| {
        let cwd = random_cwd(&mut single_rng);
        ClaudeSession {
            seed: single_rng.next_u64(),
            target: u64::MAX,
            path: a.out.join("single/boundaries.jsonl"),
            cwd,
            start_ms: random_start(&mut single_rng),
            session: Uuid::v4(&mut single_rng),
            boundaries: Some(n),
        }
    });
    if let Some(s) = boundaries {
        let t = Instant::now();
        report("boundaries", 1, gen_claude(&pools, &s)?, t);
    }
    let codex_single = a.single_codex_mib.map(|mib| {
        let start_ms = random_start(&mut single_rng);
        CodexSession {
            seed: single_rng.next_u64(),
            target: mib * MIB,
            path: a.out.join("single/codex.jsonl"),
            cwd: random_cwd(&mut single_rng),
            start_ms,
            id: Uuid::v7(&mut single_rng, start_ms),
        }
    });
    let (c, x) = rayon::join(
        || {
            claude_single.map(|s| {
                let t = Instant::now();
                gen_claude(&pools, &s).map(|r| report("single claude", 1, r, t))
            })
        },
        || {
            codex_single.map(|s| {
                let t = Instant::now();
                gen_codex(&pools, &s).map(|r| report("single codex", 1, r, t))
            })
        },
    );
    c.transpose()?;
    x.transpose()?;
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-corpus: {e}");
            ExitCode::FAILURE
        }
    }
}
