use super::*;

#[test]
fn bytes_budget_keeps_halves_on_char_boundaries_and_counts_chars() {
    assert_eq!(truncate_text(&"a".repeat(10), Budget::Bytes(10)), "a".repeat(10));
    assert_eq!(
        truncate_text(&"b".repeat(11), Budget::Bytes(10)),
        "bbbbb…1 chars truncated…bbbbb"
    );
    // "é" straddles the head's end: it is cut, and counted as one char.
    let s = format!("{}é{}", "a".repeat(4), "z".repeat(10));
    assert_eq!(truncate_text(&s, Budget::Bytes(10)), "aaaa…6 chars truncated…zzzzz");
}

#[test]
fn tokens_budget_counts_removed_bytes_in_tokens() {
    let s = "x".repeat(48_001);
    let t = truncate_text(&s, Budget::Tokens(12_000));
    assert_eq!(
        t,
        format!("{}…1 tokens truncated…{}", "x".repeat(24_000), "x".repeat(24_000))
    );
    assert_eq!(truncate_text("", Budget::Tokens(0)), "");
}

#[test]
fn list_outputs_drop_empty_parts_then_cut_and_omit() {
    let t = |s: &str| OutPart::InputText { text: s.into() };
    let (out, r) = truncate_parts(
        vec![
            t(""),
            t(&"C".repeat(11_990)),
            t(&"D".repeat(100)),
            t(""),
            t("E"),
            t("F"),
        ],
        Budget::Bytes(12_000),
    );
    assert_eq!((r.empty, r.omitted, r.cut), (2, 2, true));
    assert_eq!(out.len(), 3);
    assert_eq!(out[1], t("DDDDD…90 chars truncated…DDDDD"));
    assert_eq!(out[2], t("[omitted 2 text items ...]"));
}

#[test]
fn models_resolve_by_longest_catalog_prefix_then_namespace() {
    let m = |s: &str| ModelInfo::for_slug(Some(s)).entry;
    assert_eq!(m("gpt-5.5"), Some("gpt-5.5"));
    assert_eq!(m("gpt-5.5-foo"), Some("gpt-5.5"));
    assert_eq!(m("openai/gpt-5.6-sol"), Some("gpt-5.6-sol"));
    assert_eq!(m("gpt-5.4"), None);
    assert_eq!(m("GPT-5.5"), None);
    assert_eq!(m("a/b/gpt-5.5"), None);
    assert_eq!(ModelInfo::for_slug(None).budget, Budget::Bytes(12_000));
    assert_eq!(ModelInfo::for_slug(Some("gpt-6-sol")).budget, Budget::Tokens(12_000));
}

#[test]
fn synthetic_output_ids_are_uuid5_of_prefix_and_call_item_id() {
    assert_eq!(
        synthetic_id("fco", Some("fc_u1")).as_deref(),
        Some("fco_d12ecf33-467c-5541-8028-ce81eca54edd")
    );
    assert_eq!(synthetic_id("fco", Some("")), None);
    assert_eq!(synthetic_id("fco", None), None);
}

#[test]
fn png_headers_are_checked_chunk_by_chunk() {
    let png = BASE64
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        .unwrap();
    assert_eq!(image_header(&png), Some((ImageKind::Png, 1, 1)));
    assert_eq!(image_header(&png[..40]), None);
    let mut bad = png.clone();
    bad[20] ^= 1;
    assert_eq!(image_header(&bad), None, "checksum");
    assert_eq!(image_header(b"GIF89a\x10\x00\x20\x00"), Some((ImageKind::Gif, 16, 32)));
    assert_eq!(image_header(b"not an image"), None);
}
