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
    /// The input's name, as diagnostics name it.
    pub file: String,
    /// The format's name (`claude-code`, `codex`).
    pub format: &'static str,
    /// Who sends the messages, as the line on stderr says it, for an agent whose request is
    /// a list of messages named by its client alone; `None` keeps the line of the first two
    /// agents. Not a field of the record.
    #[serde(skip)]
    pub sent_by: Option<&'static str>,
    /// The client version whose request this is.
    pub client: &'static str,
    /// Claude Code: the loader rules followed (`--loader`); null for Codex.
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
    /// Estimated tokens of the request (an approximation, not the provider's count).
    pub tokens: usize,
    /// Whether `--prompt` appended a new prompt to the request.
    pub prompt: bool,
    /// The rules that shaped the request, each `{"rule", "count", …}`.
    pub rules: Vec<serde_json::Value>,
    /// Claude Code: the date, time zone, settings and base URL the answer depends on.
    pub assumptions: Option<serde_json::Value>,
    /// Codex: why Codex cannot resume the file, when it cannot (then nothing else is printed).
    pub refused: Option<String>,
}

impl ApiViewSummary {
    /// The summary of a request whose messages alone cctool gives (the Chat Completions
    /// agents'): `messages` sent by `client`, `bytes` of their JSON; every field an agent of
    /// another kind has is null, and the agent sets what else it knows.
    pub fn of_messages(
        file: &str,
        format: &'static str,
        client: &'static str,
        messages: usize,
        bytes: usize,
        prompt: bool,
    ) -> ApiViewSummary {
        ApiViewSummary {
            file: file.to_string(),
            format,
            sent_by: Some(client),
            client,
            loader: None,
            model: None,
            model_choice: None,
            model_entry: None,
            session_model: None,
            session_model_retires: None,
            notice: None,
            thinking_policy: None,
            messages,
            tokens: crate::model::approx_tokens(bytes),
            prompt,
            rules: Vec::new(),
            assumptions: None,
            refused: None,
        }
    }

    /// The one-line summary printed on stderr after the request.
    pub fn describe(&self) -> String {
        if let Some(r) = &self.refused {
            return format!("{}: {r}", self.file);
        }
        let model = self.model.as_deref().unwrap_or("unknown");
        if let Some(by) = self.sent_by {
            return format!(
                "{}: {} messages sent by {by}, about {} tokens, model {model}; rules: {}",
                self.file,
                self.messages,
                self.tokens,
                rules_text(&self.rules)
            );
        }
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
    /// A chain (or history) rebuild.
    Chain(ChainSummary),
    /// An `--api-view` request.
    ApiView(ApiViewSummary),
}

impl Report {
    /// The one-line summary printed on stderr at the end.
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
    /// The input's name, as diagnostics name it.
    pub file: String,
    /// The format's name (`claude-code`, `codex`).
    pub format: &'static str,
    /// Claude Code: the loader rules followed; null for Codex.
    pub loader: Option<&'static str>,
    /// Codex: the history reconstruction followed (`current`, `legacy`); null for Claude Code.
    pub replay: Option<&'static str>,
    /// How many messages (Codex: history items) were printed.
    pub messages: usize,
    /// Why the walk stopped: `root`, `boundary`, `dangling:<uuid>`, `cycle`, `empty` (Codex:
    /// `compacted:<line>` or `start`).
    pub end: Option<String>,
    /// Claude Code: the uuid of the message the chain ends at.
    pub tip: Option<String>,
    /// Claude Code: the uuid of the chain's first message.
    pub root: Option<String>,
    /// Claude Code: messages of the file the chain does not reach.
    pub unreachable: Option<usize>,
    /// Claude Code: uuids written more than once.
    pub duplicate_uuids: Option<u64>,
    /// Lines that are not valid records (skipped).
    pub bad_lines: u64,
    /// Claude Code: parallel tool rows put back in file order (B2).
    pub recovered: Option<usize>,
    /// Claude Code: system rows under the tip appended (B3).
    pub appended: Option<usize>,
    /// Claude Code: messages pruned by a preserved segment.
    pub pruned: Option<usize>,
    /// Claude Code: broken parent links bridged (B1).
    pub bridged: Option<usize>,
    /// Claude Code, `--full`: the position where each earlier part of the history begins.
    pub earlier_parts: Option<Vec<usize>>,
}

impl ChainSummary {
    /// The one-line summary printed on stderr at the end.
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

/// Parses a record for rendering, with the caps of [`crate::io::json::parse_kept`]: a
/// container past them is kept as its text, which the renderer shows as written, so that what
/// a record takes stays in proportion to its bytes however many elements it holds (every
/// record a real client writes is below the caps, and reads as a tree). A record that is not
/// JSON, or nests deeper than serde_json reads, is shown as its text.
pub fn value_of(bytes: &[u8]) -> serde_json::Value {
    crate::io::json::serde_reads(bytes)
        .then(|| crate::io::json::parse_kept(bytes))
        .flatten()
        .unwrap_or_else(|| serde_json::Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// An error reading the input back (the file changed under the reader), naming it.
pub fn cannot_read(src: &Source, e: std::io::Error) -> crate::error::Error {
    crate::error::Error::Read(e).about(src.name())
}

/// Prints the messages of a Chat Completions request as `--api-view` shows them: one JSON
/// object a line, or, with `style`, each rendered as a transcript's record is and numbered
/// `#1`, `#2`…. Returns the bytes of their JSON, what the summary's token estimate counts.
pub fn print_chat_messages(
    msgs: &[serde_json::Value],
    style: Option<&crate::output::render::Render>,
    out: &mut crate::output::Out,
) -> std::io::Result<usize> {
    use crate::output::render;
    let mut bytes = 0;
    for (i, m) in msgs.iter().enumerate() {
        let line = crate::io::json::to_json(m);
        bytes += line.len();
        match style {
            None => out.record(line.as_bytes())?,
            Some(st) => {
                let mut block = render::record_block(st, &chat_record(m), None);
                block.id = Some(format!("#{}", i + 1));
                out.text(&render::render(st, &block))?;
            }
        }
    }
    Ok(bytes)
}

/// One message of a Chat Completions request (`role`, `content` as a string or text parts,
/// `tool_calls`, a `tool` message's `tool_call_id`) as the session model's record, so that an
/// agent's `--api-view` renders for people as every transcript does.
pub fn chat_record(m: &serde_json::Value) -> crate::model::events::Record {
    use crate::model::events::{Call, Outcome, Part, Record};
    use serde_json::Value;
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let role = s(m.get("role")).unwrap_or_default();
    let mut parts = Vec::new();
    if role == "tool" {
        parts.push(Part::Outcome(Outcome {
            call_id: s(m.get("tool_call_id")),
            is_error: None,
            output: m.get("content").cloned(),
        }));
    } else {
        match m.get("content") {
            Some(Value::String(t)) => parts.push(Part::Text(t.clone())),
            Some(Value::Array(b)) => parts.extend(b.iter().filter_map(|x| s(x.get("text"))).map(Part::Text)),
            _ => {}
        }
    }
    for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let f = c.get("function");
        parts.push(Part::Call(Call {
            id: s(c.get("id")),
            name: s(f.and_then(|f| f.get("name"))),
            kind: "function".into(),
            input: f.and_then(|f| f.get("arguments")).cloned(),
        }));
    }
    Record {
        role: Some(role.clone()),
        speaker: Some(role),
        parts,
        ..Record::default()
    }
}
