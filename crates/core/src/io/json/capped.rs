//! Records read whole however deep or wide: what is past the caps is kept as its JSON text,
//! and the depth and members of a record are found without building it.

use super::*;

/// The deepest nesting serde_json reads with its default recursion limit (and so Codex, which
/// skips a rollout line nested deeper).
pub const SERDE_MAX_DEPTH: usize = 127;

/// Arrays and objects nested deeper than this in a record are kept as their JSON text by
/// [`parse_record`]. A v5 document holds a record about six levels down, and serde_json (so
/// cctool, Codex and most readers in Rust) stops at 128 levels: a record kept whole at 120
/// levels would make the whole document unreadable.
pub const KEEP_DEPTH: usize = 100;

/// Arrays and objects with more elements than this are kept as their JSON text by
/// [`parse_record`]: as a tree, each element of `[1,1,…]` costs 36 times its two bytes (and
/// in an import becomes an item of its own); no record an agent writes comes near it.
pub const KEEP_ELEMENTS: usize = 100_000;

/// A record as a JSON value, lone surrogates repaired; `null` when it is not JSON at all.
///
/// Arrays and objects more than [`KEEP_DEPTH`] levels down, or with more than
/// [`KEEP_ELEMENTS`] elements, become `{"_raw": TEXT}`, their exact JSON text (as the v5
/// schema keeps unparsable tool arguments): nothing is lost, the value stays readable, no
/// walk over it can overflow the stack however deep the input (the text is skipped by
/// serde_json's iterative scanner, never built as a tree), and the memory it takes stays in
/// proportion to its text. Everything else is exactly what `serde_json::from_slice::<Value>`
/// gives.
pub fn parse_record(bytes: &[u8]) -> serde_json::Value {
    parse_capped(bytes, RAW_KEY)
        .or_else(|| repair_surrogates(bytes).and_then(|b| parse_capped(&b, RAW_KEY)))
        .unwrap_or(serde_json::Value::Null)
}

/// The key [`parse_record`] keeps a container's text under, as the v5 schema does.
const RAW_KEY: &str = "_raw";

/// `bytes` read with the caps, a container past them kept as `{key: TEXT}`. With any other
/// key than [`RAW_KEY`], an object of the input that has a member named `key` is kept as its
/// text too, so that `{key: TEXT}` always stands for a kept container.
pub(super) fn parse_capped(bytes: &[u8], key: &'static str) -> Option<serde_json::Value> {
    parse_capped_at(bytes, 1, key)
}

/// [`parse_capped`] of a value found `depth` levels down in a record (the record itself is
/// level 1): the caps counted from the record, as a reading of the whole record counts them.
pub(super) fn parse_capped_at(bytes: &[u8], depth: usize, key: &'static str) -> Option<serde_json::Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match (Capped { depth, key }).deserialize(&mut de) {
        Ok(v) => de.end().ok().map(|()| v),
        // A container too large to hold as a tree: read again, container by container.
        Err(e) if e.to_string().starts_with(TOO_MANY) => by_parts(std::str::from_utf8(bytes).ok()?.trim(), depth, key),
        Err(_) => None,
    }
}

/// The error [`Capped`] stops with on a container of more than [`KEEP_ELEMENTS`] elements.
pub(super) const TOO_MANY: &str = "cctool: too many elements";

/// `{key: text}`.
pub(super) fn raw_text(key: &str, text: &str) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert(key.into(), serde_json::Value::String(text.to_string()));
    serde_json::Value::Object(m)
}

/// The elements of the container `text`, counted without building them.
pub fn count_elements(text: &str) -> Option<usize> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array or an object")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }
    serde_json::Deserializer::from_str(text).deserialize_any(Count).ok()
}

/// [`parse_record`]'s value of `text`, found `depth` levels down, each container counted before
/// it is built: the slow way, for a record that holds a container too large for the fast one.
pub(super) fn by_parts(text: &str, depth: usize, key: &'static str) -> Option<serde_json::Value> {
    use serde_json::value::RawValue;
    let container = text.starts_with(['{', '[']);
    if !container {
        return serde_json::from_str(text).ok();
    }
    if depth > KEEP_DEPTH || count_elements(text)? > KEEP_ELEMENTS {
        return Some(raw_text(key, text));
    }
    if text.starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
        let v = items
            .into_iter()
            .map(|r| by_parts(r.get(), depth + 1, key))
            .collect::<Option<Vec<_>>>()?;
        return Some(serde_json::Value::Array(v));
    }
    let members = Members::parse(text.as_bytes())?;
    if key != RAW_KEY && members.iter().any(|(k, _)| k == key) {
        return Some(raw_text(key, text));
    }
    let mut m = serde_json::Map::new();
    for (k, r) in members.iter() {
        m.insert(k.to_string(), by_parts(r.get(), depth + 1, key)?);
    }
    Some(serde_json::Value::Object(m))
}

/// Reads a value found `depth` levels down (the record itself is level 1), keeping a container
/// past the caps under `key`.
pub(super) struct Capped {
    depth: usize,
    key: &'static str,
}

impl Capped {
    /// The reader of a value one level further down.
    fn below(&self) -> Capped {
        Capped {
            depth: self.depth + 1,
            key: self.key,
        }
    }
}

impl<'de> de::DeserializeSeed<'de> for Capped {
    type Value = serde_json::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        if self.depth > KEEP_DEPTH {
            let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
            let text = raw.get();
            if text.starts_with(['{', '[']) {
                return Ok(raw_text(self.key, text));
            }
            return serde_json::from_str(text).map_err(de::Error::custom);
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Capped {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<serde_json::Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(x) = seq.next_element_seed(self.below())? {
            if v.len() == KEEP_ELEMENTS {
                return Err(de::Error::custom(TOO_MANY));
            }
            v.push(x);
        }
        Ok(serde_json::Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<serde_json::Value, A::Error> {
        let mut m = serde_json::Map::new();
        let mut n = 0;
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(self.below())?;
            n += 1;
            // An object that has the key a kept container is written under is kept as its
            // text too, by the slow way, which can see it whole.
            if n > KEEP_ELEMENTS || (self.key != RAW_KEY && k == self.key) {
                return Err(de::Error::custom(TOO_MANY));
            }
            m.insert(k, v);
        }
        Ok(serde_json::Value::Object(m))
    }
}

/// Hands each element of the JSON array `text` to `f` as it is read, never holding them all:
/// false when `text` is not an array of `T` (the elements before the fault were handed over).
pub fn for_each_element<'de, T: Deserialize<'de>>(text: &'de str, f: impl FnMut(T)) -> bool {
    struct Each<F, T>(F, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for Each<F, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            while let Some(x) = seq.next_element::<T>()? {
                (self.0)(x);
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_seq(Each(f, std::marker::PhantomData)).is_ok() && de.end().is_ok()
}

/// An object's members as written: each key with its value's exact JSON text. Fields can be
/// replaced and the object written again without building (or re-encoding) the rest, so a
/// record keeps its bytes, and its depth costs nothing.
pub struct Members<'a>(Vec<(Cow<'a, str>, Cow<'a, serde_json::value::RawValue>)>);

impl<'a> Members<'a> {
    /// The members of `bytes`, when it is a JSON object (lone surrogates pass as written).
    pub fn parse(bytes: &'a [u8]) -> Option<Members<'a>> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = map.next_entry::<Key<'de>, &'de serde_json::value::RawValue>()? {
                    v.push((k.0, Cow::Borrowed(x)));
                }
                Ok(Members(v))
            }
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let m = de.deserialize_map(V).ok()?;
        de.end().ok()?;
        Some(m)
    }

    /// The members in the order written (a repeated key each time).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &serde_json::value::RawValue)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    /// The text of the last value of `key` (the one `JSON.parse` keeps).
    pub fn get(&self, key: &str) -> Option<&serde_json::value::RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_ref())
    }

    /// `key` as a string, when its last value is one.
    pub fn str(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|v| serde_json::from_str(v.get()).ok())
    }

    /// Gives `key` the value `v`: in place of its first occurrence (the others dropped, so
    /// the value cannot be overridden by a later duplicate), else at the end.
    pub fn set(&mut self, key: &str, v: &impl serde::Serialize) {
        let Ok(text) = serde_json::value::to_raw_value(v) else {
            return;
        };
        match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => {
                self.0[i].1 = Cow::Owned(text);
                let mut n = 0;
                self.0.retain(|(k, _)| {
                    n += usize::from(k == key);
                    k != key || n == 1
                });
            }
            None => self.0.push((Cow::Owned(key.to_string()), Cow::Owned(text))),
        }
    }

    /// The object as compact JSON text: unchanged members byte for byte.
    pub fn write(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(b"{")?;
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, k.as_ref())?;
            w.write_all(b":")?;
            w.write_all(v.get().as_bytes())?;
        }
        w.write_all(b"}")
    }

    /// The object as compact JSON, as [`write`](Self::write) gives it (writing to memory
    /// cannot fail).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::new();
        let _ = self.write(&mut v);
        v
    }
}

/// The deepest nesting of arrays and objects in JSON text (strings skipped), without
/// building anything: whether a reader that stops at some depth can read it.
pub fn nesting_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut strings = Strings::default();
    for &b in bytes {
        if !strings.structural(b) {
            continue;
        }
        match b {
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
