//! What a resume of a Qwen Code session loads: the chain of records from the leaf back to the
//! root by `parentUuid` (QW2), and the history those records give, from the last
//! `chat_compression` on (QW3).
//!
//! The client's `prepareTranscriptRecords`: the leaf is the last record of the file that is
//! part of the conversation; the walk follows `parentUuid` from it and stops at a root, at a
//! parent that no record has (a gap: nothing before it is loaded), or where it comes back to a
//! record it has seen (a cycle). Records that share a `uuid` are one record whose parts are
//! joined in file order. Then `SessionApiHistoryAccumulator`: each walked record's message is
//! appended; a `chat_compression` whose `systemPayload.compressedHistory` is set replaces
//! everything before it with that history.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::api::Part;
use crate::api::part::Text;
use crate::file::{Rec, Session};

/// The records a resume walks, and where the walk stopped.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// Indices into the session's records of the walked records, root first: for each `uuid`,
    /// its first record.
    pub walked: Vec<usize>,
    /// The other records of each walked `uuid` (its later fragments), by the index of its first.
    pub fragments: HashMap<usize, Vec<usize>>,
    /// The index of the leaf the walk started at.
    pub leaf: Option<usize>,
    /// The parent the walk did not find, with the record that names it.
    pub gap: Option<(usize, String)>,
    /// The record the walk came back to.
    pub cycle: Option<usize>,
    /// The position in `walked` of the compaction the history starts from.
    pub compaction: Option<usize>,
    /// `uuid`s that more than one record carries.
    pub duplicates: usize,
    /// Records whose `parentUuid` names no record of the file.
    pub dangling: Vec<usize>,
    /// Records that are the parent of none: the ends of branches.
    pub leaves: usize,
}

/// One Content of the history a resume loads, with the record it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    /// The index of the record it comes from (for a compressed history, the compaction's).
    pub from: usize,
    /// `{role, parts}` as the client holds it.
    pub value: Value,
}

impl Chain {
    /// The chain of `s` as the client walks it.
    pub fn of(s: &Session) -> Chain {
        let mut c = Chain::default();
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, r) in s.records.iter().enumerate() {
            if !r.conversational() {
                continue;
            }
            match first.get(r.uuid.as_str()) {
                Some(&f) => {
                    c.fragments.entry(f).or_default().push(i);
                    c.duplicates += 1;
                }
                None => {
                    first.insert(&r.uuid, i);
                }
            }
        }
        let parents: HashSet<&str> = s.records.iter().filter_map(|r| r.parent.as_deref()).collect();
        c.leaves = first.keys().filter(|u| !parents.contains(*u)).count();
        c.dangling = s
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.parent.as_deref().is_some_and(|p| !first.contains_key(p)))
            .map(|(i, _)| i)
            .collect();
        c.leaf = s.records.iter().rposition(Rec::conversational);
        let mut seen = HashSet::new();
        let mut at = c.leaf;
        while let Some(i) = at {
            let r = &s.records[i];
            if !seen.insert(i) {
                c.cycle = Some(i);
                break;
            }
            c.walked.push(i);
            at = match r.parent.as_deref() {
                None | Some("") => None,
                Some(p) => match first.get(p) {
                    Some(&j) => Some(j),
                    None => {
                        c.gap = Some((i, p.to_string()));
                        None
                    }
                },
            };
        }
        c.walked.reverse();
        c.compaction = c
            .walked
            .iter()
            .rposition(|&i| compressed_history(&s.records[i]).is_some());
        c
    }

    /// Whether the record at `i` is loaded: walked, from the compaction the history starts
    /// from on.
    pub fn loaded(&self, len: usize) -> Vec<bool> {
        let mut out = vec![false; len];
        for &i in &self.walked[self.compaction.unwrap_or(0)..] {
            out[i] = true;
            for &j in self.fragments.get(&i).into_iter().flatten() {
                out[j] = true;
            }
        }
        out
    }

    /// The message of the walked record `i` with its fragments' parts joined to it.
    pub fn message(&self, s: &Session, i: usize) -> Option<Value> {
        self.message_of::<Content>(s, i).map(|c| c.value)
    }

    /// [`Chain::message`] as the Content `C` holds it.
    fn message_of<'s, C: Contents<'s>>(&self, s: &'s Session, i: usize) -> Option<C> {
        let mut message: Option<C> = None;
        for j in std::iter::once(i).chain(self.fragments.get(&i).into_iter().flatten().copied()) {
            match &mut message {
                None => message = C::first(&s.records[j]),
                Some(c) => c.join(&s.records[j]),
            }
        }
        message
    }

    /// The history a resume loads, in order (`SessionApiHistoryAccumulator`).
    pub fn history(&self, s: &Session) -> Vec<Content> {
        self.history_of(s, &self.walked)
    }

    /// [`Chain::history`] of the records `walked`, in that order: the walked records as a
    /// reader of the session model's stream has them (`convert`).
    pub fn history_along(&self, s: &Session, walked: &[usize]) -> Vec<Content> {
        self.history_of(s, walked)
    }

    /// The same history as [`Chain::history`], each Content's parts borrowed from the
    /// session: for the answers that only look at the parts.
    pub fn history_borrowed<'s>(&self, s: &'s Session) -> Vec<Borrowed<'s>> {
        self.history_of(s, &self.walked)
    }

    /// The same history, each part as the request's passes read it ([`Part`]), its strings
    /// borrowed from the session; the one reading of a session whose messages
    /// [`crate::lite`] typed ([`Rec::typed`]), which the others see no message in.
    pub fn history_parts<'s>(&self, s: &'s Session) -> Vec<PartsContent<'s>> {
        self.history_of(s, &self.walked)
    }

    fn history_of<'s, C: Contents<'s>>(&self, s: &'s Session, walked: &[usize]) -> Vec<C> {
        let mut history: Vec<C> = Vec::new();
        let mut last_material: Option<usize> = None;
        for &i in walked {
            let r = &s.records[i];
            if r.ty() == "system" {
                match r.subtype() {
                    Some("slash_command") => {
                        if slash_reply_only(r, last_material.map(|j| &s.records[j])) {
                            history.pop();
                        }
                        if last_material.is_some_and(|j| s.records[j].ty() == "user") {
                            last_material = None;
                        }
                        continue;
                    }
                    Some("chat_compression") => {
                        if let Some(h) = compressed_history(r) {
                            history = h
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(|v| C::compressed(i, v))
                                .collect();
                            last_material = None;
                        }
                        continue;
                    }
                    Some("goal_turn_end") => continue,
                    _ => {}
                }
            }
            if r.subtype() == Some("realtime_message") {
                continue;
            }
            let Some(mut message) = self.message_of::<C>(s, i) else {
                continue;
            };
            message.set_from(i);
            append(&mut history, r, message);
            last_material = Some(i);
        }
        history
    }
}

/// A Content of the history as one reading holds it: owned ([`Content`], what the request's
/// passes change) or borrowed ([`Borrowed`], what an answer only looks at).
trait Contents<'s>: Sized {
    /// The message of the walked record `r`, its first fragment; `None` where it has none.
    fn first(r: &'s Rec) -> Option<Self>;
    /// The message of `r`, a later fragment, its parts joined to these.
    fn join(&mut self, r: &'s Rec);
    /// A Content `v` of the compressed history of the compaction at `from`.
    fn compressed(from: usize, v: &'s Value) -> Self;
    /// The record it comes from.
    fn set_from(&mut self, from: usize);
    /// Whether its role is the user's.
    fn is_user(&self) -> bool;
    /// A later Content's parts joined to these.
    fn extend(&mut self, later: Self);
}

impl<'s> Contents<'s> for Content {
    fn first(r: &'s Rec) -> Option<Self> {
        let m = r.message()?;
        let mut v = json!({});
        if let Some(role) = m.get("role").filter(|r| r.is_string()) {
            v["role"] = role.clone();
        }
        if let Some(p) = m.get("parts").and_then(Value::as_array) {
            v["parts"] = Value::Array(p.clone());
        }
        Some(Content { from: 0, value: v })
    }
    fn join(&mut self, r: &'s Rec) {
        let Some(m) = r.message() else { return };
        let more = m.get("parts").and_then(Value::as_array).cloned().unwrap_or_default();
        add_parts(&mut self.value, more);
    }
    fn compressed(from: usize, v: &'s Value) -> Self {
        Content { from, value: v.clone() }
    }
    fn set_from(&mut self, from: usize) {
        self.from = from;
    }
    fn is_user(&self) -> bool {
        self.value.get("role").and_then(Value::as_str) == Some("user")
    }
    fn extend(&mut self, later: Self) {
        let more = match later.value {
            Value::Object(mut o) => match o.swap_remove("parts") {
                Some(Value::Array(p)) => p,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        add_parts(&mut self.value, more);
    }
}

/// `more` after the parts of the Content `value` (which become an array when they are not one).
fn add_parts(value: &mut Value, more: Vec<Value>) {
    match value.get_mut("parts") {
        Some(Value::Array(p)) => p.extend(more),
        _ => value["parts"] = Value::Array(more),
    }
}

/// A Content of the history borrowed from the session: the record it comes from, its role
/// and its parts, as [`Content`] holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Borrowed<'s> {
    /// The index of the record it comes from (for a compressed history, the compaction's).
    pub from: usize,
    /// Its role, where it is a string.
    pub role: Option<&'s str>,
    /// Its parts, in order.
    pub parts: Vec<&'s Value>,
}

impl<'s> Borrowed<'s> {
    /// The Content from the record at `from` with this `role` and these `parts`.
    fn of(from: usize, role: Option<&'s Value>, parts: Option<&'s Value>) -> Self {
        Borrowed {
            from,
            role: role.and_then(Value::as_str),
            parts: parts_of(parts).collect(),
        }
    }
}

/// The parts of a message or Content: its `parts` where they are an array.
fn parts_of(parts: Option<&Value>) -> impl Iterator<Item = &Value> {
    parts.and_then(Value::as_array).into_iter().flatten()
}

impl<'s> Contents<'s> for Borrowed<'s> {
    fn first(r: &'s Rec) -> Option<Self> {
        let m = r.message()?;
        Some(Borrowed::of(0, m.get("role"), m.get("parts")))
    }
    fn join(&mut self, r: &'s Rec) {
        if let Some(m) = r.message() {
            self.parts.extend(parts_of(m.get("parts")));
        }
    }
    fn compressed(from: usize, v: &'s Value) -> Self {
        Borrowed::of(from, v.get("role"), v.get("parts"))
    }
    fn set_from(&mut self, from: usize) {
        self.from = from;
    }
    fn is_user(&self) -> bool {
        self.role == Some("user")
    }
    fn extend(&mut self, later: Self) {
        self.parts.extend(later.parts);
    }
}

/// A Content of the history as the request's passes read it: the record it comes from, its
/// role and its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct PartsContent<'s> {
    /// The index of the record it comes from (for a compressed history, the compaction's).
    pub from: usize,
    /// Its role, where it is a string.
    pub role: Option<&'s str>,
    /// Its parts, in order.
    pub parts: Vec<Part<'s>>,
}

impl<'s> Contents<'s> for PartsContent<'s> {
    fn first(r: &'s Rec) -> Option<Self> {
        let (role, parts) = r.message_parts()?;
        Some(PartsContent { from: 0, role, parts })
    }
    fn join(&mut self, r: &'s Rec) {
        if let Some((_, parts)) = r.message_parts() {
            self.parts.extend(parts);
        }
    }
    fn compressed(from: usize, v: &'s Value) -> Self {
        PartsContent {
            from,
            role: v.get("role").and_then(Value::as_str),
            parts: parts_of(v.get("parts")).map(Part::of).collect(),
        }
    }
    fn set_from(&mut self, from: usize) {
        self.from = from;
    }
    fn is_user(&self) -> bool {
        self.role == Some("user")
    }
    fn extend(&mut self, later: Self) {
        self.parts.extend(later.parts);
    }
}

/// `appendApiHistoryRecord`: a message after the turn's tool results (`mid_turn_user_message`)
/// joins the user Content before it.
fn append<'s, C: Contents<'s>>(history: &mut Vec<C>, r: &Rec, message: C) {
    if r.subtype() == Some("mid_turn_user_message")
        && let Some(prev) = history.last_mut()
        && prev.is_user()
    {
        prev.extend(message);
        return;
    }
    history.push(message);
}

/// The `compressedHistory` of a `chat_compression` record, when it has one the client takes.
pub fn compressed_history(r: &Rec) -> Option<&Value> {
    if !r.is_system("chat_compression") {
        return None;
    }
    r.value
        .get("systemPayload")?
        .get("compressedHistory")
        .filter(|h| truthy(h))
}

/// Whether a slash command's result record takes back the prompt that ran it: a command whose
/// reply only the user saw, typed as the record before it.
fn slash_reply_only(r: &Rec, previous: Option<&Rec>) -> bool {
    let Some(p) = r.value.get("systemPayload") else {
        return false;
    };
    let items = p.get("outputHistoryItems").and_then(Value::as_array);
    let only_replies = items.is_some_and(|a| {
        !a.is_empty()
            && a.iter()
                .all(|x| x.get("type").and_then(Value::as_str) == Some("assistant"))
    });
    let Some(prev) = previous else { return false };
    let Some((role, parts)) = prev.message_parts() else {
        return false;
    };
    let command = p.get("rawCommand").and_then(Value::as_str);
    p.get("phase").and_then(Value::as_str) == Some("result")
        && p.get("sentToModel") != Some(&Value::Bool(true))
        && only_replies
        && prev.ty() == "user"
        && prev.subtype().is_none()
        && role == Some("user")
        && parts.len() == 1
        && parts[0].shape == crate::api::part::Shape::Object
        && parts[0].keys == 1
        && matches!(&parts[0].text, Text::Str(t) if Some(t.as_ref()) == command)
}

/// JavaScript's truthiness of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}
