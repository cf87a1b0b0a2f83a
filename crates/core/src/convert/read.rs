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
pub fn ask(full: bool) -> Ask<'static> {
    Ask {
        view: if full { View::History } else { View::Loaded },
        reading: Reading::AsWritten,
        native: true,
    }
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
