//! A streaming v1/v2 → v5 migration for large files.
//!
//! The general path builds a JSON tree of the whole document, converts it and serialises it
//! again: on a 100 MB session that is mostly allocation. Here every string is kept as the
//! token written in the file (a borrowed `RawValue`), only the few values the steps decide on
//! are decoded, and the v5 document is written directly, in the same layout serde_json's
//! pretty printer gives. Anything unusual (a null, a repeated key, a value of an unexpected
//! type, an escape serde would write differently) makes it decline, and the general path —
//! which also explains every error with its JSON path — takes the file. A property test checks
//! that both paths write the same bytes.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{parse_arguments, rfc3339_seconds};
use crate::io::json::Key;

/// A string token as written, with what the one scan of it found: how many escapes it has
/// when serde would write it back unchanged, `None` when it must be decoded and encoded again.
#[derive(Clone, Copy)]
struct Str<'a> {
    raw: &'a RawValue,
    plain_escapes: Option<usize>,
}

struct Call<'a> {
    id: Str<'a>,
    name: Str<'a>,
    arguments: Str<'a>,
    extra: Vec<(String, &'a RawValue)>,
}

struct Message<'a> {
    role: Str<'a>,
    content: Option<Str<'a>>,
    thinking: Option<Str<'a>>,
    tool_call_id: Option<Str<'a>>,
    ts: Option<i64>,
    tool_calls: Vec<Call<'a>>,
    extra: Vec<(String, &'a RawValue)>,
}

/// A v1 or v2 document, every string as written.
pub struct Doc<'a> {
    version: u32,
    id: Option<&'a RawValue>,
    created_at: Option<Str<'a>>,
    messages: Vec<Message<'a>>,
    extra: Vec<(String, &'a RawValue)>,
}

/// A string token that serde would write back unchanged (no `\u` or `\/` escapes).
fn plain_string(r: &RawValue) -> bool {
    plain_escapes(r).is_some()
}

/// For a string token serde would write back unchanged, how many escapes it has; `None` for
/// any other token. One pass, so large strings are scanned once.
fn plain_escapes(r: &RawValue) -> Option<usize> {
    let b = r.get().as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut n = 0;
    for e in escapes(b) {
        if matches!(e, b'u' | b'/') {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// The character after each escaping backslash of a JSON string token, found with SIMD
/// `memchr` (an escaped backslash is skipped with its escape).
fn escapes(b: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let i = at + memchr::memchr(b'\\', b.get(at..)?)?;
        at = i + 2;
        b.get(i + 1).copied()
    })
}

fn decline<E: serde::de::Error>() -> E {
    E::custom("not for the fast path")
}

/// Reads an object's entries; a key seen twice declines (the tree keeps the last).
fn entries<'de, A: MapAccess<'de>>(mut a: A) -> Result<Vec<(Key<'de>, &'de RawValue)>, A::Error> {
    let mut out: Vec<(Key<'de>, &'de RawValue)> = Vec::new();
    while let Some(k) = a.next_key::<Key<'de>>()? {
        if out.iter().any(|(x, _)| x.as_ref() == k.as_ref()) {
            return Err(decline());
        }
        let v = a.next_value::<&'de RawValue>()?;
        out.push((k, v));
    }
    Ok(out)
}

/// A string field, scanned once. A string serde cannot decode (a lone surrogate escape, which
/// the raw scanner lets through) declines: the general path rejects the file.
fn string_field<E: serde::de::Error>(v: &RawValue) -> Result<Str<'_>, E> {
    if !v.get().starts_with('"') {
        return Err(decline());
    }
    let plain_escapes = plain_escapes(v);
    if plain_escapes.is_none() && serde_json::from_str::<String>(v.get()).is_err() {
        return Err(decline());
    }
    Ok(Str { raw: v, plain_escapes })
}

/// An unknown field, kept as written. It declines when it is named like a field v5 writes at
/// the same level (`written`: the general path lets the new field replace it) or holds a value
/// serde cannot decode (a lone surrogate, a number out of range).
fn extra_field<'a, E: serde::de::Error>(
    key: &str,
    v: &'a RawValue,
    written: &[&str],
) -> Result<(String, &'a RawValue), E> {
    if written.contains(&key) || !decodable(v) {
        return Err(decline());
    }
    Ok((key.to_string(), v))
}

/// Whether serde can read the token (the raw scanner lets a lone surrogate or `1e600` through).
fn decodable(v: &RawValue) -> bool {
    !is_structured(v) || serde_json::from_str::<Value>(v.get()).is_ok()
}

/// A string token as serde writes it: as written when that is the same, else decoded and
/// encoded again (`\u00e9` becomes `é`, `\/` becomes `/`).
fn token(v: Str<'_>) -> Cow<'_, str> {
    token_and_len(v).0
}

/// [`token`], and the UTF-8 length of the string it decodes to.
fn token_and_len(v: Str<'_>) -> (Cow<'_, str>, u64) {
    let raw = v.raw.get();
    if let Some(escapes) = v.plain_escapes {
        // Without `\u`, every escape is two bytes for one.
        return (Cow::Borrowed(raw), (raw.len() - 2 - escapes) as u64);
    }
    // `string_field` checked that it decodes.
    let decoded: String = serde_json::from_str(raw).unwrap_or_default();
    let len = decoded.len() as u64;
    (Cow::Owned(serde_json::to_string(&decoded).unwrap_or_default()), len)
}

impl<'de> Deserialize<'de> for Message<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a v1 message")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Message<'de>, A::Error> {
                let (mut role, mut content, mut thinking, mut tool_call_id, mut ts) = (None, None, None, None, None);
                let (mut tool_calls, mut extra) = (Vec::new(), Vec::new());
                for (k, v) in entries(a)? {
                    match k.as_ref() {
                        "role" => role = Some(string_field(v)?),
                        "content" => content = Some(string_field(v)?),
                        "thinking" => thinking = Some(string_field(v)?),
                        "tool_call_id" => tool_call_id = Some(string_field(v)?),
                        "ts" => ts = Some(serde_json::from_str::<i64>(v.get()).map_err(|_| decline::<A::Error>())?),
                        "tool_calls" => {
                            tool_calls = serde_json::from_str::<CallList<'de>>(v.get())
                                .map_err(|_| decline::<A::Error>())?
                                .0;
                        }
                        key => extra.push(extra_field(key, v, &["items", "id", "timestamp"])?),
                    }
                }
                let role = role.ok_or_else(decline)?;
                if token(role) == "\"tool\"" && tool_call_id.is_none() {
                    return Err(decline());
                }
                Ok(Message {
                    role,
                    content,
                    thinking,
                    tool_call_id,
                    ts,
                    tool_calls,
                    extra,
                })
            }
        }
        d.deserialize_map(V)
    }
}

struct CallList<'a>(Vec<Call<'a>>);

impl<'de> Deserialize<'de> for CallList<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallList<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tool calls")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<CallList<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(c) = a.next_element::<CallMap<'de>>()? {
                    out.push(c.0);
                }
                Ok(CallList(out))
            }
        }
        d.deserialize_seq(V)
    }
}

struct CallMap<'a>(Call<'a>);

impl<'de> Deserialize<'de> for CallMap<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallMap<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<CallMap<'de>, A::Error> {
                let (mut id, mut name, mut arguments, mut extra) = (None, None, None, Vec::new());
                for (k, v) in entries(a)? {
                    match k.as_ref() {
                        "id" => id = Some(string_field(v)?),
                        "name" => name = Some(string_field(v)?),
                        "arguments" => arguments = Some(string_field(v)?),
                        key => extra.push(extra_field(key, v, &["type", "args"])?),
                    }
                }
                Ok(CallMap(Call {
                    id: id.ok_or_else(decline)?,
                    name: name.ok_or_else(decline)?,
                    arguments: arguments.ok_or_else(decline)?,
                    extra,
                }))
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads a v1 or v2 document for the fast path, or `None` to leave it to the general path.
pub fn read(bytes: &[u8]) -> Option<Doc<'_>> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = (Vec<(String, &'de RawValue)>, Option<Vec<Message<'de>>>);
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a session")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut fields: Vec<(String, &'de RawValue)> = Vec::new();
            let mut messages = None;
            while let Some(k) = a.next_key::<Key<'de>>()? {
                let key = k.as_ref().to_string();
                if fields.iter().any(|(x, _)| *x == key) || (key == "messages" && messages.is_some()) {
                    return Err(decline());
                }
                if key == "messages" {
                    messages = Some(a.next_value::<Vec<Message<'de>>>()?);
                } else {
                    fields.push((key, a.next_value::<&'de RawValue>()?));
                }
            }
            Ok((fields, messages))
        }
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut de = serde_json::Deserializer::from_slice(body);
    let (fields, messages) = de.deserialize_map(V).ok()?;
    de.end().ok()?;
    let get = |k: &str| fields.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
    // The same version rule as the general path: `schema_version`, else `version`.
    let version: u32 = match (get("schema_version"), get("version")) {
        (Some(v), _) => serde_json::from_str(v.get()).ok()?,
        (None, Some(v)) => serde_json::from_str(v.get()).ok()?,
        _ => return None,
    };
    let (id_key, keep): (&str, &[&str]) = match version {
        1 => ("id", &["version", "schema_version", "id"]),
        2 => ("session_id", &["version", "schema_version", "session_id", "created_at"]),
        _ => return None,
    };
    let created_at = match get("created_at").filter(|_| version == 2) {
        Some(c) => Some(string_field::<serde_json::Error>(c).ok()?),
        None => None,
    };
    let id = get(id_key);
    if !id.is_none_or(decodable) {
        return None;
    }
    let mut extra = Vec::new();
    for (k, v) in fields {
        if !keep.contains(&k.as_str()) {
            extra.push(extra_field::<serde_json::Error>(&k, v, &["schema_version", "session_id", "created_at"]).ok()?);
        }
    }
    Some(Doc {
        version,
        id,
        created_at,
        messages: messages?,
        extra,
    })
}

impl Doc<'_> {
    pub fn version(&self) -> u32 {
        self.version
    }
}

fn indent(w: &mut dyn Write, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        w.write_all(b"  ")?;
    }
    Ok(())
}

/// Writes an object's key and value at `depth`; the value is a token or, for structured
/// values, re-printed the way serde's pretty printer does at that depth.
fn field(
    w: &mut dyn Write,
    depth: usize,
    first: &mut bool,
    key: &str,
    value: &str,
    structured: bool,
) -> io::Result<()> {
    if !std::mem::replace(first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, depth)?;
    serde_json::to_writer(&mut *w, key)?;
    w.write_all(b": ")?;
    if structured {
        let v: Value = serde_json::from_str(value).map_err(io::Error::other)?;
        write_pretty(w, depth, &v)
    } else {
        w.write_all(value.as_bytes())
    }
}

fn write_pretty(w: &mut dyn Write, depth: usize, v: &Value) -> io::Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(io::Error::other)?;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            w.write_all(b"\n")?;
            indent(w, depth)?;
        }
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Whether a token must go through serde to be written as the general path writes it:
/// everything but plain strings, literals and integers.
fn is_structured(v: &RawValue) -> bool {
    let s = v.get();
    if s.starts_with('"') {
        return !plain_string(v);
    }
    // An integer serde holds as i64 or u64 is written back as is; a larger one becomes a float.
    !(matches!(s, "true" | "false" | "null")
        || s.parse::<i64>().is_ok_and(|n| n.to_string() == s)
        || s.parse::<u64>().is_ok_and(|n| n.to_string() == s))
}

/// Writes the v5 document of `doc` in serde_json's pretty layout.
pub fn write_v5(doc: &Doc<'_>, w: &mut dyn Write) -> io::Result<()> {
    w.write_all(b"{\n")?;
    let mut first = true;
    field(w, 1, &mut first, "schema_version", "5", false)?;
    let id = doc.id.map_or("null", RawValue::get);
    field(w, 1, &mut first, "session_id", id, doc.id.is_some_and(is_structured))?;
    let created = match (doc.version, doc.created_at) {
        (1, _) => doc
            .messages
            .iter()
            .filter_map(|m| m.ts)
            .min()
            .map(|ts| format!("\"{}\"", rfc3339_seconds(ts))),
        (_, Some(c)) => Some(token(c).into_owned()),
        _ => None,
    };
    field(
        w,
        1,
        &mut first,
        "created_at",
        created.as_deref().unwrap_or("null"),
        false,
    )?;
    if !std::mem::replace(&mut first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, 1)?;
    if doc.messages.is_empty() {
        w.write_all(b"\"messages\": []")?;
    } else {
        w.write_all(b"\"messages\": [\n")?;
        for (i, m) in doc.messages.iter().enumerate() {
            if i > 0 {
                w.write_all(b",\n")?;
            }
            message(w, m, i as u64 + 1)?;
        }
        w.write_all(b"\n")?;
        indent(w, 1)?;
        w.write_all(b"]")?;
    }
    for (k, v) in &doc.extra {
        field(w, 1, &mut first, k, v.get(), is_structured(v))?;
    }
    w.write_all(b"\n}\n")
}

fn message(w: &mut dyn Write, m: &Message<'_>, id: u64) -> io::Result<()> {
    indent(w, 2)?;
    w.write_all(b"{\n")?;
    let mut first = true;
    let role = token(m.role);
    field(w, 3, &mut first, "role", &role, false)?;
    if let Some(t) = m.tool_call_id {
        field(w, 3, &mut first, "tool_call_id", &token(t), false)?;
    }
    // Items, in the v2 → v3 order: reasoning, text or tool result, tool calls. Values are the
    // file's own tokens, borrowed: a tool output is copied once, into the output buffer.
    type Entry<'x> = (Cow<'x, str>, Cow<'x, str>, bool);
    let mut items: Vec<Vec<Entry<'_>>> = Vec::new();
    if let Some(t) = m.thinking.filter(|t| t.raw.get() != "\"\"") {
        items.push(vec![
            ("type".into(), "\"reasoning\"".into(), false),
            ("text".into(), token(t), false),
        ]);
    }
    if role == "\"tool\"" {
        let (content, size) = m.content.map_or((Cow::Borrowed("\"\""), 0), token_and_len);
        items.push(vec![
            ("type".into(), "\"tool_result\"".into(), false),
            ("content".into(), content, false),
            ("original_size".into(), size.to_string().into(), false),
        ]);
    } else {
        let content = m.content.map_or(Cow::Borrowed("\"\""), token);
        if content != "\"\"" {
            items.push(vec![
                ("type".into(), "\"text\"".into(), false),
                ("text".into(), content, false),
            ]);
        }
    }
    for c in &m.tool_calls {
        let text: String = serde_json::from_str(c.arguments.raw.get()).unwrap_or_default();
        let args = serde_json::to_string(&parse_arguments(&text)).unwrap_or_default();
        let mut it: Vec<Entry<'_>> = vec![
            ("type".into(), "\"tool_call\"".into(), false),
            ("id".into(), token(c.id), false),
            ("name".into(), token(c.name), false),
            ("args".into(), args.into(), true),
        ];
        for (k, v) in &c.extra {
            it.push((k.as_str().into(), v.get().into(), is_structured(v)));
        }
        items.push(it);
    }
    if !std::mem::replace(&mut first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, 3)?;
    if items.is_empty() {
        w.write_all(b"\"items\": []")?;
    } else {
        w.write_all(b"\"items\": [\n")?;
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                w.write_all(b",\n")?;
            }
            indent(w, 4)?;
            w.write_all(b"{\n")?;
            let mut f = true;
            for (k, v, structured) in it {
                field(w, 5, &mut f, k, v, *structured)?;
            }
            w.write_all(b"\n")?;
            indent(w, 4)?;
            w.write_all(b"}")?;
        }
        w.write_all(b"\n")?;
        indent(w, 3)?;
        w.write_all(b"]")?;
    }
    field(w, 3, &mut first, "id", &id.to_string(), false)?;
    if let Some(ts) = m.ts {
        field(
            w,
            3,
            &mut first,
            "timestamp",
            &format!("\"{}\"", rfc3339_seconds(ts)),
            false,
        )?;
    }
    for (k, v) in &m.extra {
        field(w, 3, &mut first, k, v.get(), is_structured(v))?;
    }
    w.write_all(b"\n")?;
    indent(w, 2)?;
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_a_plain_v1_file() {
        let doc = br#"{"version":1,"id":"s","messages":[{"role":"user","content":"hi","ts":5}]}"#;
        assert!(read(doc).is_some());
        // An escaped backslash before a `u` is not a \u escape.
        assert!(read(br#"{"version":1,"id":"s","messages":[{"role":"user","content":"a\\u"}]}"#).is_some());
        let doc =
            read(br#"{"version":1,"id":"s","messages":[{"role":"tool","tool_call_id":"c","content":"caf\u00e9\/"}]}"#)
                .unwrap();
        let mut out = Vec::new();
        write_v5(&doc, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#""content": "café/""#) && text.contains(r#""original_size": 6"#),
            "{text}"
        );
    }
}
