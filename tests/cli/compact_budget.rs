//! `compact --budget B` keeps the largest tail that fits: for budgets from 20% to 90% of a
//! session, on generated Claude Code sessions of long agentic turns (few prompts, many tool
//! exchanges, parallel calls, split rows), the tail kept verbatim is within 10% of the largest
//! legal tail (never between a call and its result) that fits beside the recap; and the sizes
//! `compact` reports are the ones `scan` reports for the input and for the output.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::util::{cctool, records, write_aged};

/// One user turn: a prompt, tool exchanges (the result sizes of each step's parallel calls),
/// whether a step's calls are written one block per row, and the final answer's size.
#[derive(Clone, Debug)]
struct Turn {
    prompt: usize,
    steps: Vec<Vec<usize>>,
    split: bool,
    answer: usize,
}

fn turns() -> impl Strategy<Value = Vec<Turn>> {
    let step = prop::collection::vec(40usize..7000, 1..4);
    let turn = (
        10usize..500,
        prop::collection::vec(step, 0..14),
        any::<bool>(),
        10usize..800,
    )
        .prop_map(|(prompt, steps, split, answer)| Turn {
            prompt,
            steps,
            split,
            answer,
        });
    prop::collection::vec(turn, 1..4)
}

/// Text of about `n` bytes.
fn text(n: usize, seed: usize) -> String {
    let words = [
        "parse",
        "the",
        "module",
        "tests",
        "fails",
        "now",
        "edit",
        "value",
        "src/lib.rs",
    ];
    let mut s = String::new();
    let mut i = seed;
    while s.len() < n {
        s.push_str(words[i % words.len()]);
        s.push(' ');
        i = i.wrapping_mul(31).wrapping_add(7);
    }
    s
}

/// The transcript of `turns`, as Claude Code 2.1 writes one.
fn transcript(turns: &[Turn]) -> String {
    let mut rows: Vec<Value> = Vec::new();
    let mut parent: Option<String> = None;
    let mut n = 0usize;
    let mut push = |rows: &mut Vec<Value>, mut r: Value| {
        n += 1;
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let o = r.as_object_mut().unwrap();
        o.insert("parentUuid".into(), json!(parent));
        o.insert("isSidechain".into(), json!(false));
        o.insert("sessionId".into(), json!("5e55a0e1-0000-4000-8000-00000000b0d9"));
        o.insert("version".into(), json!("2.1.20"));
        o.insert("cwd".into(), json!("/work/app"));
        o.insert("uuid".into(), json!(uuid));
        o.insert(
            "timestamp".into(),
            json!(format!(
                "2026-03-02T{:02}:{:02}:{:02}.000Z",
                n / 3600,
                n / 60 % 60,
                n % 60
            )),
        );
        rows.push(r);
        parent = Some(uuid);
    };
    let assistant = |id: &str, content: Value| {
        json!({"type": "assistant", "message": {"id": id, "type": "message", "role": "assistant",
            "model": "claude-opus-4-5-20251101", "content": content, "stop_reason": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}}})
    };
    let mut call = 0usize;
    for (t, turn) in turns.iter().enumerate() {
        push(
            &mut rows,
            json!({"type": "user", "message": {"role": "user", "content": text(turn.prompt, t)}}),
        );
        for (s, step) in turn.steps.iter().enumerate() {
            let id = format!("msg_{t}_{s}");
            let ids: Vec<String> = step
                .iter()
                .map(|_| {
                    call += 1;
                    format!("toolu_{call:04}")
                })
                .collect();
            let uses: Vec<Value> = ids
                .iter()
                .map(|i| json!({"type": "tool_use", "id": i, "name": "Read", "input": {"file_path": format!("/work/app/{i}.rs")}}))
                .collect();
            if turn.split {
                for u in uses {
                    push(&mut rows, assistant(&id, json!([u])));
                }
            } else {
                push(&mut rows, assistant(&id, Value::Array(uses)));
            }
            for (i, size) in ids.iter().zip(step) {
                push(
                    &mut rows,
                    json!({"type": "user", "message": {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": i, "content": text(*size, call)}]}}),
                );
            }
        }
        push(
            &mut rows,
            assistant(
                &format!("msg_{t}_end"),
                json!([{"type": "text", "text": text(turn.answer, t + 1)}]),
            ),
        );
    }
    rows.iter().map(|r| format!("{r}\n")).collect()
}

fn resume_tokens(path: &Path) -> u64 {
    let out = cctool().args(["-q", "--json", "scan"]).arg(path).output().unwrap();
    records(&String::from_utf8_lossy(&out.stdout))
        .iter()
        .find(|r| r["kind"] == "session")
        .and_then(|r| r["resume_tokens"].as_u64())
        .expect("a session record")
}

fn compact_report(path: &Path, args: &[&str]) -> Value {
    let out = cctool()
        .args(["-q", "--json", "compact"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn a_budget_keeps_the_largest_legal_tail_that_fits(turns in turns()) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("s.jsonl");
        write_aged(&input, transcript(&turns).as_bytes());
        let before = resume_tokens(&input);
        prop_assume!(before > 2_000);
        // Every legal cut and the tail it keeps, measured as compact and scan measure it.
        let src = cctool::io::Source::open_path(&input, cctool::io::MmapChoice::Auto).unwrap();
        let loaded = cctool::agents::claude_code::compact::load(&src).unwrap();
        let safe = cctool::compact::safe_cuts(&loaded.units);
        let tails: Vec<u64> = (1..=loaded.units.len())
            .filter(|&i| safe[i])
            .map(|i| loaded.tail_tokens(&src, i).unwrap() as u64)
            .collect();
        let out = dir.path().join("out.jsonl");
        for percent in [20u64, 30, 40, 50, 60, 70, 80, 90] {
            let budget = before * percent / 100;
            let b = budget.to_string();
            let r = compact_report(&input, &["--force", "--budget", &b, "-o", out.to_str().unwrap()]);
            prop_assert_eq!(&r["tokens_before"], &json!(before));
            prop_assert_eq!(&r["tokens_of"], "request");
            if r["changed"] != true {
                // Only a recap at least as large as what it replaces is refused.
                prop_assert!(r["note"].as_str().unwrap().contains("not be smaller"), "{}", r);
                continue;
            }
            let after = r["tokens_after"].as_u64().unwrap();
            let kept = r["kept_tokens"].as_u64().unwrap();
            // What compact reports is what scan reads in the output.
            prop_assert_eq!(resume_tokens(&out), after);
            // A cut fits when recap and tail do; the recap differs a little from cut to cut (its
            // span, how the summary joins the tail's first message), hence a margin of 2%.
            let recap = after.saturating_sub(kept);
            let fitting = tails.iter().copied().filter(|t| recap + t + budget / 50 <= budget).max();
            let Some(largest) = fitting else {
                // Even the whole span summarised is over the budget: reported, not hidden.
                prop_assert_eq!(&r["budget_met"], &json!(after <= budget));
                continue;
            };
            prop_assert_eq!(&r["budget_met"], true, "{}% of {}: {}", percent, before, r);
            prop_assert!(after <= budget);
            prop_assert!(
                kept * 10 >= largest * 9,
                "{}% of {} tokens: kept {} of a largest legal tail of {} that fits ({})",
                percent, before, kept, largest, r
            );
        }
        // Without a budget, --keep-recent K keeps the smallest legal tail of at least K (within
        // the estimate's error), not the tail from the last prompt before it.
        for percent in [10u64, 25, 50] {
            let keep = before * percent / 100;
            let k = keep.to_string();
            let r = compact_report(&input, &["--dry-run", "--keep-recent", &k]);
            // A tail clearly over K in both the exact measure and the units' estimate.
            let Some(smallest) = tails.iter().copied().filter(|&t| t * 20 >= keep * 21).min() else {
                continue;
            };
            if r["changed"] != true {
                continue;
            }
            let kept = r["kept_tokens"].as_u64().unwrap();
            prop_assert!(kept * 10 >= keep * 9, "--keep-recent {}: kept {} ({})", keep, kept, r);
            prop_assert!(
                kept * 10 <= smallest * 11,
                "--keep-recent {}: kept {} where a legal tail of {} keeps enough ({})",
                keep, kept, smallest, r
            );
        }
    }
}

/// The `tokens` of `rebuild-chain --api-view --json`'s last record.
fn api_view_tokens(path: &Path) -> u64 {
    let out = cctool()
        .args(["-q", "--json", "rebuild-chain", "--api-view"])
        .arg(path)
        .output()
        .unwrap();
    records(&String::from_utf8_lossy(&out.stdout))
        .iter()
        .find(|r| r["kind"] == "api_view")
        .and_then(|r| r["tokens"].as_u64())
        .expect("an api_view record")
}

#[test]
fn compact_scan_and_api_view_count_the_same_tokens() {
    let mut files = vec![
        crate::util::fixture("compact/claude-work.jsonl"),
        crate::util::fixture("compact/codex-work.jsonl"),
    ];
    if let Some(dirs) = crate::util::shared_files(&["claude-code/real", "claude-code/real-2026", "codex/real-2026"]) {
        files.extend(dirs.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")));
    }
    for f in &files {
        let r = compact_report(f, &["--dry-run", "--keep-recent", "2000"]);
        let scan = resume_tokens(f);
        assert_eq!(r["tokens_before"], json!(scan), "{}", f.display());
        if r["format"] == "claude-code" {
            assert_eq!(r["tokens_of"], "request");
            assert_eq!(api_view_tokens(f), scan, "{}", f.display());
        } else {
            assert_eq!(r["tokens_of"], "history");
        }
    }
}
