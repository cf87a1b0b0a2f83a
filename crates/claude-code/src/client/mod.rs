//! What one Claude Code release knows about models: its catalog, how it spells and
//! canonicalises model ids, its retirement dates, its aliases and defaults, and the request
//! fields each model is sent with (`docs/claude-code-model.md`).
//!
//! Everything a new client release may change about models is in the [`CLIENT`] table
//! (`table.rs`), so that following the next release is one reviewed edit of this table; the
//! functions below and in `ids.rs` only read it.

mod ids;
mod table;

pub use ids::*;
pub use table::*;

/// The providers the client can talk to, in the column order of its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// Anthropic's own API, the default.
    FirstParty,
    /// Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK`).
    Bedrock,
    /// Google Vertex AI (`CLAUDE_CODE_USE_VERTEX`).
    Vertex,
    /// Microsoft Foundry (`CLAUDE_CODE_USE_FOUNDRY`).
    Foundry,
    /// Anthropic on AWS (`CLAUDE_CODE_USE_ANTHROPIC_AWS`).
    AnthropicAws,
    /// Anthropic on Google Cloud (`CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD`).
    AnthropicGoogleCloud,
    /// Set by `CLAUDE_CODE_USE_MANTLE`.
    Mantle,
    /// A gateway login: never detected from the environment.
    Gateway,
}

impl Provider {
    /// The provider's name as the client's settings and reports spell it (`firstParty`, `bedrock`…).
    pub fn name(self) -> &'static str {
        match self {
            Provider::FirstParty => "firstParty",
            Provider::Bedrock => "bedrock",
            Provider::Vertex => "vertex",
            Provider::Foundry => "foundry",
            Provider::AnthropicAws => "anthropicAws",
            Provider::AnthropicGoogleCloud => "anthropicGoogleCloud",
            Provider::Mantle => "mantle",
            Provider::Gateway => "gateway",
        }
    }

    /// Providers the client restores a session's model for (its `Bm()`): Anthropic's own API,
    /// Anthropic on AWS and Google Cloud, and a gateway.
    pub fn restores_session_model(self) -> bool {
        matches!(
            self,
            Provider::FirstParty | Provider::AnthropicAws | Provider::AnthropicGoogleCloud | Provider::Gateway
        )
    }

    fn column(self) -> usize {
        self as usize
    }
}

/// A calendar date of the retirement table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    /// The year.
    pub year: i16,
    /// The month, 1 to 12.
    pub month: i8,
    /// The day of the month, from 1.
    pub day: i8,
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

const fn d(year: i16, month: i8, day: i8) -> Option<Date> {
    Some(Date { year, month, day })
}

/// How a model thinks, as the request's `thinking` field says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thinking {
    /// No `thinking` field.
    Off,
    /// `{"budget_tokens":N,"type":"enabled","display":"omitted"}`.
    Budget(u32),
    /// `{"type":"adaptive","display":"omitted"}`.
    Adaptive,
}

/// The `role:"system"` messages the client puts inside `messages` for a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemTurns {
    /// None: the environment goes into a `<system-reminder>` of the last user message.
    None,
    /// One system message after the last message: the environment block.
    Trailing,
    /// The same, its text wrapped in `<system-reminder>`.
    TrailingReminder,
    /// An empty system message carrying `output_config` after the first message, and the
    /// trailing environment block.
    EffortAndTrailing,
}

/// The request fields that follow the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    /// `max_tokens`.
    pub max_tokens: u32,
    /// The `thinking` field.
    pub thinking: Thinking,
    /// `output_config.effort`.
    pub effort: Option<&'static str>,
    /// `context_management` with `clear_thinking_20251015`.
    pub context_management: bool,
    /// Which turns may carry system messages.
    pub system_turns: SystemTurns,
}

/// One model of the catalog.
#[derive(Debug)]
pub struct Model {
    /// The canonical id (dated and undated spellings map to it).
    pub id: &'static str,
    /// The family alias the model belongs to (`opus`, `sonnet`…).
    pub family: &'static str,
    /// The id sent for each provider, in [`Provider`] order (`None`: not offered there).
    pub provider_ids: [Option<&'static str>; 8],
    /// The request fields the model is sent with.
    pub fields: Fields,
}

/// A row of the retirement table.
#[derive(Debug)]
pub struct Retirement {
    /// The canonical id of the retired model.
    pub id: &'static str,
    /// Its display name.
    pub name: &'static str,
    /// From which local midnight the model is retired, per provider in [`Provider`] order.
    pub dates: [Option<Date>; 8],
}

/// What one client release knows about models.
#[derive(Debug)]
pub struct Client {
    /// The client release (`2.1.332`).
    pub version: &'static str,
    /// The model catalog.
    pub models: &'static [Model],
    /// Canonical ids the client can name but has no catalog entry for: never restored.
    pub named_only: &'static [&'static str],
    /// When models are retired, per provider.
    pub retirements: &'static [Retirement],
    /// Exact spellings remapped to the latest Opus unless `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP`.
    pub remap_spellings: &'static [&'static str],
    /// Family aliases (`opus`, `sonnet`, …): the default canonical id, and per-provider
    /// exceptions.
    pub aliases: &'static [Alias],
    /// The request fields of a model the catalog does not know (sent as configured).
    pub unknown_fields: Fields,
    /// Region prefixes of cross-region Bedrock ids (`eu.anthropic.claude-…`).
    pub bedrock_regions: &'static [&'static str],
}

/// A family alias (`opus`, `sonnet`…) and the model it names.
#[derive(Debug)]
pub struct Alias {
    /// The alias (`opus`).
    pub name: &'static str,
    /// The canonical id it names where no provider exception applies.
    pub default: &'static str,
    /// The providers where it names another id, and that id.
    pub per_provider: &'static [(Provider, &'static str)],
    /// The environment variable that overrides it (`ANTHROPIC_DEFAULT_OPUS_MODEL`).
    pub env: &'static str,
}

/// Two spellings of one model (`claude-opus-4-5` and `claude-opus-4-5-20251101`).
pub fn same_model(a: &str, b: &str, client: &Client) -> bool {
    a == b || canonical(a, client) == canonical(b, client)
}

/// The catalog entry of a spelling, if the client knows the model.
pub fn model<'c>(id: &str, client: &'c Client) -> Option<&'c Model> {
    let c = canonical(id, client);
    client.models.iter().find(|m| m.id == c)
}

/// The request fields the client sends with `id`.
pub fn fields(id: &str, client: &Client) -> Fields {
    model(id, client).map_or(client.unknown_fields, |m| m.fields)
}

/// The retirement row of a spelling.
pub fn retirement<'c>(id: &str, client: &'c Client) -> Option<&'c Retirement> {
    let c = canonical(id, client);
    client.retirements.iter().find(|r| r.id == c)
}

/// The family rank the client compares for the `upgrade` thinking policy.
pub fn family_rank(family: &str) -> Option<u8> {
    match family {
        "haiku" => Some(0),
        "sonnet" => Some(1),
        "opus" => Some(2),
        "fable" | "mythos" => Some(3),
        _ => None,
    }
}

/// The alias a family name or a provider's alias maps to, for `provider`.
pub fn alias<'c>(name: &str, client: &'c Client) -> Option<&'c Alias> {
    client.aliases.iter().find(|a| a.name == name)
}

impl Alias {
    /// The id the alias names through `p`.
    pub fn for_provider(&self, p: Provider) -> &'static str {
        self.per_provider
            .iter()
            .find(|(q, _)| *q == p)
            .map_or(self.default, |(_, id)| id)
    }
}

impl Model {
    /// The id sent for this model through `p`.
    pub fn provider_id(&self, p: Provider) -> &'static str {
        self.provider_ids[p.column()]
            .or(self.provider_ids[0])
            .unwrap_or(self.id)
    }
}

impl Retirement {
    /// The date from which the model is retired through `p`, if it is.
    pub fn date(&self, p: Provider) -> Option<Date> {
        self.dates[p.column()]
    }
}

#[cfg(test)]
mod tests;
