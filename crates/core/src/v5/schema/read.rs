//! Reading a session file of any version: the whole document validated, each problem named by
//! its JSON path, fields a version does not define kept.

use super::*;

/// A session file's bytes as JSON (a leading BOM allowed).
pub fn read_json(bytes: &[u8]) -> Result<Value, SchemaError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(body).map_err(|e| err("", format!("not valid JSON: {e}")))
}

/// A cctool session file (any version) read whole, validated and migrated to the latest
/// version in memory; a file that changed under the read is an error, not a session.
pub fn read_source(src: &crate::io::Source) -> crate::error::Result<Session> {
    use crate::error::Error;
    let bytes = src.whole().map_err(Error::Read)?;
    let session = read_latest(&bytes);
    src.check().map_err(Error::Read)?;
    Ok(session?)
}

/// A session file of any version, validated and migrated to the latest in memory.
pub fn read_latest(bytes: &[u8]) -> Result<Session, SchemaError> {
    Ok(migrate(read_session(bytes)?, LATEST))
}

/// A session file of any version, validated: [`parse`] of its bytes, without the document
/// ever existing as one JSON tree. The top level is split into its members as text, and the
/// messages are parsed one at a time into their typed form: a tree of a million small
/// messages took ten times the file's size, on top of the messages made from it.
pub fn read_session(bytes: &[u8]) -> Result<Session, SchemaError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(members) = crate::io::json::Members::parse(body) else {
        // Not an object, or not JSON: the whole-document reader says which, and where.
        return parse(read_json(bytes)?);
    };
    let mut doc = Map::new();
    let mut messages = None;
    for (k, v) in members.iter() {
        if k == "messages" {
            messages = Some(v);
            continue;
        }
        let v: Value = serde_json::from_str(v.get()).map_err(|e| err("", format!("not valid JSON: {k}: {e}")))?;
        doc.insert(k.to_string(), v);
    }
    let raw: Option<Vec<&serde_json::value::RawValue>> = match messages {
        None => None,
        Some(m) => match serde_json::from_str(m.get()) {
            Ok(list) => Some(list),
            // Not an array: the typed reader names what it is.
            Err(_) => {
                let v: Value =
                    serde_json::from_str(m.get()).map_err(|e| err("", format!("not valid JSON: messages: {e}")))?;
                doc.insert("messages".into(), v);
                None
            }
        },
    };
    let doc = Value::Object(doc);
    let version = version_of(&doc)?;
    let Value::Object(mut m) = doc else {
        return Err(err("", "not a JSON object"));
    };
    let messages: Box<dyn Iterator<Item = Result<Value, SchemaError>>> = match raw {
        Some(list) => Box::new(list.into_iter().enumerate().map(|(i, r)| {
            serde_json::from_str(r.get()).map_err(|e| err(format!("messages[{i}]"), format!("not valid JSON: {e}")))
        })),
        None => Box::new(messages_of(&mut m)?.into_iter().map(Ok)),
    };
    parse_parts(version, m, messages)
}

/// The version field of a document: `schema_version` (v2+), else `version` (v1).
pub fn version_of(doc: &Value) -> Result<u32, SchemaError> {
    let v = doc.get("schema_version").or_else(|| doc.get("version"));
    match v {
        None => Err(err("", "unknown schema version (missing)")),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(x @ 1..=5) => Ok(x as u32),
            _ => Err(err("", format!("unknown schema version {n}"))),
        },
        Some(other) => Err(err("", format!("unknown schema version {other}"))),
    }
}

pub(super) fn take_str(
    m: &mut Map<String, Value>,
    key: &str,
    path: &str,
    required: bool,
) -> Result<Option<String>, SchemaError> {
    match m.shift_remove(key) {
        None | Some(Value::Null) if !required => Ok(None),
        None | Some(Value::Null) => Err(err(format!("{path}.{key}"), "missing")),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(err(
            format!("{path}.{key}"),
            format!("expected a string, found {}", kind(&other)),
        )),
    }
}

pub(super) fn take_int(m: &mut Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>, SchemaError> {
    match m.shift_remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64()),
        Some(other) => Err(err(
            format!("{path}.{key}"),
            format!("expected an integer, found {other}"),
        )),
    }
}

/// A message's `ts`, which must be a time the v5 `timestamp` (RFC 3339, four-digit year) can
/// say: a larger one would be written as a malformed timestamp.
pub(super) fn take_ts(m: &mut Map<String, Value>, path: &str) -> Result<Option<i64>, SchemaError> {
    let ts = take_int(m, "ts", path)?;
    match ts {
        Some(t) if !ts_writable(t) => Err(err(
            format!("{path}.ts"),
            format!(
                "{t} is outside the years 0 to 9999 ({} to {} seconds since 1970), so no RFC 3339 timestamp can say it; \
                 correct it (seconds, not milliseconds?) and run again",
                TS_MIN, TS_MAX
            ),
        )),
        _ => Ok(ts),
    }
}

/// The first second of the year 0.
const TS_MIN: i64 = -62_167_219_200;
/// The last second of the year 9999.
const TS_MAX: i64 = 253_402_300_799;

/// Whether `ts` (seconds since 1970) can be written as an RFC 3339 timestamp.
pub fn ts_writable(ts: i64) -> bool {
    (TS_MIN..=TS_MAX).contains(&ts)
}

/// The fields left in an object once the known ones were taken out. Taking out keeps the
/// table's room, about 100 bytes a field: a million messages kept that much for nothing.
pub(super) fn lean(m: Map<String, Value>) -> Map<String, Value> {
    if m.is_empty() {
        Map::new()
    } else {
        m.into_iter().collect()
    }
}

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn messages_of(doc: &mut Map<String, Value>) -> Result<Vec<Value>, SchemaError> {
    match doc.shift_remove("messages") {
        Some(Value::Array(a)) => Ok(a),
        None => Err(err("messages", "missing: a session needs a messages array")),
        Some(other) => Err(err("messages", format!("expected an array, found {}", kind(&other)))),
    }
}

pub(super) fn message_object(v: Value, path: &str) -> Result<Map<String, Value>, SchemaError> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err(err(path, format!("expected an object, found {}", kind(&other)))),
    }
}

pub(super) fn parse_v1_message(v: Value, i: usize) -> Result<MessageV1, SchemaError> {
    let path = format!("messages[{i}]");
    let mut m = message_object(v, &path)?;
    let role = take_str(&mut m, "role", &path, true)?.unwrap_or_default();
    let content = take_str(&mut m, "content", &path, false)?.unwrap_or_default();
    let thinking = take_str(&mut m, "thinking", &path, false)?;
    let tool_call_id = take_str(&mut m, "tool_call_id", &path, false)?;
    if role == "tool" && tool_call_id.is_none() {
        return Err(err(
            format!("{path}.tool_call_id"),
            "missing: a tool message needs the id of its call",
        ));
    }
    let ts = take_ts(&mut m, &path)?;
    let mut tool_calls = Vec::new();
    match m.shift_remove("tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(calls)) => {
            for (k, c) in calls.into_iter().enumerate() {
                let cpath = format!("{path}.tool_calls[{k}]");
                let mut c = message_object(c, &cpath)?;
                let id = take_str(&mut c, "id", &cpath, true)?.unwrap_or_default();
                let name = take_str(&mut c, "name", &cpath, true)?.unwrap_or_default();
                let arguments = match c.shift_remove("arguments") {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s,
                    // Arguments already written as JSON rather than JSON text: keep them.
                    Some(other) => other.to_string(),
                };
                tool_calls.push(ToolCallV1 {
                    id,
                    name,
                    arguments,
                    extra: lean(c),
                });
            }
        }
        Some(other) => {
            return Err(err(
                format!("{path}.tool_calls"),
                format!("expected an array, found {}", kind(&other)),
            ));
        }
    }
    Ok(MessageV1 {
        role,
        content,
        thinking,
        tool_calls,
        tool_call_id,
        ts,
        extra: lean(m),
    })
}

pub(super) fn parse_item(v: Value, path: &str) -> Result<Item, SchemaError> {
    let Value::Object(mut m) = v else {
        return Err(err(path, "expected an object"));
    };
    let ty = m.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    Ok(match ty.as_str() {
        "text" | "reasoning" => {
            m.shift_remove("type");
            let text = take_str(&mut m, "text", path, false)?.unwrap_or_default();
            if ty == "text" {
                Item::Text { text, extra: lean(m) }
            } else {
                Item::Reasoning { text, extra: lean(m) }
            }
        }
        "tool_call" => {
            m.shift_remove("type");
            let id = take_str(&mut m, "id", path, true)?.unwrap_or_default();
            let name = take_str(&mut m, "name", path, true)?.unwrap_or_default();
            let args = m.shift_remove("args").unwrap_or(Value::Null);
            Item::ToolCall {
                id,
                name,
                args,
                extra: lean(m),
            }
        }
        "tool_result" => {
            m.shift_remove("type");
            let content = m.shift_remove("content").unwrap_or(Value::String(String::new()));
            let original_size = m.shift_remove("original_size").and_then(|v| v.as_u64());
            Item::ToolResult {
                content,
                original_size,
                extra: lean(m),
            }
        }
        _ => Item::Other(Value::Object(m)),
    })
}

pub(super) fn parse_v3_message(v: Value, i: usize, version: u32) -> Result<MessageV3, SchemaError> {
    let path = format!("messages[{i}]");
    let mut m = message_object(v, &path)?;
    let role = take_str(&mut m, "role", &path, true)?.unwrap_or_default();
    let tool_call_id = take_str(&mut m, "tool_call_id", &path, false)?;
    if role == "tool" && tool_call_id.is_none() {
        return Err(err(
            format!("{path}.tool_call_id"),
            "missing: a tool message needs the id of its call",
        ));
    }
    let items = match m.shift_remove("items") {
        Some(Value::Array(a)) => {
            // Sized exactly: an item is large, and a list grown from empty takes four.
            let mut items = Vec::with_capacity(a.len());
            for (k, it) in a.into_iter().enumerate() {
                items.push(parse_item(it, &format!("{path}.items[{k}]"))?);
            }
            items
        }
        None if version >= 3 => return Err(err(format!("{path}.items"), "missing")),
        None => Vec::new(),
        Some(other) => {
            return Err(err(
                format!("{path}.items"),
                format!("expected an array, found {}", kind(&other)),
            ));
        }
    };
    let ts = if version == 3 { take_ts(&mut m, &path)? } else { None };
    let id = if version >= 4 {
        match m.shift_remove("id") {
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
            None => None,
            Some(other) => {
                return Err(err(
                    format!("{path}.id"),
                    format!("expected a positive integer, found {other}"),
                ));
            }
        }
    } else {
        None
    };
    let timestamp = if version >= 4 {
        take_str(&mut m, "timestamp", &path, false)?
    } else {
        None
    };
    Ok(MessageV3 {
        role,
        tool_call_id,
        items,
        id,
        ts,
        timestamp,
        extra: lean(m),
    })
}

/// Reads and validates a session document of any version.
pub fn parse(doc: Value) -> Result<Session, SchemaError> {
    let version = version_of(&doc)?;
    let Value::Object(mut m) = doc else {
        return Err(err("", "not a JSON object"));
    };
    let messages = messages_of(&mut m)?;
    parse_parts(version, m, messages.into_iter().map(Ok))
}

/// [`parse`] of a document's members but `messages`, and its messages one by one.
pub(super) fn parse_parts(
    version: u32,
    mut m: Map<String, Value>,
    messages: impl Iterator<Item = Result<Value, SchemaError>>,
) -> Result<Session, SchemaError> {
    m.shift_remove("version");
    m.shift_remove("schema_version");
    match version {
        1 | 2 => {
            // Sized once: a list grown by doubling holds up to twice what it needs.
            let mut msgs = Vec::with_capacity(messages.size_hint().0);
            for (i, v) in messages.enumerate() {
                msgs.push(parse_v1_message(v?, i)?);
            }
            if version == 1 {
                let id = m.shift_remove("id").unwrap_or(Value::Null);
                Ok(Session::V1 {
                    id,
                    messages: msgs,
                    extra: m,
                })
            } else {
                let session_id = m.shift_remove("session_id").unwrap_or(Value::Null);
                let created_at = take_str(&mut m, "created_at", "", false)?;
                Ok(Session::V2 {
                    session_id,
                    created_at,
                    messages: msgs,
                    extra: m,
                })
            }
        }
        _ => {
            let mut msgs = Vec::with_capacity(messages.size_hint().0);
            for (i, v) in messages.enumerate() {
                msgs.push(parse_v3_message(v?, i, version)?);
            }
            let session_id = m.shift_remove("session_id").unwrap_or(Value::Null);
            let created_at = take_str(&mut m, "created_at", "", false)?;
            Ok(Session::V3Plus {
                version,
                session_id,
                created_at,
                messages: msgs,
                extra: m,
            })
        }
    }
}
