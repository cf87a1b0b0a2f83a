//! A Gemini CLI chat as `scan`, `doctor` and `extract-summary` read it. Each message keeps
//! what they answer from (its type, time, model, whether a resume sends it, the text of a
//! prompt) and the turns [`sent::turns_of`] makes of it, each part kept as the length of its
//! JSON and the few fields the request's passes read ([`LitePart`]); the replay and the passes
//! are the full reading's own ([`Replayer`], [`sent::request`]). What the parts hold besides is
//! checked and measured from its text ([`RawLen`], [`RawStr`]), not decoded.
//!
//! Each line is still parsed whole, so the same lines are refused; a file with anything the
//! fast reading does not cover (a line that is not JSON or of no kind, an object naming a key
//! twice, a value [`cctool_core::io::json::measure`] leaves to the full reading, no header) is
//! read whole, by [`crate::file::read`].

use std::borrow::Cow;

use serde_json::Value;

use crate::file::Chat;
use crate::replay::{Message, Replay, Replayer};
use crate::sent::{self, Part, SESSION_CONTEXT, SYNTHETIC_SIGNATURE};
use cctool_core::io::Source;
use cctool_core::io::json::{Uncovered, escaped_len};
use record::{LINE, Rec, RecAt};
use value::{CODE, CODE_RESULT, FILE, INLINE, Obj, Raw, VIDEO, Val};

/// A message, as the answers read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lite {
    ty: Cow<'static, str>,
    timestamp: Option<String>,
    model: Option<String>,
    sends: bool,
    /// The content's text: kept for a user's message and for one of a list, the only ones whose
    /// text is asked (a prompt; a compression's summary).
    text: Option<String>,
    /// What [`sent::turns_of`] makes of it.
    turns: Vec<(&'static str, Vec<LitePart>)>,
    /// Its content as parts, when it is a session context ([`sent::session_context`]).
    context: Option<Vec<LitePart>>,
}

impl Message for Lite {
    fn ty(&self) -> &str {
        &self.ty
    }
    fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }
    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }
    fn sends(&self) -> bool {
        self.sends
    }
    fn text(&self) -> String {
        self.text.clone().unwrap_or_default()
    }
}

/// A part of the request: the length of its JSON, and what the passes read of it when it is an
/// object.
#[derive(Clone, Debug, PartialEq)]
pub struct LitePart {
    len: usize,
    obj: Option<Fields>,
}

/// What the passes read of a part that is an object.
#[derive(Clone, Debug, Default, PartialEq)]
struct Fields {
    keys: usize,
    /// A key other than `text`, `thought` and `callIndex`.
    others: bool,
    /// A truthy `thought`.
    thought: bool,
    /// `text` is the empty string.
    empty_text: bool,
    call: Option<Call>,
    response: Option<Call>,
    /// A `thoughtSignature`.
    signed: bool,
}

/// A part's `functionCall` or `functionResponse`.
#[derive(Clone, Debug, PartialEq)]
struct Call {
    truthy: bool,
    /// When it is an object.
    obj: Option<CallObj>,
}

/// A call (or response) object, as `stripToolCallIdPrefixes` rebuilds it.
#[derive(Clone, Debug, PartialEq)]
struct CallObj {
    /// Its length.
    len: usize,
    /// The length of its `name` member, key included.
    name: Option<usize>,
    /// The length of its `args` (or `response`) member, key included.
    second: Option<usize>,
    /// The length of its id once the tool's prefix is stripped, when it has that prefix.
    stripped_id: Option<usize>,
}

/// The length of a member `"key":value` whose value is `len` long. Every key measured is one
/// of the client's field names or was read without an escape ([`Seen`] leaves any other to the
/// full reading), so it is written as it is: nothing in it needs escaping.
fn member(key: &str, len: usize) -> usize {
    key.len() + 3 + len
}

/// The length of an object of the members of these lengths that are there.
fn object_len(members: &[Option<usize>]) -> usize {
    let there = members.iter().flatten();
    2 + there.clone().sum::<usize>() + there.count().saturating_sub(1)
}

impl LitePart {
    /// `{"text": s}`, `s`'s written length `len`.
    fn text_of_len(len: usize) -> LitePart {
        LitePart {
            len: object_len(&[Some(member("text", len))]),
            obj: Some(Fields {
                keys: 1,
                empty_text: len == 2,
                ..Fields::default()
            }),
        }
    }

    /// A thought the client makes of a message's `thoughts`: always stripped before the request
    /// is measured, so its text and length are never asked.
    fn thought_part() -> LitePart {
        LitePart {
            len: 0,
            obj: Some(Fields {
                keys: 2,
                thought: true,
                ..Fields::default()
            }),
        }
    }

    /// `{"functionCall": call}` or `{"functionResponse": call}`.
    fn call_part(key: &str, call: CallObj) -> LitePart {
        let call = Call {
            truthy: true,
            obj: Some(call),
        };
        let len = object_len(&[Some(member(key, call.obj.as_ref().map_or(0, |c| c.len)))]);
        let mut f = Fields {
            keys: 1,
            others: true,
            ..Fields::default()
        };
        if key == "functionCall" {
            f.call = Some(call);
        } else {
            f.response = Some(call);
        }
        LitePart { len, obj: Some(f) }
    }
}

impl Part for LitePart {
    fn text(s: &str) -> Self {
        LitePart::text_of_len(escaped_len(s))
    }

    fn valid(&self) -> bool {
        self.obj
            .as_ref()
            .is_some_and(|f| f.keys > 0 && (f.thought || !f.empty_text || f.others))
    }

    fn thought(&self) -> bool {
        self.obj.as_ref().is_some_and(|f| f.thought)
    }

    fn answers(&self) -> bool {
        self.obj
            .as_ref()
            .and_then(|f| f.response.as_ref())
            .is_some_and(|r| r.truthy)
    }

    fn sign(&mut self) -> bool {
        let Some(f) = self.obj.as_mut().filter(|f| f.call.is_some()) else {
            return false;
        };
        if !f.signed {
            self.len += 1 + member("thoughtSignature", escaped_len(SYNTHETIC_SIGNATURE));
            f.signed = true;
            f.keys += 1;
            f.others = true;
        }
        true
    }

    fn strip_ids(mut self) -> Option<Self> {
        let f = self.obj.as_mut()?;
        for call in [&mut f.call, &mut f.response] {
            let Some(c) = call.as_mut().and_then(|c| c.obj.as_mut()) else {
                continue;
            };
            let Some(id) = c.stripped_id.take() else { continue };
            let len = object_len(&[c.name, c.second, Some(member("id", id))]);
            self.len = self.len - c.len + len;
            c.len = len;
        }
        if f.empty_text {
            if !f.others {
                return None;
            }
            self.len -= member("text", 2) + 1;
            f.keys -= 1;
            f.empty_text = false;
        }
        Some(self)
    }
}

/// The request's length (its `contents` as JSON, as [`sent::contents`] makes them) after a resume
/// of `r` with an empty prompt.
pub fn resume_len(mut r: Replay<Lite>) -> usize {
    let mut turns: Vec<(&'static str, Vec<LitePart>)> = Vec::new();
    if let Some(ctx) = r.msgs.iter().rev().find_map(|m| m.value.context.clone()) {
        turns.push(("user", ctx));
    }
    for &i in &r.loaded {
        turns.append(&mut r.msgs[i].value.turns);
    }
    sent::request(turns, "")
        .iter()
        .map(|(role, parts)| {
            let inner = parts.iter().map(|p| p.len).sum::<usize>() + parts.len().saturating_sub(1);
            object_len(&[
                Some(member("parts", 2 + inner)),
                Some(member("role", escaped_len(role))),
            ])
        })
        .sum()
}

/// A chat, read fast where it can be, else whole.
pub enum Reading {
    /// Read fast.
    Fast(Chat, Replay<Lite>),
    /// Read whole, by [`crate::file::read`].
    Full(Chat, Replay),
}

/// Reads `src` as the answers read it; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Reading> {
    if let Some((c, r)) = read_fast(src)? {
        return Ok(Reading::Fast(c, r));
    }
    let mut c = crate::file::read(src)?;
    let r = crate::replay::replay(&mut c);
    Ok(Reading::Full(c, r))
}

/// The fast reading, or `None` where the file holds what only the full reading reads right.
/// Its [`Chat`] holds no lines, only their count: every line was read.
pub fn read_fast(src: &Source) -> std::io::Result<Option<(Chat, Replay<Lite>)>> {
    let mut rp = Replayer::default();
    let (mut whole, mut header) = (false, false);
    let stats = cctool_core::io::for_each_line(src, |l| {
        if whole || l.bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(rec) = serde_json::from_slice::<RecAt<'_, LINE>>(l.bytes) else {
            whole = true;
            return;
        };
        match replay_line(&mut rp, rec.0, l.no, l.offset) {
            Ok(is_header) => header |= is_header,
            Err(Uncovered) => whole = true,
        }
    })?;
    if whole || !header {
        return Ok(None);
    }
    let c = Chat {
        physical: stats.lines,
        ..Chat::default()
    };
    Ok(Some((c, rp.finish())))
}

/// Feeds one line to the replay, as [`crate::replay::replay`] does; whether it is a header.
fn replay_line(rp: &mut Replayer<Lite>, mut rec: Rec<'_>, line: u64, offset: u64) -> Result<bool, Uncovered> {
    // The client's order of tests (`crate::file::kind_of`).
    if let Some(id) = &rec.rewind_to {
        rp.rewind(line, id);
        return Ok(false);
    }
    if rec.id.is_some() {
        let (id, m) = lite(rec, false).ok_or(Uncovered)?;
        rp.message(line, offset, id, m, false);
        return Ok(false);
    }
    if let Some(set) = rec.set.take() {
        if let Some(list) = set.messages {
            rp.snapshot(line, offset, list.into_iter().filter_map(|m| lite(m.0?, true)));
        }
        rp.meta(set.meta);
        return Ok(false);
    }
    if rec.session_id.as_ref().is_some_and(Value::is_string) && rec.project_hash {
        rp.header();
        rp.meta(std::mem::take(&mut rec.meta));
        for m in rec.messages.take().into_iter().flatten() {
            if let Some((id, m)) = m.0.and_then(|m| lite(m, true)) {
                rp.message(line, offset, id, m, true);
            }
        }
        return Ok(true);
    }
    // A record of no kind: the full reading reports it.
    Err(Uncovered)
}

/// What is kept of a message record, with its id; `None` when it has no string id. `listed`:
/// it is one of a `$set`'s or header's `messages`.
fn lite(rec: Rec<'_>, listed: bool) -> Option<(String, Lite)> {
    let id = rec.id?.into_owned();
    let own = |s: Option<Cow<'_, str>>| s.map(Cow::into_owned);
    let mut m = Lite {
        ty: match rec.ty.as_deref().unwrap_or("") {
            "user" => Cow::Borrowed("user"),
            "gemini" => Cow::Borrowed("gemini"),
            "" => Cow::Borrowed(""),
            other => Cow::Owned(other.to_string()),
        },
        timestamp: own(rec.timestamp),
        model: own(rec.model),
        ..Lite::default()
    };
    let content = rec.content.as_ref();
    match m.ty.as_ref() {
        "user" => {
            let text = text_of(content);
            m.sends = !sent::ignored(&text);
            if m.sends {
                m.turns = vec![("user", parts_of(content))];
            }
            if text.trim().starts_with(SESSION_CONTEXT) {
                m.context = Some(parts_of(content));
            }
            m.text = Some(text);
        }
        "gemini" => {
            let calls = rec.tool_calls.as_deref().unwrap_or(&[]);
            let content_n = match content.filter(|c| c.truthy()) {
                Some(Val::Arr(a, _)) => a.len(),
                Some(_) => 1,
                None => 0,
            };
            m.sends = content_n + rec.thoughts.unwrap_or(0) + calls.len() > 0;
            m.turns = gemini_turns(content, rec.thoughts.unwrap_or(0), calls);
        }
        _ => {}
    }
    if listed && m.text.is_none() {
        m.text = Some(text_of(content));
    }
    Some((id, m))
}

/// [`sent::turns_of`] of a `gemini` message (GM3).
fn gemini_turns(content: Option<&Val<'_>>, thoughts: usize, calls: &[Val<'_>]) -> Vec<(&'static str, Vec<LitePart>)> {
    let content_parts = match content.filter(|c| c.truthy()) {
        Some(c) => parts_of(Some(c)),
        None => Vec::new(),
    };
    let in_content = content_parts.iter().any(|p| {
        p.obj
            .as_ref()
            .is_some_and(|f| f.thought || f.call.as_ref().is_some_and(|c| c.truthy))
    });
    let model = if in_content {
        content_parts
    } else {
        let mut model: Vec<LitePart> = (0..thoughts).map(|_| LitePart::thought_part()).collect();
        model.extend(content_parts);
        model.extend(calls.iter().map(|c| {
            let o = c.obj();
            let len = |r: Option<&Raw<'_>>| r.map(|r| r.len);
            let (id, name, args) = (
                o.and_then(|o| o.id.as_ref()),
                o.and_then(|o| o.name.as_ref()),
                o.and_then(|o| o.args),
            );
            LitePart::call_part(
                "functionCall",
                CallObj {
                    len: object_len(&[
                        len(id).map(|n| member("id", n)),
                        len(name).map(|n| member("name", n)),
                        args.map(|n| member("args", n)),
                    ]),
                    name: len(name).map(|n| member("name", n)),
                    second: args.map(|n| member("args", n)),
                    stripped_id: stripped_id(name, id),
                },
            )
        }));
        model
    };
    sent::model_turns(model, || calls.iter().flat_map(response_parts).collect())
}

/// The function responses the client makes of one stored call's `result`.
fn response_parts(c: &Val<'_>) -> Vec<LitePart> {
    let Some(o) = c.obj() else { return Vec::new() };
    match o.result.as_deref() {
        None => Vec::new(),
        Some(r) if !r.truthy() => Vec::new(),
        Some(Val::Str(_, len)) => {
            let response = object_len(&[Some(member("output", *len))]);
            let len = |r: Option<&Raw<'_>>| r.map(|r| r.len);
            let (id, name) = (o.id.as_ref(), o.name.as_ref());
            vec![LitePart::call_part(
                "functionResponse",
                CallObj {
                    len: object_len(&[
                        len(id).map(|n| member("id", n)),
                        len(name).map(|n| member("name", n)),
                        Some(member("response", response)),
                    ]),
                    name: len(name).map(|n| member("name", n)),
                    second: Some(member("response", response)),
                    stripped_id: stripped_id(name, id),
                },
            )]
        }
        Some(r @ Val::Arr(..)) => parts_of(Some(r)),
        Some(other) => vec![part_of(other)],
    }
}

/// The length of a call's id once `stripToolCallIdPrefixes` strips its tool's prefix, when it
/// has it.
fn stripped_id(name: Option<&Raw<'_>>, id: Option<&Raw<'_>>) -> Option<usize> {
    let id = id?.str()?;
    let name = name.and_then(Raw::str);
    id.strip_prefix(&sent::call_prefix(name.as_deref())).map(escaped_len)
}

/// A content as parts (`ensurePartArray`); an absent one is `null`.
fn parts_of(content: Option<&Val<'_>>) -> Vec<LitePart> {
    match content {
        Some(Val::Arr(a, _)) => a
            .iter()
            .map(|p| match p {
                Val::Str(_, len) => LitePart::text_of_len(*len),
                other => part_of(other),
            })
            .collect(),
        Some(Val::Str(_, len)) => vec![LitePart::text_of_len(*len)],
        Some(other) => vec![part_of(other)],
        None => vec![LitePart { len: 4, obj: None }],
    }
}

/// A value as a part, as it is.
fn part_of(v: &Val<'_>) -> LitePart {
    let Val::Obj(o) = v else {
        return LitePart {
            len: v.len(),
            obj: None,
        };
    };
    // `stripToolCallIdPrefixes` keeps a call's `args`, a response's `response`.
    let call = |c: &Option<Box<Val<'_>>>, second: &str| {
        c.as_deref().map(|c| Call {
            truthy: c.truthy(),
            obj: c.obj().map(|f| CallObj {
                len: f.len,
                name: f.name.as_ref().map(|n| member("name", n.len)),
                second: if second == "args" { f.args } else { f.response_len }.map(|n| member(second, n)),
                stripped_id: stripped_id(f.name.as_ref(), f.id.as_ref()),
            }),
        })
    };
    LitePart {
        len: o.len,
        obj: Some(Fields {
            keys: o.keys,
            others: o.others,
            thought: o.thought.as_ref().is_some_and(Raw::truthy),
            empty_text: o.text.as_ref().is_some_and(|t| t.text == "\"\""),
            call: call(&o.call, "args"),
            response: call(&o.response, "response"),
            signed: o.signed,
        }),
    }
}

/// A content read into a string (`partListUnionToString`), as [`sent::text_of`].
fn text_of(content: Option<&Val<'_>>) -> String {
    let mut out = String::new();
    push_text(content, &mut out);
    out
}

fn push_text(content: Option<&Val<'_>>, out: &mut String) {
    match content {
        Some(Val::Str(s, _)) => out.push_str(s),
        Some(Val::Arr(parts, _)) => parts.iter().for_each(|p| push_text(Some(p), out)),
        Some(Val::Obj(o)) => push_part_text(o, out),
        _ => {}
    }
}

/// One part read into a string, as the client does (`sent::text_of`'s part).
fn push_part_text<'a>(p: &Obj<'a>, out: &mut String) {
    let name = |c: &Option<Box<Val<'a>>>| -> Cow<'a, str> {
        c.as_deref()
            .and_then(Val::obj)
            .and_then(|o| o.name.as_ref()?.str())
            .unwrap_or(Cow::Borrowed("undefined"))
    };
    let has = |c: &Option<Box<Val<'_>>>| c.as_deref().is_some_and(|c| !c.is_null());
    let mut labelled = |label: &str, name: &str| {
        out.push_str(label);
        out.push_str(name);
        out.push(']');
    };
    if p.media & VIDEO != 0 {
        out.push_str("[Video Metadata]");
    } else if let Some(t) = p.thought.as_ref().filter(|t| t.text != "null") {
        let t = match t.str() {
            Some(s) => s.into_owned(),
            None => serde_json::from_str::<Value>(t.text)
                .map(|v| v.to_string())
                .unwrap_or_default(),
        };
        labelled("[Thought: ", &t);
    } else if p.media & CODE_RESULT != 0 {
        out.push_str("[Code Execution Result]");
    } else if p.media & CODE != 0 {
        out.push_str("[Executable Code]");
    } else if p.media & FILE != 0 {
        out.push_str("[File Data]");
    } else if has(&p.call) {
        labelled("[Function Call: ", &name(&p.call));
    } else if has(&p.response) {
        labelled("[Function Response: ", &name(&p.response));
    } else if p.media & INLINE != 0 {
        out.push_str("[Media]");
    } else if let Some(t) = p.text.as_ref().and_then(Raw::str) {
        out.push_str(&t);
    }
}

mod record;
mod value;

#[cfg(test)]
mod tests;
