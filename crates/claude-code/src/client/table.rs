//! The [`CLIENT`] table of Claude Code 2.1.332: its models, their ids by provider, fields,
//! retirements, aliases and defaults. Following a new release is one reviewed edit here.

use super::*;

pub(super) const F_LEGACY_8K: Fields = Fields {
    max_tokens: 8192,
    thinking: Thinking::Off,
    effort: None,
    context_management: false,
    system_turns: SystemTurns::None,
};
pub(super) const F_37: Fields = Fields {
    max_tokens: 32000,
    ..F_LEGACY_8K
};
pub(super) const F_BUDGET: Fields = Fields {
    max_tokens: 32000,
    thinking: Thinking::Budget(31999),
    effort: None,
    context_management: true,
    system_turns: SystemTurns::None,
};
pub(super) const F_ADAPTIVE_64K: Fields = Fields {
    max_tokens: 64000,
    thinking: Thinking::Adaptive,
    effort: Some("high"),
    context_management: true,
    system_turns: SystemTurns::None,
};
pub(super) const F_TRAILING_64K: Fields = Fields {
    system_turns: SystemTurns::Trailing,
    ..F_ADAPTIVE_64K
};
pub(super) const F_128K: Fields = Fields {
    max_tokens: 128000,
    thinking: Thinking::Adaptive,
    effort: Some("medium"),
    context_management: true,
    system_turns: SystemTurns::EffortAndTrailing,
};

/// Provider ids in [`Provider`] order: first party, Bedrock, Vertex, Foundry, Anthropic on
/// AWS, Anthropic on Google Cloud, Mantle, gateway.
macro_rules! ids {
    ($($x:expr),* $(,)?) => { [$($x),*] };
}

/// A model of 2026 and later: one id everywhere but Bedrock's cross-region `us.anthropic.` and
/// Mantle's `anthropic.` spellings; some are not offered on Mantle or through a gateway.
macro_rules! current {
    ($id:literal, $family:literal, mantle: $m:literal, gateway: $g:literal, $fields:expr) => {
        Model {
            id: $id,
            family: $family,
            provider_ids: [
                Some($id),
                Some(concat!("us.anthropic.", $id)),
                Some($id),
                Some($id),
                Some($id),
                Some($id),
                if $m { Some(concat!("anthropic.", $id)) } else { None },
                if $g { Some($id) } else { None },
            ],
            fields: $fields,
        }
    };
}

/// Claude Code 2.1.332: its baked-in model catalog, its retirement table (`MA`), its legacy
/// remap list and its aliases, read from the client's bundle; the request fields as the
/// client sent them for each model (`docs/claude-code-model.md` gives the evidence).
pub static CLIENT: Client = Client {
    version: "2.1.332",
    models: &[
        Model {
            id: "claude-3-5-haiku",
            family: "haiku",
            provider_ids: ids![
                Some("claude-3-5-haiku-20241022"),
                Some("us.anthropic.claude-3-5-haiku-20241022-v1:0"),
                Some("claude-3-5-haiku@20241022"),
                Some("claude-3-5-haiku"),
                Some("claude-3-5-haiku-20241022"),
                None,
                None,
                Some("claude-3-5-haiku-20241022"),
            ],
            fields: F_LEGACY_8K,
        },
        Model {
            id: "claude-haiku-4-5",
            family: "haiku",
            provider_ids: ids![
                Some("claude-haiku-4-5-20251001"),
                Some("us.anthropic.claude-haiku-4-5-20251001-v1:0"),
                Some("claude-haiku-4-5@20251001"),
                Some("claude-haiku-4-5"),
                Some("claude-haiku-4-5-20251001"),
                Some("claude-haiku-4-5-20251001"),
                Some("anthropic.claude-haiku-4-5"),
                Some("claude-haiku-4-5-20251001"),
            ],
            fields: F_BUDGET,
        },
        current!("claude-haiku-5-5", "haiku", mantle: true, gateway: false, F_128K),
        Model {
            id: "claude-3-5-sonnet",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-3-5-sonnet-20241022"),
                Some("us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
                Some("claude-3-5-sonnet-v2@20241022"),
                Some("claude-3-5-sonnet"),
                Some("claude-3-5-sonnet-20241022"),
                None,
                None,
                Some("claude-3-5-sonnet-20241022"),
            ],
            fields: F_LEGACY_8K,
        },
        Model {
            id: "claude-3-7-sonnet",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-3-7-sonnet-20250219"),
                Some("us.anthropic.claude-3-7-sonnet-20250219-v1:0"),
                Some("claude-3-7-sonnet@20250219"),
                Some("claude-3-7-sonnet"),
                Some("claude-3-7-sonnet-20250219"),
                None,
                None,
                Some("claude-3-7-sonnet-20250219"),
            ],
            fields: F_37,
        },
        Model {
            id: "claude-sonnet-4-0",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-sonnet-4-20250514"),
                Some("us.anthropic.claude-sonnet-4-20250514-v1:0"),
                Some("claude-sonnet-4@20250514"),
                Some("claude-sonnet-4"),
                Some("claude-sonnet-4-20250514"),
                None,
                None,
                Some("claude-sonnet-4-20250514"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-sonnet-4-5",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-sonnet-4-5-20250929"),
                Some("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
                Some("claude-sonnet-4-5@20250929"),
                Some("claude-sonnet-4-5"),
                Some("claude-sonnet-4-5-20250929"),
                Some("claude-sonnet-4-5-20250929"),
                None,
                Some("claude-sonnet-4-5-20250929"),
            ],
            fields: F_BUDGET,
        },
        current!("claude-sonnet-4-6", "sonnet", mantle: false, gateway: true, Fields {
            max_tokens: 32000,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-sonnet-5", "sonnet", mantle: true, gateway: true, Fields {
            system_turns: SystemTurns::TrailingReminder,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-sonnet-5-5", "sonnet", mantle: true, gateway: true, F_128K),
        Model {
            id: "claude-opus-4-0",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-20250514"),
                Some("us.anthropic.claude-opus-4-20250514-v1:0"),
                Some("claude-opus-4@20250514"),
                Some("claude-opus-4"),
                Some("claude-opus-4-20250514"),
                None,
                None,
                Some("claude-opus-4-20250514"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-opus-4-1",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-1-20250805"),
                Some("us.anthropic.claude-opus-4-1-20250805-v1:0"),
                Some("claude-opus-4-1@20250805"),
                Some("claude-opus-4-1"),
                Some("claude-opus-4-1-20250805"),
                None,
                None,
                Some("claude-opus-4-1-20250805"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-opus-4-5",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-5-20251101"),
                Some("us.anthropic.claude-opus-4-5-20251101-v1:0"),
                Some("claude-opus-4-5@20251101"),
                Some("claude-opus-4-5"),
                Some("claude-opus-4-5-20251101"),
                Some("claude-opus-4-5-20251101"),
                None,
                Some("claude-opus-4-5-20251101"),
            ],
            fields: Fields {
                effort: Some("high"),
                ..F_BUDGET
            },
        },
        Model {
            id: "claude-opus-4-6",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-6"),
                Some("us.anthropic.claude-opus-4-6-v1"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                None,
                Some("claude-opus-4-6"),
            ],
            fields: F_ADAPTIVE_64K,
        },
        current!("claude-opus-4-7", "opus", mantle: true, gateway: true, Fields {
            effort: Some("xhigh"),
            ..F_ADAPTIVE_64K
        }),
        current!("claude-opus-4-8", "opus", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-opus-5", "opus", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-opus-5-5", "opus", mantle: true, gateway: true, F_128K),
        current!("claude-fable-5", "fable", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-fable-5-1", "fable", mantle: true, gateway: true, Fields {
            system_turns: SystemTurns::EffortAndTrailing,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-fable-5-2", "fable", mantle: true, gateway: true, F_128K),
        Model {
            id: "claude-mythos-5",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5"), None, None, None, None, None, None, None],
            fields: F_TRAILING_64K,
        },
        Model {
            id: "claude-mythos-5-1",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5-1"), None, None, None, None, None, None, None],
            fields: F_TRAILING_64K,
        },
        Model {
            id: "claude-mythos-5-2",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5-2"), None, None, None, None, None, None, None],
            fields: F_128K,
        },
    ],
    named_only: &["claude-3-opus", "claude-3-sonnet", "claude-3-haiku"],
    retirements: &[
        Retirement {
            id: "claude-opus-4-5",
            name: "Claude Opus 4.5",
            dates: [
                d(2027, 1, 22),
                None,
                d(2027, 1, 22),
                d(2027, 1, 22),
                d(2027, 1, 22),
                d(2027, 1, 22),
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-opus-4-1",
            name: "Claude Opus 4.1",
            dates: [None, None, None, d(2026, 8, 5), None, None, None, None],
        },
        Retirement {
            id: "claude-opus-4-0",
            name: "Claude Opus 4",
            dates: [
                d(2026, 6, 15),
                d(2026, 5, 31),
                d(2026, 9, 14),
                d(2026, 6, 15),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-sonnet-4-5",
            name: "Claude Sonnet 4.5",
            dates: [
                d(2026, 11, 30),
                None,
                d(2026, 11, 30),
                d(2026, 11, 30),
                d(2026, 11, 30),
                d(2026, 11, 30),
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-sonnet-4-0",
            name: "Claude Sonnet 4",
            dates: [
                d(2026, 6, 15),
                d(2026, 10, 14),
                d(2026, 9, 14),
                d(2026, 6, 15),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-opus",
            name: "Claude 3 Opus",
            dates: [
                d(2026, 1, 5),
                d(2026, 1, 15),
                d(2026, 1, 5),
                d(2026, 1, 5),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-7-sonnet",
            name: "Claude 3.7 Sonnet",
            dates: [
                d(2026, 2, 19),
                d(2026, 4, 28),
                d(2026, 5, 11),
                d(2026, 2, 19),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-5-sonnet",
            name: "Claude 3.5 Sonnet",
            dates: [d(2025, 10, 28), None, None, None, None, None, None, None],
        },
        Retirement {
            id: "claude-3-5-haiku",
            name: "Claude 3.5 Haiku",
            dates: [d(2026, 2, 19), None, None, None, None, None, None, None],
        },
    ],
    remap_spellings: &[
        "claude-opus-4-20250514",
        "claude-opus-4-1-20250805",
        "claude-opus-4-0",
        "claude-opus-4-1",
    ],
    aliases: &[
        Alias {
            name: "opus",
            default: "claude-opus-5-5",
            per_provider: &[(Provider::Gateway, "claude-opus-4-7")],
            env: "ANTHROPIC_DEFAULT_OPUS_MODEL",
        },
        Alias {
            name: "sonnet",
            default: "claude-sonnet-5-5",
            per_provider: &[
                (Provider::Bedrock, "claude-sonnet-4-5"),
                (Provider::Mantle, "claude-sonnet-5"),
                (Provider::AnthropicAws, "claude-sonnet-4-6"),
                (Provider::Gateway, "claude-sonnet-4-6"),
            ],
            env: "ANTHROPIC_DEFAULT_SONNET_MODEL",
        },
        Alias {
            name: "haiku",
            default: "claude-haiku-5-5",
            per_provider: &[
                (Provider::Bedrock, "claude-haiku-4-5"),
                (Provider::Vertex, "claude-haiku-4-5"),
                (Provider::Foundry, "claude-haiku-4-5"),
                (Provider::Mantle, "claude-haiku-4-5"),
                (Provider::AnthropicAws, "claude-haiku-4-5"),
                (Provider::AnthropicGoogleCloud, "claude-haiku-4-5"),
                (Provider::Gateway, "claude-haiku-4-5"),
            ],
            env: "ANTHROPIC_DEFAULT_HAIKU_MODEL",
        },
        Alias {
            name: "fable",
            default: "claude-fable-5-2",
            per_provider: &[(Provider::Gateway, "claude-fable-5")],
            env: "ANTHROPIC_DEFAULT_FABLE_MODEL",
        },
    ],
    unknown_fields: Fields {
        max_tokens: 32000,
        system_turns: SystemTurns::Trailing,
        ..F_ADAPTIVE_64K
    },
    bedrock_regions: &["us", "eu", "apac", "jp", "au", "us-gov", "global"],
};
