//! Property tests of the library: the line splitter does not depend on how the input is
//! chunked, surrogate repair keeps lengths, and the chain loaders terminate on any parent
//! graph — cycles, dangling parents, duplicates — with every message at most once.

use cctool::chain::claude::{self, Loader, Options};
use cctool::io::Source;
use cctool::io::lines::{LineStats, lines_of, split_chunk};
use proptest::prelude::*;

proptest! {
    #[test]
    fn chunking_never_changes_lines(text in "[a-c\\r\\n ]{0,200}", cut in 0usize..200) {
        let bytes = text.as_bytes();
        // Chunks end on a newline, as the readers guarantee.
        let cut = bytes[..cut.min(bytes.len())].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let whole: Vec<_> = lines_of(bytes).0.iter().map(|l| (l.no, l.offset, l.bytes.to_vec(), l.terminated)).collect();
        let mut stats = LineStats::default();
        let mut parts = Vec::new();
        split_chunk(0, &bytes[..cut], false, &mut stats, &mut |l| parts.push((l.no, l.offset, l.bytes.to_vec(), l.terminated)));
        split_chunk(cut as u64, &bytes[cut..], true, &mut stats, &mut |l| parts.push((l.no, l.offset, l.bytes.to_vec(), l.terminated)));
        prop_assert_eq!(whole, parts);
    }

    #[test]
    fn surrogate_repair_keeps_length(s in "[a\\\\u0dD8f\"]{0,40}") {
        let line = format!("{{\"a\":\"{s}\"}}");
        if let Some(fixed) = cctool::io::json::repair_surrogates(line.as_bytes()) {
            prop_assert_eq!(fixed.len(), line.len());
        }
    }

    #[test]
    fn loaders_terminate_on_any_parent_graph(
        parents in prop::collection::vec((0usize..12, 0u8..4, 0i64..20, 0u8..3), 1..12),
        loader in prop_oneof![Just(Loader::V2_1_88), Just(Loader::V2_1_332)],
    ) {
        let mut file = String::new();
        for (i, (p, kind, ts, side)) in parents.iter().enumerate() {
            let uuid = format!("00000000-0000-4000-8000-{:012}", i % 10); // some duplicates
            let parent = if *p >= 11 { "null".to_string() } else { format!("\"00000000-0000-4000-8000-{p:012}\"") };
            let (ty, extra) = match kind {
                0 => ("user", r#""message":{"role":"user","content":"q"}"#.to_string()),
                1 => ("assistant", format!(r#""message":{{"id":"msg_{}","role":"assistant","content":[{{"type":"text","text":"a"}}]}}"#, i % 3)),
                2 => ("system", r#""subtype":"turn_duration""#.to_string()),
                _ => ("progress", r#""data":{}"#.to_string()),
            };
            let side = ["", r#","isSidechain":false"#, r#","isSidechain":true"#][*side as usize];
            file.push_str(&format!(
                "{{\"parentUuid\":{parent}{side},\"type\":\"{ty}\",{extra},\"uuid\":\"{uuid}\",\"timestamp\":\"2026-01-01T00:00:{ts:02}.000Z\"}}\n"
            ));
        }
        let t = claude::read(&Source::from_bytes("prop", file.into_bytes())).unwrap();
        let chain = t.rebuild(&Options { loader, ..Options::default() }).unwrap();
        let mut seen = std::collections::HashSet::new();
        for p in &chain.positions {
            prop_assert!(seen.insert(*p), "message twice on the chain");
        }
        let full = t.rebuild(&Options { loader, full: true, tip: None }).unwrap();
        prop_assert!(full.positions.len() >= chain.positions.len());
    }
}
