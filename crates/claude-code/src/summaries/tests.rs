use super::*;

/// The uuids found near their boundaries, or by the pass, are those a check of every line
/// finds: parents just before, far before and after their boundary, written but not as a
/// message's `"uuid"`, on a line that is not a transcript message, and nowhere.
#[test]
fn logical_parents_found_near_are_those_of_every_line() {
    let row = |ty: &str, uuid: &str| format!(r#"{{"type":"{ty}","uuid":"{uuid}","parentUuid":null}}"#);
    let filler = format!(r#"{{"type":"user","text":"{}"}}"#, "x".repeat(1000));
    let mut lines = vec![row("user", "far")];
    lines.extend(std::iter::repeat_n(filler, 400));
    lines.extend([
        row("assistant", "near"),
        row("summary", "not-a-message"),
        r#"{"type":"user","text":"mentions near-text and \"uuid\":\"quoted\""}"#.to_string(),
        row("user", "after"),
        "{\"type\":\"user\",\"uuid\" : \"spaced\"}".to_string(),
        "not json \"uuid\":\"broken\"".to_string(),
    ]);
    let text = lines.join("\n") + "\n";
    let boundary = text.find("\"after\"").unwrap() as u64;
    let wanted: Vec<(&str, u64)> = [
        "near",
        "far",
        "not-a-message",
        "quoted",
        "after",
        "spaced",
        "broken",
        "none",
    ]
    .into_iter()
    .map(|u| (u, boundary))
    .collect();
    let every_line: rustc_hash::FxHashSet<String> = wanted
        .iter()
        .filter(|(u, _)| text.lines().any(|l| holds_message(l.as_bytes(), u)))
        .map(|(u, _)| u.to_string())
        .collect();
    let src = Source::from_bytes("t.jsonl", text.into_bytes());
    let found = uuids_in_file(&src, None, &wanted).unwrap();
    assert_eq!(found, every_line);
    let mut expected: Vec<&str> = found.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(expected, ["after", "far", "near", "spaced"]);
    // More uuids than are searched for by their text: the pass over every `"uuid"` field
    // finds the same.
    let absent: Vec<String> = (0..BY_TEXT_MAX).map(|i| format!("absent-{i}")).collect();
    let many: Vec<(&str, u64)> = wanted
        .iter()
        .copied()
        .chain(absent.iter().map(|u| (u.as_str(), boundary)))
        .collect();
    assert!(many.len() > BY_TEXT_MAX);
    assert_eq!(uuids_in_file(&src, None, &many).unwrap(), every_line);
    // The pass that checks a tail's uuids against the file before it finds the same, and
    // says whether one of the tail's is written before the tail.
    let wanted_set: rustc_hash::FxHashSet<&str> = wanted.iter().map(|&(u, _)| u).collect();
    let tail = |uuid: &str| {
        let row = format!(r#"{{"type":"user","uuid":"{uuid}","parentUuid":null}}"#);
        crate::chain::read(&Source::from_bytes("tail.jsonl", row.into_bytes())).unwrap()
    };
    // The tail starts at a line: the one of "after".
    let text = std::str::from_utf8(src.as_slice().unwrap()).unwrap();
    let from = text.find(&row("user", "after")).unwrap() as u64;
    let (before, found) = uuids_before(&src, &tail("other"), from, &wanted_set);
    assert!(!before);
    assert_eq!(found, every_line);
    assert!(uuids_before(&src, &tail("far"), from, &wanted_set).0);
    assert!(!uuids_before(&src, &tail("after"), from, &wanted_set).0);
    assert!(!uuids_before(&src, &tail("after"), from, &Default::default()).0);
    assert!(uuids_before(&src, &tail("far"), from, &Default::default()).0);
}

/// A record's line counted from the marker before it is the line counted from the start.
#[test]
fn record_start_from_a_marker_is_from_the_start() {
    let text = "\u{feff}{\"type\":\"user\",\"uuid\":\"a\"}\n\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"uuid\":\"b\"}\r\n{\"type\":\"user\",\"uuid\":\"c\"}\n\n\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"uuid\":\"d\"}\n{\"type\":\"user\",\"uuid\":\"e\"}\n";
    let src = Source::from_bytes("t.jsonl", text.as_bytes().to_vec());
    let (markers, _) = claude_markers(&src).unwrap();
    assert_eq!(markers.len(), 2);
    let end = text.len() as u64;
    for uuid in ["a", "b", "c", "d", "e"] {
        let counted = record_start(&src, uuid, end, &[]);
        assert!(counted.is_some(), "{uuid}");
        assert_eq!(record_start(&src, uuid, end, &markers), counted, "{uuid}");
    }
    assert_eq!(record_start(&src, "e", end, &markers), Some((end - 27, 8)));
}
