// The bodies of the fuzz targets, shared by the cargo-fuzz workspace (`fuzz/src/lib.rs`) and
// the stable regression test (`tests/cli/fuzz_targets.rs`), which both `include!` this file.
// Only cctool's public API is used. Each body must not panic on any input: a panic is a crash
// (or a broken invariant, asserted below) that the fuzzer reports.
//
// Plain `//` comments only: an included file cannot carry inner doc comments.

use cctool::agents::claude_code::chain::{self as claude_chain_mod, Loader, Options as ChainOptions, Transcript};
use cctool::io::Source;
use cctool::v5::schema::{self as cctool_migrate, Session};
use serde_json::Value;

const FUZZ_NAME: &str = "fuzz";

fn fuzz_source(data: &[u8]) -> Source {
    Source::from_bytes(FUZZ_NAME, data.to_vec())
}

/// Claude Code transcripts: the loader's map and walk under both loaders, with and without
/// `--full` and `--tip`, the API view, doctor, summaries and the import to v5.
pub fn claude_chain(data: &[u8]) {
    let src = fuzz_source(data);
    let t = claude_chain_mod::read(&src).expect("reading bytes in memory cannot fail");
    for loader in [Loader::V2_1_332, Loader::V2_1_88] {
        let opts = ChainOptions {
            loader,
            ..ChainOptions::default()
        };
        let chain = t.rebuild(&opts).expect("a rebuild without --tip cannot fail");
        assert_chain_ok(&t, &chain);
        let full = t
            .rebuild(&ChainOptions {
                loader,
                full: true,
                tip: None,
            })
            .expect("a rebuild without --tip cannot fail");
        assert_chain_ok(&t, &full);
        assert!(
            full.positions.len() >= chain.positions.len(),
            "--full loaded fewer messages than a plain rebuild"
        );
        // A fixed configuration, so that the target does not depend on the machine or the day.
        let cfg = cctool::agents::claude_code::config::Config::load(
            &cctool::agents::claude_code::config::Overrides {
                as_of: Some("2026-11-30T12:00:00Z".into()),
                settings: Some("/dev/null".into()),
                base_url: Some("http://127.0.0.1:9".into()),
                ..Default::default()
            },
            None,
            &|_| None,
        )
        .expect("a fixed configuration");
        let rm = cctool::agents::claude_code::model::choose(&t, &chain, &src, &cfg).expect("request model");
        let view = cctool::agents::claude_code::api::api_view(&t, &chain, &src, Some("hi"), &rm).expect("api view");
        let messages: Vec<String> = view.messages().collect();
        let body = rm.body(messages.iter().map(String::as_str));
        assert!(
            serde_json::from_str::<Value>(&body).is_ok()
                || cctool::io::json::repair_surrogates(body.as_bytes())
                    .is_some_and(|b| serde_json::from_slice::<Value>(&b).is_ok()),
            "the request body is not JSON"
        );
        let mut body = 0usize;
        let mut n = 0usize;
        for m in view.messages() {
            // JSON, where a lone surrogate escape of the transcript is passed on as written.
            let ok = serde_json::from_str::<Value>(&m).is_ok()
                || cctool::io::json::repair_surrogates(m.as_bytes())
                    .is_some_and(|b| serde_json::from_slice::<Value>(&b).is_ok());
            assert!(ok, "an API view message is not JSON: {m}");
            body += m.len();
            n += 1;
        }
        assert_eq!(n, view.len());
        assert_eq!(
            view.tokens(),
            (body + 2 + n.saturating_sub(1)).div_ceil(4),
            "tokens() disagrees with the messages written"
        );
        let _ = view.rules();
        // --tip on the first and the last message of the file.
        let tips = match t.nodes.len() {
            0 => Vec::new(),
            n => vec![0, n as u32 - 1],
        };
        for pos in tips {
            let tip = t.uuid_text(pos);
            for full in [false, true] {
                if let Ok(c) = t.rebuild(&ChainOptions {
                    loader,
                    full,
                    tip: Some(tip.clone()),
                }) {
                    assert_chain_ok(&t, &c);
                }
            }
        }
    }
    let resume = cctool::agents::claude_code::config::Overrides {
        as_of: Some("2026-11-30T12:00:00Z".into()),
        settings: Some("/dev/null".into()),
        ..Default::default()
    };
    cctool::agents::claude_code::doctor::check(&src, &resume).expect("doctor");

    let (markers, _bad) = cctool::agents::claude_code::summaries::claude_markers(&src).expect("markers");
    for loader in [Loader::V2_1_332, Loader::V2_1_88] {
        let current = cctool::agents::claude_code::summaries::claude_current(&src, &markers, loader).expect("current summary");
        for (strip_template, all_events) in [(false, false), (true, true)] {
            let opts = cctool::summary::Options {
                strip_template,
                all_events,
            };
            cctool::agents::claude_code::summaries::claude(&src, &markers, &current, opts).expect("summaries");
        }
    }

    for effective in [false, true] {
        let s = cctool::agents::claude_code::import::claude(&src, effective).expect("import");
        assert_v5_output(&cctool_migrate::to_bytes(&s));
    }
}

/// A chain holds each message at most once, and only messages of the file.
fn assert_chain_ok(t: &Transcript, chain: &claude_chain_mod::Chain) {
    let mut seen = std::collections::HashSet::new();
    for &p in &chain.positions {
        assert!((p as usize) < t.nodes.len(), "position {p} out of range");
        assert!(seen.insert(p), "position {p} twice on the chain");
    }
}

/// Codex rollouts: both reconstructions, doctor, summaries (both ways extract-summary reads
/// them) and the import to v5.
pub fn codex_reconstruct(data: &[u8]) {
    use cctool::agents::codex::history as cx;
    use cctool::agents::codex::rollout::{self as fx, Record};

    let src = fuzz_source(data);
    let rollout = fx::read_records(&src).expect("reading bytes in memory cannot fail");
    let history = cx::reconstruct(&rollout);
    let _ = cx::replay_forward(&rollout);
    cctool::agents::codex::doctor::findings(&src, &rollout).expect("doctor");
    cctool::agents::codex::summaries::codex(&src, &rollout, &history).expect("summaries");

    let fast = fx::read_compaction_records(&src).expect("compaction records");
    let last = fast.records.iter().rev().find_map(|(_, r)| match r {
        Record::Compacted(c) => Some(c.line),
        _ => None,
    });
    let history = cx::History {
        base_line: last,
        ..cx::History::default()
    };
    cctool::agents::codex::summaries::codex(&src, &fast, &history).expect("summaries from compaction records");

    for effective in [false, true] {
        let s = cctool::agents::codex::import::codex(&src, effective).expect("import");
        assert_v5_output(&cctool_migrate::to_bytes(&s));
    }
}

/// cctool session files: the general migration (whole, and one step at a time), the
/// streaming fast path, and the readers doctor and extract-summary use.
pub fn session_migrate(data: &[u8]) {
    let src = fuzz_source(data);
    let _ = cctool::agents::detect::detect(&src);
    let _ = cctool::agents::cctool::doctor::check(&src);
    if let Ok(s) = cctool::agents::cctool::file::read_messages(&src) {
        let _ = cctool::agents::cctool::summaries::session(&src, &s.messages, s.session_id);
    }

    // The general path, as `cctool migrate` runs it (a leading BOM is skipped).
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let general = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|doc| cctool_migrate::parse(doc).ok())
        .map(|s| {
            let from = s.version();
            let at_once = cctool_migrate::to_bytes(&cctool_migrate::migrate(s, 5));
            assert_v5_output(&at_once);
            // One step at a time, through the file format each time: the same bytes.
            let mut bytes = body.to_vec();
            for to in from + 1..=5 {
                let doc = serde_json::from_slice::<Value>(&bytes).expect("a step's output is JSON");
                let s = cctool_migrate::parse(doc).expect("a step's output validates");
                assert_eq!(s.version(), to - 1);
                bytes = cctool_migrate::to_bytes(&cctool_migrate::migrate(s, to));
            }
            if from < 5 {
                assert_eq!(
                    String::from_utf8_lossy(&bytes),
                    String::from_utf8_lossy(&at_once),
                    "step by step differs from at once"
                );
            }
            at_once
        });

    // The streaming path writes exactly what the general path writes.
    if let Some(doc) = cctool::agents::cctool::fast::read(data) {
        assert!(matches!(doc.version(), 1 | 2));
        let mut out = Vec::new();
        cctool::agents::cctool::fast::write_v5(&doc, &mut out).expect("writing to memory cannot fail");
        // It takes only documents the general path takes: `migrate` does not validate them again.
        let Some(general) = &general else {
            panic!("the fast path took a document the general path rejects");
        };
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(general),
            "fast path and general path disagree"
        );
    }

    // Read in parts of a few bytes (the command's parts are 2 MiB), so that every guessed
    // element start, right or wrong, is stitched: the same answer as in one part.
    let part = 1 + data.first().map_or(0, |&b| usize::from(b) % 48);
    let whole = cctool::agents::cctool::fast::read(data).map(|doc| {
        let mut out = Vec::new();
        cctool::agents::cctool::fast::write_v5(&doc, &mut out).expect("writing to memory cannot fail");
        out
    });
    // Held, or only spanned and read again when written: the same document.
    for spans in [false, true] {
        let in_parts = cctool::agents::cctool::fast::read_in_parts(data, part, spans).map(|doc| {
            let mut out = Vec::new();
            cctool::agents::cctool::fast::write_v5(&doc, &mut out).expect("writing to memory cannot fail");
            out
        });
        assert_eq!(whole, in_parts, "reading in parts of {part} bytes (spans: {spans}) changes the result");
    }
}

/// What every migration writes re-parses as valid v5, and migrating it again is the identity.
fn assert_v5_output(bytes: &[u8]) {
    let doc: Value = serde_json::from_slice(bytes).expect("the v5 output is JSON");
    let v5: Session = cctool_migrate::parse(doc).expect("the v5 output validates");
    assert_eq!(v5.version(), 5);
    let again = cctool_migrate::to_bytes(&cctool_migrate::migrate(v5, 5));
    assert_eq!(
        String::from_utf8_lossy(&again),
        String::from_utf8_lossy(bytes),
        "migrating v5 again changed it"
    );
}

/// The line splitter (whole, chunked, through a `Source`, by marker search), surrogate
/// repair and format detection.
pub fn lines_and_detect(data: &[u8]) {
    use cctool::io::lines::{LineStats, for_each_line, for_each_marker_line, lines_of, split_chunk};

    type Owned = (u64, u64, Vec<u8>, bool);
    let owned = |l: &cctool::io::Line<'_>| -> Owned { (l.no, l.offset, l.bytes.to_vec(), l.terminated) };

    let (lines, stats) = lines_of(data);
    let whole: Vec<Owned> = lines.iter().map(owned).collect();
    for l in &lines {
        let at = l.offset as usize;
        assert_eq!(
            &data[at..at + l.bytes.len()],
            l.bytes,
            "offset does not point at the line"
        );
        assert!(!l.bytes.ends_with(b"\r\n"));
    }
    assert!(stats.blank <= stats.lines && whole.len() as u64 == stats.lines - stats.blank);

    // Chunks end on a newline, as the readers guarantee: cut after some of the newlines.
    let newlines: Vec<usize> = memchr_all(data);
    let step = newlines.len().div_ceil(16).max(1);
    let mut cuts: Vec<usize> = newlines.iter().step_by(step).map(|&i| i + 1).collect();
    cuts.push(0);
    for cut in cuts {
        let mut st = LineStats::default();
        let mut parts: Vec<Owned> = Vec::new();
        split_chunk(0, &data[..cut], false, &mut st, &mut |l| parts.push(owned(&l)));
        split_chunk(cut as u64, &data[cut..], true, &mut st, &mut |l| parts.push(owned(&l)));
        assert_eq!(whole, parts, "a chunk boundary after byte {cut} changed the lines");
        assert_eq!(stats, st, "a chunk boundary after byte {cut} changed the stats");
    }

    let src = fuzz_source(data);
    let mut via_source: Vec<Owned> = Vec::new();
    let st = for_each_line(&src, |l| via_source.push(owned(&l))).expect("in memory");
    assert_eq!(whole, via_source);
    assert_eq!(stats, st);

    // The marker search finds exactly the lines that hold a needle.
    let needles: &[&[u8]] = &[b"compact_boundary", b"isCompactSummary"];
    let mut marked: Vec<Owned> = Vec::new();
    for_each_marker_line(&src, needles, |l| marked.push(owned(&l))).expect("in memory");
    let expected: Vec<Owned> = whole
        .iter()
        .filter(|l| needles.iter().any(|n| l.2.windows(n.len()).any(|w| w == *n)))
        .cloned()
        .collect();
    assert_eq!(marked, expected, "the marker search disagrees with the splitter");

    // Surrogate repair keeps lengths, and valid JSON has nothing to repair.
    for bytes in std::iter::once(data).chain(lines.iter().map(|l| l.bytes)) {
        if let Some(fixed) = cctool::io::json::repair_surrogates(bytes) {
            assert_eq!(fixed.len(), bytes.len(), "repair changed the length");
            assert!(serde_json::from_slice::<Value>(bytes).is_err(), "repaired valid JSON");
        }
    }

    let _ = cctool::agents::detect::detect(&src);
}

fn memchr_all(data: &[u8]) -> Vec<usize> {
    data.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// The options a compaction fuzz input asks for: the first byte picks the format (`% 3`: Claude
/// Code, Codex, v5) and, with its higher bits, small `keep_recent` and `budget` values, so that
/// cuts land anywhere in a small input.
fn compaction_options(selector: u8) -> cctool::compact::Options {
    const KEEP: [usize; 8] = [0, 1, 3, 10, 40, 150, 600, 3000];
    const BUDGET: [Option<usize>; 4] = [None, Some(0), Some(60), Some(800)];
    let rest = usize::from(selector / 3);
    cctool::compact::Options {
        keep_recent: KEEP[rest % 8],
        budget: BUDGET[(rest / 8) % 4],
        keep_results: rest % 3,
        transcript_path: Some("/fuzz/transcript.jsonl".into()),
        ..cctool::compact::Options::default()
    }
}

/// A plan's cut is within the units, adds up, keeps `keep_recent` unless it says it did not, and
/// no tool call made before it has its result at or after it (checked here directly, not
/// through `safe_cuts`' interval counting).
fn assert_cut_ok(units: &[cctool::compact::Unit], cut: &cctool::compact::Cut, opts: &cctool::compact::Options) {
    let at = cut.at;
    assert!(at > 0 && at <= units.len(), "cut at {at} of {} units", units.len());
    let total: usize = units.iter().map(|u| u.tokens).sum();
    let tail: usize = units[at..].iter().map(|u| u.tokens).sum();
    assert_eq!((cut.tokens_before, cut.tail_tokens), (total, tail));
    assert_eq!(cut.span_tokens + cut.tail_tokens, total);
    assert!(
        cut.tail_reduced || tail >= opts.keep_recent,
        "a tail of {tail} tokens, under keep_recent {}, not marked as reduced",
        opts.keep_recent
    );
    assert!(
        units[at..].iter().all(|u| u.earlier.is_empty()),
        "an earlier recap left in the verbatim tail"
    );
    let opened: std::collections::HashSet<&str> = units[..at].iter().flat_map(|u| u.calls.iter().map(|c| &**c)).collect();
    for id in units[at..].iter().flat_map(|u| u.results.iter()) {
        assert!(!opened.contains(&**id), "the cut at {at} separates tool call {id:?} from its result");
    }
    assert!(cctool::compact::safe_cuts(units)[at], "plan chose a cut safe_cuts rejects");
}

/// The lines `out` has after the input (copied first, with a final newline added if missing).
/// Each must be JSON: strict JSON for a reader in Rust (Codex), and for one in JavaScript
/// (Claude Code), which reads lone surrogate escapes, JSON once those are repaired (a copied
/// record keeps its text as written).
fn appended_lines<'a>(input: &[u8], out: &'a [u8], strict: bool) -> Vec<&'a [u8]> {
    let mut prefix = input.to_vec();
    if !prefix.is_empty() && !prefix.ends_with(b"\n") {
        prefix.push(b'\n');
    }
    assert!(out.starts_with(&prefix), "the output does not start with the input as it was");
    let rest = &out[prefix.len()..];
    assert!(rest.ends_with(b"\n"), "the appended records do not end with a newline");
    let lines: Vec<&[u8]> = rest[..rest.len() - 1].split(|&b| b == b'\n').collect();
    for l in &lines {
        let lenient = || cctool::io::json::repair_surrogates(l).is_some_and(|r| serde_json::from_slice::<Value>(&r).is_ok());
        // A copied record nested past serde_json's 128 levels (Claude Code reads any depth):
        // whole JSON all the same, its deep part read as text.
        let deep = || {
            !strict
                && cctool::io::json::nesting_depth(l) >= 128
                && cctool::io::json::parse_record(l).is_object()
        };
        assert!(
            serde_json::from_slice::<Value>(l).is_ok() || (!strict && lenient()) || deep(),
            "an appended line is not JSON: {}",
            String::from_utf8_lossy(l)
        );
    }
    lines
}

/// Compaction (`cctool compact`) of a Claude Code transcript, a Codex rollout or a v5 session,
/// as the first byte chooses: the cut, the recap, the writer, and what the agent (or
/// `decompress`) reads back from the result.
pub fn compaction_cut(data: &[u8]) {
    let Some((&selector, file)) = data.split_first() else {
        return;
    };
    let opts = compaction_options(selector);
    match selector % 3 {
        0 => compaction_claude(file, &opts),
        1 => compaction_codex(file, &opts),
        _ => compaction_v5(file, &opts),
    }
}

fn compaction_claude(file: &[u8], opts: &cctool::compact::Options) {
    use cctool::agents::claude_code::compact as cc;
    use cctool::compact as cp;
    let src = fuzz_source(file);
    let loaded = cc::load(&src).expect("reading bytes in memory cannot fail");
    let units = &loaded.units;
    let mut feed = |at: usize, f: &mut dyn FnMut(&cctool::model::events::Record)| loaded.feed(&src, at, f);
    let transcript = opts.transcript_path.as_deref();
    let recap_tokens = |m: &cp::Made| cctool::model::approx_tokens(cc::summary_text(m, transcript).len());
    let planned = cp::plan_and_recap(units, opts, false, &mut feed, |_| 0, recap_tokens).expect("in memory");
    let Some((cut, made)) = planned else {
        return;
    };
    assert_cut_ok(units, &cut, opts);
    let mut out = cctool::io::atomic::Output::memory();
    let appended = cc::write(
        &src,
        &loaded,
        cut.at,
        &made,
        cut.tokens_before,
        opts.transcript_path.as_deref(),
        &mut out,
    )
    .expect("writing to memory cannot fail");
    let out = out.into_bytes();
    let lines = appended_lines(file, &out, false);
    assert_eq!(lines.len(), 2 + appended.copies, "boundary, summary and the tail copies");

    // What the agent resumes: the new boundary, the summary, then the tail copies.
    let t = claude_chain_mod::read(&fuzz_source(&out)).expect("in memory");
    let chain = t.rebuild(&ChainOptions::default()).expect("a rebuild without --tip cannot fail");
    let first = chain.positions.first().map(|&p| t.uuid_text(p));
    assert_eq!(
        first.as_deref(),
        Some(appended.boundary_uuid.as_str()),
        "the resumed chain does not start at the new boundary"
    );
}

fn compaction_codex(file: &[u8], opts: &cctool::compact::Options) {
    use cctool::agents::codex::compact as cx;
    use cctool::compact as cp;
    let src = fuzz_source(file);
    let loaded = cx::load(&src).expect("reading bytes in memory cannot fail");
    let units = &loaded.units;
    let mut feed = |at: usize, f: &mut dyn FnMut(&cctool::model::events::Record)| loaded.feed(&src, at, f);
    let recap_tokens = |m: &cp::Made| cctool::model::approx_tokens(cx::summary_text(m).len());
    let planned =
        cp::plan_and_recap(units, opts, false, &mut feed, loaded.overhead(), recap_tokens).expect("in memory");
    let Some((cut, made)) = planned else {
        return;
    };
    assert_cut_ok(units, &cut, opts);
    let recap_tokens = cctool::model::approx_tokens(cx::summary_text(&made).len());
    let user_budget = cx::user_budget(opts.budget, recap_tokens, cut.tail_tokens);
    let history = match cx::replacement(&src, &loaded, cut.at, &made, user_budget) {
        Ok((history, _)) => history,
        // An item nested too deep for Codex to read its compacted record: refused, by line.
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            assert!(e.to_string().contains("Codex reads at most"), "{e}");
            return;
        }
        Err(e) => panic!("in memory: {e}"),
    };
    let expected = history.len();
    let mut out = cctool::io::atomic::Output::memory();
    cx::write(&src, history, &made, &mut out).expect("writing to memory cannot fail");
    let out = out.into_bytes();
    let lines = appended_lines(file, &out, true);
    assert_eq!(lines.len(), 4, "a turn: task_started, compacted, context_compacted, task_complete");

    // What Codex resumes: exactly the replacement history.
    let rollout = cctool::agents::codex::rollout::read_records(&fuzz_source(&out)).expect("in memory");
    let resumed = cctool::agents::codex::history::reconstruct(&rollout);
    assert_eq!(
        resumed.items.len(),
        expected,
        "the resumed history is not the replacement history"
    );
}

fn compaction_v5(file: &[u8], opts: &cctool::compact::Options) {
    use cctool::agents::cctool::compact as cs;
    use cctool::compact as cp;
    let body = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
    let Ok(doc) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    if cctool_migrate::version_of(&doc).is_err() {
        return;
    }
    let Ok(parsed) = cctool_migrate::parse(doc) else {
        return;
    };
    let original = cctool_migrate::migrate(parsed, cctool_migrate::LATEST);

    // Tier 1, undone by decompress against the original.
    let units = cs::units(&original);
    let keep_only = cctool::compact::Options {
        budget: None,
        ..opts.clone()
    };
    if let Some(keep) = cp::plan(&units, &keep_only, |_| 0) {
        assert_cut_ok(&units, &keep, &keep_only);
        let mut s = original.clone();
        let t1 = cs::tier1(&mut s, keep.at, opts.keep_results);
        assert_v5_output(&cctool_migrate::to_bytes(&s));
        cs::decompress(&mut s, cs::messages(&original));
        if t1.span.is_some() {
            assert!(
                cs::messages(&s) == cs::messages(&original),
                "decompress did not restore what tier 1 changed"
            );
        }
    }

    // Tier 2: the recap replaces the span, and the result is a valid v5 session.
    let mut feed = |at: usize, f: &mut dyn FnMut(&cctool::model::events::Record)| {
        cs::feed(&original, &units, at, f);
        Ok(())
    };
    let planned = cp::plan_and_recap(&units, opts, false, &mut feed, |_| 0, cp::Made::tokens).expect("in memory");
    if let Some((cut, made)) = planned {
        assert_cut_ok(&units, &cut, opts);
        let mut s = original.clone();
        let n = cs::messages(&s).len();
        assert!(cs::tier2(&mut s, cut.at, &made).is_some(), "tier 2 refused the plan's cut");
        assert_eq!(cs::messages(&s).len(), n - cut.at + 1);
        let mut out = Vec::new();
        cctool_migrate::write_to(s, &mut out).expect("writing to memory cannot fail");
        assert_v5_output(&out);
    }
}
