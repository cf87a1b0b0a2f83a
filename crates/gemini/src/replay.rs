//! The client's replay of a chat's log (`loadConversationRecord`): the messages a resume
//! loads, in the order it loads them, and what the log did on the way (headers, compressions,
//! rewinds).
//!
//! The history is an insertion-ordered map from message id to message, as the client's `Map`:
//! a record under an id already held replaces that message where it stands; `$set.messages`
//! clears the map and fills it from the list; a header's `messages` are added to it;
//! `$rewindTo` drops the message of that id and every later one, or, when no message has that
//! id, the whole history.

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use crate::file::{Chat, Kind};

/// What the replay and the answers ask of a message: the full reading's `Map`, or the fast
/// reading's [`crate::lite::Lite`].
pub trait Message {
    /// Its `type` (`user`, `gemini`, `info`, …), empty when it has none.
    fn ty(&self) -> &str;
    /// Its `timestamp`.
    fn timestamp(&self) -> Option<&str>;
    /// Its `model`.
    fn model(&self) -> Option<&str>;
    /// Whether a resume sends anything of it ([`crate::sent::sends`]).
    fn sends(&self) -> bool;
    /// Its content as the client reads it into a string ([`crate::sent::text_of`]).
    fn text(&self) -> String;
}

impl Message for Map<String, Value> {
    fn ty(&self) -> &str {
        self.get("type").and_then(Value::as_str).unwrap_or("")
    }
    fn timestamp(&self) -> Option<&str> {
        self.get("timestamp").and_then(Value::as_str)
    }
    fn model(&self) -> Option<&str> {
        self.get("model").and_then(Value::as_str)
    }
    fn sends(&self) -> bool {
        crate::sent::sends(self)
    }
    fn text(&self) -> String {
        crate::sent::text_of(self.get("content"))
    }
}

/// One message as written, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg<V = Map<String, Value>> {
    /// Its id.
    pub id: String,
    /// The message.
    pub value: V,
    /// The 1-based line that holds it.
    pub line: u64,
    /// Byte offset of that line.
    pub offset: u64,
    /// Whether it is written inside a `$set` or header's `messages` (not a line of its own).
    pub inside: bool,
}

impl Msg {
    /// Its `type` (`user`, `gemini`, `info`, …).
    pub fn ty(&self) -> &str {
        self.value.ty()
    }

    /// A string field.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// The message as JSON, one line: the line itself for a record of its own.
    pub fn json(&self) -> Vec<u8> {
        serde_json::to_vec(&self.value).unwrap_or_default()
    }
}

/// A compression: a `$set.messages` that drops messages a resume would have sent, replacing
/// them with the summary exchange.
#[derive(Clone, Debug, PartialEq)]
pub struct Compression {
    /// The line of the `$set`.
    pub line: u64,
    /// The index in [`Replay::msgs`] of the message that carries the summary.
    pub summary_msg: Option<usize>,
    /// The summary, exactly as stored (the text of the first message sent of the new history).
    pub summary: Option<String>,
    /// How many messages a resume would have sent that it drops.
    pub dropped: usize,
}

/// A chat replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay<V = Map<String, Value>> {
    /// Every message met, in file order.
    pub msgs: Vec<Msg<V>>,
    /// What the history holds at the end, in its order: indices into `msgs`.
    pub loaded: Vec<usize>,
    /// The session's metadata, every header and `$set` merged in order (the fast reading keeps
    /// only `sessionId`, `startTime` and `summary`).
    pub meta: Map<String, Value>,
    /// Header lines.
    pub headers: u64,
    /// `$rewindTo` lines, each with whether its id was in the history.
    pub rewinds: Vec<(u64, bool)>,
    /// The compressions, in file order.
    pub compressions: Vec<Compression>,
}

impl<V> Default for Replay<V> {
    fn default() -> Self {
        Replay {
            msgs: Vec::new(),
            loaded: Vec::new(),
            meta: Map::new(),
            headers: 0,
            rewinds: Vec::new(),
            compressions: Vec::new(),
        }
    }
}

/// The insertion-ordered history: indices into the messages, and where each id stands (an
/// entry's id is its message's, so it is not kept twice).
#[derive(Default)]
struct History {
    order: Vec<usize>,
    at: FxHashMap<String, usize>,
}

impl History {
    fn set(&mut self, id: &str, msg: usize) {
        match self.at.get(id) {
            Some(&pos) => self.order[pos] = msg,
            None => {
                self.at.insert(id.to_string(), self.order.len());
                self.order.push(msg);
            }
        }
    }

    fn clear(&mut self) {
        self.order.clear();
        self.at.clear();
    }

    /// Drops `id` and all after it; whether it was held (else everything is dropped).
    fn rewind<V>(&mut self, id: &str, msgs: &[Msg<V>]) -> bool {
        let found = self.at.get(id).copied();
        match found {
            Some(pos) => {
                for gone in self.order.drain(pos..) {
                    self.at.remove(&msgs[gone].id);
                }
            }
            None => self.clear(),
        }
        found.is_some()
    }
}

/// The replay, fed one record at a time in file order: by [`replay`] from the lines the full
/// reading holds, and by the fast reading as it parses them.
#[derive(Default)]
pub struct Replayer<V> {
    r: Replay<V>,
    h: History,
}

impl<V: Message> Replayer<V> {
    /// A `$rewindTo` of `id` at `line`.
    pub fn rewind(&mut self, line: u64, id: &str) {
        let found = self.h.rewind(id, &self.r.msgs);
        self.r.rewinds.push((line, found));
    }

    /// A message (`id` its string id), on a line of its own or `inside` a list.
    pub fn message(&mut self, line: u64, offset: u64, id: String, value: V, inside: bool) {
        self.h.set(&id, self.r.msgs.len());
        self.r.msgs.push(Msg {
            id,
            value,
            line,
            offset,
            inside,
        });
    }

    /// A `$set.messages` list at `line`: the history cleared and filled from it.
    pub fn snapshot(&mut self, line: u64, offset: u64, list: impl IntoIterator<Item = (String, V)>) {
        let before = self.h.order.clone();
        let first_new = self.r.msgs.len();
        self.h.clear();
        for (id, m) in list {
            self.message(line, offset, id, m, true);
        }
        note_compression(&mut self.r, &self.h, &before, first_new, line);
    }

    /// A header line; its `messages` are then given as [`Replayer::message`]s.
    pub fn header(&mut self) {
        self.r.headers += 1;
    }

    /// Metadata a header or `$set` merges.
    pub fn meta(&mut self, fields: impl IntoIterator<Item = (String, Value)>) {
        self.r.meta.extend(fields);
    }

    /// The replay.
    pub fn finish(mut self) -> Replay<V> {
        self.r.loaded = std::mem::take(&mut self.h.order);
        self.r
    }
}

/// The message `m` of a list, with its id, when the client adds it (an object with a string id).
fn listed(m: Value) -> Option<(String, Map<String, Value>)> {
    let Value::Object(obj) = m else { return None };
    let id = obj.get("id").and_then(Value::as_str)?.to_string();
    Some((id, obj))
}

/// Replays `c`, moving each message out of the line that holds it (the lines keep their
/// bytes, which is all the other readers ask of them).
pub fn replay(c: &mut Chat) -> Replay {
    let mut rp = Replayer::default();
    for l in &mut c.lines {
        let (line, offset) = (l.line, l.offset);
        let mut value = std::mem::take(&mut l.value);
        match l.kind {
            Kind::Rewind => {
                let id = value.get("$rewindTo").and_then(Value::as_str).unwrap_or("");
                rp.rewind(line, id);
            }
            Kind::Message => {
                if let Some((id, obj)) = listed(Value::Object(value)) {
                    rp.message(line, offset, id, obj, false);
                }
            }
            Kind::Set => {
                let Some(Value::Object(mut set)) = value.remove("$set") else {
                    continue;
                };
                if let Some(Value::Array(list)) = set.remove("messages") {
                    rp.snapshot(line, offset, list.into_iter().filter_map(listed));
                }
                rp.meta(set);
            }
            Kind::Header => {
                rp.header();
                let list = value.remove("messages");
                rp.meta(value);
                if let Some(Value::Array(list)) = list {
                    for (id, m) in list.into_iter().filter_map(listed) {
                        rp.message(line, offset, id, m, true);
                    }
                }
            }
            Kind::Other => {}
        }
    }
    rp.finish()
}

/// Records a compression when the `$set` that made `h` dropped messages a resume sends
/// (the resume's own `$set` drops only what it does not send: slash commands, the old session
/// context).
fn note_compression<V: Message>(r: &mut Replay<V>, h: &History, before: &[usize], first_new: usize, line: u64) {
    let dropped = before
        .iter()
        .filter(|&&m| !h.at.contains_key(&r.msgs[m].id) && r.msgs[m].value.sends())
        .count();
    // A resume first writes a snapshot of its session context alone, which drops everything
    // and brings nothing: a compression brings the summary in place of what it drops.
    let was: rustc_hash::FxHashSet<&str> = before.iter().map(|&m| r.msgs[m].id.as_str()).collect();
    let summary_msg =
        (first_new..r.msgs.len()).find(|&m| r.msgs[m].value.sends() && !was.contains(r.msgs[m].id.as_str()));
    if dropped == 0 || summary_msg.is_none() {
        return;
    }
    let summary = summary_msg.map(|m| r.msgs[m].value.text());
    r.compressions.push(Compression {
        line,
        summary_msg,
        summary,
        dropped,
    });
}

impl<V> Replay<V> {
    /// The whole history: every message once, in the order its id first appeared, as last
    /// written (each resume's snapshot writes the history again, which is no new message).
    pub fn history(&self) -> Vec<usize> {
        let mut at: FxHashMap<&str, usize> = FxHashMap::default();
        let mut order: Vec<usize> = Vec::new();
        for (i, m) in self.msgs.iter().enumerate() {
            match at.get(m.id.as_str()) {
                Some(&pos) => order[pos] = i,
                None => {
                    at.insert(&m.id, order.len());
                    order.push(i);
                }
            }
        }
        order
    }

    /// The session id.
    pub fn session_id(&self) -> Option<&str> {
        self.meta.get("sessionId").and_then(Value::as_str)
    }

    /// The compression the history starts from: the last one whose summary is still loaded.
    pub fn current(&self) -> Option<usize> {
        let i = self.compressions.len().checked_sub(1)?;
        let id = &self.msgs[self.compressions[i].summary_msg?].id;
        // Each resume writes the summary again under its id.
        self.loaded.iter().any(|&m| &self.msgs[m].id == id).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::io::Source;

    fn replayed(lines: &[&str]) -> Replay {
        let src = Source::from_bytes("t.jsonl", format!("{}\n", lines.join("\n")).into_bytes());
        replay(&mut crate::file::read(&src).unwrap())
    }

    fn ids(r: &Replay) -> Vec<String> {
        r.loaded.iter().map(|&i| r.msgs[i].id.clone()).collect()
    }

    const HEAD: &str = r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#;

    #[test]
    fn a_message_written_again_stays_where_it_first_stood() {
        let r = replayed(&[
            HEAD,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"id":"b","type":"gemini","content":"two"}"#,
            r#"{"id":"a","type":"user","content":"one, again"}"#,
        ]);
        assert_eq!(ids(&r), ["a", "b"]);
        assert_eq!(r.msgs[r.loaded[0]].value["content"], "one, again");
    }

    #[test]
    fn a_rewind_cuts_at_its_id_or_clears_everything() {
        let cut = replayed(&[
            HEAD,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"id":"b","type":"gemini","content":"two"}"#,
            r#"{"id":"c","type":"user","content":"three"}"#,
            r#"{"$rewindTo":"b"}"#,
        ]);
        assert_eq!(ids(&cut), ["a"]);
        let cleared = replayed(&[
            HEAD,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"$rewindTo":"x"}"#,
        ]);
        assert!(cleared.loaded.is_empty());
        assert_eq!(cleared.rewinds, [(3, false)]);
    }

    #[test]
    fn a_snapshot_replaces_the_history_and_a_summary_makes_it_a_compression() {
        let resumed = replayed(&[
            HEAD,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"$set":{"messages":[{"id":"ctx","type":"user","content":"<session_context>x</session_context>"}]}}"#,
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":"one"}]}}"#,
        ]);
        assert_eq!(ids(&resumed), ["a"]);
        assert!(
            resumed.compressions.is_empty(),
            "a resume's snapshots are no compression"
        );
        let compressed = replayed(&[
            HEAD,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"$set":{"messages":[{"id":"s","type":"user","content":"<state_snapshot>sum</state_snapshot>"}]}}"#,
        ]);
        assert_eq!(compressed.compressions.len(), 1);
        assert_eq!(
            compressed.compressions[0].summary.as_deref(),
            Some("<state_snapshot>sum</state_snapshot>")
        );
        assert_eq!(compressed.current(), Some(0));
    }

    #[test]
    fn bad_lines_are_kept_with_their_place_and_the_rest_is_read() {
        let src = Source::from_bytes(
            "t.jsonl",
            format!("{HEAD}\nnot json\n{{\"id\":\"a\",\"type\":\"user\",\"content\":\"x\"}}\n").into_bytes(),
        );
        let mut c = crate::file::read(&src).unwrap();
        assert_eq!((c.unread.len(), c.unread[0].line, c.bad_lines()), (1, 2, 1));
        assert_eq!(ids(&replay(&mut c)), ["a"]);
    }
}
