//! The walk over a record: every string and every key is searched (a JSON text inside a
//! string opened first), values under secret names are taken whole (numbers too), images and
//! binary documents are dropped, and a secret split across two consecutive text blocks of a
//! message is found in their joined text.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::io::json::{for_each_element, for_each_member, kept, kept_text, parse_kept_text, serde_reads, to_json};

use super::detect::{fx, is_secret_value};
use super::{Learned, Redactor};

/// How much of each side of two adjacent text blocks is joined to look for a split secret:
/// more than the longest token format.
const SEAM: usize = 1024;

/// Block types holding a message's text, in Anthropic and OpenAI terms.
const TEXT_BLOCKS: &[&str] = &["text", "input_text", "output_text"];

impl Redactor {
    /// Whether the value at `k` is left as written ([`super::structural_keys`]).
    fn is_structural(&self, k: &str) -> bool {
        self.structural.binary_search(&k).is_ok()
    }

    /// Finds the secrets of every string, key and secret-named value of `v`, so that every
    /// other occurrence of each is replaced too.
    pub(super) fn find_value(&self, v: &Value, out: &mut Learned) {
        if let Some(text) = kept_text(v) {
            // Nested deeper than serde_json reads: searched as text, as it always was.
            if !serde_reads(text.as_bytes()) {
                return self.find_str(text, out);
            }
            each_kept(text, &mut |item| self.find_value(&item, out));
            return;
        }
        match v {
            Value::String(s) => match json_text(s) {
                Some(inner) => self.find_value(&inner, out),
                None => self.find_str(s, out),
            },
            Value::Array(items) => {
                for i in items {
                    self.find_value(i, out);
                }
                for (a, b) in text_pairs(items) {
                    let (joined, cut) = seam(a, b);
                    for (x, y, label) in self.spans(&joined) {
                        if x < cut && y > cut {
                            out.push(label, &joined[x..y]);
                        }
                    }
                }
            }
            Value::Object(map) => {
                // Numbered with the secrets of its part, so in file order whatever part is
                // searched first.
                if let Some((label, key, _)) = self.dropped_key(map) {
                    self.known.count_use(label);
                    out.push_unsearched(label, &key);
                    return;
                }
                for (k, item) in map {
                    self.find_str(k, out);
                    if self.is_structural(k) {
                        continue;
                    }
                    if self.secret_key.is_match(k) {
                        match item {
                            Value::String(s)
                                if s.len() >= 6 && !s.contains(char::is_whitespace) && is_secret_value(s) =>
                            {
                                out.push(self.key_rule, s);
                            }
                            Value::Number(n) if n.to_string().len() >= 6 => {
                                out.push(self.key_rule, &n.to_string());
                            }
                            _ => {}
                        }
                    }
                    self.find_value(item, out);
                }
            }
            _ => {}
        }
    }

    /// Replaces every known secret in `v` (strings, keys, numbers), drops images and binary
    /// documents, and says whether anything changed.
    pub(super) fn replace_value(&self, v: &mut Value) -> bool {
        if let Some(text) = kept_text(v) {
            let new = if serde_reads(text.as_bytes()) {
                self.replace_kept(text)
            } else {
                self.known.replace(text)
            };
            return match new {
                Some(new) => {
                    *v = kept(new);
                    true
                }
                None => false,
            };
        }
        match v {
            Value::String(s) => match self.replace_string(s) {
                Some(new) => {
                    *s = new;
                    true
                }
                None => false,
            },
            Value::Number(n) if self.known.has_numbers() => match self.known.exact(&n.to_string()) {
                Some((label, number)) => {
                    *v = Value::String(self.known.placeholder(label, number));
                    true
                }
                None => false,
            },
            Value::Array(items) => {
                let mut changed = self.replace_seams(items);
                for i in items {
                    changed |= self.replace_value(i);
                }
                changed
            }
            Value::Object(map) => {
                if let Some(text) = self.dropped(map) {
                    *v = text;
                    return true;
                }
                let mut changed = self.replace_keys(map);
                for (k, item) in map.iter_mut() {
                    if !self.is_structural(k) {
                        changed |= self.replace_value(item);
                    }
                }
                changed
            }
            _ => false,
        }
    }

    /// A string with its secrets replaced; a JSON text inside it (Codex writes tool arguments
    /// that way) is opened, replaced in, and written back compact.
    fn replace_string(&self, s: &str) -> Option<String> {
        match json_text(s) {
            Some(mut inner) => self.replace_value(&mut inner).then(|| to_json(&inner)),
            None => self.known.replace(s),
        }
    }

    /// A container kept as its text ([`crate::io::json::parse_kept`]) with its secrets
    /// replaced, read and replaced element by element: an element that changed written
    /// compact, the others as written; `None` when nothing changed.
    fn replace_kept(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len());
        let mut changed = false;
        let mut put = |raw: &str, new: Option<String>| {
            out.push(if out.is_empty() {
                text.as_bytes()[0] as char
            } else {
                ','
            });
            changed |= new.is_some();
            out.push_str(new.as_deref().unwrap_or(raw));
        };
        let read = if text.starts_with('[') {
            for_each_element(text, |raw: &RawValue| {
                let mut item = parse_kept_text(raw.get()).unwrap_or(Value::Null);
                let new = self.replace_value(&mut item).then(|| to_json(&item));
                put(raw.get(), new);
            })
        } else {
            for_each_member(text, |k, raw| {
                let mut member = Map::new();
                member.insert(k.clone(), parse_kept_text(raw.get()).unwrap_or(Value::Null));
                let mut member = Value::Object(member);
                let new = self.replace_value(&mut member).then(|| {
                    let written = to_json(&member);
                    written[1..written.len() - 1].to_string()
                });
                let mut as_written = to_json(&Value::String(k));
                as_written.push(':');
                as_written.push_str(raw.get());
                put(&as_written, new);
            })
        };
        if !read || !changed {
            return None;
        }
        if out.is_empty() {
            out.push(text.as_bytes()[0] as char);
        }
        out.push(if text.starts_with('[') { ']' } else { '}' });
        Some(out)
    }

    /// Keys holding a secret (a home folder in `trackedFileBackups`' paths) written again,
    /// the members kept in order.
    fn replace_keys(&self, map: &mut Map<String, Value>) -> bool {
        let new: Vec<Option<String>> = map.keys().map(|k| self.known.replace(k)).collect();
        if new.iter().all(Option::is_none) {
            return false;
        }
        let old = std::mem::take(map);
        for ((k, v), n) in old.into_iter().zip(new) {
            map.insert(n.unwrap_or(k), v);
        }
        true
    }

    /// A secret split across two adjacent text blocks: its placeholder ends the first, and
    /// the second loses its part.
    fn replace_seams(&self, items: &mut [Value]) -> bool {
        let mut changed = false;
        for i in 1..items.len() {
            let (Some(a), Some(b)) = (block_text(&items[i - 1]), block_text(&items[i])) else {
                continue;
            };
            let (joined, cut) = seam(a, b);
            let Some(f) = self
                .known
                .find(&joined)
                .into_iter()
                .find(|f| f.start < cut && f.end > cut)
            else {
                continue;
            };
            let (a_keep, b_from) = (a.len() - (cut - f.start), f.end - cut);
            let a_new = format!("{}{}", &a[..a_keep], self.known.placeholder(f.label, f.number));
            let b_new = b[b_from..].to_string();
            items[i - 1]["text"] = Value::String(a_new);
            items[i]["text"] = Value::String(b_new);
            changed = true;
        }
        changed
    }

    /// The text block that replaces an image (Anthropic `image`, OpenAI `input_image`) or a
    /// binary document (Anthropic `document` of base64 or a file, OpenAI `input_file`), or
    /// `None` when `map` is neither.
    fn dropped(&self, map: &Map<String, Value>) -> Option<Value> {
        let (label, key, text_type) = self.dropped_key(map)?;
        let (label, number) = self.known.learn(label, &key, false);
        let mut out = Map::new();
        out.insert("type".into(), Value::from(text_type));
        out.insert("text".into(), Value::from(self.known.placeholder(label, number)));
        Some(out.into())
    }

    /// What [`dropped`](Self::dropped) numbers an image or binary document by (its rule and a
    /// key of its data), and the type of the text block that replaces it.
    fn dropped_key(&self, map: &Map<String, Value>) -> Option<(usize, String, &'static str)> {
        let ty = map.get("type")?.as_str()?;
        let (data, text_type, label) = match ty {
            "image" if !self.keep_images => (
                map.get("source").and_then(|s| s.get("data").or_else(|| s.get("url")))?,
                "text",
                self.image_rule,
            ),
            "input_image" if !self.keep_images => (map.get("image_url")?, "input_text", self.image_rule),
            "document" => {
                let src = map.get("source")?;
                if src.get("type").and_then(Value::as_str) == Some("text") {
                    return None;
                }
                (
                    src.get("data").or_else(|| src.get("file_id"))?,
                    "text",
                    self.document_rule,
                )
            }
            "input_file" => (
                map.get("file_data").or_else(|| map.get("file_id"))?,
                "input_text",
                self.document_rule,
            ),
            _ => return None,
        };
        let data = data.as_str().unwrap_or_default();
        Some((label, format!("{:016x}:{}", fx(data.as_bytes()), data.len()), text_type))
    }
}

/// The value a string holds when it is a JSON object or array written as text.
fn json_text(s: &str) -> Option<Value> {
    let t = s.trim();
    let bracketed = (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    if !bracketed {
        return None;
    }
    serde_reads(t.as_bytes())
        .then(|| parse_kept_text(t))
        .flatten()
        .filter(|v| v.is_object() || v.is_array())
}

/// Hands each element of a container kept as its text to `f`, read as a record is: an array's
/// elements, or an object's members each as an object of its own.
fn each_kept(text: &str, f: &mut dyn FnMut(Value)) {
    if text.starts_with('[') {
        for_each_element(text, |raw: &RawValue| {
            f(parse_kept_text(raw.get()).unwrap_or(Value::Null))
        });
    } else {
        for_each_member(text, |k, raw| {
            let mut member = Map::new();
            member.insert(k, parse_kept_text(raw.get()).unwrap_or(Value::Null));
            f(Value::Object(member));
        });
    }
}

/// The text of a text block.
fn block_text(v: &Value) -> Option<&str> {
    let ty = v.get("type")?.as_str()?;
    if !TEXT_BLOCKS.contains(&ty) {
        return None;
    }
    v.get("text")?.as_str()
}

/// Adjacent text blocks of one list, as pairs of their texts.
fn text_pairs(items: &[Value]) -> impl Iterator<Item = (&str, &str)> {
    items
        .windows(2)
        .filter_map(|w| Some((block_text(&w[0])?, block_text(&w[1])?)))
}

/// The end of `a` and the start of `b` joined, and where `b` starts in the result.
fn seam(a: &str, b: &str) -> (String, usize) {
    let mut from = a.len().saturating_sub(SEAM);
    while !a.is_char_boundary(from) {
        from += 1;
    }
    let mut to = b.len().min(SEAM);
    while !b.is_char_boundary(to) {
        to -= 1;
    }
    (format!("{}{}", &a[from..], &b[..to]), a.len() - from)
}
