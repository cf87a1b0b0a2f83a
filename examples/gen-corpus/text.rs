//! Deterministic text: the session-size profile and the pools every generated string is
//! sliced from.

use crate::MIB;
use crate::rng::Rng;

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

pub(crate) fn profile_size(rng: &mut Rng) -> u64 {
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

pub(crate) struct Pools {
    /// Tool output: code, logs, JSON snippets, ANSI colours, tabs, CRs, quotes, unicode.
    pub(crate) code: String,
    /// Natural-language-ish text with markdown.
    pub(crate) prose: String,
    /// Base64 alphabet only (images, signatures, encrypted content).
    pub(crate) b64: String,
    /// Codex `base_instructions.text` (~13 KB).
    pub(crate) instructions: String,
}

pub(crate) fn word(rng: &mut Rng) -> &'static str {
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
    pub(crate) fn new(seed: u64) -> Pools {
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
pub(crate) fn slice<'a>(pool: &'a str, rng: &mut Rng, len: usize) -> &'a str {
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
pub(crate) fn b64<'a>(p: &'a Pools, rng: &mut Rng, len: usize) -> &'a str {
    let len = (len / 4 * 4).clamp(4, p.b64.len() - 4);
    let start = rng.below((p.b64.len() - len) as u64) as usize;
    &p.b64[start..start + len]
}
