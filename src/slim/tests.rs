//! Slimming then restoring gives back the input byte for byte, whatever the file holds.

use proptest::prelude::*;

use super::*;
use crate::agents::claude_code::slim::ClaudeCodeSlim;
use crate::agents::codex::slim::CodexSlim;

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
