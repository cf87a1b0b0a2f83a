use super::*;

fn entry(agent: &str, rel: &str) -> FileEntry {
    FileEntry {
        agent: agent.into(),
        role: "session".into(),
        path: format!("/h/.store/{rel}"),
        store: "/h/.store".into(),
        rel: rel.into(),
        size: 0,
        seen_len: 0,
        mtime_ms: None,
        sha256: String::new(),
        chunks: Vec::new(),
        session: None,
        held: Vec::new(),
    }
}

#[test]
fn each_store_folder_is_one_agent_s_and_an_unknown_agent_is_refused() {
    crate::register_agents_for_tests();
    let stores = crate::io::paths::Stores {
        looked: [
            "/h/.claude/projects",
            "/h/.codex/sessions",
            "/h/.codex/archived_sessions",
        ]
        .map(PathBuf::from)
        .to_vec(),
        ..Default::default()
    };
    let roots = store_roots(&stores);
    let names: Vec<&str> = roots.iter().map(|(a, _)| *a).collect();
    let expected: Vec<&str> = crate::agents::registry()
        .all()
        .filter(|a| a.store().is_some())
        .map(|a| a.about().format.name())
        .collect();
    assert_eq!((names.len(), &names), (2, &expected));
    let second = names[1];
    assert_eq!(roots[1].1, Path::new("/h/.codex"));
    let to = Some(Path::new("/nonexistent/out"));
    assert_eq!(
        target(&entry(second, "sessions/r.jsonl"), to, &roots),
        Ok(PathBuf::from("/nonexistent/out/codex/sessions/r.jsonl"))
    );
    let outside = target(&entry(second, "config.toml"), to, &roots).unwrap_err();
    assert!(
        outside
            .to_string()
            .contains("in sessions/ or archived_sessions/, where Codex"),
        "{outside}"
    );
    assert_eq!(
        target(&entry("gemini", "sessions/r.jsonl"), to, &roots),
        Err(Escape::UnknownAgent("gemini".into()))
    );
}

#[test]
fn a_session_is_named_by_any_part_of_its_id_or_by_the_ends_scan_shows() {
    let uuid = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
    assert!(names_id("c3d4-1111", uuid));
    assert!(names_id("A1B2C3D4…0000a", uuid));
    assert!(!names_id("a1b2c3d4…000b", uuid));
    let typed = "ses_dc2d20407ffefXjqV2vNPG4N14";
    assert!(names_id("…qV2vNPG4N14", typed));
    assert!(names_id("ses_dc2d…N14", typed));
    assert!(!names_id("…qV2vNPG4N15", typed));
    // The two ends may not overlap.
    assert!(!names_id("ses_dc2d20407ffefXjqV2vNPG4N14…N14", typed));
}
