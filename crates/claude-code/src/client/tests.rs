use super::*;

#[test]
fn canonical_ids_as_the_client_spells_them() {
    let c = |s: &str| canonical(s, &CLIENT);
    assert_eq!(c("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
    assert_eq!(c("claude-opus-4-20250514"), "claude-opus-4-0");
    assert_eq!(c("claude-opus-4-1-20250805"), "claude-opus-4-1");
    assert_eq!(c("claude-opus-4-5-20251101"), "claude-opus-4-5");
    assert_eq!(c("claude-sonnet-4-20250514"), "claude-sonnet-4-0");
    assert_eq!(c("claude-3-5-sonnet-20241022"), "claude-3-5-sonnet");
    assert_eq!(c("claude-3-5-sonnet-latest"), "claude-3-5-sonnet");
    assert_eq!(c("claude-3-opus-20240229"), "claude-3-opus");
    assert_eq!(c("claude-3-haiku-20240307"), "claude-3-haiku");
    assert_eq!(c("us.anthropic.claude-haiku-4-5-20251001-v1:0"), "claude-haiku-4-5");
    assert_eq!(c("eu.anthropic.claude-sonnet-4-5-20250929-v1:0"), "claude-sonnet-4-5");
    assert_eq!(c("claude-sonnet-4-5@20250929"), "claude-sonnet-4-5");
    assert_eq!(c("claude-opus-4.6"), "claude-opus-4-6");
    assert_eq!(c("claude-opus-4-6[1m]"), "claude-opus-4-6");
    assert_eq!(c("Claude-Opus-5-5"), "claude-opus-5-5");
    assert_eq!(c("claude-opus-4-9"), "claude-opus-4-9");
    assert_eq!(c("claude-2.1"), "claude-2-1");
    assert_eq!(c("gpt-5"), "gpt-5");
}

#[test]
fn parsed_ids_keep_their_trailer() {
    let p = parse("claude-opus-4-5-thinking", &CLIENT).unwrap();
    assert_eq!(p.trailer.as_deref(), Some("-thinking"));
    assert_eq!(canonical("claude-opus-4-5-thinking", &CLIENT), "claude-opus-4-5");
    assert!(
        parse("claude-sonnet-4-5-20250929-v1:0", &CLIENT)
            .unwrap()
            .trailer
            .is_none()
    );
    assert!(parse("xx.anthropic.claude-sonnet-4-5", &CLIENT).is_none());
    assert!(parse("claude-opus4", &CLIENT).is_none());
}

#[test]
fn every_catalog_spelling_is_its_own_model() {
    for m in CLIENT.models {
        for id in m.provider_ids.iter().flatten() {
            assert_eq!(canonical(id, &CLIENT), m.id, "{id}");
        }
        assert_eq!(canonical(m.id, &CLIENT), m.id);
    }
}
