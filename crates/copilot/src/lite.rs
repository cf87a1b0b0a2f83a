//! A Copilot CLI session as `scan`, `doctor` and `extract-summary` read it: each event's place,
//! links and size, and only the few fields of its `data` they ask for. A line is still parsed
//! whole, as [`file::read`] parses it (so the same lines are refused), but nothing else of it
//! is built; the events whose `data` is read at length (a start, a resume, a compaction) and
//! every line that is no plain event are read by [`file::read`]'s own code.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::file::{self, Event, NulRun, Unread, Workspace};
use cctool_core::io::Source;
use cctool_core::io::json::{CheckedStr, IfArray, IfObject, Key, RawChecked, RawStr};
use cctool_core::model::diag::Code;

/// One event, as the answers read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lite {
    /// 1-based line.
    pub line: u64,
    /// The bytes of the line (NUL bytes around it taken off).
    pub len: usize,
    /// Its `type`.
    pub ty: String,
    /// Its `id`.
    pub id: Option<String>,
    /// Its `parentId`.
    pub parent: Option<String>,
    /// Its `timestamp`, as written.
    pub time: Option<String>,
    /// The whole `data` of a start, a resume or a compaction; `None` for any other event.
    pub data: Option<Value>,
    /// `data.copilotVersion`.
    pub version: Option<String>,
    /// The model it names: an assistant message's `data.model`, a model change's
    /// `data.newModel`.
    pub model: Option<String>,
    /// A user message's `data.content`.
    pub content: Option<String>,
    /// A tool result's `data.toolCallId`.
    pub tool_call_id: Option<String>,
    /// An assistant message's calls: the `toolCallId` of each of `data.toolRequests`.
    pub calls: Vec<String>,
}

/// The event types whose whole `data` the answers read.
fn kept_whole(ty: &str) -> bool {
    matches!(ty, "session.start" | "session.resume" | "session.compaction_complete")
}

impl Lite {
    /// What the answers read of an event read whole.
    pub fn of(e: &Event) -> Lite {
        let ty = e.ty.as_str();
        let s = |k: &str| e.s(k).map(str::to_string);
        Lite {
            line: e.line,
            len: e.raw.len(),
            ty: e.ty.clone(),
            id: e.id.clone(),
            parent: e.parent.clone(),
            time: e.time.clone(),
            data: kept_whole(ty).then(|| e.data.clone()),
            version: s("copilotVersion"),
            model: match ty {
                "assistant.message" => s("model"),
                "session.model_change" => s("newModel"),
                _ => None,
            },
            content: (ty == "user.message").then(|| s("content")).flatten(),
            tool_call_id: (ty == "tool.execution_complete").then(|| s("toolCallId")).flatten(),
            calls: match (ty, e.data.get("toolRequests").and_then(Value::as_array)) {
                ("assistant.message", Some(reqs)) => reqs
                    .iter()
                    .filter_map(|r| r.get("toolCallId").and_then(Value::as_str).map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            },
        }
    }

    /// A string of its whole `data`.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.data.as_ref()?.get(key).and_then(Value::as_str)
    }

    /// A member of its whole `data`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.data.as_ref()?.get(key)
    }

    /// Whether it is a compaction the client finished, as [`Event::is_compaction`].
    pub fn is_compaction(&self) -> bool {
        self.ty == "session.compaction_complete" && self.get("success").and_then(Value::as_bool) != Some(false)
    }
}

/// A Copilot CLI session as the answers read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its events, in file order.
    pub events: Vec<Lite>,
    /// The lines that are no event.
    pub unread: Vec<Unread>,
    /// The NUL bytes found, by line.
    pub nuls: Vec<NulRun>,
    /// Physical lines, blank ones included.
    pub lines: u64,
    /// What `workspace.yaml` beside the file says.
    pub workspace: Workspace,
}

impl Session {
    /// What the answers read of a session read whole.
    pub fn of(s: &file::Session) -> Session {
        Session {
            events: s.events.iter().map(Lite::of).collect(),
            unread: s.unread.clone(),
            nuls: s.nuls.clone(),
            lines: s.lines,
            workspace: s.workspace.clone(),
        }
    }

    /// The index of the last compaction a resume starts from, if any.
    pub fn last_compaction(&self) -> Option<usize> {
        self.events.iter().rposition(Lite::is_compaction)
    }

    /// The session id (`session.start`'s `sessionId`).
    pub fn session_id(&self) -> Option<&str> {
        self.events
            .iter()
            .filter(|e| e.ty == "session.start" || e.ty == "session.resume")
            .find_map(|e| e.s("sessionId"))
    }

    /// The folder it ran in: `workspace.yaml`'s, else the last start or resume event's.
    pub fn cwd(&self) -> Option<&str> {
        self.workspace.cwd.as_deref().or_else(|| {
            self.events
                .iter()
                .rev()
                .filter(|e| e.ty == "session.start" || e.ty == "session.resume")
                .find_map(|e| e.get("context")?.get("cwd")?.as_str())
        })
    }

    /// The client versions that wrote it, in order, each once.
    pub fn versions(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in self.events.iter().filter_map(|e| e.version.as_deref()) {
            if !out.iter().any(|o| o == v) {
                out.push(v.to_string());
            }
        }
        out
    }

    /// The parent links that name no earlier event, as [`file::Session::broken_links`].
    pub fn broken_links(&self) -> Vec<(u64, &str)> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for e in self.events.iter().filter(|e| !e.ty.starts_with("model.")) {
            if let Some(p) = e.parent.as_deref().filter(|p| !seen.contains(p)) {
                out.push((e.line, p));
            }
            if let Some(id) = e.id.as_deref() {
                seen.insert(id);
            }
        }
        out
    }

    /// The lines that could not be read at all (not JSON, not an object).
    pub fn bad_lines(&self) -> u64 {
        self.unread
            .iter()
            .filter(|u| u.why.code != Code::UnknownRecordType)
            .count() as u64
    }
}

/// Reads `src` as the answers read it: the same session as [`Session::of`] of [`file::read`];
/// only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    let mut s = Session::default();
    let stats = cctool_core::io::for_each_line(src, |l| {
        let (bytes, nul) = file::strip_nuls(l.bytes);
        if nul > 0 {
            s.nuls.push(NulRun {
                line: l.no,
                bytes: nul,
                before_event: false,
            });
        }
        if bytes.is_empty() {
            return;
        }
        let event = match serde_json::from_slice::<Line<'_>>(bytes) {
            Ok(Line { ty: Some(ty), .. }) if kept_whole(&ty) => None,
            Ok(line @ Line { ty: Some(_), .. }) => Some(line.lite(l.no, bytes.len())),
            _ => None,
        };
        let event = match event {
            Some(e) => e,
            None => match file::event_of(l.no, l.offset, l.bytes, bytes, l.terminated) {
                Ok(e) => Lite::of(&e),
                Err(u) => return s.unread.push(u),
            },
        };
        if let Some(n) = s.nuls.last_mut().filter(|n| n.line == l.no) {
            n.before_event = true;
        }
        s.events.push(event);
    })?;
    s.lines = stats.lines;
    s.workspace = file::workspace_beside(Path::new(src.name()));
    Ok(s)
}

/// A line's top-level members, the later of a key written twice winning, as in a `Map`.
#[derive(Default)]
struct Line<'a> {
    ty: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    parent: Option<Cow<'a, str>>,
    time: Option<Cow<'a, str>>,
    data: Data<'a>,
}

impl Line<'_> {
    fn lite(self, line: u64, len: usize) -> Lite {
        let ty = self.ty.unwrap_or_default().into_owned();
        let d = self.data;
        let own = |c: Option<Cow<'_, str>>| c.map(Cow::into_owned);
        Lite {
            line,
            len,
            id: own(self.id),
            parent: own(self.parent),
            time: own(self.time),
            data: None,
            version: own(d.version),
            model: match ty.as_str() {
                "assistant.message" => own(d.model),
                "session.model_change" => own(d.new_model),
                _ => None,
            },
            content: (ty == "user.message")
                .then(|| own(d.content.and_then(|c| c.str())))
                .flatten(),
            tool_call_id: (ty == "tool.execution_complete").then(|| own(d.tool_call_id)).flatten(),
            calls: match (ty.as_str(), d.calls) {
                ("assistant.message", Some(calls)) => calls.into_iter().flatten().map(Cow::into_owned).collect(),
                _ => Vec::new(),
            },
            ty,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Line<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Line<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Line<'a>, A::Error> {
                let mut l = Line::default();
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    match k.0.as_ref() {
                        "type" => l.ty = a.next_value::<CheckedStr<'de>>()?.0,
                        "id" => l.id = a.next_value::<CheckedStr<'de>>()?.0,
                        "parentId" => l.parent = a.next_value::<CheckedStr<'de>>()?.0,
                        "timestamp" => l.time = a.next_value::<CheckedStr<'de>>()?.0,
                        "data" => l.data = a.next_value::<IfObject<Data<'de>>>()?.0.unwrap_or_default(),
                        _ => {
                            a.next_value::<RawChecked>()?;
                        }
                    }
                }
                Ok(l)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// The members of `data` the answers read.
#[derive(Default)]
struct Data<'a> {
    version: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    new_model: Option<Cow<'a, str>>,
    /// Decoded only for a user's message.
    content: Option<RawStr<'a>>,
    tool_call_id: Option<Cow<'a, str>>,
    /// `toolRequests` when it is an array: each request's `toolCallId` if it is a string.
    calls: Option<Vec<Option<Cow<'a, str>>>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Data<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Data<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Data<'a>, A::Error> {
                let mut d = Data::default();
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    match k.0.as_ref() {
                        "copilotVersion" => d.version = a.next_value::<CheckedStr<'de>>()?.0,
                        "model" => d.model = a.next_value::<CheckedStr<'de>>()?.0,
                        "newModel" => d.new_model = a.next_value::<CheckedStr<'de>>()?.0,
                        "content" => d.content = Some(a.next_value::<RawStr<'de>>()?),
                        "toolCallId" => d.tool_call_id = a.next_value::<CheckedStr<'de>>()?.0,
                        "toolRequests" => {
                            let reqs = a.next_value::<IfArray<Vec<IfObject<Request<'de>>>>>()?.0;
                            d.calls = reqs.map(|r| r.into_iter().map(|r| r.0.and_then(|r| r.0)).collect());
                        }
                        _ => {
                            a.next_value::<RawChecked>()?;
                        }
                    }
                }
                Ok(d)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// One of `toolRequests` that is an object: its `toolCallId` if it is a string.
struct Request<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Request<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Request<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Request<'a>, A::Error> {
                let mut id = None;
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    if k.0 == "toolCallId" {
                        id = a.next_value::<CheckedStr<'de>>()?.0;
                    } else {
                        a.next_value::<RawChecked>()?;
                    }
                }
                Ok(Request(id))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests;
