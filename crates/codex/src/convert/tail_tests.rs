use super::*;
use crate::history;
use crate::io::Source;
use crate::rollout as codex;
use crate::rollout::tail::{self, TailCheck};

/// What a resume reconstructs from `bytes`, from every record and from the records after
/// the last compaction as the conversion reads them, and the line the latter started at.
fn both(bytes: &[u8]) -> (String, String, Option<u64>) {
    let src = Source::from_bytes("t.jsonl", bytes.to_vec());
    let whole = history::reconstruct(&codex::read_records(&src).unwrap());
    let mut check = TailCheck::default();
    crate::io::for_each_line(&src, |l| check.add(l.no, l.offset, line_view(l.bytes).1)).unwrap();
    let cand = tail::read_candidate(&src, |l| line_view(l.bytes).1).unwrap();
    let from = cand.tail_from(&check);
    let fast = history::reconstruct(&cand.resolve(&src, &check).unwrap());
    (format!("{whole:?}"), format!("{fast:?}"), from)
}

/// Every fixture: the history from the tail read is the history from every record.
#[test]
fn the_tail_read_gives_the_history_of_every_fixture() {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                files.push(p);
            }
        }
    }
    let mut tails = 0;
    for f in &files {
        let (whole, fast, from) = both(&std::fs::read(f).unwrap());
        assert_eq!(whole, fast, "{}", f.display());
        tails += usize::from(from.is_some());
    }
    assert!(tails >= 3, "{tails} fixtures read from their last compaction");
}

/// A generated rollout: mostly plain turns, with now and then a compaction of each kind,
/// a rollback, a line of an older era, a line no reader takes, or a `"compacted"` that is
/// no compaction.
fn rollout(seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let ts = "\"timestamp\":\"2026-03-01T10:00:00.000Z\"";
    let user =
        |t: &str| format!(r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{t}"}}]}}"#);
    let mut out = format!("{{{ts},\"type\":\"session_meta\",\"payload\":{{\"id\":\"s\",\"cwd\":\"/w\"}}}}\n");
    let lines = 5 + next(40);
    for i in 0..lines {
        let item = |p: String| format!("{{{ts},\"type\":\"response_item\",\"payload\":{p}}}");
        let compacted = |p: String| format!("{{{ts},\"type\":\"compacted\",\"payload\":{p}}}");
        let kind = match next(100) {
            0..=9 => 3 + next(20),
            10..=15 => 0,
            16..=25 => 40 + next(12),
            k => 23 + k % 17,
        };
        let line = match kind {
            0..=2 => compacted(format!(
                r#"{{"message":"s{i}","replacement_history":[{}]}}"#,
                user(&format!("kept {i}"))
            )),
            3 => compacted(format!(r#"{{"message":"s{i}"}}"#)),
            4 => compacted(
                r#"{"message":"s","replacement_history":[{"type":"message","role":"user","content":7}]}"#.into(),
            ),
            5 => compacted(r#"{"message":5,"replacement_history":[]}"#.into()),
            6 => format!(r#"{{{ts},"type":"compacted","payload":null}}"#),
            7 => format!(
                r#"{{{ts},"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":{}}}}}"#,
                next(3)
            ),
            8 => r#"{"record_type":"state"}"#.into(),
            9 => user("bare"),
            10 => format!(r#"{{{ts},"type":"compacted","payload":{{"message":"cut"#),
            11 => {
                format!(r#"{{{ts},"type":"compact\u0065d","payload":{{"message":"e{i}","replacement_history":[]}}}}"#)
            }
            12 => {
                format!(r#"{{{ts},"type":"compacted","payload":{{"message":"\ud800{i}","replacement_history":[]}}}}"#)
            }
            13 => format!(
                r#"{{{ts},"type":"compacted","type":"compacted","payload":{{"message":"d","replacement_history":[]}}}}"#
            ),
            14 => item(
                r#"{"type":"function_call","name":"f","arguments":"{}","call_id":"c","x":{"type":"compacted"}}"#.into(),
            ),
            15 => r#"["2026","compacted",{"message":"a","replacement_history":[]}]"#.into(),
            16 => format!(
                r#"{{{ts},"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"\"compacted\" {i}"}}]}}}}"#
            ),
            17 => format!(r#"{{{ts},"type":"event_msg","payload":{{"type":"task_started","turn_id":"t{i}"}}}}"#),
            18 => format!(r#"{{{ts},"type":"event_msg","payload":{{"type":"user_message","message":"u"}}}}"#),
            19 => String::new(),
            20 => format!(
                r#"{{{ts},"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":1,"num_turns":2}}}}"#
            ),
            21 => format!(r#"{{{ts},"type":"turn_context","payload":{{"model":"m","cwd":"/w"}}}}"#),
            22 => format!(r#"{{{ts},"type":"inter_agent_communication","payload":{{"x":1}}}}"#),
            40 => item(format!(
                r#"{{"type":"custom_tool_call_output","call_id":"k{i}","output":"o"}}"#
            )),
            41 => item(format!(
                r#"{{"type":"function_call_output","call_id":"a","call_id":"b{i}","output":"o"}}"#
            )),
            42 => item(format!(r#"["function_call_output","x{i}",null,null,"y"]"#)),
            43 => format!(r#"{{"type":"function_call_output","call_id":"bare{i}","output":"o"}}"#),
            44 => format!(
                r#"{{"record_type":"x",{ts},"type":"response_item","payload":{{"type":"function_call_output","call_id":"r{i}"}}}}"#
            ),
            45 => item(format!(
                r#"{{"type":"function_call_output","call_id":{i},"output":"o"}}"#
            )),
            46 => item(format!(
                r#"{{"type":"function_call_output","call_\u0069d":"e{i}","output":"\ud800"}}"#
            )),
            47 => item(format!(r#"{{"type":"function_call_output","output":"no id {i}"}}"#)),
            48 => format!(
                r#"{{{ts},"type":"response_item","id":1,"id":2,"payload":{{"type":"function_call_output","call_id":"d{i}"}}}}"#
            ),
            49 => format!(
                r#"{{{ts},"type":"response_item","payload":{{"type":"custom_tool_call_output","call_id":"t{i}","output":"o"}},"timestamp":5}}"#
            ),
            50 => format!(
                r#"{{{ts},"type":"response_item","payload":{{"type":"function_call_output","call_id":"z{i}","cwd":7}}}}"#
            ),
            51 => item(format!(
                r#"{{"type":"message","role":"user","call_id":"m{i}","content":[]}}"#
            )),
            23..=28 => item(user(&format!("prompt {i}"))),
            _ => item(format!(
                r#"{{"type":"function_call_output","call_id":"c","output":"out {i}"}}"#
            )),
        };
        out.push_str(&line);
        out.push_str(if next(9) == 0 { "\r\n" } else { "\n" });
    }
    if next(4) == 0 {
        out.pop();
    }
    out.into_bytes()
}

/// The calls answered, from the lines' views and from the records.
fn answered_both(bytes: &[u8]) -> (Vec<u64>, Vec<u64>) {
    let src = Source::from_bytes("t.jsonl", bytes.to_vec());
    let mut records: Vec<u64> = answered_calls(&src, &Steps::Full(&src)).unwrap().into_iter().collect();
    let mut lines = Vec::new();
    crate::io::for_each_line(&src, |l| lines.extend(line_view(l.bytes).2)).unwrap();
    records.sort_unstable();
    lines.sort_unstable();
    lines.dedup();
    (records, lines)
}

/// Every fixture and generated rollout: the calls answered are the same from the lines as
/// from the records (for the JSON Lines files, whose records are their lines).
#[test]
fn the_lines_answer_the_calls_the_records_answer() {
    let mut some = 0;
    let fixtures = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let mut dirs = vec![fixtures];
    let mut files = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(std::fs::read(p).unwrap());
            }
        }
    }
    files.extend((0..1500).map(rollout));
    for bytes in files {
        let src = Source::from_bytes("t.jsonl", bytes.clone());
        if !codex::first_line_is_a_record(&src).unwrap() {
            continue;
        }
        let (records, lines) = answered_both(&bytes);
        assert_eq!(records, lines, "{}", String::from_utf8_lossy(&bytes));
        some += usize::from(!records.is_empty());
    }
    assert!(some > 500, "{some}");
}

/// Generated rollouts of every shape: the same history both ways, and the tail read taken
/// often enough to be tested.
#[test]
fn the_tail_read_gives_the_history_of_generated_rollouts() {
    let (mut tails, mut others) = (0, 0);
    for seed in 0..2000 {
        let bytes = rollout(seed);
        let (whole, fast, from) = both(&bytes);
        assert_eq!(whole, fast, "seed {seed}:\n{}", String::from_utf8_lossy(&bytes));
        if from.is_some() { tails += 1 } else { others += 1 }
    }
    assert!(
        tails > 200 && others > 200,
        "{tails} read from the last compaction, {others} whole"
    );
}

/// The records of the stream `convert` takes the history's order from: asked for their
/// places only, the stream hands on the same records, in the same order, as read whole, and
/// they are the history's items in turn; on every fixture and on generated rollouts.
#[test]
fn the_stream_asked_for_places_hands_on_the_history_in_turn() {
    use cctool_core::convert::read;
    use cctool_core::model::events::{Ask, Event, Reading, View};
    let places = |src: &Source, rollout: &codex::Rollout, h: &history::History, ask: Ask<'_>| {
        let mut at = Vec::new();
        crate::events::events_in(src, rollout, h, ask, &mut |e| {
            if let Event::Record(r) = e {
                at.push(r.at.map(|a| (a.line, a.offset)));
            }
        })
        .unwrap();
        at
    };
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let fixtures = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl" || x == "json"))
        .filter_map(|e| std::fs::read(e.path()).ok());
    let (mut items, mut made) = (0, 0);
    for bytes in fixtures.chain((0..1000).map(rollout)) {
        let src = Source::from_bytes("t.jsonl", bytes);
        let Ok(rollout) = codex::read_records(&src) else {
            continue;
        };
        let h = history::reconstruct(&rollout);
        let ks = in_order(&src, &rollout, &h).unwrap();
        // Every record read, one serde_json refuses too.
        let every = |b: &[u8]| Some(read::exact(b).unwrap_or_default());
        let whole = Ask {
            view: View::Loaded,
            reading: Reading::With(&every),
            native: false,
        };
        assert_eq!(ks, (0..h.items.len()).collect::<Vec<_>>());
        assert_eq!(
            places(&src, &rollout, &h, read::order(false)),
            places(&src, &rollout, &h, whole)
        );
        items += ks.len();
        made += h.items.iter().filter(|i| matches!(i.src, ItemSrc::Synth(_))).count();
    }
    assert!(items > 8_000 && made > 150, "{items} items, {made} made by a resume");
}
