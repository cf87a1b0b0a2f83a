//! A structure-aware mutation fuzzer for the `cctool` binary: it takes real session files,
//! changes them the way broken or hostile files differ from good ones, and runs a command on
//! each result, checking what every command promises.
//!
//! ```text
//! cargo build --release && cargo run --release --example mutate-fuzz -- \
//!     --command compact --minutes 10 [--seed N] [--out DIR] CORPUS_DIR_OR_FILE...
//! ```
//!
//! Mutations work on the JSON of each line, not on bytes: values nested 100 to 100,000 levels
//! deep, values of another type, keys written twice with different values, huge and odd
//! numbers, lone UTF-16 surrogates in strings, parent links pointed elsewhere (cycles, missing
//! parents), lines dropped, repeated, swapped or cut short, the file cut at any byte, CRLF
//! endings and a BOM, huge arrays. Several are applied at once.
//!
//! Each run must end by itself within the time limit, with exit status 0, 1 or 2, without a
//! panic or a signal; `--json` output must be JSON Lines; a command that writes a new file
//! must not change its input, and must leave no temporary file; `--in-place` must leave the
//! original or the new file and a backup that is the original. A failing input is kept in
//! `--out` (default `fuzz-findings/`) with the command and what failed. The run ends with
//! the number of executions and findings.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "shared/rng.rs"]
mod rng;
use rng::Rng;

/// The draws this fuzzer makes.
trait Draw {
    fn below_usize(&mut self, n: usize) -> usize;
    fn per_mille(&mut self, p: u64) -> bool;
}

impl Draw for Rng {
    fn below_usize(&mut self, n: usize) -> usize {
        self.below(n.max(1) as u64) as usize
    }

    fn per_mille(&mut self, p: u64) -> bool {
        self.chance(p as f64 / 1000.0)
    }
}

const USAGE: &str = "usage: mutate-fuzz --command NAME [--minutes M] [--seed N] [--out DIR] [--bin PATH] CORPUS...\n\
commands: rebuild-chain extract-summary scan doctor migrate compact compact-in-place decompress";

struct Args {
    command: String,
    minutes: f64,
    seed: u64,
    out: PathBuf,
    bin: PathBuf,
    corpus: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        command: String::new(),
        minutes: 1.0,
        seed: 1,
        out: PathBuf::from("fuzz-findings"),
        bin: PathBuf::from("target/release/cctool"),
        corpus: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--command" => a.command = value("--command")?,
            "--minutes" => a.minutes = value("--minutes")?.parse().map_err(|e| format!("--minutes: {e}"))?,
            "--seed" => a.seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" => a.out = PathBuf::from(value("--out")?),
            "--bin" => a.bin = PathBuf::from(value("--bin")?),
            "-h" | "--help" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => a.corpus.push(PathBuf::from(s)),
        }
    }
    if a.command.is_empty() || a.corpus.is_empty() {
        return Err(USAGE.into());
    }
    Ok(a)
}

fn files_under(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            files_under(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "jsonl" || e == "json") {
        out.push(p.to_path_buf());
    }
}

/// A line of the input as JSON when it is, else its bytes.
enum Line {
    Json(Value),
    Bytes(Vec<u8>),
}

fn nested(depth: usize, leaf: &str) -> String {
    let mut s = String::with_capacity(depth * 6 + leaf.len());
    for i in 0..depth {
        s.push_str(if i % 2 == 0 { "{\"k\":" } else { "[" });
    }
    s.push_str(leaf);
    for i in (0..depth).rev() {
        s.push(if i % 2 == 0 { '}' } else { ']' });
    }
    s
}

const ODD_NUMBERS: &[&str] = &[
    "1e400",
    "-1e400",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1e-400",
    "-0",
    "0.1e1",
    "253402300800",
    "-62167219201",
    "9007199254740993",
];

const LONE: &[&str] = &["\\ud800", "\\udfff", "\\ud83d", "x\\ud800y", "\\ud800\\ud800"];

/// A random value of a random type, written as JSON text.
fn other_value(rng: &mut Rng, uuids: &[String]) -> String {
    match rng.below_usize(12) {
        0 => "null".into(),
        1 => "true".into(),
        2 => "[]".into(),
        3 => "{}".into(),
        4 => ODD_NUMBERS[rng.below_usize(ODD_NUMBERS.len())].into(),
        5 => format!("\"{}\"", LONE[rng.below_usize(LONE.len())]),
        6 if !uuids.is_empty() => Value::String(uuids[rng.below_usize(uuids.len())].clone()).to_string(),
        7 => nested(100 + rng.below_usize(60), "1"),
        8 => "\"\"".into(),
        9 => format!("[{}0]", "0,".repeat(rng.below_usize(200_000))),
        10 => "\"\\u001b]52;c;aGVsbG8=\\u0007\\u001b[2J\"".into(),
        _ => (rng.next_u64() % 1_000_000).to_string(),
    }
}

/// Every path to a value inside `v` (keys and indexes), breadth-limited.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if out.len() > 400 {
        return;
    }
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(k.clone());
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate().take(20) {
                at.push(i.to_string());
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn pointer(p: &[String]) -> String {
    p.iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Writes `v` with the value at `target` replaced by the raw JSON text `raw` (which a `Value`
/// could not hold: lone surrogates, huge numbers, duplicated keys, depth).
fn write_with(v: &Value, at: &mut Vec<String>, target: &[String], raw: &str, dup: Option<&str>, out: &mut String) {
    if at.as_slice() == target {
        out.push_str(raw);
        return;
    }
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                at.push(k.clone());
                write_with(x, at, target, raw, dup, out);
                at.pop();
            }
            // A key written twice: the duplicate first or last, with another value.
            if let Some(d) = dup
                && at.as_slice() == &target[..target.len().saturating_sub(1)]
                && let Some(k) = target.last()
            {
                out.push_str(&format!(",{}:{d}", Value::String(k.clone())));
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                at.push(i.to_string());
                write_with(x, at, target, raw, dup, out);
                at.pop();
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// One structural mutation of one line.
fn mutate_line(rng: &mut Rng, v: &Value, uuids: &[String]) -> String {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let target = all[rng.below_usize(all.len())].clone();
    let current = v.pointer(&pointer(&target)).cloned().unwrap_or(Value::Null);
    let (raw, dup) = match rng.below_usize(9) {
        // Nested deep around the value that is there.
        0 => {
            let depth = match rng.below_usize(4) {
                0 => 100_000,
                1 => 1_000 + rng.below_usize(5_000),
                _ => 90 + rng.below_usize(80),
            };
            (nested(depth, &current.to_string()), None)
        }
        // A key twice, with another value before or after.
        1 if !target.is_empty() => (current.to_string(), Some(other_value(rng, uuids))),
        // A string with a lone surrogate in it.
        2 => {
            let s = current.as_str().unwrap_or("text");
            let cut = s
                .char_indices()
                .map(|(i, _)| i)
                .nth(rng.below_usize(s.chars().count() + 1))
                .unwrap_or(s.len());
            let mut t = Value::String(s[..cut].to_string()).to_string();
            t.pop();
            let rest = Value::String(s[cut..].to_string()).to_string();
            (format!("{t}{}{}", LONE[rng.below_usize(LONE.len())], &rest[1..]), None)
        }
        // Removed: written as the value of another field instead.
        3 => ("null".into(), None),
        _ => (other_value(rng, uuids), None),
    };
    let mut out = String::new();
    write_with(v, &mut Vec::new(), &target, &raw, dup.as_deref(), &mut out);
    out
}

/// A mutated copy of `input`: several mutations of lines and of the file.
fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    // A document over many lines (a cctool session file) is mutated as one value.
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if let Ok(doc) = serde_json::from_slice::<Value>(body)
        && doc.is_object()
        && body.contains(&b'\n')
    {
        let mut out = mutate_line(rng, &doc, &[]).into_bytes();
        if rng.per_mille(100) && !out.is_empty() {
            let cut = rng.below_usize(out.len());
            out.truncate(cut);
        }
        return out;
    }
    let text_lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let mut lines: Vec<Line> = text_lines
        .iter()
        .map(|l| match serde_json::from_slice::<Value>(l) {
            Ok(v) if !l.is_empty() => Line::Json(v),
            _ => Line::Bytes(l.to_vec()),
        })
        .collect();
    // A single document (a cctool session file): mutate it as one line.
    let uuids: Vec<String> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Json(v) => v.get("uuid").and_then(Value::as_str).map(str::to_string),
            Line::Bytes(_) => None,
        })
        .collect();
    let mut texts: Vec<Vec<u8>> = Vec::with_capacity(lines.len());
    let n = 1 + rng.below_usize(4);
    let chosen: Vec<usize> = (0..n).map(|_| rng.below_usize(lines.len())).collect();
    for (i, l) in lines.drain(..).enumerate() {
        texts.push(match l {
            Line::Json(v) if chosen.contains(&i) => mutate_line(rng, &v, &uuids).into_bytes(),
            Line::Json(v) => serde_json::to_vec(&v).unwrap_or_default(),
            Line::Bytes(b) => b,
        });
    }
    // Whole lines: dropped, repeated, swapped, cut short, a parent pointed at a later line.
    for _ in 0..rng.below_usize(3) {
        if texts.is_empty() {
            break;
        }
        let i = rng.below_usize(texts.len());
        match rng.below_usize(6) {
            0 => {
                texts.remove(i);
            }
            1 => {
                let l = texts[i].clone();
                texts.insert(rng.below_usize(texts.len() + 1), l);
            }
            2 => {
                let j = rng.below_usize(texts.len());
                texts.swap(i, j);
            }
            3 => {
                let cut = rng.below_usize(texts[i].len() + 1);
                texts[i].truncate(cut);
            }
            4 => {
                let j = rng.below_usize(texts.len());
                let glued = texts[j].clone();
                texts[i].extend_from_slice(&glued);
            }
            _ if !uuids.is_empty() => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&texts[i])
                    && let Some(m) = v.as_object_mut()
                {
                    let u = uuids[rng.below_usize(uuids.len())].clone();
                    m.insert("parentUuid".into(), Value::String(u));
                    texts[i] = serde_json::to_vec(&v).unwrap_or_default();
                }
            }
            _ => {}
        }
    }
    let crlf = rng.per_mille(60);
    let mut out = Vec::new();
    if rng.per_mille(30) {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        out.extend_from_slice(t);
    }
    // The file cut at any byte (a write in progress, a disk that filled up).
    if rng.per_mille(100) && !out.is_empty() {
        let cut = rng.below_usize(out.len());
        out.truncate(cut);
    }
    out
}

fn hash(b: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    b.hash(&mut h);
    h.finish()
}

/// The argument lists of one command family; `{IN}` is the input, `{OUT}` an output path.
fn variants(command: &str) -> Vec<Vec<&'static str>> {
    match command {
        "rebuild-chain" => vec![
            vec!["rebuild-chain", "{IN}"],
            vec!["--json", "rebuild-chain", "{IN}"],
            vec!["rebuild-chain", "--format", "text", "{IN}"],
            vec!["rebuild-chain", "--format", "markdown", "--full", "{IN}"],
            vec!["rebuild-chain", "--loader", "2.1.88", "{IN}"],
            vec!["--json", "rebuild-chain", "--api-view", "--prompt", "go on", "{IN}"],
            vec!["rebuild-chain", "--replay", "legacy", "{IN}"],
        ],
        "extract-summary" => vec![
            vec!["--json", "extract-summary", "--all-events", "{IN}"],
            vec!["extract-summary", "--current", "--strip-template", "{IN}"],
        ],
        "scan" => vec![vec!["--json", "scan", "{IN}"], vec!["scan", "{IN}"]],
        "doctor" => vec![vec!["--json", "doctor", "{IN}"], vec!["doctor", "{IN}"]],
        "migrate" => vec![
            vec!["--json", "migrate", "{IN}", "-o", "{OUT}"],
            vec!["migrate", "--effective", "{IN}", "-o", "{OUT}"],
            vec!["migrate", "--check", "{IN}"],
        ],
        "compact" => vec![
            vec!["compact", "--keep-recent", "100", "--force", "{IN}", "-o", "{OUT}"],
            vec!["compact", "--keep-recent", "2000", "--force", "{IN}", "-o", "{OUT}"],
            vec![
                "--json",
                "compact",
                "--keep-recent",
                "0",
                "--force",
                "{IN}",
                "-o",
                "{OUT}",
            ],
            vec!["compact", "--budget", "500", "--force", "{IN}", "-o", "{OUT}"],
            vec!["compact", "--tier", "1", "--force", "{IN}", "-o", "{OUT}"],
            vec!["compact", "--dry-run", "--keep-recent", "100", "{IN}"],
        ],
        "compact-in-place" => vec![
            vec!["compact", "--in-place", "--force", "--keep-recent", "300", "{IN}"],
            vec!["compact", "--in-place", "--force", "--keep-recent", "0", "{IN}"],
            vec!["migrate", "--force", "{IN}"],
        ],
        "decompress" => vec![vec!["decompress", "--force", "{IN}", "--from", "{IN}", "-o", "{OUT}"]],
        _ => Vec::new(),
    }
}

/// What one run did wrong, if anything.
fn check(a: &Args, dir: &Path, input: &[u8], argv: &[&str]) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let _ = std::fs::remove_file(e.path());
    }
    let f = dir.join("in.jsonl");
    std::fs::write(&f, input).map_err(|e| e.to_string())?;
    // Aged, so the rules for live files do not stop the run before it starts.
    let then = std::time::SystemTime::now() - Duration::from_secs(600);
    let _ = std::fs::File::options()
        .write(true)
        .open(&f)
        .and_then(|h| h.set_modified(then));
    let o = dir.join("out.json");
    let args: Vec<String> = argv
        .iter()
        .map(|s| match *s {
            "{IN}" => f.display().to_string(),
            "{OUT}" => o.display().to_string(),
            s => s.to_string(),
        })
        .collect();
    let mut child = Command::new(&a.bin)
        .args(&args)
        .env("HOME", "/nonexistent-home")
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", "1764000000")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let (stdout, stderr) = {
        let mut so = child.stdout.take().unwrap();
        let mut se = child.stderr.take().unwrap();
        let t1 = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = std::io::Read::read_to_end(&mut so, &mut v);
            v
        });
        let t2 = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = std::io::Read::read_to_end(&mut se, &mut v);
            v
        });
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
                break s;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                return Err("did not end within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let (so, se) = (t1.join().unwrap_or_default(), t2.join().unwrap_or_default());
        match status.code() {
            None => {
                use std::os::unix::process::ExitStatusExt;
                return Err(format!("killed by signal {:?}", status.signal()));
            }
            Some(0..=2) => {}
            Some(c) => return Err(format!("exit status {c}")),
        }
        (so, se)
    };
    let err = String::from_utf8_lossy(&stderr);
    if err.contains("panicked") {
        return Err(format!("panic: {err}"));
    }
    if args.iter().any(|s| s == "--json") {
        // A record copied byte for byte from the input (rebuild-chain prints the records a
        // resume loads as written) is as valid as the input's line was: lone surrogates and
        // numbers out of f64's range are JSON by its grammar, if not by serde_json's reader.
        // A line is compared without the CR of a CRLF ending or a BOM, which the output drops.
        let input_lines: std::collections::HashSet<&[u8]> = input
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .map(|l| l.strip_prefix("\u{feff}".as_bytes()).unwrap_or(l))
            .collect();
        for l in String::from_utf8_lossy(&stdout).lines() {
            if input_lines.contains(l.as_bytes()) {
                continue;
            }
            serde_json::from_str::<Value>(l).map_err(|e| format!("--json output is not JSON ({e}): {l}"))?;
        }
    }
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if let Some(t) = names.iter().find(|n| n.ends_with(".tmp")) {
        return Err(format!("temporary file left: {t}"));
    }
    let now = std::fs::read(&f).map_err(|e| format!("the input is gone: {e}"))?;
    let in_place = args.iter().any(|s| s == "--in-place") || (args[0] == "migrate" && !args.iter().any(|s| s == "-o"));
    if !in_place && hash(&now) != hash(input) {
        return Err("a command that writes a new file changed its input".into());
    }
    if in_place && now != input {
        let backups: Vec<&String> = names.iter().filter(|n| n.ends_with(".bak")).collect();
        let ok = backups
            .iter()
            .any(|b| std::fs::read(dir.join(b)).is_ok_and(|x| x == input));
        if !ok {
            return Err(format!(
                "rewritten in place without a backup of the original ({backups:?})"
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut corpus = Vec::new();
    for c in &a.corpus {
        files_under(c, &mut corpus);
    }
    let inputs: Vec<(PathBuf, Vec<u8>)> = corpus
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().filter(|b| b.len() < 8 << 20).map(|b| (p, b)))
        .collect();
    let runs = variants(&a.command);
    if inputs.is_empty() || runs.is_empty() {
        eprintln!("mutate-fuzz: nothing to run (no corpus files, or an unknown command)\n{USAGE}");
        return ExitCode::from(2);
    }
    let work = std::env::temp_dir().join(format!("cctool-mutate-{}-{}", a.command, std::process::id()));
    let _ = std::fs::create_dir_all(&work);
    let _ = std::fs::create_dir_all(&a.out);
    let mut rng = Rng::new(a.seed);
    let deadline = Instant::now() + Duration::from_secs_f64(a.minutes * 60.0);
    let (mut execs, mut findings) = (0u64, 0u64);
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    while Instant::now() < deadline {
        let (path, bytes) = &inputs[rng.below_usize(inputs.len())];
        let mutated = mutate(&mut rng, bytes);
        let argv = &runs[rng.below_usize(runs.len())];
        execs += 1;
        if let Err(why) = check(&a, &work, &mutated, argv) {
            // One report per kind of failure and command.
            let key = format!("{} {}", argv.join(" "), why.chars().take(80).collect::<String>());
            if seen.insert(key) {
                findings += 1;
                let name = a.out.join(format!("{}-{findings}.input", a.command));
                let _ = std::fs::write(&name, &mutated);
                let _ = std::fs::write(
                    name.with_extension("txt"),
                    format!("from {}\nargs {:?}\n{why}\n", path.display(), argv),
                );
                eprintln!(
                    "mutate-fuzz: finding {findings}: {:?}: {why} (from {})",
                    argv,
                    path.display()
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "mutate-fuzz: {} on {} files: {execs} executions, {findings} distinct findings",
        a.command,
        inputs.len()
    );
    if findings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
