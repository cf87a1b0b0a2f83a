//! An agent's reader of `convert` over the session model's stream: the agent's stream in the
//! view convert reads (what a resume loads, or with `--full` the whole history) hands on the
//! records, and the agent's mapping turns each into the conversation's entries. The stream
//! settles which records and in which order (the agent's loader rules, written once for
//! every feature); the mapping, what each record says in the conversation's terms.

use crate::convert::model::{Answered, Body, Conversation, Emitter, Sink, call_key};
use crate::model::events::{Ask, Event, Reading, Record, View};

/// An entry of the conversation as a mapping makes it: its key, its time, its body.
pub type Item = (String, Option<String>, Body);

/// What convert asks an agent's stream: what a resume loads, or with `full` the whole
/// history; each record with the JSON it was read as, for what the model does not carry.
/// Records are read whole ([`exact`]): a conversion carries a tool's input however large.
pub fn ask(full: bool) -> Ask<'static> {
    Ask {
        view: if full { View::History } else { View::Loaded },
        reading: Reading::With(&exact),
        native: true,
    }
}

/// What convert asks an agent's stream whose mapping takes from it only which records and in
/// which order, reading each from the agent's own reading of the session (pi's entries as the
/// client migrated them, opencode's messages with their parts): the records' bytes are not
/// read again, so each record says only where it is, one a record of the view, in order.
pub fn order(full: bool) -> Ask<'static> {
    Ask {
        view: if full { View::History } else { View::Loaded },
        reading: Reading::Place,
        native: false,
    }
}

/// A record's JSON exactly as serde_json reads it, as the agents' readers read their lines:
/// no container kept as its text, however deep or wide (the caps of
/// [`crate::model::rows::parse`], which keep a table's row small, would change what is
/// carried); lone surrogates repaired, as `JSON.parse` reads them. `None` when it is not JSON.
pub fn exact(bytes: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(bytes).ok().or_else(|| {
        let fixed = crate::io::json::repair_surrogates(bytes)?;
        serde_json::from_slice(&fixed).ok()
    })
}

/// The conversation `c` (its head filled in) streamed to `sink`: `stream` hands on the
/// session's events, `map` turns each record into entries (and counts in `c` what it leaves
/// out). With `answered`, the head carries the calls the conversation answers.
pub fn from_stream(
    mut c: Conversation,
    answered: bool,
    sink: Sink<'_>,
    stream: impl FnOnce(&mut dyn FnMut(Event)),
    mut map: impl FnMut(Record, &mut Conversation, &mut Vec<Item>),
) -> std::io::Result<Conversation> {
    let mut items = Vec::new();
    stream(&mut |e| {
        if let Event::Record(r) = e {
            map(r, &mut c, &mut items);
        }
    });
    emit(c, answered, items, sink)
}

/// The conversation `c` and its entries `items` streamed to `sink`, the head first (with
/// `answered`, the calls its results answer).
pub fn emit(c: Conversation, answered: bool, items: Vec<Item>, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let mut e = Emitter::new(c, sink);
    e.head(answered.then(|| answered_by(&items)))?;
    for (key, at, body) in items {
        e.push(&key, at, body);
        e.check()?;
    }
    e.finish()
}

/// The calls the results among `items` answer.
fn answered_by(items: &[Item]) -> Answered {
    items
        .iter()
        .filter_map(|(_, _, b)| match b {
            Body::ToolResult(r) => Some(call_key(&r.call_id)),
            _ => None,
        })
        .collect()
}

/// The key of the entries a record makes: its id, else its line.
pub fn key(r: &Record) -> String {
    r.id.clone()
        .unwrap_or_else(|| format!("line:{}", r.at.map_or(0, |a| a.line)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::model::{Msg, Part, ToolResult};
    use crate::model::events::At;

    #[test]
    fn a_record_is_read_whole_and_a_lone_surrogate_repaired() {
        let wide = format!("[{}]", vec!["1"; crate::io::json::KEEP_ELEMENTS + 1].join(","));
        assert_eq!(
            exact(wide.as_bytes()).unwrap().as_array().map(Vec::len),
            Some(crate::io::json::KEEP_ELEMENTS + 1)
        );
        assert_eq!(exact(br#"{"t":"a\ud800b"}"#).unwrap()["t"], "a\u{fffd}b");
        assert_eq!(exact(b"not json"), None);
    }

    #[test]
    fn asked_for_places_a_record_is_not_read() {
        assert!(!order(true).reads() && !order(false).reads());
        assert_eq!(order(false).parse(b"not json"), Some(serde_json::Value::Null));
        assert!(ask(false).reads());
        assert_eq!(ask(false).parse(b"not json"), None);
    }

    fn result(id: &str) -> Body {
        Body::ToolResult(ToolResult {
            call_id: id.into(),
            output: vec![Part::Text("ok".into())],
            is_error: false,
        })
    }

    #[test]
    fn records_become_entries_after_a_head_that_knows_the_answered_calls() {
        let records = [
            Record {
                id: Some("r1".into()),
                kind: "result".into(),
                ..Record::default()
            },
            Record {
                at: Some(At { line: 7, offset: 70 }),
                kind: "skip".into(),
                ..Record::default()
            },
        ];
        let mut got = Vec::new();
        let c = from_stream(
            Conversation::default(),
            true,
            &mut |m| {
                got.push(m);
                Ok(())
            },
            |sink| records.iter().cloned().for_each(|r| sink(Event::Record(r))),
            |r, c, items| match r.kind.as_str() {
                "result" => items.push((key(&r), None, result("c1"))),
                _ => c.drop(&format!("{} at {}", r.kind, key(&r))),
            },
        )
        .unwrap();
        assert_eq!(c.dropped.get("skip at line:7"), Some(&1));
        let Msg::Head(head) = &got[0] else {
            panic!("no head first")
        };
        assert!(head.answered.as_ref().unwrap().contains(&call_key("c1")));
        assert!(matches!(&got[1], Msg::Entry(e) if e.key == "r1"));
        assert_eq!(got.len(), 2);
    }
}
