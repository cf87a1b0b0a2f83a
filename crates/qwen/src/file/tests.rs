//! The full reading of a Qwen Code line: records recovered from a damaged line, only the fields
//! read built (a key written twice, the last), the one-pass reading held to the two-pass one.

use super::*;

#[test]
fn two_records_on_one_line_are_both_recovered() {
    let line = br#"{"uuid":"a","timestamp":"}{"}{"uuid":"b"} trailing"#;
    let got = recover(line);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].1["timestamp"], "}{");
    assert_eq!(got[1].1["uuid"], "b");
}

#[test]
fn only_the_fields_read_are_built_and_the_last_of_a_key_given_twice_wins() {
    let v = parse(br#"{"uuid":"a","uuid":"b","toolCallResult":{"x":1},"subtype":"ui_telemetry","systemPayload":{}}"#)
        .unwrap();
    assert_eq!(v["uuid"], "b");
    assert!(v.get("toolCallResult").is_none() && v.get("systemPayload").is_none());
    let c = parse(br#"{"subtype":"chat_compression","systemPayload":{"info":{}}}"#).unwrap();
    assert_eq!(c["systemPayload"]["info"], serde_json::json!({}));
    assert_eq!(parse(b"[1]").unwrap(), Value::Null);
    assert!(parse(b"{\"uuid\":").is_err());
}

/// Lines a one-pass reader could read otherwise than the two-pass one: keys in any order
/// or given twice (an earlier one invalid), escapes, lone surrogates and numbers out of
/// range in a field read or one passed over, deep nesting, payloads kept or not.
const TRICKY: &[&str] = &[
    r#"{"message":{"role":"user","parts":[{"text":"a\n\u00e9\ud83d\ude00"}]},"uuid":"u","type":"user","sessionId":"s","parentUuid":null}"#,
    r#"{"uuid":"a","uuid":"b","message":{"parts":[]},"message":{"role":"model"}}"#,
    r#"{"uuid":"a","message":{"x":"\ud83d"},"message":{"role":"model"}}"#,
    r#"{"uuid":"a","message":{"role":"model"},"message":{"x":"\ud83d"}}"#,
    r#"{"uuid":"a","toolCallResult":{"x":"\ud83d"},"extra":1e400}"#,
    r#"{"uuid":"a","model":1e400}"#,
    r#"{"uuid":"a","usageMetadata":{"n":123456789012345678901234567890,"f":1.50}}"#,
    r#"{"subtype":"chat_compression","systemPayload":{"info":{"triggerReason":"manual"}},"type":"system"}"#,
    r#"{"systemPayload":{"x":"\ud800"},"subtype":"ui_telemetry"}"#,
    r#"{"systemPayload":{"x":"\ud800"},"subtype":"custom_title"}"#,
    r#"{"systemPayload":1,"systemPayload":{"customTitle":"t"},"subtype":"custom_title","subtype":5}"#,
    r#"{"u\u0075id":"escaped key","sessionId":"s"}"#,
    r#"[1,2]"#,
    r#""text""#,
    r#"{"uuid":"a","message":"#,
    r#"{"uuid":"a"} trailing"#,
    r#"{"uuid":"\ud83d"}"#,
    "{\"uuid\":\"a\",\"message\":\"\u{1}\"}",
];

/// Lines of every fixture and [`TRICKY`], with one nested to each depth around the limit.
fn lines() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = TRICKY.iter().map(|l| l.as_bytes().to_vec()).collect();
    for depth in 124..130 {
        let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        out.push(format!(r#"{{"uuid":"a","message":{deep}}}"#).into_bytes());
        out.push(format!(r#"{{"uuid":"a","other":{deep}}}"#).into_bytes());
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/qwen");
    for f in std::fs::read_dir(dir).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read(&path).unwrap();
            out.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
    }
    out
}

#[test]
fn the_one_pass_reading_gives_the_two_pass_one() {
    let (mut one_pass, mut read) = (0, 0);
    for l in lines() {
        let l = l.trim_ascii();
        read += 1;
        one_pass += usize::from(
            serde_json::from_slice::<Fields<'_, Value>>(l)
                .ok()
                .and_then(|f| f.build(Ok, |m| Ok(Some(m))).ok())
                .is_some(),
        );
        let fast = lean(l).map_err(|e| e.to_string());
        let slow = lean_by_text(l).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "{}", String::from_utf8_lossy(l));
    }
    assert!(one_pass > read / 2, "{one_pass} of {read}");
}

/// Where `serde_json` reads the whole line, the fields kept are its: the reader only
/// leaves out what is not read.
#[test]
fn the_fields_kept_are_the_whole_readings() {
    for l in lines() {
        let l = l.trim_ascii();
        let Ok(whole) = serde_json::from_slice::<Value>(l) else {
            continue;
        };
        let Value::Object(whole) = whole else {
            assert_eq!(lean(l).unwrap(), Value::Null);
            continue;
        };
        let payload = whole
            .get("subtype")
            .and_then(Value::as_str)
            .is_some_and(|s| PAYLOADS.contains(&s));
        let kept: Map<String, Value> = FIELDS
            .iter()
            .chain(payload.then_some(&"systemPayload"))
            .filter_map(|k| Some((k.to_string(), whole.get(*k)?.clone())))
            .collect();
        assert_eq!(lean(l).unwrap(), Value::Object(kept), "{}", String::from_utf8_lossy(l));
    }
}

#[test]
fn a_cut_line_recovers_nothing() {
    assert!(recover(br#"{"uuid":"a","message":{"parts":["#).is_empty());
}
