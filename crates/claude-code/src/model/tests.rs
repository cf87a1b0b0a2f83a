use super::*;
use crate::config::Overrides;

fn cfg(as_of: &str, vars: &[(&str, &str)], settings: Option<&str>) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, settings.unwrap_or("")).unwrap();
    let env = |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
    Config::load(
        &Overrides {
            as_of: Some(as_of.into()),
            settings: Some(path),
            ..Overrides::default()
        },
        None,
        &env,
    )
    .unwrap()
}

fn pick(session: &str, c: &Config) -> (String, String) {
    let r = decide(Some((session.into(), 1)), c, &CLIENT);
    (r.model.clone(), r.choice())
}

#[test]
fn sonnet_4_5_is_restored_until_its_retirement() {
    let before = cfg("2026-11-29T23:59:59Z", &[("TZ", "UTC")], None);
    let after = cfg("2026-11-30T00:00:01Z", &[("TZ", "UTC")], None);
    let s = "claude-sonnet-4-5-20250929";
    assert_eq!(pick(s, &before), (s.into(), "restored".into()));
    assert_eq!(pick(s, &after), ("claude-opus-5-5".into(), "retired → default".into()));
    let opus = "claude-opus-4-5-20251101";
    assert_eq!(pick(opus, &after).1, "restored");
    let later = cfg("2027-01-22T00:00:01Z", &[("TZ", "UTC")], None);
    assert_eq!(pick(opus, &later).1, "retired → default");
}

#[test]
fn fallbacks_and_explicit_configuration() {
    let at = "2026-11-30T12:00:00Z";
    let s45 = "claude-sonnet-4-5-20250929";
    let settings = cfg(at, &[], Some(r#"{"model":"claude-opus-4-6"}"#));
    assert_eq!(
        pick(s45, &settings),
        ("claude-opus-4-6".into(), "retired → settings".into())
    );
    let alias = cfg(at, &[], Some(r#"{"model":"sonnet[1m]"}"#));
    assert_eq!(pick(s45, &alias).0, "claude-sonnet-5-5");
    let plan = cfg(at, &[], Some(r#"{"model":"opusplan"}"#));
    assert_eq!(pick(s45, &plan), ("claude-sonnet-5-5".into(), "setting".into()));
    assert_eq!(pick("claude-fable-5", &plan).1, "restored", "no overlap");
    let env = cfg(at, &[("ANTHROPIC_MODEL", "claude-opus-4-6")], None);
    assert_eq!(
        pick("claude-opus-4-7", &env),
        ("claude-opus-4-6".into(), "explicit".into())
    );
    let opus_env = cfg(at, &[("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-6")], None);
    assert_eq!(
        pick("claude-opus-4-7", &opus_env),
        ("claude-opus-4-6".into(), "explicit".into())
    );
    let sonnet_env = cfg(at, &[("ANTHROPIC_DEFAULT_SONNET_MODEL", "x")], None);
    assert_eq!(pick("claude-opus-4-7", &sonnet_env).0, "claude-opus-5-5");
    let settings_env = cfg(at, &[], Some(r#"{"env":{"ANTHROPIC_MODEL":"claude-opus-4-6"}}"#));
    assert_eq!(pick(s45, &settings_env).1, "explicit");
    let bedrock = cfg(at, &[("CLAUDE_CODE_USE_BEDROCK", "1")], None);
    assert_eq!(pick("claude-opus-4-7", &bedrock).1, "explicit");
}

#[test]
fn unknown_legacy_and_not_allowed_models() {
    let at = cfg("2026-11-29T12:00:00Z", &[], None);
    assert_eq!(pick("claude-3-opus-20240229", &at).1, "unknown → default");
    assert_eq!(pick("gpt-5", &at).1, "unknown → default");
    assert_eq!(pick("claude-opus-4-20250514", &at).1, "retired → default", "remapped");
    let kept = cfg(
        "2026-06-14T12:00:00Z",
        &[("CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP", "1")],
        None,
    );
    assert_eq!(pick("claude-opus-4-20250514", &kept).1, "restored");
    let only_opus = cfg("2026-11-29T12:00:00Z", &[], Some(r#"{"availableModels":["opus"]}"#));
    assert_eq!(pick("claude-sonnet-4-6", &only_opus).1, "not allowed → default");
    assert_eq!(pick("claude-opus-4-6", &only_opus).1, "restored");
}

#[test]
fn foreign_thinking_by_policy() {
    assert!(is_foreign(None, "claude-opus-4-6"));
    assert!(!is_foreign(Some("<synthetic>"), "claude-opus-4-6"));
    assert!(!is_foreign(Some("claude-opus-4-5"), "claude-opus-4-5-20251101"));
    assert!(is_foreign(Some("claude-opus-4-6"), "claude-sonnet-4-6"));
    assert!(!keeps(ThinkingPolicy::All, None, "claude-opus-5-5"));
    assert!(keeps(ThinkingPolicy::All, Some("claude-opus-4-6"), "claude-sonnet-4-6"));
    assert!(!keeps(
        ThinkingPolicy::Upgrade,
        Some("claude-opus-4-6"),
        "claude-sonnet-4-6"
    ));
    assert!(keeps(
        ThinkingPolicy::Upgrade,
        Some("claude-haiku-4-5-20251001"),
        "claude-sonnet-4-6"
    ));
    assert!(keeps(
        ThinkingPolicy::Upgrade,
        Some("claude-opus-5-5"),
        "claude-fable-5-2"
    ));
    assert!(!keeps(
        ThinkingPolicy::Upgrade,
        Some("claude-opus-5-5"),
        "claude-fable-5-1"
    ));
    assert!(!keeps(ThinkingPolicy::None, Some("claude-opus-4-6"), "claude-opus-5-5"));
}
