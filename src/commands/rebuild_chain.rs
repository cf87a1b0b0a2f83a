//! `cctool rebuild-chain FILE`: the exact conversation an agent loads on resume.

use std::io::Write;

use serde::Serialize;

use crate::agents::cctool::file as session;
use crate::agents::claude_code::api::{self as claude_api, api_view};
use crate::agents::claude_code::chain::{self as claude, Options};
use crate::agents::claude_code::config::Config;
use crate::agents::claude_code::model as claude_model;
use crate::agents::codex::api as codex_api;
use crate::agents::codex::history::{self as codex, Replay};
use crate::agents::codex::rollout::{Era, ItemSrc};
use crate::cli::{ChainFormat, GlobalArgs, RebuildChainArgs};
use crate::io::{Input, Source};
use crate::model::Format;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::output::progress::file_bar;
use crate::output::render::{self, Render, Style};
use crate::output::{Out, eprint_diagnostics};
use crate::{ExitStatus, Fatal};

/// The closing `--json` record of `--api-view`.
/// The closing `--json` record of `--api-view`, for either agent: one set of fields, null
/// where the agent has no such thing (Claude Code has a loader, a model choice and a thinking
/// policy; Codex a catalog entry and refusals).
#[derive(Serialize, Debug)]
pub struct ApiViewSummary {
    pub kind: &'static str,
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
    pub assumptions: Option<Box<claude_model::Assumptions>>,
    /// Codex: why Codex cannot resume the file, when it cannot (then nothing else is printed).
    pub refused: Option<String>,
}

impl ApiViewSummary {
    fn describe(&self) -> String {
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
    fn describe(&self) -> String {
        match self {
            Report::Chain(c) => c.describe(),
            Report::ApiView(a) => a.describe(),
        }
    }
}

/// The closing `--json` record.
#[derive(Serialize, Debug, Default)]
pub struct ChainSummary {
    pub kind: &'static str,
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
    fn describe(&self) -> String {
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

fn style(f: ChainFormat, paint: crate::output::style::Paint, full: bool) -> Option<Render> {
    match f {
        ChainFormat::Jsonl => None,
        ChainFormat::Text => Some(Render::new(Style::Text, paint, full)),
        ChainFormat::Markdown => Some(Render::new(Style::Markdown, paint, full)),
    }
}

/// Parses a record for rendering; a record that cannot be parsed is shown as its text.
fn value_of(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or_else(|| serde_json::Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// An error reading the input back (the file changed under the reader), naming it.
fn cannot_read(src: &Source, e: std::io::Error) -> Fatal {
    Fatal(format!("{}: cannot read: {e}", src.name()))
}

pub fn run(g: &GlobalArgs, a: &RebuildChainArgs) -> anyhow::Result<ExitStatus> {
    let input = if a.file.as_os_str() == "-" {
        Input::Stdin
    } else {
        Input::Path(a.file.clone())
    };
    let name = input.display_name();
    let (src, format) = super::open_session(&input, g).map_err(|e| Fatal(format!("{name}: {e}")))?;
    if a.resume.any() && !a.api_view {
        return Err(Fatal(
            "--as-of, --model, --settings, --base-url and --thinking-policy describe a resume: use them with --api-view"
                .to_string(),
        )
        .into());
    }
    if format == Format::Codex && a.resume.any_claude_only() {
        return Err(Fatal(format!(
            "{name}: --as-of, --settings, --base-url and --thinking-policy describe a Claude Code resume; for a Codex rollout only --model applies"
        ))
        .into());
    }
    if (a.tip.is_some() || a.full) && format != Format::ClaudeCode {
        return Err(Fatal(format!(
            "{name}: --tip and --full apply to Claude Code transcripts; this file is {}",
            format.name()
        ))
        .into());
    }
    if a.api_view && format == Format::CctoolSession {
        return Err(Fatal(format!(
            "{name}: --api-view applies to Claude Code transcripts and Codex rollouts; this file is {}",
            format.name()
        ))
        .into());
    }
    let mut out = Out::new(g.color);
    let st = style(a.format, out.paint(), a.full_output);
    let bar = file_bar(src.name(), src.len(), g.quiet);
    let (diags, summary) = match format {
        Format::ClaudeCode => claude_chain(&src, a, st, &mut out, &bar)?,
        Format::Codex => codex_chain(&src, a, st, &mut out, &bar)?,
        Format::CctoolSession => session_chain(&src, st, &mut out)?,
    };
    src.check().map_err(|e| Fatal(format!("{name}: cannot read: {e}")))?;
    if g.json {
        for d in &diags {
            out.json(d)?;
        }
        match &summary {
            Report::Chain(c) => out.json(c)?,
            Report::ApiView(v) => out.json(v)?,
        }
    }
    out.flush()?;
    let refused = matches!(&summary, Report::ApiView(v) if v.refused.is_some());
    if !g.json && !g.quiet {
        eprint_diagnostics(&diags, 20, crate::output::style::Paint::stderr(g.color));
        let mut e = std::io::stderr().lock();
        let _ = writeln!(
            e,
            "cctool: {}",
            crate::output::sanitize::escape_str(&summary.describe())
        );
    }
    Ok(if refused {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    })
}

fn claude_chain(
    src: &Source,
    a: &RebuildChainArgs,
    st: Option<Render>,
    out: &mut Out,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let t = claude::read_with_progress(src, &mut |at| bar.set_position(at))
        .map_err(|e| Fatal(format!("{}: cannot read: {e}", src.name())))?;
    bar.finish_and_clear();
    let opts = Options {
        loader: a.loader,
        tip: a.tip.clone(),
        full: a.full,
    };
    let chain = t.rebuild(&opts).map_err(|e| Fatal(format!("{}: {e}", src.name())))?;
    let mut diags = t.diagnostics.clone();
    diags.extend(chain.diagnostics.iter().cloned());
    if a.api_view {
        let cwd = claude_model::session_cwd(&t, &chain, src)?;
        let cfg = Config::load(&a.resume.overrides(), cwd.as_deref(), &|k| std::env::var(k).ok())
            .map_err(|e| Fatal(format!("{}: {e}", src.name())))?;
        let rm = claude_model::choose(&t, &chain, src, &cfg)?;
        let view = api_view(&t, &chain, src, a.prompt.as_deref(), &rm).map_err(|e| cannot_read(src, e))?;
        diags.extend(view.diagnostics(&t.file));
        let messages: Vec<String> = view.messages().collect();
        if let Some(s) = st {
            let statement = render::Block {
                role: "request".into(),
                line: None,
                timestamp: None,
                id: Some(format!("Claude Code {}", claude_model::client_version())),
                body: rm.statement(&cfg, a.body),
            };
            out.text(&render::render(&s, &statement))?;
        }
        if a.body {
            let body = rm.body(messages.iter().map(String::as_str));
            match st {
                None => out.record(body.as_bytes())?,
                Some(s) => {
                    let v = value_of(body.as_bytes());
                    let sent = v["messages"].as_array().cloned().unwrap_or_default();
                    for (i, m) in sent.iter().enumerate() {
                        out.text(&render::render(&s, &render::api_block(m, i, &s)))?;
                    }
                }
            }
        } else {
            for (i, m) in messages.iter().enumerate() {
                match st {
                    None => out.record(m.as_bytes())?,
                    Some(s) => out.text(&render::render(&s, &render::api_block(&value_of(m.as_bytes()), i, &s)))?,
                }
            }
        }
        let mut fired = view.fired.clone();
        for (rule, n) in [("B1", chain.bridges.len()), ("B3", chain.appended)] {
            if n > 0 {
                fired.insert(rule, n);
            }
        }
        if a.loader == claude::Loader::V2_1_332 && chain.recovered > 0 {
            fired.insert("B2", chain.recovered);
        }
        let record = ApiViewSummary {
            kind: "api_view",
            file: t.file.clone(),
            format: Format::ClaudeCode.name(),
            client: crate::agents::claude_code::client::CLIENT.version,
            loader: Some(a.loader.name()),
            model: view.model.clone(),
            model_choice: Some(rm.choice()),
            model_entry: None,
            session_model: rm.session_model.clone(),
            session_model_retires: rm.session_retires.map(|d| d.to_string()),
            notice: rm.notice.clone(),
            thinking_policy: Some(rm.policy.name()),
            messages: view.len(),
            tokens: view.tokens(),
            prompt: a.prompt.is_some(),
            rules: claude_api::rules_of(&fired),
            assumptions: Some(Box::new(rm.assumptions(&cfg))),
            refused: None,
        };
        return Ok((diags, Report::ApiView(record)));
    }
    let mut released = src.releaser();
    for (i, &pos) in chain.positions.iter().enumerate() {
        if let Some(s) = st {
            if chain.earlier_parts.contains(&i) {
                out.text(&render::separator(
                    &s,
                    "earlier history, replaced by a compaction (not loaded on resume)",
                ))?;
            } else if !chain.earlier_parts.is_empty() && chain.loaded_from == Some(i) {
                out.text(&render::separator(&s, "what a resume loads"))?;
            }
        }
        let node = t.node(pos);
        let bytes = src
            .read_range(node.offset, node.len as usize)
            .map_err(|e| cannot_read(src, e))?;
        match st {
            None => out.record(&bytes)?,
            Some(s) => out.text(&render::render(
                &s,
                &render::claude_block(&value_of(&bytes), node.line, &s),
            ))?,
        }
        released.touch(node.offset, node.len);
    }
    let summary = ChainSummary {
        kind: "chain",
        file: t.file.clone(),
        format: Format::ClaudeCode.name(),
        loader: Some(a.loader.name()),
        messages: chain.positions.len(),
        end: chain.end.as_ref().map(ToString::to_string),
        tip: chain.tip.map(|p| t.uuid_text(p)),
        root: chain.positions.first().map(|&p| t.uuid_text(p)),
        unreachable: Some(t.unreachable(&chain)),
        duplicate_uuids: Some(t.duplicate_uuids),
        bad_lines: t.bad_lines,
        recovered: Some(chain.recovered),
        appended: Some(chain.appended),
        pruned: Some(chain.pruned),
        bridged: Some(chain.bridges.len()),
        earlier_parts: a.full.then(|| chain.earlier_parts.clone()),
        replay: None,
    };
    Ok((diags, Report::Chain(summary)))
}

fn codex_chain(
    src: &Source,
    a: &RebuildChainArgs,
    st: Option<Render>,
    out: &mut Out,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let rollout = crate::agents::codex::rollout::read_records_with_progress(src, &mut |at| bar.set_position(at))
        .map_err(|e| Fatal(format!("{}: cannot read: {e}", src.name())))?;
    bar.finish_and_clear();
    let (history, other) = match a.replay {
        Replay::Current => (codex::reconstruct(&rollout), codex::replay_forward(&rollout)),
        Replay::Legacy => (codex::replay_forward(&rollout), codex::reconstruct(&rollout)),
    };
    let mut diags = rollout.diagnostics.clone();
    let current = match a.replay {
        Replay::Current => &history,
        Replay::Legacy => &other,
    };
    diags.extend(crate::doctor::codex_notes(&rollout, current));
    let srcs = |h: &codex::History| h.items.iter().map(|i| i.src.clone()).collect::<Vec<_>>();
    if rollout.era == Era::Envelope && srcs(&history) != srcs(&other) {
        let (cur, leg) = match a.replay {
            Replay::Current => (&history, &other),
            Replay::Legacy => (&other, &history),
        };
        diags.push(Diagnostic::new(
            src.name(),
            None,
            Code::ReplayDiffers,
            Severity::Warning,
            format!(
                "current Codex resumes {} items, the pre-2026-02-27 forward replay gives {}: a rollback crosses a compaction",
                cur.items.len(),
                leg.items.len()
            ),
        ));
    }
    if a.api_view {
        let report = codex_api_view(src, a, st, out, &rollout, &history, &mut diags)?;
        return Ok((diags, Report::ApiView(report)));
    }
    let mut released = src.releaser();
    for item in &history.items {
        let (bytes, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let mut bytes = src
                    .read_range(*offset, *len as usize)
                    .map_err(|e| cannot_read(src, e))?
                    .into_owned();
                released.touch(*offset, u64::from(*len));
                if rollout.era == Era::Document {
                    // Items of a pretty-printed 2025 document: one line each, as JSON Lines.
                    bytes = crate::io::json::minify(&bytes);
                }
                (bytes, Some(*line))
            }
            ItemSrc::Synth(s) => (s.clone().into_bytes(), None),
        };
        match st {
            // The 2025 TypeScript CLI's document is pretty-printed: its items span lines.
            None if rollout.era == Era::Document => out.record(&crate::io::json::minify(&bytes))?,
            None => out.record(&bytes)?,
            Some(s) => out.text(&render::render(&s, &render::codex_block(&value_of(&bytes), line, &s)))?,
        }
    }
    let summary = ChainSummary {
        kind: "chain",
        file: src.name().to_string(),
        format: Format::Codex.name(),
        replay: Some(match a.replay {
            Replay::Current => "current",
            Replay::Legacy => "legacy",
        }),
        messages: history.items.len(),
        end: Some(match history.base_line {
            Some(l) => format!("compacted:{l}"),
            None => "start".to_string(),
        }),
        bad_lines: rollout.bad_lines,
        ..ChainSummary::default()
    };
    Ok((diags, Report::Chain(summary)))
}

/// `--api-view` on a Codex rollout: the `input` items Codex 0.171 sends, one per line.
fn codex_api_view(
    src: &Source,
    a: &RebuildChainArgs,
    st: Option<Render>,
    out: &mut Out,
    rollout: &crate::agents::codex::rollout::Rollout,
    history: &codex::History,
    diags: &mut Vec<Diagnostic>,
) -> anyhow::Result<ApiViewSummary> {
    let view = codex_api::api_view(rollout, history, src, a.resume.model.as_deref(), a.prompt.as_deref())?;
    let mut record = ApiViewSummary {
        kind: "api_view",
        file: src.name().to_string(),
        format: Format::Codex.name(),
        client: codex_api::CLIENT,
        loader: None,
        model: None,
        model_choice: None,
        model_entry: None,
        session_model: None,
        session_model_retires: None,
        notice: None,
        thinking_policy: None,
        messages: 0,
        tokens: 0,
        prompt: a.prompt.is_some(),
        rules: Vec::new(),
        assumptions: None,
        refused: None,
    };
    let view = match view {
        Ok(v) => v,
        Err(refusal) => {
            record.refused = Some(refusal.0);
            return Ok(record);
        }
    };
    for (line, why) in &view.unreadable {
        diags.push(Diagnostic::new(
            src.name(),
            *line,
            Code::UnreadableItem,
            Severity::Warning,
            format!("history item Codex cannot read ({why}); Codex skips this line"),
        ));
    }
    for line in &view.not_reproduced {
        diags.push(Diagnostic::new(
            src.name(),
            Some(*line),
            Code::ImageNotReproduced,
            Severity::Warning,
            "Codex resizes or converts this image before sending it; the view shows it as written",
        ));
    }
    for (i, item) in view.items.iter().enumerate() {
        match st {
            None => out.record(item.as_bytes())?,
            Some(s) => {
                let mut block = render::codex_block(&value_of(item.as_bytes()), None, &s);
                // A call's id is in the heading already (`function_call_output call_…`).
                block.id = Some(format!("item {}", i + 1));
                out.text(&render::render(&s, &block))?;
            }
        }
    }
    record.model = view.model.slug.clone();
    record.model_entry = view.model.entry;
    record.messages = view.items.len();
    record.tokens = view.tokens();
    record.rules = view.rules();
    Ok(record)
}

fn session_chain(src: &Source, st: Option<Render>, out: &mut Out) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let s = session::read_messages(src).map_err(|e| Fatal(format!("{}: {}", src.name(), e.0)))?;
    for (i, m) in s.messages.iter().enumerate() {
        match st {
            None => out.record(m)?,
            Some(style) => out.text(&render::render(&style, &render::session_block(&value_of(m), i, &style)))?,
        }
    }
    let summary = ChainSummary {
        kind: "chain",
        file: src.name().to_string(),
        format: Format::CctoolSession.name(),
        messages: s.messages.len(),
        end: Some("start".into()),
        ..ChainSummary::default()
    };
    Ok((Vec::new(), Report::Chain(summary)))
}
