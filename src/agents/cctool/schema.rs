//! cctool session files, versions 1 to 5 (`docs/cctool-session.md`), and the migration
//! chain v1 → v2 → v3 → v4 → v5: one pure function per step.
//!
//! Reading validates the whole document first and names the JSON path of any problem, so an
//! invalid file is reported and nothing is written. Fields a version does not define are kept
//! (after the known ones) through every step: migration never loses information.
//! Output is pretty-printed with two spaces, keys in the order the spec shows them.

use serde_json::{Map, Value, json};

/// The newest schema version.
pub const LATEST: u32 = 5;

/// A problem with a session document: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON path (`messages[3].tool_call_id`), empty for the whole document.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

fn err(path: impl Into<String>, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.into(),
        message: message.into(),
    }
}

/// A tool call of v1/v2: `arguments` is JSON *text*.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallV1 {
    pub id: String,
    pub name: String,
    pub arguments: String,
    pub extra: Map<String, Value>,
}

/// A message of v1 and v2.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV1 {
    pub role: String,
    pub content: String,
    pub thinking: Option<String>,
    pub tool_calls: Vec<ToolCallV1>,
    pub tool_call_id: Option<String>,
    pub ts: Option<i64>,
    pub extra: Map<String, Value>,
}

/// A typed item of v3 to v5; items of kinds cctool does not rewrite stay as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Reasoning {
        text: String,
        extra: Map<String, Value>,
    },
    Text {
        text: String,
        extra: Map<String, Value>,
    },
    ToolCall {
        id: String,
        name: String,
        args: Value,
        extra: Map<String, Value>,
    },
    ToolResult {
        content: Value,
        original_size: Option<u64>,
        extra: Map<String, Value>,
    },
    Other(Value),
}

/// A message of v3 (`ts`), v4 and v5 (`id`, `timestamp`).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV3 {
    pub role: String,
    pub tool_call_id: Option<String>,
    pub items: Vec<Item>,
    pub id: Option<u64>,
    pub ts: Option<i64>,
    pub timestamp: Option<String>,
    pub extra: Map<String, Value>,
}

/// A session of any version.
#[derive(Debug, Clone, PartialEq)]
pub enum Session {
    V1 {
        id: Value,
        messages: Vec<MessageV1>,
        extra: Map<String, Value>,
    },
    V2 {
        session_id: Value,
        created_at: Option<String>,
        messages: Vec<MessageV1>,
        extra: Map<String, Value>,
    },
    /// Versions 3, 4 and 5 share a shape; the version says which fields are meaningful.
    V3Plus {
        version: u32,
        session_id: Value,
        created_at: Option<String>,
        messages: Vec<MessageV3>,
        extra: Map<String, Value>,
    },
}

impl Item {
    /// A `text` item.
    pub fn text(t: impl Into<String>) -> Item {
        Item::Text {
            text: t.into(),
            extra: Map::new(),
        }
    }

    /// A `tool_call` item.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, args: Value) -> Item {
        Item::ToolCall {
            id: id.into(),
            name: name.into(),
            args,
            extra: Map::new(),
        }
    }

    /// A `tool_result` item; `original_size` is left for v4 → v5 or the caller to set.
    pub fn tool_result(content: Value) -> Item {
        Item::ToolResult {
            content,
            original_size: None,
            extra: Map::new(),
        }
    }
}

impl MessageV3 {
    /// A message of `role` holding `items`, with no id, time or other field.
    pub fn new(role: impl Into<String>, items: Vec<Item>) -> MessageV3 {
        MessageV3 {
            role: role.into(),
            tool_call_id: None,
            items,
            id: None,
            ts: None,
            timestamp: None,
            extra: Map::new(),
        }
    }

    /// A `tool` message answering the call `call_id`.
    pub fn tool(call_id: impl Into<String>, items: Vec<Item>) -> MessageV3 {
        MessageV3 {
            tool_call_id: Some(call_id.into()),
            ..MessageV3::new("tool", items)
        }
    }
}

impl Session {
    pub fn version(&self) -> u32 {
        match self {
            Session::V1 { .. } => 1,
            Session::V2 { .. } => 2,
            Session::V3Plus { version, .. } => *version,
        }
    }
}

/// A session file's bytes as JSON (a leading BOM allowed).
pub fn read_json(bytes: &[u8]) -> Result<Value, String> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(body).map_err(|e| format!("not valid JSON: {e}"))
}

/// A session file of any version, validated and migrated to the latest in memory.
pub fn read_latest(bytes: &[u8]) -> Result<Session, String> {
    Ok(migrate(read_session(bytes)?, LATEST))
}

/// A session file of any version, validated: [`parse`] of its bytes, without the document
/// ever existing as one JSON tree. The top level is split into its members as text, and the
/// messages are parsed one at a time into their typed form: a tree of a million small
/// messages took ten times the file's size, on top of the messages made from it.
pub fn read_session(bytes: &[u8]) -> Result<Session, String> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(members) = crate::io::json::Members::parse(body) else {
        // Not an object, or not JSON: the whole-document reader says which, and where.
        let doc = read_json(bytes)?;
        return parse(doc).map_err(|e| e.to_string());
    };
    let mut doc = Map::new();
    let mut messages = None;
    for (k, v) in members.iter() {
        if k == "messages" {
            messages = Some(v);
            continue;
        }
        let v: Value = serde_json::from_str(v.get()).map_err(|e| format!("not valid JSON: {k}: {e}"))?;
        doc.insert(k.to_string(), v);
    }
    let raw: Option<Vec<&serde_json::value::RawValue>> = match messages {
        None => None,
        Some(m) => match serde_json::from_str(m.get()) {
            Ok(list) => Some(list),
            // Not an array: the typed reader names what it is.
            Err(_) => {
                let v: Value = serde_json::from_str(m.get()).map_err(|e| format!("not valid JSON: messages: {e}"))?;
                doc.insert("messages".into(), v);
                None
            }
        },
    };
    let doc = Value::Object(doc);
    let version = version_of(&doc).map_err(|e| e.to_string())?;
    let Value::Object(mut m) = doc else {
        return Err("not a JSON object".into());
    };
    let messages: Box<dyn Iterator<Item = Result<Value, SchemaError>>> = match raw {
        Some(list) => Box::new(list.into_iter().enumerate().map(|(i, r)| {
            serde_json::from_str(r.get()).map_err(|e| err(format!("messages[{i}]"), format!("not valid JSON: {e}")))
        })),
        None => Box::new(messages_of(&mut m).map_err(|e| e.to_string())?.into_iter().map(Ok)),
    };
    parse_parts(version, m, messages).map_err(|e| e.to_string())
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

fn take_str(m: &mut Map<String, Value>, key: &str, path: &str, required: bool) -> Result<Option<String>, SchemaError> {
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

fn take_int(m: &mut Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>, SchemaError> {
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
fn take_ts(m: &mut Map<String, Value>, path: &str) -> Result<Option<i64>, SchemaError> {
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

/// The first and last second of the years 0 to 9999.
pub const TS_MIN: i64 = -62_167_219_200;
pub const TS_MAX: i64 = 253_402_300_799;

/// Whether `ts` (seconds since 1970) can be written as an RFC 3339 timestamp.
pub fn ts_writable(ts: i64) -> bool {
    (TS_MIN..=TS_MAX).contains(&ts)
}

/// The fields left in an object once the known ones were taken out. Taking out keeps the
/// table's room, about 100 bytes a field: a million messages kept that much for nothing.
fn lean(m: Map<String, Value>) -> Map<String, Value> {
    if m.is_empty() {
        Map::new()
    } else {
        m.into_iter().collect()
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn messages_of(doc: &mut Map<String, Value>) -> Result<Vec<Value>, SchemaError> {
    match doc.shift_remove("messages") {
        Some(Value::Array(a)) => Ok(a),
        None => Err(err("messages", "missing: a session needs a messages array")),
        Some(other) => Err(err("messages", format!("expected an array, found {}", kind(&other)))),
    }
}

fn message_object(v: Value, path: &str) -> Result<Map<String, Value>, SchemaError> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err(err(path, format!("expected an object, found {}", kind(&other)))),
    }
}

fn parse_v1_message(v: Value, i: usize) -> Result<MessageV1, SchemaError> {
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

fn parse_item(v: Value, path: &str) -> Result<Item, SchemaError> {
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

fn parse_v3_message(v: Value, i: usize, version: u32) -> Result<MessageV3, SchemaError> {
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
fn parse_parts(
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

/// `YYYY-MM-DDTHH:MM:SSZ` of Unix seconds.
pub fn rfc3339_seconds(ts: i64) -> String {
    let s = crate::model::time::format_ms(ts.saturating_mul(1000));
    format!("{}Z", &s[..19])
}

/// v1 → v2: `version` → `schema_version`, `id` → `session_id`, `created_at` from the
/// smallest message `ts`.
pub fn v1_to_v2(s: Session) -> Session {
    let Session::V1 {
        id,
        messages,
        mut extra,
    } = s
    else {
        return s;
    };
    // A field a step introduces replaces an unknown field of the same name (in every step).
    extra.shift_remove("session_id");
    extra.shift_remove("created_at");
    let created_at = messages.iter().filter_map(|m| m.ts).min().map(rfc3339_seconds);
    Session::V2 {
        session_id: id,
        created_at,
        messages,
        extra,
    }
}

/// Parses tool-call arguments; text that is not JSON is kept as `{"_raw": …}`.
pub fn parse_arguments(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| json!({ "_raw": text }))
}

/// v2 → v3: messages get typed `items` (reasoning, text or tool_result, tool calls).
pub fn v2_to_v3(s: Session) -> Session {
    let Session::V2 {
        session_id,
        created_at,
        messages,
        extra,
    } = s
    else {
        return s;
    };
    let messages = messages
        .into_iter()
        .map(|mut m| {
            m.extra.shift_remove("items");
            // Sized exactly: an item is large, and a list grown from empty takes four.
            let thinking = m.thinking.as_ref().is_some_and(|t| !t.is_empty());
            let text = m.role == "tool" || !m.content.is_empty();
            let mut items = Vec::with_capacity(usize::from(thinking) + usize::from(text) + m.tool_calls.len());
            if let Some(t) = m.thinking.filter(|t| !t.is_empty()) {
                items.push(Item::Reasoning {
                    text: t,
                    extra: Map::new(),
                });
            }
            if m.role == "tool" {
                items.push(Item::ToolResult {
                    content: Value::String(m.content),
                    original_size: None,
                    extra: Map::new(),
                });
            } else if !m.content.is_empty() {
                items.push(Item::Text {
                    text: m.content,
                    extra: Map::new(),
                });
            }
            for mut c in m.tool_calls {
                c.extra.shift_remove("type");
                c.extra.shift_remove("args");
                items.push(Item::ToolCall {
                    id: c.id,
                    name: c.name,
                    args: parse_arguments(&c.arguments),
                    extra: c.extra,
                });
            }
            MessageV3 {
                role: m.role,
                tool_call_id: m.tool_call_id,
                items,
                id: None,
                ts: m.ts,
                timestamp: None,
                extra: m.extra,
            }
        })
        .collect();
    Session::V3Plus {
        version: 3,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// v3 → v4: every message gets its 1-based position as `id`; `ts` becomes `timestamp`.
pub fn v3_to_v4(s: Session) -> Session {
    let Session::V3Plus {
        version: 3,
        session_id,
        created_at,
        messages,
        extra,
    } = s
    else {
        return s;
    };
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            m.extra.shift_remove("id");
            m.extra.shift_remove("timestamp");
            MessageV3 {
                id: Some(i as u64 + 1),
                timestamp: m.ts.map(rfc3339_seconds),
                ts: None,
                ..m
            }
        })
        .collect();
    Session::V3Plus {
        version: 4,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// UTF-8 size of a tool result's content: the text, or the JSON of structured content.
pub fn content_size(content: &Value) -> u64 {
    match content {
        Value::String(s) => s.len() as u64,
        other => other.to_string().len() as u64,
    }
}

/// v4 → v5: each tool result records its `original_size`.
pub fn v4_to_v5(s: Session) -> Session {
    let Session::V3Plus {
        version: 4,
        session_id,
        created_at,
        mut messages,
        extra,
    } = s
    else {
        return s;
    };
    for m in &mut messages {
        for it in &mut m.items {
            if let Item::ToolResult {
                content, original_size, ..
            } = it
            {
                *original_size = Some(content_size(content));
            }
        }
    }
    Session::V3Plus {
        version: 5,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// Applies the steps from the session's version up to `to`.
pub fn migrate(mut s: Session, to: u32) -> Session {
    while s.version() < to {
        s = match s.version() {
            1 => v1_to_v2(s),
            2 => v2_to_v3(s),
            3 => v3_to_v4(s),
            _ => v4_to_v5(s),
        };
    }
    s
}

pub(crate) fn item_value(it: Item) -> Value {
    let with = |mut head: Map<String, Value>, extra: Map<String, Value>| {
        head.extend(extra);
        Value::Object(head)
    };
    match it {
        Item::Reasoning { text, extra } => with(
            Map::from_iter([
                ("type".into(), json!("reasoning")),
                ("text".into(), Value::String(text)),
            ]),
            extra,
        ),
        Item::Text { text, extra } => with(
            Map::from_iter([("type".into(), json!("text")), ("text".into(), Value::String(text))]),
            extra,
        ),
        Item::ToolCall { id, name, args, extra } => with(
            Map::from_iter([
                ("type".into(), json!("tool_call")),
                ("id".into(), Value::String(id)),
                ("name".into(), Value::String(name)),
                ("args".into(), args),
            ]),
            extra,
        ),
        Item::ToolResult {
            content,
            original_size,
            extra,
        } => {
            let mut m = Map::from_iter([("type".into(), json!("tool_result")), ("content".into(), content)]);
            if let Some(n) = original_size {
                m.insert("original_size".into(), json!(n));
            }
            with(m, extra)
        }
        Item::Other(v) => v,
    }
}

fn message_v1_value(m: MessageV1) -> Value {
    let mut o = Map::new();
    o.insert("role".into(), Value::String(m.role));
    if let Some(id) = m.tool_call_id {
        o.insert("tool_call_id".into(), Value::String(id));
    }
    o.insert("content".into(), Value::String(m.content));
    if let Some(t) = m.thinking {
        o.insert("thinking".into(), Value::String(t));
    }
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .into_iter()
            .map(|c| {
                let mut cm = Map::from_iter([
                    ("id".into(), Value::String(c.id)),
                    ("name".into(), Value::String(c.name)),
                    ("arguments".into(), Value::String(c.arguments)),
                ]);
                cm.extend(c.extra);
                Value::Object(cm)
            })
            .collect();
        o.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(ts) = m.ts {
        o.insert("ts".into(), json!(ts));
    }
    o.extend(m.extra);
    Value::Object(o)
}

pub(crate) fn message_v3_value(m: MessageV3) -> Value {
    let mut o = Map::new();
    o.insert("role".into(), Value::String(m.role));
    if let Some(id) = m.tool_call_id {
        o.insert("tool_call_id".into(), Value::String(id));
    }
    o.insert(
        "items".into(),
        Value::Array(m.items.into_iter().map(item_value).collect()),
    );
    if let Some(ts) = m.ts {
        o.insert("ts".into(), json!(ts));
    }
    if let Some(id) = m.id {
        o.insert("id".into(), json!(id));
    }
    if let Some(t) = m.timestamp {
        o.insert("timestamp".into(), Value::String(t));
    }
    o.extend(m.extra);
    Value::Object(o)
}

/// The document, keys in the order the spec shows them, unknown fields last. Consumes the
/// session: every string moves into the document rather than being copied.
pub fn into_value(s: Session) -> Value {
    let mut o = Map::new();
    match s {
        Session::V1 { id, messages, extra } => {
            o.insert("version".into(), json!(1));
            o.insert("id".into(), id);
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v1_value).collect()),
            );
            o.extend(extra);
        }
        Session::V2 {
            session_id,
            created_at,
            messages,
            extra,
        } => {
            o.insert("schema_version".into(), json!(2));
            o.insert("session_id".into(), session_id);
            o.insert("created_at".into(), json!(created_at));
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v1_value).collect()),
            );
            o.extend(extra);
        }
        Session::V3Plus {
            version,
            session_id,
            created_at,
            messages,
            extra,
        } => {
            o.insert("schema_version".into(), json!(version));
            o.insert("session_id".into(), session_id);
            o.insert("created_at".into(), json!(created_at));
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v3_value).collect()),
            );
            o.extend(extra);
        }
    }
    Value::Object(o)
}

/// The document without consuming the session.
pub fn to_value(s: &Session) -> Value {
    into_value(s.clone())
}

/// Writes the file: two-space pretty JSON, UTF-8 kept, one trailing newline.
pub fn write_to(s: Session, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &into_value(s))?;
    w.write_all(b"\n")
}

/// The file's bytes: two-space pretty JSON, UTF-8 kept, one trailing newline.
pub fn to_bytes(s: &Session) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(&to_value(s)).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1() -> Value {
        json!({"version": 1, "id": "s-1", "messages": [
            {"role": "user", "content": "Refactor module A", "ts": 1752573600},
            {"role": "assistant", "content": "Sure", "thinking": "…",
             "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": "{\"path\":\"src/mod.rs\"}"}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "// module A"}]})
    }

    #[test]
    fn the_spec_example_to_v5() {
        let s = migrate(parse(v1()).unwrap(), 5);
        let v = to_value(&s);
        assert_eq!(v["schema_version"], 5);
        assert_eq!(v["session_id"], "s-1");
        assert_eq!(v["created_at"], "2025-07-15T10:00:00Z");
        assert_eq!(
            v["messages"][0],
            json!({"role": "user", "items": [{"type": "text", "text": "Refactor module A"}], "id": 1, "timestamp": "2025-07-15T10:00:00Z"})
        );
        assert_eq!(v["messages"][1]["items"][0], json!({"type": "reasoning", "text": "…"}));
        assert_eq!(
            v["messages"][1]["items"][2],
            json!({"type": "tool_call", "id": "call_1", "name": "read_file", "args": {"path": "src/mod.rs"}})
        );
        assert_eq!(
            v["messages"][2],
            json!({"role": "tool", "tool_call_id": "call_1", "items": [{"type": "tool_result", "content": "// module A", "original_size": 11}], "id": 3})
        );
    }

    #[test]
    fn versions_and_errors_name_their_path() {
        assert_eq!(
            version_of(&json!({"version": 9, "messages": []})).unwrap_err().message,
            "unknown schema version 9"
        );
        assert_eq!(
            version_of(&json!({"schema_version": 0, "messages": []}))
                .unwrap_err()
                .message,
            "unknown schema version 0"
        );
        assert_eq!(
            version_of(&json!({"schema_version": "2", "messages": []}))
                .unwrap_err()
                .message,
            "unknown schema version \"2\""
        );
        assert!(
            version_of(&json!({"messages": []}))
                .unwrap_err()
                .message
                .contains("missing")
        );
        let e = parse(json!({"version": 1, "id": "x", "messages": [{"role": "user", "content": ""}, {"role": "tool", "content": "x"}]})).unwrap_err();
        assert_eq!(e.path, "messages[1].tool_call_id");
        let e = parse(json!({"version": 1, "id": "x", "messages": [{"content": "no role"}]})).unwrap_err();
        assert_eq!(e.path, "messages[0].role");
        let e = parse(json!({"version": 1, "id": "x", "messages": {}})).unwrap_err();
        assert_eq!(e.path, "messages");
    }

    #[test]
    fn invalid_arguments_are_kept_raw() {
        assert_eq!(parse_arguments("{oops"), json!({"_raw": "{oops"}));
        assert_eq!(parse_arguments("[1]"), json!([1]));
    }
}
