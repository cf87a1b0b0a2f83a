//! Slimming then restoring gives back the input byte for byte, whatever the file holds.

use proptest::prelude::*;

use crate::agents::claude_code::slim::ClaudeCodeSlim;
use crate::agents::codex::slim::CodexSlim;
use crate::io::Source;
use crate::slim::payload::{self, Kept};
use crate::slim::*;

/// Three payloads (one a PNG), so that files repeat them.
fn pool() -> Vec<String> {
    (0..3u8)
        .map(|k| {
            let mut b = if k == 0 {
                b"\x89PNG\r\n\x1a\n".to_vec()
            } else {
                Vec::new()
            };
            b.extend((0..1500u32 + u32::from(k)).map(|i| (i as u8).wrapping_mul(k + 3)));
            payload::encode(&b)
        })
        .collect()
}

/// One line of a Claude Code transcript or a Codex rollout, from a choice of shapes: rows
/// with images sent and copied, compactions, text, a line that does not parse, base64 that
/// is not canonical, a placeholder-looking text someone typed.
fn line(kind: u8, img: &str, n: usize, codex: bool) -> String {
    let url = format!("data:image/png;base64,{img}");
    let uuid = format!("00000000-0000-4000-8000-{n:012}");
    let parent = if n == 0 {
        "null".to_string()
    } else {
        format!("\"00000000-0000-4000-8000-{:012}\"", n - 1)
    };
    match (codex, kind % 7) {
        (false, 0) => format!(
            r#"{{"parentUuid":{parent},"type":"user","message":{{"role":"user","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{img}"}}}}]}},"uuid":"{uuid}","timestamp":"2026-01-01T00:00:{:02}.000Z"}}"#,
            n % 60
        ),
        (false, 1) => format!(
            r#"{{"type":"user","parentUuid":{parent},"uuid":"{uuid}","toolUseResult":{{"type":"image","file":{{"base64":"{img}","type":"image/png"}}}},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{img}"}}}}]}}]}}}}"#
        ),
        (false, 2) => format!(
            r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","uuid":"{uuid}","content":"Conversation compacted"}}"#
        ),
        (true, 0) => format!(
            r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_image","image_url":"{url}"}}]}}}}"#
        ),
        (true, 1) => format!(
            r#"{{"timestamp":"t","type":"compacted","payload":{{"message":"","replacement_history":[{{"type":"message","role":"user","content":[{{"type":"input_text","text":"x"}},{{"type":"input_image","image_url":"{url}"}}]}}]}}}}"#
        ),
        (true, 2) => format!(
            r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"user_message","message":"m","images":["{url}"]}}}}"#
        ),
        (_, 3) => format!(r#"{{"type":"user","message":{{"role":"user","content":"plain text {n}"}}}}"#),
        (_, 4) => format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"image","source":{{"type":"base64","data":"{img}""#
        ),
        (_, 5) => format!(
            r#"{{"type":"user","toolUseResult":{{"file":{{"base64":"{}"}}}},"payload":{{"type":"message","content":[{{"type":"input_image","image_url":"{}"}}]}}}}"#,
            img.trim_end_matches('='),
            url.trim_end_matches('=')
        ),
        // A placeholder an earlier slim wrote (or text that looks like one).
        _ => {
            let mut buf = Vec::new();
            let p = payload::read(img.as_bytes(), None, &mut buf).unwrap();
            format!(
                r#"{{"type":"user","toolUseResult":{{"note":"{}"}}}}"#,
                payload::placeholder(&p, &Kept::InFile)
            )
        }
    }
}

fn file(spec: &[(u8, u8, u8)], codex: bool, bom: bool, tail: bool) -> Vec<u8> {
    let imgs = pool();
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for (n, &(kind, img, end)) in spec.iter().enumerate() {
        out.extend_from_slice(line(kind, &imgs[img as usize % 3], n, codex).as_bytes());
        out.extend_from_slice(match end % 4 {
            0 | 1 => b"\n".as_slice(),
            2 => b"\r\n",
            _ => b"\n \n\n",
        });
    }
    if tail {
        out.extend_from_slice(b"{\"type\":\"user\",\"mess");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn slim_then_restore_is_the_identity(
        spec in prop::collection::vec((0u8..7, 0u8..3, 0u8..4), 0..14),
        codex in any::<bool>(),
        bom in any::<bool>(),
        tail in any::<bool>(),
        mode in 0u8..3,
    ) {
        let bytes = file(&spec, codex, bom, tail);
        let slimmer: &dyn Slimmer = if codex { &CodexSlim } else { &ClaudeCodeSlim };
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            images: [Images::None, Images::OutsideWindow, Images::All][mode as usize],
            max_payload: None,
            extract: Some(dir.path().to_path_buf()),
            dry_run: false,
        };
        let src = Source::from_bytes("t", bytes.clone());
        let mut slimmed = Vec::new();
        let c = slim(&src, slimmer, &opts, &mut slimmed).unwrap();
        prop_assert_eq!(c.bytes_after, slimmed.len() as u64);
        let counted = slim(&src, slimmer, &Options { dry_run: true, ..opts.clone() }, &mut std::io::sink()).unwrap();
        prop_assert_eq!(counted.bytes_after, c.bytes_after);
        // Restoring puts back every payload, also those of an earlier slim (kind 6): the
        // slimmed file restores to what the original restores to, and a file without
        // placeholders restores to itself.
        let mut back = Vec::new();
        let restored = restore(&Source::from_bytes("s", slimmed), slimmer, dir.path(), &mut back);
        let mut want = Vec::new();
        match restore(&Source::from_bytes("t", bytes.clone()), slimmer, dir.path(), &mut want) {
            Ok(_) => {
                prop_assert!(restored.is_ok(), "{:?}", restored);
                prop_assert!(back == want, "restored:\n{}\noriginal:\n{}", String::from_utf8_lossy(&back), String::from_utf8_lossy(&bytes));
            }
            Err(_) => prop_assert!(restored.is_err()),
        }
        if !spec.iter().any(|s| s.0 == 6) {
            prop_assert!(want == bytes);
        }
    }
}

/// Text that is a payload, almost one, or only looks like one: base64 of 600 to 800 bytes
/// (800 to 1068 characters, around both [`payload::MIN_B64_RUN`] and [`payload::MIN_PAYLOAD`]),
/// bare or as a `data:` URL with a media type of up to 100 characters, broken by a space, an
/// escape or a character outside base64, or cut to a length no canonical base64 has.
fn near_payload(decoded: usize, seed: u8, media: usize, form: u8) -> String {
    let b: Vec<u8> = (0..decoded)
        .map(|i| (i as u8).wrapping_mul(seed | 1).wrapping_add(seed))
        .collect();
    let b64 = payload::encode(&b);
    let mid = b64.len() / 2;
    match form % 6 {
        0 => b64,
        1 => format!("data:image/{}png;base64,{b64}", "x".repeat(media.min(90))),
        2 => format!("{} {}", &b64[..mid], &b64[mid..]),
        3 => format!("{}\\n{}", &b64[..mid], &b64[mid..]),
        4 => format!("{}-{}", &b64[..mid], &b64[mid..]),
        _ => b64[..b64.len() - 1].to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `scan`'s count skips lines without a long enough run of base64 unparsed: the same
    /// count as parsing every line, for both agents' row shapes.
    #[test]
    fn the_payload_prefilter_counts_what_the_parse_counts(
        kind in 0u8..6,
        decoded in 600usize..800,
        seed in any::<u8>(),
        media in 0usize..100,
        form in 0u8..6,
        pad in 0usize..1200,
        codex in any::<bool>(),
    ) {
        let img = near_payload(decoded, seed, media, form);
        let mut line = line(kind, &img, 1, codex);
        // Text around the run moves it across the probes' positions.
        if pad > 0 {
            line = line.replacen("\"type\":", &format!("\"pad\":\"{}\",\"type\":", "ab c".repeat(pad / 4)), 1);
        }
        let (mut cands, mut buf) = (Vec::new(), Vec::new());
        for slimmer in [&ClaudeCodeSlim as &dyn Slimmer, &CodexSlim] {
            let plain = line_payload_bytes(line.as_bytes(), slimmer, false, &mut cands, &mut buf);
            let filtered = line_payload_bytes(line.as_bytes(), slimmer, true, &mut cands, &mut buf);
            prop_assert_eq!(plain, filtered, "{}", line);
        }
    }
}

#[test]
fn the_shortest_payload_run_passes_the_prefilter() {
    // A media type of 100 characters leaves the fewest characters to the base64.
    let media = format!("image/{}", "x".repeat(94));
    let mut b64 = payload::encode(&vec![7u8; 684]);
    assert_eq!(b64.len(), 912);
    let content = format!("data:{media};base64,{b64}");
    assert!(content.len() >= payload::MIN_PAYLOAD);
    assert!(payload::read_unhashed(content.as_bytes(), None, &mut Vec::new()).is_some());
    let line = format!(r#"{{"a":"{content}"}}"#);
    assert!(payload::may_hold_payload(line.as_bytes()));
    // One character short of the run, wherever it sits, is not enough.
    b64.truncate(payload::MIN_B64_RUN - 1);
    for at in 0..40 {
        let line = format!(r#"{{"{}":"{b64}"}}"#, "k ".repeat(at * 37));
        assert!(!payload::may_hold_payload(line.as_bytes()));
        let line = format!(r#"{{"{}":"{b64}A"}}"#, "k ".repeat(at * 37));
        assert!(payload::may_hold_payload(line.as_bytes()));
    }
}
