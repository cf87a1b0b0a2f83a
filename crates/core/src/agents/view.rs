//! What `rebuild-chain` reports, in the same records for every agent: the closing `--json`
//! record of a chain (`ChainSummary`) or of a request view (`ApiViewSummary`). Each agent's
//! `view.rs` prints its records and fills these in.

use serde::Serialize;

use crate::io::Source;
use crate::model::resume::{Loader, Replay};

/// What `rebuild-chain` was asked, as every agent reads it; the CLI builds it from its flags.
#[derive(Clone, Debug, Default)]
pub struct ChainOptions {
    /// `--loader`, when given (an agent with one way of loading says it is ignored).
    pub loader: Option<Loader>,
    /// `--tip`: the message (or unique prefix of its id) the chain ends at.
    pub tip: Option<String>,
    /// `--full`: the whole history, compacted parts put back.
    pub full: bool,
    /// `--replay`: which history reconstruction (Codex).
    pub replay: Replay,
    /// `--api-view`: the request sent after the resume instead of what it loads.
    pub api_view: bool,
    /// `--prompt`: a new prompt appended to the request.
    pub prompt: Option<String>,
    /// `--body`: the whole request body.
    pub body: bool,
    /// What was said about the resume (`--model`, `--as-of`, `--settings`, …).
    pub resume: crate::model::resume::Overrides,
}

impl ChainOptions {
    /// The loader rules to follow: `--loader`, else the current client's.
    pub fn loader(&self) -> Loader {
        self.loader.unwrap_or_default()
    }

    /// Whether a part of the resume that only a Claude Code resume has was given.
    pub fn claude_only_resume(&self) -> bool {
        let r = &self.resume;
        r.as_of.is_some() || r.settings.is_some() || r.base_url.is_some() || r.thinking_policy.is_some()
    }
}

/// The closing `--json` record of `--api-view`, for either agent: one set of fields, null
/// where the agent has no such thing (Claude Code has a loader, a model choice and a thinking
/// policy; Codex a catalog entry and refusals).
#[derive(Serialize, Debug)]
pub struct ApiViewSummary {
    pub file: String,
    pub format: &'static str,
    /// The client version whose request this is.
    pub client: &'static str,
    pub loader: Option<&'static str>,
    /// The model the request names.
    pub model: Option<String>,
    /// Claude Code: how it was chosen: `restored`, `retired → default`, `explicit`, …
    pub model_choice: Option<String>,
    /// Codex: the catalog entry the model resolves to; null for Codex's fallback metadata.
    pub model_entry: Option<&'static str>,
    /// Claude Code: the session's own model (the last qualifying assistant entry's).
    pub session_model: Option<String>,
    /// Claude Code: the day the session's model retires for the provider, when known.
    pub session_model_retires: Option<String>,
    /// Claude Code: the notice the client writes when it does not restore the session's model.
    pub notice: Option<String>,
    /// Claude Code: which thinking blocks of other models the request keeps.
    pub thinking_policy: Option<&'static str>,
    /// The length of the request's `messages` (Claude Code) or `input` (Codex) array.
    pub messages: usize,
    pub tokens: usize,
    pub prompt: bool,
    pub rules: Vec<serde_json::Value>,
    /// Claude Code: the date, time zone, settings and base URL the answer depends on.
    pub assumptions: Option<serde_json::Value>,
    /// Codex: why Codex cannot resume the file, when it cannot (then nothing else is printed).
    pub refused: Option<String>,
}

impl ApiViewSummary {
    pub fn describe(&self) -> String {
        if let Some(r) = &self.refused {
            return format!("{}: {r}", self.file);
        }
        let model = self.model.as_deref().unwrap_or("unknown");
        match (&self.model_choice, self.thinking_policy) {
            (Some(choice), Some(policy)) => format!(
                "{}: {} messages sent, about {} tokens, model {model} ({choice}), other models' thinking: {policy}; rules: {}",
                self.file,
                self.messages,
                self.tokens,
                rules_text(&self.rules)
            ),
            _ => format!(
                "{}: {} items sent by Codex {}, about {} tokens, model {model}; rules: {}",
                self.file,
                self.messages,
                self.client,
                self.tokens,
                rules_text(&self.rules)
            ),
        }
    }
}

/// `A1 x3, F5 x1` for a record's rules, or `none`.
fn rules_text(rules: &[serde_json::Value]) -> String {
    let rules: Vec<String> = rules
        .iter()
        .map(|r| format!("{} x{}", r["rule"].as_str().unwrap_or("?"), r["count"]))
        .collect();
    if rules.is_empty() {
        "none".to_string()
    } else {
        rules.join(", ")
    }
}

/// What a rebuild reports at the end.
#[derive(Debug)]
pub enum Report {
    Chain(ChainSummary),
    ApiView(ApiViewSummary),
}

impl Report {
    pub fn describe(&self) -> String {
        match self {
            Report::Chain(c) => c.describe(),
            Report::ApiView(a) => a.describe(),
        }
    }
}

/// The closing `--json` record.
#[derive(Serialize, Debug, Default)]
pub struct ChainSummary {
    pub file: String,
    pub format: &'static str,
    pub loader: Option<&'static str>,
    pub replay: Option<&'static str>,
    pub messages: usize,
    pub end: Option<String>,
    pub tip: Option<String>,
    pub root: Option<String>,
    pub unreachable: Option<usize>,
    pub duplicate_uuids: Option<u64>,
    pub bad_lines: u64,
    pub recovered: Option<usize>,
    pub appended: Option<usize>,
    pub pruned: Option<usize>,
    pub bridged: Option<usize>,
    pub earlier_parts: Option<Vec<usize>>,
}

impl ChainSummary {
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}: {} messages on the chain ({}",
            self.file, self.messages, self.format
        );
        if let Some(l) = self.loader {
            s.push_str(&format!(", loader {l}"));
        }
        if let Some(r) = self.replay {
            s.push_str(&format!(", replay {r}"));
        }
        s.push(')');
        if let Some(e) = &self.end {
            s.push_str(&format!("; walk ended: {e}"));
        }
        let mut counts = Vec::new();
        if let Some(u) = self.unreachable {
            counts.push(format!("{u} unreachable"));
        }
        if let Some(d) = self.duplicate_uuids {
            counts.push(format!("{d} duplicate uuids"));
        }
        counts.push(format!("{} bad lines", self.bad_lines));
        if let Some(r) = self.recovered.filter(|&r| r > 0) {
            counts.push(format!("{r} parallel tool rows recovered"));
        }
        if let Some(b) = self.bridged.filter(|&b| b > 0) {
            counts.push(format!("{b} gaps bridged"));
        }
        if let Some(p) = self.pruned.filter(|&p| p > 0) {
            counts.push(format!("{p} pruned by a preserved segment"));
        }
        s.push_str(&format!("; {}", counts.join(", ")));
        s
    }
}

/// Parses a record for rendering; a record that cannot be parsed is shown as its text.
pub fn value_of(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or_else(|| serde_json::Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// An error reading the input back (the file changed under the reader), naming it.
pub fn cannot_read(src: &Source, e: std::io::Error) -> crate::error::Error {
    crate::error::Error::Read(e).about(src.name())
}
