//! Codex's rollouts as the session model's events (`cctool_core::model::events`): one per
//! response item of the rollout, then the items a resume loads from elsewhere (a
//! compaction's replacement history, a legacy rebuild), each with the session id, client
//! version and model in force where it was written.

use rustc_hash::FxHashSet;
use serde_json::Value;

use super::history::History;
use super::rollout::{Era, Item, ItemSrc, Record as Line, Rollout};
use crate::io::Source;
use crate::model::doc::image_of;
use crate::model::events::{
    Ask, At, Call, Compaction, Event, Mark, Origin, Outcome, Part, Record, Sink, Streamed, View,
};
use crate::model::rows::str_of;
use crate::model::session::SessionRecord;
use crate::model::time::parse_ms;

/// Codex item types that call a tool, and those that carry a call's output.
const CODEX_CALLS: [&str; 5] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "tool_search_call",
    "web_search_call",
];
const CODEX_OUTPUTS: [&str; 3] = ["function_call_output", "custom_tool_call_output", "tool_search_output"];

/// The timestamp of every line of a rollout, as written (items carry none of their own).
fn line_times(src: &Source) -> std::io::Result<LineTimes> {
    #[derive(serde::Deserialize)]
    struct Ts<'a> {
        #[serde(borrow, default)]
        timestamp: Option<std::borrow::Cow<'a, str>>,
    }
    let mut times = LineTimes::default();
    crate::io::for_each_line(src, |line| {
        if let Ok(Ts { timestamp: Some(ts) }) = serde_json::from_slice::<Ts<'_>>(line.bytes) {
            times.push(line.no, &ts);
        }
    })?;
    Ok(times)
}

/// The times of a rollout's lines, by line number: one text and where each line's time ends
/// in it, so that a rollout of many short lines holds no string or table entry per line.
#[derive(Debug, Default)]
struct LineTimes {
    text: String,
    /// For each line from the first: where its time ends in `text`, or [`NO_TIME`] set.
    ends: Vec<u64>,
}

/// The mark of a line without a time (its entry's other bits are where the one before ended).
const NO_TIME: u64 = 1 << 63;

impl LineTimes {
    /// The time of line `no`, which follows every line pushed before.
    fn push(&mut self, no: u64, time: &str) {
        let before = self.text.len() as u64;
        while (self.ends.len() as u64) + 1 < no {
            self.ends.push(before | NO_TIME);
        }
        self.text.push_str(time);
        self.ends.push(self.text.len() as u64);
    }

    /// The time of line `no`, as written.
    fn get(&self, no: u64) -> Option<&str> {
        let i = usize::try_from(no.checked_sub(1)?).ok()?;
        let end = *self.ends.get(i)?;
        if end & NO_TIME != 0 {
            return None;
        }
        let start = i.checked_sub(1).map_or(0, |b| self.ends[b] & !NO_TIME);
        self.text.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }
}

/// The session id, client version and model in force where an item was written.
type Meta = (Option<String>, Option<String>, Option<String>);

/// Where the items a resume loads from the rollout's own lines were written.
fn loaded_offsets(history: &History) -> FxHashSet<u64> {
    history
        .items
        .iter()
        .filter_map(|i| match i.src {
            ItemSrc::Raw { offset, .. } => Some(offset),
            ItemSrc::Synth(_) => None,
        })
        .collect()
}

/// Calls `f` with the items of the rollout's own lines, then those a resume loads from
/// elsewhere (the replacement history of a compaction, or a legacy rebuild): each with where
/// it comes from, whether a resume loads it, and the [`Meta`] in force. One at a time: the
/// meta of every item of a large rollout, held at once, was most of what its rows cost.
fn each_listed(
    rollout: &Rollout,
    history: &History,
    mut f: impl FnMut(&Item, Origin, bool, &Meta) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let on_chain = loaded_offsets(history);
    let mut meta: Meta = (None, None, None);
    let mut recorded: FxHashSet<u64> = FxHashSet::default();
    for (_, r) in &rollout.records {
        match r {
            Line::SessionMeta { id, cli_version } => {
                if meta.0.is_none() {
                    meta.0.clone_from(id);
                }
                if cli_version.is_some() {
                    meta.1.clone_from(cli_version);
                }
            }
            Line::TurnContext { model: Some(m), .. } => meta.2 = Some(m.clone()),
            Line::Response(item) | Line::InterAgent(item) => {
                if let ItemSrc::Raw { offset, .. } = item.src {
                    recorded.insert(offset);
                    f(item, Origin::Record, on_chain.contains(&offset), &meta)?;
                }
            }
            _ => {}
        }
    }
    for item in &history.items {
        let origin = match item.src {
            ItemSrc::Raw { offset, .. } if recorded.contains(&offset) => continue,
            ItemSrc::Raw { .. } => Origin::ReplacementHistory,
            ItemSrc::Synth(_) => Origin::Rebuilt,
        };
        f(item, origin, true, &meta)?;
    }
    Ok(())
}

/// Streams the rollout as asked.
pub(crate) fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> std::io::Result<Streamed> {
    events_listed(src, ask, sink, &|| false).map(|(s, _)| s)
}

/// [`events`], then, when `named` says so, what names the rollout (`scan::listing`), from the
/// records the stream read, which are the listing's own.
pub(crate) fn events_listed(
    src: &Source,
    ask: Ask<'_>,
    sink: Sink<'_>,
    named: &dyn Fn() -> bool,
) -> std::io::Result<(Streamed, Option<SessionRecord>)> {
    let rollout = super::rollout::read_records(src)?;
    let streamed = events_of(src, &rollout, ask, sink)?;
    let listed = if named() {
        Some(super::scan::named(src, &rollout)?)
    } else {
        None
    };
    Ok((streamed, listed))
}

/// [`events`] of a rollout whose records are read already. Asked for every record with all
/// the file holds ([`Ask::native`] in [`View::Records`]), it hands on every line in file
/// order instead: each item with its JSON, every other line as a record of its own.
pub(crate) fn events_of(src: &Source, rollout: &Rollout, ask: Ask<'_>, sink: Sink<'_>) -> std::io::Result<Streamed> {
    events_in(src, rollout, &super::history::reconstruct(rollout), ask, sink)
}

/// [`events_of`] with the history a resume reconstructs from `rollout`, reconstructed
/// already (`convert` has it from the rollout's last compaction on).
pub(crate) fn events_in(
    src: &Source,
    rollout: &Rollout,
    history: &History,
    ask: Ask<'_>,
    sink: Sink<'_>,
) -> std::io::Result<Streamed> {
    // Every line read whole takes its time from its own JSON, and a record not read has
    // none: no pass for the times.
    let every_line = ask.native && ask.view == View::Records && rollout.era != Era::Document;
    let times = if every_line || !ask.reads() {
        LineTimes::default()
    } else {
        line_times(src)?
    };
    let streamed = Streamed {
        first_ms: rollout.time_span.map(|s| s.0),
    };
    let read = Read {
        src,
        ask,
        times: &times,
        released: std::cell::RefCell::new(src.releaser()),
    };
    match ask.view {
        View::Records if ask.native => read.all_lines(rollout, history, sink)?,
        View::Records | View::Calls => {
            each_listed(
                rollout,
                history,
                |item, origin, loaded, (session_id, client_version, model)| {
                    if let Some((mut r, compaction)) = read.item(item, loaded)? {
                        r.origin = origin;
                        (r.session_id, r.client_version, r.model) =
                            (session_id.clone(), client_version.clone(), model.clone());
                        send(r, compaction, sink);
                    }
                    Ok(())
                },
            )?;
        }
        View::History if rollout.era == Era::Envelope => read.every_line(history, sink)?,
        View::Loaded | View::History => {
            if let Some(base) = history.base_line {
                sink(Event::Mark(Mark::ResumedFrom(base)));
            }
            for item in &history.items {
                if let Some((r, compaction)) = read.item(item, true)? {
                    send(r, compaction, sink);
                }
            }
        }
    }
    Ok(streamed)
}

/// What reading an item needs.
struct Read<'a> {
    src: &'a Source,
    ask: Ask<'a>,
    times: &'a LineTimes,
    /// The pages of a mapping behind the items read, given back (they are read mostly in
    /// file order).
    released: std::cell::RefCell<cctool_core::io::source::Releaser<'a>>,
}

impl Read<'_> {
    /// The record of one item of the rollout or of what a resume loads.
    fn item(&self, item: &Item, loaded: bool) -> std::io::Result<Option<(Record, Option<Compaction>)>> {
        let (at, bytes, p) = match &item.src {
            &ItemSrc::Raw { offset, len, line } if !self.ask.reads() => {
                (Some(At { line, offset }), u64::from(len), Some(Value::Null))
            }
            &ItemSrc::Raw { offset, len, line } => {
                let bytes = self.src.read_range(offset, len as usize)?;
                self.released.borrow_mut().touch(offset, u64::from(len));
                (Some(At { line, offset }), u64::from(len), self.ask.parse(&bytes))
            }
            ItemSrc::Synth(json) => (None, json.len() as u64, self.ask.parse(json.as_bytes())),
        };
        let Some(p) = p else { return Ok(None) };
        let native = self.ask.native.then(|| p.clone());
        let (mut r, compaction) = item_record(item, p, at, self.time(at));
        r.loaded = loaded;
        r.bytes = Some(bytes);
        r.native = native;
        Ok(Some((r, compaction)))
    }

    /// The time of the line `at`, as written.
    fn time(&self, at: Option<At>) -> Option<String> {
        at.and_then(|at| self.times.get(at.line).map(str::to_string))
    }

    /// The whole history of a rollout of envelopes: every item in file order, and a mark
    /// where each compaction happened, with its summary.
    fn every_line(&self, history: &History, sink: Sink<'_>) -> std::io::Result<()> {
        let loaded = loaded_offsets(history);
        crate::io::for_each_line(self.src, |l| {
            // Asked for its place only, a line is still read for its type, which says whether
            // it is an item.
            let v = match self.ask.reads() {
                true => self.ask.parse(l.bytes),
                false => crate::model::rows::parse(l.bytes),
            };
            let Some(mut v) = v else { return };
            let at = Some(At {
                line: l.no,
                offset: l.offset,
            });
            let line_type = str_of(&v, "type").map(str::to_string);
            let payload = match v.get_mut("payload") {
                Some(p) if self.ask.reads() => p.take(),
                _ => Value::Null,
            };
            match line_type.as_deref() {
                Some("response_item") => {
                    let ty = str_of(&payload, "type").unwrap_or("").to_string();
                    let (mut r, compaction) = record(payload, &ty, at, self.time(at));
                    r.loaded = loaded.contains(&l.offset);
                    r.bytes = Some(l.bytes.len() as u64);
                    send(r, compaction, sink);
                }
                Some("compacted") => sink(Event::Mark(Mark::Compaction(Compaction {
                    time: self.time(at),
                    summary: str_of(&payload, "message")
                        .filter(|m| !m.is_empty())
                        .map(str::to_string),
                    ..Compaction::default()
                }))),
                _ => {}
            }
        })
        .map(|_| ())
    }
}

impl Read<'_> {
    /// Every line of the rollout in file order, each with its JSON: an item's record (an
    /// envelope's `response_item`, or a bare item of the older rollouts), and every other
    /// line (the session's header and metadata, events, `compacted` records) as a record of
    /// its own. A rollout of one JSON document has no lines: its session header, then its
    /// items.
    fn all_lines(&self, rollout: &Rollout, history: &History, sink: Sink<'_>) -> std::io::Result<()> {
        let loaded = loaded_offsets(history);
        if rollout.era == Era::Document {
            let doc = self.ask.parse(&self.src.read_range(0, self.src.len() as usize)?);
            if let Some(session) = doc.as_ref().and_then(|d| d.get("session")) {
                let at = At { line: 1, offset: 0 };
                let header = serde_json::json!({"session": session});
                sink(Event::Record(Record::kept(at, None, header)));
            }
            for (_, line) in &rollout.records {
                if let Line::Response(item) = line
                    && let Some((r, compaction)) = self.item(item, item_loaded(item, &loaded))?
                {
                    send(r, compaction, sink);
                }
            }
            return Ok(());
        }
        crate::io::for_each_line(self.src, |l| {
            let at = At {
                line: l.no,
                offset: l.offset,
            };
            let v = self.ask.parse(l.bytes).unwrap_or(Value::Null);
            let time = str_of(&v, "timestamp").map(str::to_string);
            let item = match (str_of(&v, "type"), v.get("payload")) {
                (Some("response_item"), Some(p)) => p.clone(),
                (Some(_), None) => v,
                _ => return sink(Event::Record(Record::kept(at, Some(l.bytes.len() as u64), v))),
            };
            let ty = str_of(&item, "type").unwrap_or("").to_string();
            let (mut r, compaction) = record(item.clone(), &ty, Some(at), time);
            r.loaded = loaded.contains(&l.offset);
            r.bytes = Some(l.bytes.len() as u64);
            r.native = Some(item);
            send(r, compaction, sink);
        })
        .map(|_| ())
    }
}

/// Whether a resume loads `item`, written where `loaded` says.
fn item_loaded(item: &Item, loaded: &FxHashSet<u64>) -> bool {
    matches!(item.src, ItemSrc::Raw { offset, .. } if loaded.contains(&offset))
}

/// Item types that stand for a remote compaction, whose summary the server keeps encrypted.
const REMOTE_COMPACTIONS: [&str; 3] = ["compaction", "compaction_summary", "context_compaction"];

/// Sends a record, then the mark of the remote compaction it stands for, if it does.
fn send(r: Record, compaction: Option<Compaction>, sink: Sink<'_>) {
    sink(Event::Record(r));
    if let Some(c) = compaction {
        sink(Event::Mark(Mark::Compaction(c)));
    }
}

/// The record of an item of the history `p`, read as written, and the remote compaction it
/// stands for: whether it holds or stands for a compaction's summary is what reading the
/// history found.
pub(crate) fn item_record(item: &Item, p: Value, at: Option<At>, time: Option<String>) -> (Record, Option<Compaction>) {
    let ty = str_of(&p, "type").unwrap_or(item.ty()).to_string();
    let (mut r, compaction) = record(p, &ty, at, time);
    r.flags.compact_summary = Some(item.summary || item.remote_compaction);
    (r, compaction)
}

/// The record of a response item `p` of type `ty`, and the remote compaction it stands for
/// (whose summary the server keeps encrypted), if it does.
pub(crate) fn record(mut p: Value, ty: &str, at: Option<At>, time: Option<String>) -> (Record, Option<Compaction>) {
    let compaction = REMOTE_COMPACTIONS.contains(&ty).then(|| Compaction {
        encrypted: true,
        encrypted_bytes: Some(str_of(&p, "encrypted_content").map_or(0, str::len) as u64),
        ..Compaction::default()
    });
    let role = str_of(&p, "role").map(str::to_string);
    let parts = parts(ty, &mut p);
    let speaker = match ty {
        "message" => Some(role.clone().unwrap_or_else(|| "message".into())),
        "reasoning" => parts
            .iter()
            .any(|part| matches!(part, Part::Reasoning { text, .. } if !text.is_empty()))
            .then(|| "assistant".to_string()),
        _ if CODEX_CALLS.contains(&ty) => Some("assistant".into()),
        _ if CODEX_OUTPUTS.contains(&ty) => Some("tool".into()),
        _ if REMOTE_COMPACTIONS.contains(&ty) || ty == "ghost_snapshot" => None,
        _ => Some("item".into()),
    };
    let r = Record {
        at,
        ms: time.as_deref().and_then(parse_ms),
        time,
        kind: ty.to_string(),
        role,
        speaker,
        parts,
        ..Record::default()
    };
    (r, compaction)
}

/// The parts of an item, its values moved out of it: a message's texts and images; a
/// reasoning item's summary, as one text (its content, when visible, is the reasoning itself
/// and is not shown); the call of an item that calls a tool, the result of one that carries a
/// call's output; an item of another type by its type, with the texts of its content.
fn parts(ty: &str, p: &mut Value) -> Vec<Part> {
    let owned = |p: &Value, k: &str| str_of(p, k).map(str::to_string);
    let mut parts = match ty {
        "reasoning" => {
            let summary = p.get("summary").and_then(Value::as_array).into_iter().flatten();
            let texts: Vec<&str> = summary.filter_map(|b| str_of(b, "text")).collect();
            return vec![Part::Reasoning {
                text: texts.join("\n"),
                summary: true,
            }];
        }
        _ => content_parts(p.get_mut("content").map(Value::take)),
    };
    if CODEX_CALLS.contains(&ty) {
        let id = owned(p, "call_id").or_else(|| owned(p, "id"));
        let name = owned(p, "name");
        let input = ["arguments", "input", "action", "query"]
            .iter()
            .find_map(|k| p.get_mut(*k).filter(|v| !v.is_null()).map(Value::take));
        parts.push(Part::Call(Call {
            id,
            name,
            kind: ty.to_string(),
            input,
        }));
    } else if CODEX_OUTPUTS.contains(&ty) {
        let call_id = owned(p, "call_id");
        let (output, is_error) = output_of(p.get_mut("output").map(Value::take));
        parts.push(Part::Outcome(Outcome {
            call_id,
            is_error,
            output,
        }));
    } else if REMOTE_COMPACTIONS.contains(&ty) {
        // What a remote compaction holds is its encrypted summary, which its mark sizes.
    } else if ty != "message" {
        // An item cctool does not read (a ghost snapshot, a type of a later Codex): what it
        // holds beside its texts, as written, for people to see.
        if let Some(m) = p.as_object_mut() {
            m.remove("type");
        }
        parts.push(Part::Other {
            kind: ty.to_string(),
            value: Some(std::mem::take(p)),
        });
    }
    parts
}

/// The texts and images of an item's content (a string, or a list of content items).
fn content_parts(content: Option<Value>) -> Vec<Part> {
    match content {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|mut i| match image_of(&i) {
                Some(img) => Some(Part::Image(img)),
                None => match i.get_mut("text").map(Value::take) {
                    Some(Value::String(t)) => Some(Part::Text(t)),
                    _ => None,
                },
            })
            .collect(),
        Some(Value::String(t)) => vec![Part::Text(t)],
        _ => Vec::new(),
    }
}

/// A call's output and whether it failed, as the rollout's version wrote them: once as an
/// object `{"content", "success"}`, once as JSON text `{"output", "metadata"}`, now as the
/// output itself (text, or content items).
fn output_of(output: Option<Value>) -> (Option<Value>, Option<bool>) {
    match output {
        Some(Value::Object(mut o)) if o.contains_key("content") => {
            let success = o.get("success").and_then(Value::as_bool);
            (o.remove("content"), success.map(|s| !s))
        }
        Some(Value::String(t)) if t.trim_start().starts_with('{') && t.contains("\"output\"") => {
            let wrapped = serde_json::from_str::<Value>(&t)
                .ok()
                .and_then(|j| j.get("output").and_then(Value::as_str).map(str::to_string));
            (Some(Value::String(wrapped.unwrap_or(t))), None)
        }
        other => (other, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A call's output is read the one way every feature sees it, in each of the three forms
    /// rollouts have written it.
    #[test]
    fn outputs_are_read_in_every_form_a_rollout_wrote() {
        let legacy_object = json!({"content": "done", "success": false});
        assert_eq!(output_of(Some(legacy_object)), (Some(json!("done")), Some(true)));
        let wrapped = json!("{\"output\":\"hi\\n\",\"metadata\":{\"exit_code\":0}}");
        assert_eq!(output_of(Some(wrapped)), (Some(json!("hi\n")), None));
        assert_eq!(output_of(Some(json!("plain"))), (Some(json!("plain")), None));
        assert_eq!(
            output_of(Some(json!("{\"other\":1}"))),
            (Some(json!("{\"other\":1}")), None)
        );
        let items = json!([{"type": "input_text", "text": "a"}]);
        assert_eq!(output_of(Some(items.clone())), (Some(items), None));
        assert_eq!(output_of(None), (None, None));
    }

    /// What each item type is, as a transcript shows it and as the tables count it.
    #[test]
    fn items_are_typed_once() {
        let reasoning = json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}], "content": [{"type": "reasoning_text", "text": "hidden"}]});
        let (r, _) = record(reasoning, "reasoning", None, None);
        assert_eq!(r.speaker.as_deref(), Some("assistant"));
        assert_eq!(r.text(), "a\nb");
        let (empty, _) = record(json!({"type": "reasoning", "summary": []}), "reasoning", None, None);
        assert_eq!(empty.speaker, None);
        let search = json!({"type": "web_search_call", "id": "ws_1", "action": {"query": "q"}});
        let (r, _) = record(search, "web_search_call", None, None);
        assert_eq!(r.calls().count(), 1);
        assert_eq!(r.calls().next().and_then(|c| c.id.as_deref()), Some("ws_1"));
        let (other, _) = record(json!({"type": "future_item", "x": 1}), "future_item", None, None);
        let kept = Part::Other {
            kind: "future_item".into(),
            value: Some(json!({"x": 1})),
        };
        assert_eq!(
            (other.speaker.as_deref(), &other.parts[..]),
            (Some("item"), &[kept][..])
        );
        let (ghost, _) = record(
            json!({"type": "ghost_snapshot", "commit": "c0"}),
            "ghost_snapshot",
            None,
            None,
        );
        assert!(ghost.speaker.is_none());
        assert!(matches!(&ghost.parts[..], [Part::Other { kind, value: Some(_) }] if kind == "ghost_snapshot"));
        let remote = json!({"type": "compaction", "encrypted_content": "abcd"});
        let (r, compaction) = record(remote, "compaction", None, None);
        assert!(r.parts.is_empty() && r.speaker.is_none());
        let c = compaction.expect("a remote compaction");
        assert!(c.encrypted && c.encrypted_bytes == Some(4));
    }

    /// The times read back are the map's that they replace: lines with and without one, the
    /// empty time, gaps of blank lines.
    #[test]
    fn line_times_read_back_as_pushed() {
        let lines: &[(u64, &str)] = &[(1, "2026-01-01T00:00:00Z"), (2, ""), (5, "t5"), (6, "é"), (9, "x")];
        let mut times = LineTimes::default();
        let mut map = std::collections::HashMap::new();
        for &(no, t) in lines {
            times.push(no, t);
            map.insert(no, t);
        }
        for no in 0..12 {
            assert_eq!(times.get(no), map.get(&no).copied(), "line {no}");
        }
    }

    #[test]
    fn asked_for_all_it_holds_every_line_comes_in_file_order_with_its_json() {
        let lines = [
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1","cli_version":"0.1"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"token_count"}}"#,
            "not json",
        ];
        let text = lines.join("\n") + "\n";
        let src = Source::from_bytes("r.jsonl", text.into_bytes());
        let rollout = crate::rollout::read_records(&src).unwrap();
        let ask = Ask {
            native: true,
            reading: crate::model::events::Reading::With(&|b| Some(crate::v5::build::parse(b))),
            ..Ask::records()
        };
        let mut seen = Vec::new();
        events_of(&src, &rollout, ask, &mut |e| {
            if let Event::Record(r) = e {
                seen.push((r.at.unwrap().line, r.origin, r.kind, r.native.unwrap()));
            }
        })
        .unwrap();
        let order: Vec<_> = seen.iter().map(|(l, o, k, _)| (*l, *o, k.as_str())).collect();
        assert_eq!(
            order,
            [
                (1, Origin::Unread, ""),
                (2, Origin::Record, "message"),
                (3, Origin::Unread, ""),
                (4, Origin::Unread, ""),
            ]
        );
        assert_eq!(seen[0].3["payload"]["id"], "s1", "a line is kept whole");
        assert_eq!(seen[1].3["role"], "user", "an item is its payload");
        assert_eq!(seen[3].3, Value::Null);
    }
}
