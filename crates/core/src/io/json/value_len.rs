//! The length of a [`Value`] written as compact JSON, counted from the tree: what
//! [`super::json_len`] gives for a `Value`, without passing each string byte by byte through the
//! serializer's escape table.

use serde_json::Value;

/// The length of `v` written as compact JSON (`serde_json::to_vec(v).len()`): each string
/// counted by how many of its bytes the writer escapes, in a loop the compiler vectorises.
pub fn value_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        // Numbers are few and short: the writer's own formatting is the reference.
        Value::Number(n) => super::json_len(n),
        Value::String(s) => escaped_len(s),
        Value::Array(a) => 2 + a.len().saturating_sub(1) + a.iter().map(value_len).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1) + o.iter().map(|(k, v)| escaped_len(k) + 1 + value_len(v)).sum::<usize>()
        }
    }
}

/// A string's written length: its quotes, its bytes, and one more byte for each escaped as
/// `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, five more for each other control character
/// (`\u00XX`). Other bytes, 0x7F and UTF-8 included, are written as they are.
pub fn escaped_len(s: &str) -> usize {
    let (mut named, mut short, mut control) = (0usize, 0usize, 0usize);
    // Counters of one byte each keep the loop wide; a chunk never overflows them.
    for chunk in s.as_bytes().chunks(255) {
        let (mut n, mut q, mut c) = (0u8, 0u8, 0u8);
        for &b in chunk {
            q += u8::from(b == b'"' || b == b'\\');
            n += u8::from(matches!(b, 8 | 9 | 10 | 12 | 13));
            c += u8::from(b < 0x20);
        }
        named += usize::from(n);
        short += usize::from(q);
        control += usize::from(c);
    }
    2 + s.len() + short + named + 5 * (control - named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(v: &Value) {
        assert_eq!(value_len(v), serde_json::to_vec(v).unwrap().len(), "{v}");
    }

    #[test]
    fn every_byte_is_counted_as_the_writer_writes_it() {
        let every: String = (0u32..0x80).filter_map(char::from_u32).collect();
        same(&json!(every));
        same(&json!({ every.clone(): [every.clone(), "\u{7f}é😀\u{2028}"] }));
        let long = "a\"\\\n\u{1}".repeat(300);
        same(&json!({"k\n": long, "": ""}));
    }

    #[test]
    fn every_kind_of_value_is_counted() {
        same(&json!(null));
        same(&json!([]));
        same(&json!({}));
        same(&json!([
            true,
            false,
            null,
            0,
            -1,
            1.5,
            1e300,
            -2.5e-8,
            u64::MAX,
            i64::MIN,
            0.1
        ]));
        same(&json!({"a": {"b": [{"c": []}, {}]}, "d": "x"}));
        let n: Value = serde_json::from_str("[1.0, 3e2, 123456789012345678901234567890, -0.0]").unwrap();
        same(&n);
    }
}
