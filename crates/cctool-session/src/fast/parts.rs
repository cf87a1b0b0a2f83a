//! The `messages` array read in parts on all cores: values at a position, messages, and the
//! guessed element starts checked when the parts are joined.

use super::*;

/// A string value at `p`: scanned by [`scan_string`]; one with `\u` escapes must also decode
/// (a lone surrogate does not, and the general path rejects the file), which
/// [`reencode_into`] checks without building the string.
pub(super) fn string_at(text: &str, p: usize) -> Option<(Str<'_>, usize)> {
    let (end, plain_escapes) = scan_string(text.as_bytes(), p)?;
    let raw = text.get(p..end)?;
    if plain_escapes.is_none() {
        reencode_into(raw, None)?;
    }
    Some((Str { raw, plain_escapes }, end))
}

/// Walks the members of the object at `p`: `value` gets each key and the offset of its value,
/// and returns the offset just past that value. Gives the offset just past the object; `None`
/// where the bytes are not an object or `value` declines.
pub(super) fn object_at<'a>(
    text: &'a str,
    p: usize,
    mut value: impl FnMut(Cow<'a, str>, usize) -> Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(p) != Some(&b'{') {
        return None;
    }
    let mut p = skip_ws(b, p + 1);
    if b.get(p) == Some(&b'}') {
        return Some(p + 1);
    }
    loop {
        let (k, end) = string_at(text, p)?;
        let key = if k.plain_escapes == Some(0) {
            Cow::Borrowed(&k.raw[1..k.raw.len() - 1])
        } else {
            Cow::Owned(serde_json::from_str::<String>(k.raw).ok()?)
        };
        p = skip_ws(b, end);
        if b.get(p) != Some(&b':') {
            return None;
        }
        p = skip_ws(b, value(key, skip_ws(b, p + 1))?);
        match b.get(p)? {
            b',' => p = skip_ws(b, p + 1),
            b'}' => return Some(p + 1),
            _ => return None,
        }
    }
}

/// The v1 message object at `p`, and the offset just past it. The keys and string values are
/// read here; other values go through serde. `None` declines, as the serde reader of a call
/// does: a repeated key, a value of another type, a tool message without `tool_call_id`.
pub(super) fn message_at(text: &str, p: usize) -> Option<(Message<'_>, usize)> {
    let b = text.as_bytes();
    let (mut role, mut content, mut thinking, mut tool_call_id, mut ts) = (None, None, None, None, None);
    let (mut tool_calls, mut extra) = (Vec::new(), Vec::new());
    let mut seen: Vec<Cow<'_, str>> = Vec::new();
    let end = object_at(text, p, |key, p| {
        if seen.contains(&key) {
            return None;
        }
        let end = match key.as_ref() {
            "role" | "content" | "thinking" | "tool_call_id" => {
                let (v, end) = string_at(text, p)?;
                *match key.as_ref() {
                    "role" => &mut role,
                    "content" => &mut content,
                    "thinking" => &mut thinking,
                    _ => &mut tool_call_id,
                } = Some(v);
                end
            }
            "ts" => {
                let (v, end) = value_at::<i64>(b, p)?;
                // A time no timestamp can say: the serde reader names it.
                if !crate::v5::schema::ts_writable(v) {
                    return None;
                }
                ts = Some(v);
                end
            }
            "tool_calls" => {
                let (v, end) = value_at::<&RawValue>(b, p)?;
                tool_calls = serde_json::from_str::<CallList<'_>>(v.get()).ok()?.0;
                end
            }
            other => {
                let (v, end) = value_at::<&RawValue>(b, p)?;
                extra.push(extra_field::<serde_json::Error>(other, v, &["items", "id", "timestamp"]).ok()?);
                end
            }
        };
        seen.push(key);
        Some(end)
    })?;
    let role = role?;
    if token(role) == "\"tool\"" && tool_call_id.is_none() {
        return None;
    }
    let m = Message {
        role,
        content,
        thinking,
        tool_call_id,
        ts,
        tool_calls,
        extra,
    };
    Some((m, end))
}

pub(super) struct CallList<'a>(Vec<Call<'a>>);

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

pub(super) struct CallMap<'a>(Call<'a>);

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

/// Source bytes per parse part and per render batch: large enough that a part costs far more
/// than its scheduling, small enough that both cores stay busy and a render window stays small.
pub(super) const PART: usize = 2 << 20;

pub(super) fn skip_ws(b: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(p) {
        p += 1;
    }
    p
}

/// The JSON value at `p` (after any whitespace), and the offset just past it.
pub(super) fn value_at<'a, T: Deserialize<'a>>(b: &'a [u8], p: usize) -> Option<(T, usize)> {
    let mut it = serde_json::Deserializer::from_slice(b.get(p..)?).into_iter::<T>();
    let v = it.next()?.ok()?;
    Some((v, p + it.byte_offset()))
}

/// Where a run of array elements stopped: at the first element at or after the limit, or
/// just past the closing `]`.
#[derive(Clone, Copy)]
pub(super) enum Stop {
    Next(usize),
    End(usize),
}

/// Messages from the element at `p` on, until one starts at or after `limit` or the array
/// closes; `None` where the bytes are not such elements.
pub(super) fn messages_from(text: &str, mut p: usize, limit: usize) -> Option<(Vec<Message<'_>>, Stop)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    loop {
        let (m, end) = message_at(text, p)?;
        out.push(m);
        p = skip_ws(b, end);
        match b.get(p)? {
            b',' => {
                p = skip_ws(b, p + 1);
                if p >= limit {
                    return Some((out, Stop::Next(p)));
                }
            }
            b']' => return Some((out, Stop::End(p + 1))),
            _ => return None,
        }
    }
}

/// The first `{` at or after `from` that looks like the start of an array element: after a
/// `,` that follows a `}`. Only a guess (a string can hold `},{`): the stitching checks it.
pub(super) fn element_start_after(b: &[u8], from: usize) -> Option<usize> {
    let mut q = from;
    while let Some(i) = memchr::memchr(b'{', b.get(q..)?) {
        let at = q + i;
        let before = b[..at].trim_ascii_end();
        if let Some(rest) = before.strip_suffix(b",")
            && rest.trim_ascii_end().ends_with(b"}")
        {
            return Some(at);
        }
        q = at + 1;
    }
    None
}

/// The `messages` array whose first element is at `first`, read in parts on all cores, and the
/// offset just past its `]`. Each part after the first starts at a guessed element start; a
/// part is used only when the part before it ended exactly there. Parsing is deterministic, so
/// a part that starts where an element really starts reads what a sequential parse would; a
/// wrong guess is read again sequentially from where the previous part really ended.
pub(super) fn messages_parallel<'a, T: Send>(
    text: &'a str,
    first: usize,
    part: usize,
    keep: impl Fn(usize, Vec<Message<'a>>, Stop) -> T + Sync,
) -> Option<(Vec<T>, usize)> {
    let b = text.as_bytes();
    let n = ((b.len() - first) / part.max(1)).max(1);
    let mut starts = vec![first];
    for k in 1..n {
        let target = first + k * ((b.len() - first) / n);
        match element_start_after(b, target.max(starts[starts.len() - 1] + 1)) {
            Some(s) => starts.push(s),
            None => break,
        }
    }
    let limit = |i: usize| starts.get(i).copied().unwrap_or(usize::MAX);
    let read = |at: usize, limit: usize| messages_from(text, at, limit).map(|(m, stop)| (keep(at, m, stop), stop));
    let mut parts: Vec<Option<(T, Stop)>> = {
        use rayon::prelude::*;
        (0..starts.len())
            .into_par_iter()
            .map(|i| read(starts[i], limit(i + 1)))
            .collect()
    };
    let mut out = Vec::new();
    let (mut at, mut i) = (first, 0);
    loop {
        let (msgs, stop) = match parts.get_mut(i).and_then(Option::take) {
            Some(r) if starts[i] == at => r,
            _ => read(at, limit(i + 1))?,
        };
        out.push(msgs);
        match stop {
            Stop::End(end) => return Some((out, end)),
            Stop::Next(p) => (at, i) = (p, i + 1),
        }
    }
}
