use super::*;
use proptest::prelude::*;
use serde_json::Value;

/// What the full reading says of `text`: refused (`None`), or the length `ValueLen` counts
/// (`Some(None)` when an object repeats a key).
fn full(text: &str) -> Option<Option<usize>> {
    serde_json::from_str::<Value>(text).ok()?;
    Some(serde_json::from_str::<super::super::ValueLen>(text).ok()?.0)
}

/// The fast reading agrees with the full one wherever it answers, and refuses all it refuses.
fn agrees(text: &str) -> Result<Option<usize>, Uncovered> {
    let fast = serde_json::from_str::<RawLen>(text).map(|l| l.0).map_err(|_| Uncovered);
    match (&fast, full(text)) {
        (Ok(n), Some(m)) => assert_eq!(*n, m, "{text}"),
        (Ok(_), None) => panic!("accepted what the full reading refuses: {text}"),
        (Err(_), _) => {}
    }
    // Checking alone looks at neither the keys nor the length: it answers where measuring does,
    // and never accepts what the full reading refuses.
    let checked = serde_json::from_str::<RawChecked>(text).is_ok();
    assert!(checked || fast.is_err(), "{text}");
    assert!(!checked || full(text).is_some(), "{text}");
    if let (Ok(s), Ok(v)) = (
        serde_json::from_str::<RawStr<'_>>(text),
        serde_json::from_str::<Value>(text),
    ) {
        assert_eq!(s.str().as_deref(), v.as_str(), "{text}");
        // Written as a string, where it is measured at all.
        if s.len.is_some() {
            assert_eq!(
                s.quoted_len(),
                Some(super::super::escaped_len(&v.to_string())),
                "{text}"
            );
        }
    }
    fast
}

#[test]
fn what_agents_write_is_measured_as_the_full_reading_does() {
    let covered = [
        r#"{"a":1,"b":[true,false,null,1.5,-0,1e3,-7,18446744073709551615,0,-12,123456789012345678]}"#,
        r#" { "a" : "x\ny\"z\\\u0001\u00e9\ud83d\ude00\/" , "b" : { } , "c" : [ ] } "#,
        r#""plain""#,
        r#""\u001b[31mred\u001b[0m \u0022q\u005c \u007f \u0080 \u07ff \u0800 \uffff \u0008\u000c\u000d\u0009\u000a""#,
        r#"[1.0, 2.50, 3e-7, 123456789012345678901234567890, 0.1, -0.0, 1E2, 1e+2]"#,
        r#"{"k\u0041":"\t","é":"ü","kA":1}"#,
        r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":[{"x":1,"x":1}]}"#,
        r#"{"\\":"\\\\u0041","\\u":"\\/"}"#,
        "[]",
        "{}",
        "\"\"",
        "0",
        "true",
    ];
    for c in covered {
        assert!(agrees(c).is_ok(), "{c}");
    }
    let refused = [
        r#"{"a":"\ud83d"}"#,
        r#"{"a":"\ude00"}"#,
        r#"{"a":"\ud83d\u0041"}"#,
        r#"["\ud83dx"]"#,
        r#"{"a":1e400}"#,
        r#"-1e999"#,
        r#"{"$serde_json::private::RawValue":"{}","a":1}"#,
        r#"[{"\u0024serde_json::private::RawValue":"1"}]"#,
    ];
    for c in refused {
        assert!(agrees(c).is_err(), "{c}");
    }
    let deep = format!("{}1{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert!(agrees(&deep).is_err());
    let many: String = format!(
        "{{{}}}",
        (0..=MAX_KEYS)
            .map(|k| format!("\"{k}\":1"))
            .collect::<Vec<_>>()
            .join(",")
    );
    assert!(agrees(&many).is_err());
}

#[test]
fn a_deserializer_that_cannot_lend_the_text_is_an_error_not_a_guess() {
    let v = serde_json::json!({"a": "b"});
    assert!(RawLen::deserialize(&v).is_err());
    assert!(serde_json::from_reader::<_, RawChecked>(&b"{\"a\":1}"[..]).is_err());
}

/// Any JSON value, with strings drawn from what escapes interest the writer.
fn value() -> impl Strategy<Value = Value> {
    let text = proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('"'),
            Just('\\'),
            Just('/'),
            Just('\n'),
            Just('\u{1}'),
            Just('\u{7f}'),
            Just('é'),
            Just('😀'),
            Just('\u{2028}'),
        ],
        0..12,
    )
    .prop_map(|c| c.into_iter().collect::<String>());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((text.clone(), inner), 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Escapes `s`'s characters the way other writers do: every non-ASCII one and `/` as `\u`
/// (pairs of surrogates above the BMP), and `"`, `\` and a new line as `\u` too, which
/// serde_json itself never writes.
fn escaped_otherwise(text: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => match chars.next() {
                Some('"') => out.push_str("\\u0022"),
                Some('\\') => out.push_str("\\u005C"),
                Some('n') => out.push_str("\\u000a"),
                next => {
                    out.push(c);
                    out.extend(next);
                }
            },
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            '/' if in_string => out.push_str("\\/"),
            c if in_string && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

proptest! {
    #[test]
    fn any_value_written_any_way_is_measured_as_written_back(v in value()) {
        let compact = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(agrees(&compact), Ok(Some(compact.len())));
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        prop_assert_eq!(agrees(&pretty), Ok(Some(compact.len())));
        prop_assert_eq!(agrees(&escaped_otherwise(&compact)), Ok(Some(compact.len())));
    }

    #[test]
    fn any_text_is_refused_or_measured_as_the_full_reading_does(s in "[\\[\\]{}\":,\\\\ u0-9a-fA-Fd\\-.eE/ntrl]{0,40}") {
        let _ = agrees(&s);
    }
}
