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
