use proptest::prelude::*;
use serde_json::Value;

use super::row;
use crate::model::findings::ids::tests::from_value;

/// The row as serde_json reads it: the line parsed as a `Value`, the fields taken from it.
fn want(line: &[u8]) -> Option<super::Row> {
    serde_json::from_slice::<Value>(line).ok().map(|v| from_value(&v))
}

/// Read both ways: with the surrogate search's answer, and as if it had found one.
fn read(line: &[u8]) -> [Option<super::Row>; 2] {
    let maybe_surrogate =
        memchr::memmem::find(line, b"\\ud").is_some() || memchr::memmem::find(line, b"\\uD").is_some();
    [row(line, maybe_surrogate), row(line, true)]
}

fn same(line: &[u8]) {
    assert_eq!(
        read(line),
        [want(line), want(line)],
        "{}",
        String::from_utf8_lossy(line)
    );
}

fn nested(open: &str, close: &str, n: usize) -> String {
    format!(
        r#"{{"type":"user","d":{}{},"message":{{"content":[{{"type":"tool_result","tool_use_id":"a"}}]}}}}"#,
        open.repeat(n),
        close.repeat(n)
    )
}

#[test]
fn hand_picked_lines_read_as_serde_json_reads_them() {
    for line in [
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","input":{"x":[1,2.5,null,true,false]}}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"ok\n\"q\" \\ \/ \b\f\r\t \u00e9 \u20AC"}]}}"#,
        r#"{"type":"user","type":3,"message":{"content":[{"tool_use_id":"a","tool_use_id":"b","type":"tool_result"}]}}"#,
        r#"{"message":{"content":[{"type":"tool_use","id":"a"}]},"message":{"content":"text"}}"#,
        r#"{"message":[1],"payload":null,"call_id":"c","type":"function_call"}"#,
        r#"{"type":"response_item","payload":{"type":"function_call","call_id":"c1","arguments":"{}"}}"#,
        r#"{"type":"response_item","payload":"x"}"#,
        r#"{"typ\u0065":"us\u0065r","message":{"content":[1,"a",{"type":"tool_result","tool_use_id":7}]}}"#,
        r#"{"t\"ype":"user","i\\d":"x"}"#,
        r#" { "type" : "user" , "message" : { "content" : [ ] } } "#,
        r#"{"type":"user","n":1e400,"message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
        r#"{"type":"user","n":-1.5E+308,"m":1e308,"k":0e99999,"j":1e-400,"message":{"content":[]}}"#,
        r#"{"type":"user","n":17976931348623159e292}"#,
        r#"{"type":"user","n":01}"#,
        r#"{"type":"user","n":-}"#,
        r#"{"type":"user","n":1.}"#,
        r#"{"type":"user","n":.5}"#,
        r#"{"type":"user","n":1.e3}"#,
        r#"{"type":"user","n":1e}"#,
        r#"{"type":"user","n":-0,"m":-0.0e-0}"#,
        r#"{"type":"user","n":+1}"#,
        r#"{"type":"user","n":tru}"#,
        r#"{"type":"user","n":nulll}"#,
        r#"{"type":"user","s":"\ud800","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
        r#"{"type":"user","s":"\udc00"}"#,
        r#"{"type":"user","s":"\ud83d\ude00","id":"\uD83D\uDE00"}"#,
        r#"{"type":"user","s":"\\ud800"}"#,
        r#"{"type":"user","s":"\u00"}"#,
        r#"{"type":"user","s":"\u00g0"}"#,
        r#"{"type":"user","s":"\x","message":{"content":[]}}"#,
        r#"{"type":"user","message":{"content":[]}} trailing"#,
        r#"{"type":"user","message":{"content":[]}},"#,
        r#"{"type":"user",}"#,
        r#"{"type":"user","message":{"content":[1,]}}"#,
        r#"{,}"#,
        r#"{"type" "user"}"#,
        r#"{"type":}"#,
        r#"{"type":"user""#,
        r#"{"type":"user"#,
        r#"{type:"user"}"#,
        r#"[{"type":"user"}]"#,
        r#""type""#,
        r#"12"#,
        r#"1e999"#,
        r#"null"#,
        r#""#,
        r#"   "#,
        r#"{}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]},"#,
    ] {
        same(line.as_bytes());
    }
    let long = format!(r#"{{"type":"user","n":{}}}"#, "9".repeat(400));
    same(long.as_bytes());
    let long = format!(r#"{{"type":"user","n":{}.5}}"#, "9".repeat(305));
    same(long.as_bytes());
    let long = format!(r#"{{"type":"user","n":0.{}1}}"#, "0".repeat(400));
    same(long.as_bytes());
    for n in [100, 125, 126, 127, 128, 129, 200] {
        same(nested("[", "]", n).as_bytes());
        same(nested(r#"{"a":"#, "}", n).as_bytes());
        same(format!("{}{}", "[".repeat(n), "]".repeat(n)).as_bytes());
    }
    for bytes in [
        b"{\"type\":\"user\",\"s\":\"\xff\"}".to_vec(),
        b"{\"type\":\"us\xc3\xa9r\",\"s\":\"\xc3\"}".to_vec(),
        b"{\"type\":\"us\xc3\xa9r\"}".to_vec(),
        b"{\"t\xffype\":\"user\"}".to_vec(),
        b"{\"type\":\"a\tb\"}".to_vec(),
        b"{\"type\":\"a\x01b\"}".to_vec(),
        b"{\"type\":\t\"user\"\r\n}".to_vec(),
        b"\xef\xbb\xbf{\"type\":\"user\"}".to_vec(),
        b"{\"type\":\"user\"}\n".to_vec(),
        b"{\"type\":\"user\"}\x00".to_vec(),
    ] {
        same(&bytes);
    }
}

/// A JSON value of the shapes the check reads, with the keys it looks for.
fn value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "type",
        "call_id",
        "payload",
        "message",
        "content",
        "id",
        "tool_use_id",
        "input",
        "x",
    ]);
    let text = prop_oneof![
        prop::sample::select(vec![
            "user",
            "assistant",
            "tool_use",
            "tool_result",
            "response_item",
            "function_call",
            "function_call_output",
            "custom_tool_call",
            "local_shell_call",
        ])
        .prop_map(str::to_string),
        "[a-z0-9 _\"\\\\/\n\t\u{e9}\u{20ac}\u{1f600}\u{1}]{0,12}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// Bytes that break JSON in the ways that matter: structure, escapes, numbers, encoding.
const HOSTILE: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b" ",
    b"\t",
    b"\n",
    b"0",
    b"9",
    b"e",
    b"E",
    b"-",
    b"+",
    b".",
    b"u",
    b"d",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\\u00e9",
    b"e999",
    b"1e400",
    b"\x01",
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"t",
    b"n",
    b"true",
    b"null",
    b"\"type\":",
    b"\"typ\\u0065\":",
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, usize),
    Replace(usize, usize),
    Cut(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), 0..HOSTILE.len()).prop_map(|(a, h)| Edit::Insert(a, h)),
        (any::<usize>(), 0..HOSTILE.len()).prop_map(|(a, h)| Edit::Replace(a, h)),
        any::<usize>().prop_map(Edit::Cut),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    let at = |a: usize, n: usize| if n == 0 { 0 } else { a % n };
    match *e {
        Edit::Delete(a) if !bytes.is_empty() => {
            bytes.remove(at(a, bytes.len()));
        }
        Edit::Insert(a, h) => {
            let i = at(a, bytes.len() + 1);
            bytes.splice(i..i, HOSTILE[h].iter().copied());
        }
        Edit::Replace(a, h) if !bytes.is_empty() => {
            let i = at(a, bytes.len());
            bytes.splice(i..=i, HOSTILE[h].iter().copied());
        }
        Edit::Cut(a) => bytes.truncate(at(a, bytes.len() + 1)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generated_lines_read_as_serde_json_reads_them(
        v in value(),
        pretty in any::<bool>(),
        ascii in any::<bool>(),
        edits in prop::collection::vec(edit(), 0..3),
    ) {
        let mut text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
        if ascii {
            // Non-ASCII as escapes, and the keys the check reads spelled with one.
            text = text
                .chars()
                .map(|c| if c.is_ascii() { c.to_string() } else {
                    c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
                })
                .collect::<String>()
                .replace("\"type\"", "\"typ\\u0065\"");
        }
        let mut bytes = text.into_bytes();
        for e in &edits {
            apply(&mut bytes, e);
        }
        prop_assert_eq!(read(&bytes), [want(&bytes), want(&bytes)], "{}", String::from_utf8_lossy(&bytes));
    }
}
