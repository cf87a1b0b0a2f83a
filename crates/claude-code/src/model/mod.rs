//! The model a resumed Claude Code session's request names, chosen as the client chooses it,
//! and the thinking of other models the request keeps (`docs/claude-code-model.md`).
//!
//! Without explicit configuration the client restores the model of the last assistant entry
//! of the loaded chain, unless its table says the model is unknown, not allowed or retired
//! at the time of the resume; then it falls back to the `model` setting or its default.
//! The date matters: the same file resumed a day later can be sent to another model, and
//! lose the thinking blocks of its own.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::chain::{Chain, Kind, Transcript};
use super::client::{self as table, CLIENT, Client, Date, Fields, Provider};
use super::config::{Config, ThinkingPolicy};
use crate::io::Source;

mod findings;
mod report;

pub use findings::*;
pub use report::*;

/// How the request model was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// The session's own model.
    Restored,
    /// The session's model is retired at the time of the resume.
    Retired,
    /// The client's catalog does not know the session's model.
    Unknown,
    /// The account's `availableModels` setting excludes it.
    NotAllowed,
    /// No assistant entry names a model.
    NoSessionModel,
    /// The `opusplan` or `haiku` setting overlaps the session's family and wins.
    ModeSetting,
    /// `--model`, `ANTHROPIC_MODEL`, `ANTHROPIC_DEFAULT_*_MODEL` or a provider that never
    /// restores: the configured model is sent.
    Explicit,
}

/// Where a fallback model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The `model` setting.
    Settings,
    /// The client's default model.
    Default,
}

/// The request model and everything that went into it.
#[derive(Clone, Debug)]
pub struct RequestModel {
    /// The model id the request names.
    pub model: String,
    /// How the model was chosen.
    pub how: How,
    /// For a fallback, where it came from.
    pub fallback: Option<Fallback>,
    /// For [`How::Explicit`], what set it (`--model`, `ANTHROPIC_MODEL`, …).
    pub explicit_by: Option<String>,
    /// The session's own model: `inPlaceOfModel`, else `message.model` of the last
    /// qualifying assistant entry.
    pub session_model: Option<String>,
    /// That entry's line.
    pub session_line: Option<u64>,
    /// The session model's retirement date for the provider, when it has one.
    pub session_retires: Option<Date>,
    /// Whether the session's model is a legacy Opus the client always runs as the latest Opus.
    pub session_remapped: bool,
    /// Which other models' thinking blocks the request keeps.
    pub policy: ThinkingPolicy,
    /// Why that policy applies.
    pub policy_reason: String,
    /// The request fields the model is sent with.
    pub fields: Fields,
    /// The provider requests go to.
    pub provider: Provider,
    /// Whether requests go to Anthropic's own API (see `Config::anthropic_base_url`): the
    /// client then sends some blocks a proxy never gets (C8).
    pub anthropic_api: bool,
    /// The notice the client writes when it does not restore the session model.
    pub notice: Option<String>,
}

impl RequestModel {
    /// `restored`, `retired → default`, `unknown → settings`, `explicit`, …
    pub fn choice(&self) -> String {
        let head = match self.how {
            How::Restored => return "restored".into(),
            How::Explicit => return "explicit".into(),
            How::ModeSetting => return "setting".into(),
            How::Retired => "retired",
            How::Unknown => "unknown",
            How::NotAllowed => "not allowed",
            How::NoSessionModel => "no session model",
        };
        let to = match self.fallback {
            Some(Fallback::Settings) => "settings",
            _ => "default",
        };
        format!("{head} → {to}")
    }

    /// Whether a thinking block written by `row_model` is removed from the request.
    pub fn strips_thinking_of(&self, row_model: Option<&str>) -> bool {
        is_foreign(row_model, &self.model) && !keeps(self.policy, row_model, &self.model)
    }
}

/// The client's test for "written by another model": no model, or one that is neither
/// `<synthetic>` nor a spelling of the request model.
pub fn is_foreign(row_model: Option<&str>, request: &str) -> bool {
    match row_model {
        None => true,
        Some(m) => m != "<synthetic>" && m != request && !table::same_model(m, request, &CLIENT),
    }
}

/// Whether `policy` keeps the thinking of a foreign `row_model` in a request to `request`.
pub fn keeps(policy: ThinkingPolicy, row_model: Option<&str>, request: &str) -> bool {
    match policy {
        ThinkingPolicy::All => row_model.is_some(),
        ThinkingPolicy::None => false,
        ThinkingPolicy::Upgrade => row_model.is_some_and(|m| upgrade(m, request)),
    }
}

/// `request` is of the same or a higher family than `old`, and of the same or a later
/// version (Fable and Mythos 5.2 compare as 5.5).
fn upgrade(old: &str, request: &str) -> bool {
    let (Some(s), Some(t)) = (table::parse(old, &CLIENT), table::parse(request, &CLIENT)) else {
        return false;
    };
    if s.trailer.is_some() || t.trailer.is_some() {
        return false;
    }
    let (Some(n), Some(o)) = (table::family_rank(&s.family), table::family_rank(&t.family)) else {
        return false;
    };
    let tv = if matches!(t.family.as_str(), "fable" | "mythos") && t.major == 5 && t.minor == Some(2) {
        (5, 5)
    } else {
        (t.major, t.minor.unwrap_or(0))
    };
    o >= n && tv >= (s.major, s.minor.unwrap_or(0))
}

/// The parts of an assistant entry the model rule reads.
#[derive(Deserialize)]
struct EntryPeek {
    #[serde(default, rename = "isMeta")]
    is_meta: Option<Value>,
    #[serde(default, rename = "inPlaceOfModel")]
    in_place_of: Option<Value>,
    #[serde(default)]
    message: Option<MessagePeek>,
    #[serde(default)]
    cwd: Option<Value>,
}

#[derive(Deserialize)]
struct MessagePeek {
    #[serde(default)]
    model: Option<Value>,
}

fn peek(bytes: &[u8]) -> Option<EntryPeek> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// The session's own model: the last assistant entry of the loaded chain that is not
/// `isMeta` and names a model other than `<synthetic>` (only that one is considered), read as
/// its `inPlaceOfModel` when present. Returns the model and the entry's line.
pub fn session_model(t: &Transcript, chain: &Chain, src: &Source) -> std::io::Result<Option<(String, u64)>> {
    for &pos in chain.positions.iter().rev() {
        let node = t.node(pos);
        if node.kind != Kind::Assistant {
            continue;
        }
        let bytes = src.read_range(node.offset, node.len as usize)?;
        let Some(e) = peek(&bytes) else { continue };
        if e.is_meta.as_ref().is_some_and(|v| v.as_bool() == Some(true)) {
            continue;
        }
        let Some(Value::String(m)) = e.message.and_then(|m| m.model) else {
            continue;
        };
        if m == "<synthetic>" {
            continue;
        }
        let chosen = match e.in_place_of {
            Some(Value::String(p)) => p,
            _ => m,
        };
        return Ok(Some((chosen, node.line)));
    }
    Ok(None)
}

/// The working directory of the session's last loaded entry: where the client is started to
/// resume it, and so where it reads project settings.
pub fn session_cwd(t: &Transcript, chain: &Chain, src: &Source) -> std::io::Result<Option<PathBuf>> {
    // Every entry carries it: a small one among the last few is read rather than a huge one.
    const SMALL: u64 = 1 << 20;
    let last = || chain.positions.iter().rev().take(64).map(|&p| t.node(p));
    let small = last().filter(|n| n.len <= SMALL);
    for node in small.chain(last().filter(|n| n.len > SMALL).take(1)) {
        let bytes = src.read_range(node.offset, node.len as usize)?;
        if let Some(Value::String(c)) = peek(&bytes).and_then(|e| e.cwd)
            && !c.is_empty()
        {
            return Ok(Some(PathBuf::from(c)));
        }
    }
    Ok(None)
}

/// Resolves a configured model name as the client does: family aliases (`opus`, `sonnet`,
/// `haiku`, `fable`, `best`, `opusplan` outside plan mode) through the provider's alias table
/// and `ANTHROPIC_DEFAULT_*_MODEL`; the legacy Opus 4 and 4.1 spellings to the latest Opus;
/// anything else as written, without a `[1m]` suffix.
pub fn resolve(name: &str, cfg: &Config, client: &Client) -> String {
    let bare = table::strip_context_suffix(name.trim());
    let lower = bare.to_ascii_lowercase();
    let family = match lower.as_str() {
        "best" => Some("opus"),
        "opusplan" => Some("sonnet"),
        f @ ("opus" | "sonnet" | "haiku" | "fable") => Some(f),
        _ => None,
    };
    if let Some(f) = family
        && let Some(a) = table::alias(f, client)
    {
        if let Some(v) = cfg.var(a.env) {
            return table::strip_context_suffix(v).to_string();
        }
        let id = a.for_provider(cfg.provider());
        return table::model(id, client)
            .map_or(id, |m| m.provider_id(cfg.provider()))
            .to_string();
    }
    if remapped(bare, cfg, client) {
        return resolve("opus", cfg, client);
    }
    bare.to_string()
}

/// Opus 4 and 4.1 run as the latest Opus on the providers that restore models, unless
/// `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP` is set.
fn remapped(id: &str, cfg: &Config, client: &Client) -> bool {
    if !cfg.provider().restores_session_model() || cfg.var("CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP").is_some() {
        return false;
    }
    let c = table::canonical(id, client);
    client.remap_spellings.contains(&c.as_str())
        || client
            .remap_spellings
            .contains(&table::strip_context_suffix(id).to_ascii_lowercase().as_str())
}

/// Whether the client's table retires `id` at the configured time for the configured provider.
pub fn retired(id: &str, cfg: &Config, client: &Client) -> bool {
    if remapped(id, cfg, client) {
        return true;
    }
    table::retirement(id, client)
        .and_then(|r| r.date(cfg.provider()))
        .is_some_and(|d| cfg.is_past(d))
}

/// Whether the `availableModels` setting allows `id`: listed by spelling, canonical id or
/// family alias.
fn allowed(id: &str, cfg: &Config, client: &Client) -> bool {
    let Some(list) = &cfg.available_models else {
        return true;
    };
    let lower = table::strip_context_suffix(id).to_ascii_lowercase();
    let canon = table::canonical(id, client);
    let family = table::parse(id, client).map(|p| p.family);
    list.iter().any(|e| {
        let e = table::strip_context_suffix(e);
        e == lower || table::canonical(e, client) == canon || family.as_deref() == Some(e)
    })
}

/// `opusplan` spans Opus and Sonnet, `haiku` Haiku and Sonnet: such a setting wins over a
/// session model of those families.
fn mode_setting_overlaps(setting: &str, canonical: &str) -> bool {
    match setting {
        "opusplan" => canonical.contains("opus") || canonical.contains("sonnet"),
        "haiku" => canonical.contains("haiku") || canonical.contains("sonnet"),
        _ => false,
    }
}

/// What makes the configuration explicit, disabling the restore; `None` when the client
/// would restore.
fn explicit_by(cfg: &Config) -> Option<String> {
    if let Some(m) = &cfg.cli_model {
        return Some(format!("--model {m}"));
    }
    for k in [
        "ANTHROPIC_MODEL",
        "ANTHROPIC_DEFAULT_FABLE_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    ] {
        if let Some(v) = cfg.var(k) {
            return Some(format!("{k}={v}"));
        }
    }
    if cfg.settings_model.is_none()
        && let Some(v) = cfg.var("ANTHROPIC_DEFAULT_MODEL")
    {
        return Some(format!("ANTHROPIC_DEFAULT_MODEL={v}"));
    }
    let p = cfg.provider();
    (!p.restores_session_model()).then(|| format!("provider {}", p.name()))
}

/// The configured model (explicit or settings), else the default.
fn configured(cfg: &Config, client: &Client) -> (String, Fallback) {
    let given = cfg
        .cli_model
        .clone()
        .or_else(|| cfg.var("ANTHROPIC_MODEL").map(str::to_string))
        .or_else(|| cfg.settings_model.clone());
    if let Some(m) = given {
        return (resolve(&m, cfg, client), Fallback::Settings);
    }
    if let Some(m) = cfg.var("ANTHROPIC_DEFAULT_MODEL") {
        return (resolve(m, cfg, client), Fallback::Settings);
    }
    (default_model(cfg, client), Fallback::Default)
}

/// The client's default model offline: the provider's Opus (with an API key or a
/// Pro/Max/Team/Enterprise login; see [`DEFAULT_ASSUMPTION`]).
pub fn default_model(cfg: &Config, client: &Client) -> String {
    let family = match cfg.provider() {
        Provider::Foundry | Provider::Mantle => "sonnet",
        _ => "opus",
    };
    resolve(family, cfg, client)
}

/// What the default model assumes about the login.
pub const DEFAULT_ASSUMPTION: &str =
    "an API key or a Pro/Max/Team/Enterprise login (an OAuth login without a subscription defaults to Sonnet)";

/// [`choose`] under the configuration a resume of this session would read: the user's own
/// settings and environment, with `overrides` given on the command line. `scan`, `compact`
/// and `--api-view` size and build the request the same way.
pub fn choose_for(
    t: &Transcript,
    chain: &Chain,
    src: &Source,
    overrides: &super::config::Overrides,
) -> std::io::Result<RequestModel> {
    let cwd = session_cwd(t, chain, src)?;
    let cfg = Config::load(overrides, cwd.as_deref(), &|k| std::env::var(k).ok()).map_err(std::io::Error::other)?;
    choose(t, chain, src, &cfg)
}

/// Chooses the request model of a resume of `chain` under `cfg`.
pub fn choose(t: &Transcript, chain: &Chain, src: &Source, cfg: &Config) -> std::io::Result<RequestModel> {
    let session = session_model(t, chain, src)?;
    Ok(decide(session, cfg, &CLIENT))
}

/// The rule itself, on the session model found.
pub fn decide(session: Option<(String, u64)>, cfg: &Config, client: &Client) -> RequestModel {
    let provider = cfg.provider();
    let (policy, policy_reason) = cfg.thinking_policy();
    let session_retires = session
        .as_ref()
        .and_then(|(m, _)| table::retirement(m, client).and_then(|r| r.date(provider)));
    let session_remapped = session.as_ref().is_some_and(|(m, _)| remapped(m, cfg, client));
    let mut r = RequestModel {
        model: String::new(),
        how: How::Restored,
        fallback: None,
        explicit_by: None,
        session_model: session.as_ref().map(|(m, _)| m.clone()),
        session_line: session.as_ref().map(|(_, l)| *l),
        session_retires,
        session_remapped,
        policy,
        policy_reason,
        fields: client.unknown_fields,
        provider,
        anthropic_api: cfg.anthropic_base_url(),
        notice: None,
    };
    let finish = |mut r: RequestModel| {
        r.fields = table::fields(&r.model, client);
        r
    };
    if let Some(by) = explicit_by(cfg) {
        r.model = configured(cfg, client).0;
        r.how = How::Explicit;
        r.explicit_by = Some(by);
        return finish(r);
    }
    let Some((m, _)) = session else {
        let (model, from) = configured(cfg, client);
        r.model = model;
        r.how = How::NoSessionModel;
        r.fallback = Some(from);
        return finish(r);
    };
    let canon = table::canonical(&m, client);
    let setting_resolved = cfg.settings_model.as_deref().map(|s| resolve(s, cfg, client));
    let known = client.models.iter().any(|x| x.id == canon)
        || setting_resolved
            .as_deref()
            .is_some_and(|s| table::strip_context_suffix(&m) == s);
    if let Some(s) = cfg.settings_model.as_deref().map(table::strip_context_suffix)
        && mode_setting_overlaps(s, &canon)
    {
        r.model = resolve(s, cfg, client);
        r.how = How::ModeSetting;
        return finish(r);
    }
    let declined = if !known {
        Some(How::Unknown)
    } else if !allowed(&m, cfg, client) {
        Some(How::NotAllowed)
    } else if retired(&m, cfg, client) {
        Some(How::Retired)
    } else {
        None
    };
    match declined {
        None => {
            r.model = table::strip_context_suffix(&m).to_string();
        }
        Some(how) => {
            let (model, from) = configured(cfg, client);
            let reason = match how {
                How::Unknown => "not a model this version of Claude Code recognizes",
                How::NotAllowed => "not allowed by this account's model settings",
                _ => "retired",
            };
            let using = cfg
                .settings_model
                .as_deref()
                .map_or("the default model", table::strip_context_suffix);
            r.notice = Some(format!(
                "Session model {m} could not be restored ({reason}) \u{2014} using {using} instead."
            ));
            r.model = model;
            r.how = how;
            r.fallback = Some(from);
        }
    }
    finish(r)
}

/// A model as a table shows it: its canonical id without `claude-` (`opus-4-5`).
pub fn short_name(id: &str) -> String {
    let c = table::canonical(id, &CLIENT);
    c.strip_prefix("claude-").unwrap_or(&c).to_string()
}

/// The client release whose rules are emulated.
pub fn client_version() -> &'static str {
    CLIENT.version
}

#[cfg(test)]
mod tests;
