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

mod claude;
mod codex;
mod ids;
mod line;
mod plan;
// Spelled from `examples/`: one folder up, `shared` would read as the samples beside a checkout.
#[path = "../../examples/shared/rng.rs"]
mod rng;
mod text;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;

use claude::ClaudeSession;
use codex::CodexSession;
use ids::Uuid;
use plan::{gen_claude, gen_codex, plan_claude, plan_codex, random_cwd, random_start};
use rng::Rng;
use text::Pools;

const MIB: u64 = 1024 * 1024;

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
