use super::*;

#[test]
fn text_checked_in_chunks_is_text_checked_whole() {
    let samples: Vec<Vec<u8>> = vec![
        "héllo wörld — ✓ 𝄞 done".into(),
        "𝄞𝄞𝄞𝄞𝄞𝄞".into(),
        b"ascii only, long enough to need a few chunks".to_vec(),
        b"bad \xC3 then ascii".to_vec(),
        b"cut \xF0\x9D\x84".to_vec(),
        b"\x80\x80\x80\x80\x80 stray continuations".to_vec(),
        b"overlong \xC0\xAF".to_vec(),
        Vec::new(),
    ];
    for b in &samples {
        for chunk in 1..12 {
            let released = std::sync::Mutex::new(0u64);
            let release = |_, n| *released.lock().unwrap() += n;
            let got = checked_text_in(b, 0, Some(&release), chunk);
            assert_eq!(got, std::str::from_utf8(b).ok(), "{b:?} in chunks of {chunk}");
            if got.is_some() {
                assert_eq!(*released.lock().unwrap(), b.len() as u64);
            }
        }
    }
}
use proptest::prelude::*;

proptest! {
    /// Every character written as a `\u` escape (surrogate pairs above the BMP) comes back
    /// as the token serde writes for the string.
    #[test]
    fn reencode_writes_what_serde_writes(text in "(?s).{0,40}") {
        let mut raw = String::from("\"");
        for c in text.chars() {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                raw.push_str(&format!("\\u{u:04X}"));
            }
        }
        raw.push('"');
        let (s, _) = string_at(&raw, 0).unwrap();
        prop_assert_eq!(token_and_len(s), (Cow::Owned(serde_json::to_string(&text).unwrap()), text.len() as u64));
    }

    /// The one-pass string scanner accepts exactly the string tokens serde accepts, ends
    /// them where serde does, and counts escapes right (the decoded length follows).
    #[test]
    fn scan_string_agrees_with_serde(body in "[a\"\\\\u/nt0-9A-Fé\u{1}\u{1f}\u{7f}]{0,80}", rest in "[ ,}\"]{0,3}") {
        let text = format!("\"{body}{rest}");
        let mut it = serde_json::Deserializer::from_str(&text).into_iter::<String>();
        let serde = it.next().and_then(Result::ok).map(|v| (v, it.byte_offset()));
        let ours = string_at(&text, 0);
        prop_assert_eq!(ours.is_some(), serde.is_some(), "{:?}", text);
        if let (Some((s, end)), Some((v, off))) = (ours, serde) {
            prop_assert_eq!(end, off);
            prop_assert_eq!(token_and_len(s).1, v.len() as u64);
            // Exactly the token serde writes for the decoded string.
            prop_assert_eq!(token(s).into_owned(), serde_json::to_string(&v).unwrap());
        }
    }
}

#[test]
fn takes_a_plain_v1_file() {
    let doc = br#"{"version":1,"id":"s","messages":[{"role":"user","content":"hi","ts":5}]}"#;
    assert!(read(doc).is_some());
    // An escaped backslash before a `u` is not a \u escape.
    assert!(read(br#"{"version":1,"id":"s","messages":[{"role":"user","content":"a\\u"}]}"#).is_some());
    let doc =
        read(br#"{"version":1,"id":"s","messages":[{"role":"tool","tool_call_id":"c","content":"caf\u00e9\/"}]}"#)
            .unwrap();
    let mut out = Vec::new();
    write_v5(&doc, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#""content": "café/""#) && text.contains(r#""original_size": 6"#),
        "{text}"
    );
}
