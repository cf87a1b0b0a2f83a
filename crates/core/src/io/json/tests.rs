use super::*;

/// The minifier as it was, a byte at a time.
fn minify_bytewise(raw: &[u8]) -> Vec<u8> {
    let mut strings = Strings::default();
    raw.iter()
        .copied()
        .filter(|&b| !strings.structural(b) || !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .collect()
}

proptest::proptest! {
    #[test]
    fn minify_is_the_bytewise_minify(parts in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just(&b"\""[..]),
            proptest::strategy::Just(&b"\\"[..]),
            proptest::strategy::Just(&b" "[..]),
            proptest::strategy::Just(&b"\n  "[..]),
            proptest::strategy::Just(&b"\t\r"[..]),
            proptest::strategy::Just(&b"{\"a\": [1, 2]}"[..]),
            proptest::strategy::Just(&b"x y"[..]),
            proptest::strategy::Just("é".as_bytes()),
            proptest::strategy::Just(&b"\\n"[..]),
            proptest::strategy::Just(&b"\\u0041"[..]),
            proptest::strategy::Just(&b"\\x"[..]),
            proptest::strategy::Just(&b"\x01"[..]),
            proptest::strategy::Just(&b"a long run of text, longer than a block of sixty-four bytes: the SIMD skip"[..]),
        ],
        0..200,
    )) {
        let raw = parts.concat();
        let mut out = b"kept".to_vec();
        minify_into(&raw, &mut out);
        let mut want = b"kept".to_vec();
        want.extend(minify_bytewise(&raw));
        proptest::prop_assert_eq!(out, want);
    }
}

proptest::proptest! {
    /// The end of a string found by the vendored skip is the one the plain search finds, for
    /// valid strings and invalid ones alike.
    #[test]
    fn string_end_is_the_plain_search(parts in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just(&b"\""[..]),
            proptest::strategy::Just(&b"\\"[..]),
            proptest::strategy::Just(&b"\\n"[..]),
            proptest::strategy::Just(&b"\\u00e9"[..]),
            proptest::strategy::Just(&b"\\q"[..]),
            proptest::strategy::Just(&b"\t"[..]),
            proptest::strategy::Just(&b"plain text of some length, past one block of 64 bytes or so"[..]),
            proptest::strategy::Just("é".as_bytes()),
        ],
        0..80,
    ), from in 0usize..8) {
        let text = parts.concat();
        proptest::prop_assert_eq!(string_end(&text, from), string_end_plain(&text, from));
    }
}

proptest::proptest! {
    /// The vendored map finds a member of a small map by comparing keys in order, of a larger
    /// one by its hash: either way each member it holds, and no key it does not.
    #[test]
    fn a_map_finds_its_members_small_or_large(
        keys in proptest::collection::vec("[a-c]{0,3}", 0..14),
        asked in "[a-c]{0,3}",
    ) {
        let m: serde_json::Map<String, serde_json::Value> = keys.iter().enumerate().map(|(i, k)| (k.clone(), serde_json::Value::from(i))).collect();
        let held = m.iter().find(|(k, _)| **k == asked).map(|(_, v)| v);
        proptest::prop_assert_eq!(m.get(asked.as_str()), held);
        proptest::prop_assert_eq!(m.contains_key(asked.as_str()), held.is_some());
        for (k, v) in &m {
            proptest::prop_assert_eq!(m.get(k), Some(v));
        }
    }
}

fn nested(n: usize) -> String {
    format!("{}\"x\"{}", "{\"a\":".repeat(n), "}".repeat(n))
}

#[test]
fn records_parse_as_serde_json_parses_them() {
    for line in [
        r#"{"b":[1,2.5,-3,1e300,null,true],"a":"x \u00e9 \ud83d\ude00","a":{"z":{}},"n":18446744073709551615}"#,
        r#"{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"uuid":"u"}"#,
        &nested(99),
    ] {
        let want: serde_json::Value = serde_json::from_str(line).unwrap_or(serde_json::Value::Null);
        assert_eq!(parse_record(line.as_bytes()), want, "{line}");
        assert_eq!(parse_record(line.as_bytes()).to_string(), want.to_string());
    }
    assert_eq!(parse_record(br#"{"a":"\ud800"}"#)["a"], "\u{fffd}");
    assert_eq!(parse_record(b"{\"a\":"), serde_json::Value::Null);
}

#[test]
fn serde_json_reads_to_its_max_depth_and_no_further() {
    let parse = |n| serde_json::from_str::<serde_json::Value>(&nested(n)).is_ok();
    assert!(parse(SERDE_MAX_DEPTH));
    assert!(!parse(SERDE_MAX_DEPTH + 1));
    assert_eq!(nesting_depth(nested(SERDE_MAX_DEPTH).as_bytes()), SERDE_MAX_DEPTH);
}

#[test]
fn deep_values_are_kept_as_their_text() {
    for n in [101, 130, 100_000] {
        let line = nested(n);
        let v = parse_record(line.as_bytes());
        let mut at = &v;
        for _ in 0..KEEP_DEPTH {
            at = &at["a"];
        }
        let raw = at["_raw"].as_str().unwrap();
        assert_eq!(raw, nested(n - KEEP_DEPTH), "{n}");
        // What is written of it reads back.
        assert!(serde_json::from_str::<serde_json::Value>(&v.to_string()).is_ok());
    }
    // Scalars that deep stay scalars.
    let line = format!("{}1{}", "[".repeat(KEEP_DEPTH + 1), "]".repeat(KEEP_DEPTH + 1));
    let v = parse_record(line.as_bytes());
    assert_eq!(v.pointer(&"/0".repeat(KEEP_DEPTH)).unwrap()["_raw"], "[1]");
}

#[test]
fn huge_containers_are_kept_as_their_text() {
    let big = format!("[{}1]", "1,".repeat(KEEP_ELEMENTS));
    let small = format!("[{}1]", "1,".repeat(KEEP_ELEMENTS - 1));
    let line = format!(r#"{{"a":{{"b":{big},"c":{small},"d":"\u00e9"}},"e":[{big}]}}"#);
    let v = parse_record(line.as_bytes());
    assert_eq!(v["a"]["b"]["_raw"], big);
    assert_eq!(v["a"]["c"].as_array().unwrap().len(), KEEP_ELEMENTS);
    assert_eq!(v["a"]["d"], "é");
    assert_eq!(v["e"][0]["_raw"], big);
    let obj = format!(
        "{{{}\"z\":0}}",
        (0..KEEP_ELEMENTS).map(|i| format!("\"k{i}\":0,")).collect::<String>()
    );
    assert_eq!(parse_record(format!(r#"{{"o":{obj}}}"#).as_bytes())["o"]["_raw"], obj);
    // Beside a large one, the depth rule still holds.
    let line = format!(r#"{{"a":{big},"b":{}}}"#, nested(200));
    let v = parse_record(line.as_bytes());
    assert!(v["b"].to_string().contains("_raw"));
    assert!(serde_json::from_str::<serde_json::Value>(&v.to_string()).is_ok());
    // A lone surrogate in such a record is still repaired.
    let line = format!(r#"{{"a":{big},"s":"\ud800"}}"#);
    assert_eq!(parse_record(line.as_bytes())["s"], "\u{fffd}");
}

#[test]
fn members_rewrite_fields_and_keep_the_rest_as_written() {
    let line = format!(
        r#"{{"uuid":"a","x":"\u00e9 \ud800","uuid":"b","deep":{},"n":1.50}}"#,
        nested(100_000)
    );
    let mut m = Members::parse(line.as_bytes()).unwrap();
    assert_eq!(m.str("uuid").as_deref(), Some("b"));
    m.set("uuid", &"c");
    m.set("parentUuid", &"p");
    let out = String::from_utf8(m.to_vec()).unwrap();
    assert_eq!(
        out,
        format!(
            r#"{{"uuid":"c","x":"\u00e9 \ud800","deep":{},"n":1.50,"parentUuid":"p"}}"#,
            nested(100_000)
        )
    );
    assert!(Members::parse(b"[1]").is_none());
    assert!(Members::parse(b"{\"a\":1} x").is_none());
    assert_eq!(nesting_depth(line.as_bytes()), 100_001);
    assert_eq!(nesting_depth(br#"{"a":"{[{[","b":[{}]}"#), 3);
}

#[test]
fn repairs_only_lone_surrogates() {
    assert_eq!(repair_surrogates(br#"{"a":"ok \ud83d\ude00"}"#), None);
    assert_eq!(
        repair_surrogates(br#"{"a":"x\ud83d y","b":"\\ud800"}"#).unwrap(),
        br#"{"a":"x\uFFFD y","b":"\\ud800"}"#.to_vec()
    );
    assert_eq!(
        repair_surrogates(br#"{"a":"\udc00"}"#).unwrap(),
        br#"{"a":"\uFFFD"}"#.to_vec()
    );
}

#[test]
fn classifies_bad_lines() {
    let c = |b: &[u8], t| {
        let e = serde_json::from_slice::<serde_json::Value>(b).unwrap_err();
        classify(b, t, &e).code
    };
    assert_eq!(c(br#"{"a":1}{"b":2}"#, true), "two-records-on-one-line");
    assert_eq!(c(br#"{"a":"#, false), "truncated-last-line");
    assert_eq!(c(br#"{"a":"#, true), "invalid-json");
    assert_eq!(c(b"{\"a\":\"\xff\"}", true), "invalid-utf8");
    assert_eq!(c(&[b'['; 300], true), "too-deep");
}

#[test]
fn content_texts_read_as_a_json_tree_would() {
    // The same texts as `item.get("text")` over a parsed tree, on every shape of content.
    let tree = |j: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        match v.get("content") {
            Some(serde_json::Value::String(s)) => vec![s.clone()],
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|c| c.get("text").and_then(|t| t.as_str()).map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    #[derive(serde::Deserialize)]
    struct Body<'a> {
        #[serde(borrow, default)]
        content: ContentTexts<'a>,
    }
    for j in [
        r#"{"content":"plain é"}"#,
        r#"{"content":[{"type":"input_text","text":"a"},{"text":"b\n"},{"text":1},"text",[{"text":"x"}],null,{"text":"c","text":"d"}]}"#,
        r#"{"content":{"text":"an object"}}"#,
        r#"{"content":null}"#,
        r#"{"content":42}"#,
        r#"{"other":1}"#,
        r#"{"content":[]}"#,
    ] {
        let got: Vec<String> = serde_json::from_str::<Body<'_>>(j)
            .unwrap()
            .content
            .0
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(got, tree(j), "{j}");
    }
}

#[test]
fn minify_keeps_strings_and_order() {
    assert_eq!(
        minify(b"{\n  \"b\" : [1, 2],\n  \"a\": \"x \\\" y\"\n}"),
        br#"{"b":[1,2],"a":"x \" y"}"#.to_vec()
    );
}

#[test]
fn json_len_is_the_length_of_the_written_json() {
    for v in [
        serde_json::json!(null),
        serde_json::json!({"a": "x\"y\n\u{1}é😀", "b": [1, 2.5, -3, true], "c": {}}),
        serde_json::json!("tab\tand \\ backslash"),
    ] {
        assert_eq!(super::json_len(&v), v.to_string().len());
    }
}
