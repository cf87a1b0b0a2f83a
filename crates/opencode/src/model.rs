//! opencode's messages as the session model's records and marks, and which of them a resume
//! loads.
//!
//! A message holds typed parts: `text`, `reasoning`, `tool` (a call with its `state`: the
//! input, and the output or error once it ran), `file`, `step-start` and `step-finish` (the
//! tokens of one model step), `compaction`, and others the client uses for its own
//! bookkeeping (`snapshot`, `patch`, `agent`, `subtask`, `retry`). A compaction is a user
//! message holding a `compaction` part, answered by an assistant message with `summary: true`
//! whose text is the summary, then (an automatic one) a synthetic user message that asks the
//! model to continue.

use serde_json::Value;

use crate::file::{Head, Message, Session};
use cctool_core::io::json::{KEEP_ELEMENTS, count_elements, parse_kept_exact_at};
use cctool_core::model::events::{self, Call, Compaction, Flags, Measured, Outcome, Part, Record};
use cctool_core::model::time::format_ms;

/// The text a resume sends for a user message's `compaction` part (`toModelMessages`).
pub const COMPACTION_PROMPT: &str = "What did we do so far?";

/// Where what a resume loads starts (`filterCompacted`): walking back from the newest message,
/// the first user message that asks for a compaction and whose summary was finished without
/// an error; the first message when there is none. An unanswered or failed compaction is not
/// where a resume starts.
pub fn resume_start(s: &Session) -> usize {
    let mut answered: Vec<&str> = Vec::new();
    for (i, m) in s.messages.iter().enumerate().rev() {
        if m.asks_compaction() && m.id().is_some_and(|id| answered.contains(&id)) {
            return i;
        }
        if m.is_finished_summary()
            && let Some(p) = m.parent()
        {
            answered.push(p);
        }
    }
    0
}

/// The index of the compaction a resume starts from, when there is one.
pub fn current_compaction(s: &Session) -> Option<usize> {
    let start = resume_start(s);
    s.messages.get(start).filter(|m| m.asks_compaction()).map(|_| start)
}

/// The summary message that answers the compaction asked by message `i`.
pub fn summary_of(s: &Session, i: usize) -> Option<&Message> {
    let id = s.messages[i].id()?;
    s.messages[i + 1..]
        .iter()
        .find(|m| m.is_summary() && m.parent() == Some(id))
}

/// The text of a message's text parts, joined.
pub fn text_of(m: &Message) -> String {
    m.parts
        .iter()
        .filter(|p| p.ty() == "text")
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the compaction asked by message `i` records of itself, as the mark of the session
/// model: whether it was automatic, the tokens of the step before it, and its summary.
pub fn compaction(s: &Session, i: usize) -> Compaction {
    let m = &s.messages[i];
    let auto = m
        .parts
        .iter()
        .find(|p| p.ty() == "compaction")
        .and_then(|p| p.get("auto"))
        .and_then(Value::as_bool);
    Compaction {
        time: m.created_ms().map(format_ms),
        measured: Some(Measured {
            trigger: auto.map(|a| if a { "auto" } else { "manual" }.to_string()),
            pre_tokens: pre_tokens(s, i),
        }),
        summary: summary_of(s, i).map(text_of),
        ..Compaction::default()
    }
}

/// The tokens of the last model step before message `i` (what overflowed, for an automatic
/// compaction).
pub fn pre_tokens(s: &Session, i: usize) -> Option<Value> {
    s.messages[..i]
        .iter()
        .rev()
        .find(|m| m.role() == "assistant")
        .and_then(|m| {
            m.info()
                .pointer("/tokens/total")
                .or_else(|| m.info().pointer("/tokens/input"))
        })
        .cloned()
}

/// The session model's record of message `m`, read as `v` (the ask's reading of its line);
/// `loaded` says whether a resume loads it.
pub fn record(m: &Message, v: &Value, loaded: bool, session_id: Option<&str>) -> Record {
    let info = v.get("info").unwrap_or(&Value::Null);
    let mut r = base(m, loaded, session_id, &Head::of(info));
    for p in v.get("parts").and_then(Value::as_array).into_iter().flatten() {
        part(p, &mut r.parts);
    }
    r
}

/// The record of message `m` made from what [`crate::file::read`] read of it, without
/// reading its bytes again as a tree: equal to [`record`] of the message read as written
/// ([`cctool_core::model::rows::parse`]), as `tests::a_record_from_the_typed_reading_is_the_trees`
/// holds. `None` where the two could differ, for that reading to make it instead: a message
/// that may hold the key a kept container is written under (an escaped NUL), a lone
/// surrogate in its `info` (which the reading as written repairs), a container wider than
/// the caps keep, or a part whose bytes the typed reading cannot take.
///
/// One difference is left: a message nested deeper than serde_json reads, which the reading as
/// written leaves out, is made here, its deepest containers kept as their text.
pub fn record_read(m: &Message, loaded: bool, session_id: Option<&str>) -> Option<Record> {
    let wide = |text: &str| count_elements(text).is_none_or(|n| n > KEEP_ELEMENTS);
    let (nul, surrogate) = escapes(&m.raw);
    if nul || m.parts.len() > KEEP_ELEMENTS || (m.raw.len() >= WIDE && wide(std::str::from_utf8(&m.raw).ok()?)) {
        return None;
    }
    // The head's keys may lie in containers of `info` past the caps only where it is large;
    // a surrogate in the message may be in its `info`, which is looked at only then.
    let declined = match m.info_text() {
        Some(text) => text.len() >= WIDE || (surrogate && escapes(text.as_bytes()).1),
        // Read as a tree (a pretty export, or a key written twice), which is rare.
        None => m.raw.len() >= WIDE || surrogate,
    };
    if declined {
        return None;
    }
    let mut r = base(m, loaded, session_id, m.head());
    for p in &m.parts {
        part_read(p, &mut r.parts)?;
    }
    Some(r)
}

/// The length from which a JSON text may hold an object of more members than the caps keep:
/// each member takes at least four bytes (`"":0,`). The record reads into no array but a
/// message's `parts`, whose length is known.
const WIDE: usize = 4 * KEEP_ELEMENTS;

/// Whether `bytes` hold a `\u` escape of NUL (`(true, _)`) or of a surrogate (`(_, true)`),
/// paired or not.
fn escapes(bytes: &[u8]) -> (bool, bool) {
    let (mut nul, mut surrogate) = (false, false);
    for at in memchr::memmem::find_iter(bytes, b"\\u") {
        let hex = bytes.get(at + 2..at + 6).unwrap_or_default();
        nul |= hex == b"0000";
        surrogate |= matches!(hex.first(), Some(b'd' | b'D'))
            && matches!(hex.get(1), Some(b'8' | b'9' | b'a'..=b'f' | b'A'..=b'F'));
    }
    (nul, surrogate)
}

/// The part keys the typed reading of a text or reasoning part takes.
#[derive(serde::Deserialize)]
struct TextKeys<'a> {
    #[serde(borrow, default)]
    text: Option<&'a serde_json::value::RawValue>,
}

/// The session model's parts of the part `p`, as [`part`] makes them of its tree read as
/// written; `None` when its bytes cannot be read so.
fn part_read(p: &crate::file::Part, out: &mut Vec<Part>) -> Option<()> {
    let raw = p.raw();
    // A type read from its bytes means an object; a large one may be wider than the caps.
    let small = raw.len() < WIDE;
    match p.ty() {
        "text" | "reasoning" if small => {
            // A key written twice (which serde's struct refuses) is read from the tree.
            let Ok(k) = serde_json::from_str::<TextKeys<'_>>(raw) else {
                return whole(raw, out);
            };
            let text = match k.text {
                Some(t) if t.get().starts_with('"') => serde_json::from_str::<String>(t.get()).ok()?,
                _ => String::new(),
            };
            out.push(match p.ty() {
                "text" => Part::Text(text),
                _ => Part::Reasoning { text, summary: false },
            });
        }
        "step-start" | "step-finish" if small => {}
        "tool" | "file" | "compaction" | "" => return whole(raw, out),
        ty if small => out.push(Part::Other {
            kind: ty.to_string(),
            value: None,
        }),
        _ => return whole(raw, out),
    }
    Some(())
}

/// The parts of the part written as `raw`, read whole as the reading as written reads it,
/// three levels down in its message (`{info, parts: [part]}`).
fn whole(raw: &str, out: &mut Vec<Part>) -> Option<()> {
    part(&parse_kept_exact_at(raw.as_bytes(), 3)?, out);
    Some(())
}

/// The record every reading makes of `m` with the keys `h` of its `info`, before its parts.
fn base(m: &Message, loaded: bool, session_id: Option<&str>, h: &Head) -> Record {
    let role = h.role.clone().unwrap_or_default();
    let mut r = Record {
        loaded,
        ms: m.created_ms(),
        time: m.created_ms().map(format_ms),
        session_id: session_id.map(str::to_string),
        model: h.model.clone(),
        id: h.id.clone(),
        parent: h.parent.clone(),
        kind: role.clone(),
        role: Some(role.clone()),
        speaker: Some(role),
        bytes: Some(m.raw.len() as u64),
        usage: h.usage,
        ..Record::default()
    };
    r.flags = Flags {
        compact_summary: Some(m.is_summary()),
        ..Flags::default()
    };
    if m.is_summary() {
        r.speaker = Some("compaction summary".into());
    } else if m.asks_compaction() {
        r.speaker = Some("compaction".into());
    }
    r
}

/// The session model's parts of one opencode part.
fn part(p: &Value, out: &mut Vec<Part>) {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let text = || p.get("text").and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "text" => out.push(Part::Text(text())),
        "reasoning" => out.push(Part::Reasoning {
            text: text(),
            summary: false,
        }),
        "tool" => {
            let state = p.get("state").unwrap_or(&Value::Null);
            let call_id = p.get("callID").and_then(Value::as_str).map(str::to_string);
            out.push(Part::Call(Call {
                id: call_id.clone(),
                name: p.get("tool").and_then(Value::as_str).map(str::to_string),
                kind: "tool".into(),
                input: state.get("input").cloned(),
            }));
            // A call still pending or running has no result yet.
            match state.get("status").and_then(Value::as_str) {
                Some("completed") => out.push(Part::Outcome(Outcome {
                    call_id,
                    is_error: Some(false),
                    output: state.get("output").cloned(),
                })),
                Some("error") => out.push(Part::Outcome(Outcome {
                    call_id,
                    is_error: Some(true),
                    output: state.get("error").cloned(),
                })),
                _ => {}
            }
        }
        // A resume sends it as the user's text `COMPACTION_PROMPT`, which the record does not
        // hold: kept as its part, so that every text of a record is its own (search reads
        // a record's bytes first).
        "compaction" => out.push(Part::Other {
            kind: ty.to_string(),
            value: Some(p.clone()),
        }),
        "file" => out.push(Part::Attachment(p.clone())),
        // The bounds of a model step: its tokens are the message's, read above.
        "step-start" | "step-finish" => {}
        _ => out.push(Part::Other {
            kind: ty.to_string(),
            value: None,
        }),
    }
}

/// The marks a view puts before message `i` of `s`: a compaction, the start of the history
/// before it, or where what a resume loads starts.
pub fn marks_before(s: &Session, i: usize, view: events::View, start: usize) -> Vec<events::Mark> {
    use events::Mark;
    let mut out = Vec::new();
    if view == events::View::History {
        if i == 0 && start > 0 {
            out.push(Mark::Earlier);
        }
        if s.messages[i].asks_compaction() {
            out.push(Mark::Compaction(compaction(s, i)));
        }
        if i == start && start > 0 {
            out.push(Mark::Loaded);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(info: Value, parts: Value) -> Message {
        let raw = serde_json::to_vec(&json!({"info": info, "parts": parts})).unwrap();
        let parts = parts
            .as_array()
            .into_iter()
            .flatten()
            .cloned()
            .map(crate::file::Part::from_value);
        Message::new(info, parts.collect(), raw)
    }

    fn session(ms: Vec<Message>) -> Session {
        Session {
            messages: ms,
            ..Session::default()
        }
    }

    #[test]
    fn a_resume_starts_at_the_last_answered_compaction() {
        let user = |id: &str, compaction: bool| {
            let parts = if compaction {
                json!([{"type": "compaction", "auto": true}])
            } else {
                json!([{"type": "text", "text": id}])
            };
            msg(json!({"id": id, "role": "user"}), parts)
        };
        let summary = |parent: &str, finish: Value| {
            msg(
                json!({"id": format!("s-{parent}"), "role": "assistant", "summary": true, "parentID": parent, "finish": finish}),
                json!([{"type": "text", "text": "sum"}]),
            )
        };
        let s = session(vec![
            user("a", false),
            user("b", true),
            summary("b", json!("stop")),
            user("c", false),
            user("d", true),
            // Unfinished: the client does not start there.
            summary("d", Value::Null),
        ]);
        assert_eq!(resume_start(&s), 1);
        assert_eq!(current_compaction(&s), Some(1));
        assert_eq!(session(vec![user("a", false), user("b", true)]).messages.len(), 2);
        assert_eq!(resume_start(&session(vec![user("a", false), user("b", true)])), 0);
    }

    #[test]
    fn a_tool_part_is_a_call_and_its_result_when_it_ran() {
        let m = msg(
            json!({"id": "m", "role": "assistant", "tokens": {"input": 5, "output": 1, "cache": {"read": 2, "write": 0}}}),
            json!([{"type": "tool", "tool": "bash", "callID": "c1", "state": {"status": "completed", "input": {"command": "ls"}, "output": "x"}},
                   {"type": "tool", "tool": "bash", "callID": "c2", "state": {"status": "running", "input": {}}},
                   {"type": "step-finish"}]),
        );
        let r = record(&m, &serde_json::from_slice(&m.raw).unwrap(), true, Some("ses"));
        assert_eq!(r.calls().count(), 2);
        assert_eq!(r.outcomes().count(), 1);
        assert_eq!(r.usage.cache_read, Some(2));
    }

    /// The messages of the document whose messages are written as `texts`, read as the
    /// database's and the exports' documents are read.
    fn read_texts(texts: &[String]) -> Session {
        let doc = format!(r#"{{"info":{{"id":"ses"}},"messages":[{}]}}"#, texts.join(","));
        let src = cctool_core::io::Source::from_bytes("t.json", doc.into_bytes());
        crate::file::read(&src).unwrap()
    }

    /// Every record made from the typed reading equals the one made from the message read as
    /// written; returns how many the typed reading declined.
    fn check_typed(s: &Session) -> usize {
        let mut declined = 0;
        for (i, m) in s.messages.iter().enumerate() {
            let tree = cctool_core::model::rows::parse(&m.raw).map(|v| record(m, &v, i % 2 == 0, Some("ses")));
            match record_read(m, i % 2 == 0, Some("ses")) {
                Some(r) => assert_eq!(Some(r), tree, "{}", String::from_utf8_lossy(&m.raw)),
                None => declined += 1,
            }
        }
        declined
    }

    #[test]
    fn a_record_from_the_typed_reading_is_the_trees() {
        // Every message of the fixture database, read as `scan --rows` reads it.
        let db = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode/opencode.db");
        let mut typed = 0;
        for id in crate::db::session_ids(&db).unwrap() {
            let doc = crate::db::export(&db, &id).unwrap();
            let s = crate::file::read(&cctool_core::io::Source::from_bytes("db", doc)).unwrap();
            assert_eq!(check_typed(&s), 0, "{id}");
            typed += s.messages.len();
        }
        assert!(typed > 20, "{typed}");

        let info = r#"{"id":"m1","role":"assistant","parentID":"m0","modelID":"x","time":{"created":5},"tokens":{"input":3,"output":2,"cache":{"read":1,"write":0}}}"#;
        let msg = |parts: &str| format!(r#"{{"info":{info},"parts":[{parts}]}}"#);
        let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
        let wide = format!("[{}0]", "0,".repeat(KEEP_ELEMENTS));
        let made = [
            r#"{"type":"text","text":"hi"}"#.to_string(),
            r#"{"text":"after","type":"text","id":"p"}"#.into(),
            r#"{"type":"text","text":7}"#.into(),
            r#"{"type":"text"}"#.into(),
            r#"{"type":"text","text":"a","text":"b"}"#.into(),
            r#"{"type":"reasoning","text":"t\u00e9\n"}"#.into(),
            r#"{"type":"step-start"}"#.into(),
            r#"{"type":"step-finish","tokens":{"input":1}}"#.into(),
            r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"a":[1,{"b":null}]},"output":"o"}}"#.into(),
            r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"error","input":{},"error":"e"}}"#.into(),
            r#"{"type":"tool","tool":7,"state":{"status":"pending"}}"#.into(),
            r#"{"type":"tool","state":"odd"}"#.into(),
            r#"{"type":"file","mime":"text/plain","url":"data:,x"}"#.into(),
            r#"{"type":"compaction","auto":true}"#.into(),
            r#"{"type":"snapshot","snapshot":"abc"}"#.into(),
            r#"{"type":"","x":1}"#.into(),
            r#"{"type":null}"#.into(),
            r#"{"type":"t\u0065xt","text":"escaped type"}"#.into(),
            r#"[1,2]"#.into(),
            r#""text""#.into(),
            r#"{}"#.into(),
            format!(r#"{{"type":"tool","tool":"t","state":{{"status":"completed","input":{deep},"output":"o"}}}}"#),
            format!(r#"{{"type":"tool","tool":"t","state":{{"status":"completed","input":{{"w":{wide}}},"output":"o"}}}}"#),
            format!(r#"{{"type":"text","text":"{}"}}"#, "x".repeat(WIDE)),
        ];
        let mut texts: Vec<String> = made.iter().map(|p| msg(p)).collect();
        texts.push(msg(&made.join(",")));
        for tokens in [
            r#"{"input":1.5,"output":-3,"cache":{"read":1e3,"write":18446744073709551615}}"#,
            r#"{"input":null,"output":[1],"cache":[]}"#,
            r#"{"input":1,"input":2}"#,
            r#"{"cache":{"read":1,"read":2}}"#,
            r#""many""#,
        ] {
            texts.push(format!(
                r#"{{"info":{{"role":"assistant","tokens":{tokens}}},"parts":[]}}"#
            ));
        }
        texts.push(format!(
            r#"{{"info":{{"role":"user","w":{wide}}},"parts":[{{"type":"text","text":"\ud83d\ude00"}}]}}"#
        ));
        texts.push(r#"{"info":{"role":"user","modelID":7,"model":{"modelID":"x"}},"parts":[]}"#.into());
        texts
            .push(r#"{"parts":[{"type":"text","text":"first"}],"info":{"role":"user","time":{"created":1.5}}}"#.into());
        assert_eq!(check_typed(&read_texts(&texts)), 0);

        // What the typed reading leaves to the reading as written, which repairs or keeps
        // it differently.
        let declined = [
            msg(r#"{"type":"text","text":"a\ud800b"}"#),
            msg(r#"{"type":"tool","state":{"input":{"\u0000kept":"x"}}}"#),
            r#"{"info":{"role":"user","id":"\ud800"},"parts":[]}"#.into(),
            r#"{"info":{"role":"user","id":"a","id":"b"},"parts":[{"type":"text","text":"\udc00"}]}"#.into(),
            msg(&vec![r#"{"type":"step-start"}"#; KEEP_ELEMENTS + 1].join(",")),
            format!(
                r#"{{"info":{{"role":"user",{}"id":"i"}},"parts":[]}}"#,
                r#""":0,"#.repeat(KEEP_ELEMENTS)
            ),
        ];
        assert_eq!(check_typed(&read_texts(&declined)), declined.len());
    }
}
