//! A JSON document as `settings.json` holds it, for editing its hooks without changing
//! anything else the user wrote: every string, number and literal keeps the text it was
//! written with (a 20-digit integer, `1.50`, `"\u00e9"` come back as written), where a
//! `serde_json::Value` would round numbers to `f64` or `i64` and re-escape strings. The
//! workspace's `serde_json` cannot take `arbitrary_precision`, which other crates' numbers
//! would then change under them. The document is checked with `serde_json` first, so this
//! parser only ever sees valid JSON.

/// A JSON value; scalars and keys keep their exact source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Json {
    /// Keys with their quotes, as written.
    Object(Vec<(String, Json)>),
    /// Elements in order.
    Array(Vec<Json>),
    /// A string (with its quotes), a number, `true`, `false` or `null`, as written.
    Scalar(String),
}

impl Json {
    /// Parses text that `serde_json` has accepted as JSON.
    pub fn parse(text: &str) -> Option<Json> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        (p.i == p.s.len()).then_some(v)
    }

    /// A value built by `serde_json` (the entries cctool adds).
    pub fn from_value(v: &serde_json::Value) -> Json {
        match v {
            serde_json::Value::Object(m) => {
                Json::Object(m.iter().map(|(k, v)| (quoted(k), Json::from_value(v))).collect())
            }
            serde_json::Value::Array(a) => Json::Array(a.iter().map(Json::from_value).collect()),
            scalar => Json::Scalar(scalar.to_string()),
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m
                .iter()
                .find(|(k, _)| unquoted(k).as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value under `key` of an object (the first if repeated); `None` for other values.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(m) => m
                .iter_mut()
                .find(|(k, _)| unquoted(k).as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of `key`, added at the end of the object (as `default`) when missing; `None`
    /// when `self` is not an object.
    pub fn entry(&mut self, key: &str, default: Json) -> Option<&mut Json> {
        let Json::Object(m) = self else { return None };
        let at = match m.iter().position(|(k, _)| unquoted(k).as_deref() == Some(key)) {
            Some(i) => i,
            None => {
                m.push((quoted(key), default));
                m.len() - 1
            }
        };
        Some(&mut m[at].1)
    }

    /// Removes every member named `key` of an object; does nothing to other values.
    pub fn remove(&mut self, key: &str) {
        if let Json::Object(m) = self {
            m.retain(|(k, _)| unquoted(k).as_deref() != Some(key));
        }
    }

    /// The text of a string value, unescaped.
    pub fn as_str(&self) -> Option<String> {
        match self {
            Json::Scalar(s) if s.starts_with('"') => unquoted(s),
            _ => None,
        }
    }

    /// Written as `serde_json` writes: on one line without spaces, or with `indent` per level
    /// and `"key": value`.
    pub fn write(&self, out: &mut String, indent: Option<&str>, depth: usize) {
        let (open, close, items): (char, char, Vec<(Option<&str>, &Json)>) = match self {
            Json::Scalar(s) => return out.push_str(s),
            Json::Object(m) => ('{', '}', m.iter().map(|(k, v)| (Some(k.as_str()), v)).collect()),
            Json::Array(a) => ('[', ']', a.iter().map(|v| (None, v)).collect()),
        };
        out.push(open);
        for (n, (key, v)) in items.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            if let Some(ind) = indent {
                out.push('\n');
                out.push_str(&ind.repeat(depth + 1));
            }
            if let Some(k) = key {
                out.push_str(k);
                out.push_str(if indent.is_some() { ": " } else { ":" });
            }
            v.write(out, indent, depth + 1);
        }
        if let (Some(ind), false) = (indent, items.is_empty()) {
            out.push('\n');
            out.push_str(&ind.repeat(depth));
        }
        out.push(close);
    }
}

fn quoted(k: &str) -> String {
    serde_json::Value::String(k.to_string()).to_string()
}

fn unquoted(raw: &str) -> Option<String> {
    serde_json::from_str(raw).ok()
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Option<Json> {
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                loop {
                    self.ws();
                    if self.eat(b'}') {
                        return Some(Json::Object(m));
                    }
                    if !m.is_empty() && !self.eat(b',') {
                        return None;
                    }
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if !self.eat(b':') {
                        return None;
                    }
                    m.push((k, self.value()?));
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                loop {
                    self.ws();
                    if self.eat(b']') {
                        return Some(Json::Array(a));
                    }
                    if !a.is_empty() && !self.eat(b',') {
                        return None;
                    }
                    a.push(self.value()?);
                }
            }
            b'"' => self.string().map(Json::Scalar),
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                {
                    self.i += 1;
                }
                (self.i > start).then(|| Json::Scalar(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
            }
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&b);
        self.i += usize::from(hit);
        hit
    }

    /// A string with its quotes, as written.
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match *self.s.get(self.i)? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return std::str::from_utf8(&self.s[start..self.i]).ok().map(str::to_string);
                }
                _ => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_keep_their_text_and_layout_is_serde_s() {
        let text = r#"{"big":123456789012345678901234567890,"f":1.50,"e":1E+2,"s":"caf\u00e9 \"q\"","a":[],"o":{},"n":[null,true,-0]}"#;
        let v = Json::parse(text).unwrap();
        let mut one = String::new();
        v.write(&mut one, None, 0);
        assert_eq!(one, text);
        let mut pretty = String::new();
        v.write(&mut pretty, Some("  "), 0);
        let serde: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(serde["s"], "café \"q\"");
        assert!(
            pretty.contains("\n  \"big\": 123456789012345678901234567890,\n"),
            "{pretty}"
        );
        assert!(
            pretty.contains("\"a\": [],\n  \"o\": {},\n  \"n\": [\n    null,"),
            "{pretty}"
        );
        assert_eq!(v.get("s").unwrap().as_str().unwrap(), "café \"q\"");
    }
}
