//! `cctool rebuild-chain FILE`: the exact conversation an agent loads on resume.

use std::io::Write;

use serde::Serialize;

use crate::chain::claude::{self, Options};
use crate::chain::claude_api::{self, api_view};
use crate::chain::codex::{self, Replay};
use crate::cli::{ChainFormat, GlobalArgs, RebuildChainArgs};
use crate::formats::codex::{Era, ItemSrc};
use crate::formats::session;
use crate::io::{Input, Source};
use crate::model::Format;
use crate::model::diag::{Diagnostic, Severity};
use crate::output::progress::file_bar;
use crate::output::render::{self, Style};
use crate::output::{Out, eprint_diagnostics};
use crate::{ExitStatus, Fatal};

/// The closing `--json` record of `--api-view`.
#[derive(Serialize, Debug)]
pub struct ApiViewSummary {
    pub kind: &'static str,
    pub file: String,
    pub loader: &'static str,
    pub model: Option<String>,
    pub messages: usize,
    pub tokens: usize,
    pub prompt: bool,
    pub rules: Vec<serde_json::Value>,
}

impl ApiViewSummary {
    fn describe(&self) -> String {
        let rules: Vec<String> = self
            .rules
            .iter()
            .map(|r| format!("{} x{}", r["rule"].as_str().unwrap_or("?"), r["count"]))
            .collect();
        format!(
            "{}: {} messages sent, about {} tokens, model {}; rules: {}",
            self.file,
            self.messages,
            self.tokens,
            self.model.as_deref().unwrap_or("unknown"),
            if rules.is_empty() {
                "none".to_string()
            } else {
                rules.join(", ")
            }
        )
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

fn style(f: ChainFormat) -> Option<Style> {
    match f {
        ChainFormat::Jsonl => None,
        ChainFormat::Text => Some(Style::Text),
        ChainFormat::Markdown => Some(Style::Markdown),
    }
}

/// Parses a record for rendering; a record that cannot be parsed is shown as its text.
fn value_of(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or_else(|| serde_json::Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

pub fn run(g: &GlobalArgs, a: &RebuildChainArgs) -> anyhow::Result<ExitStatus> {
    let input = if a.file.as_os_str() == "-" {
        Input::Stdin
    } else {
        Input::Path(a.file.clone())
    };
    let name = input.display_name();
    let (src, format) = super::open_session(&input, g).map_err(|e| Fatal(format!("{name}: {e}")))?;
    if (a.api_view || a.tip.is_some() || a.full) && format != Format::ClaudeCode {
        return Err(Fatal(format!(
            "{name}: --api-view, --tip and --full apply to Claude Code transcripts; this file is {}",
            format.name()
        ))
        .into());
    }
    let mut out = Out::new(g.color);
    let st = style(a.format);
    let bar = file_bar(src.name(), src.len(), g.quiet);
    let (diags, summary) = match format {
        Format::ClaudeCode => claude_chain(&src, a, st, &mut out, &bar)?,
        Format::Codex => codex_chain(&src, a, st, &mut out, &bar)?,
        Format::CctoolSession => session_chain(&src, st, &mut out)?,
    };
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
    if !g.json && !g.quiet {
        eprint_diagnostics(&diags, 20);
        let mut e = std::io::stderr().lock();
        let _ = writeln!(
            e,
            "cctool: {}",
            crate::output::sanitize::escape_str(&summary.describe())
        );
    }
    Ok(ExitStatus::Success)
}

fn claude_chain(
    src: &Source,
    a: &RebuildChainArgs,
    st: Option<Style>,
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
        let view = api_view(&t, &chain, src, a.prompt.as_deref())?;
        diags.extend(view.diagnostics(&t.file));
        for (i, m) in view.messages().enumerate() {
            match st {
                None => out.record(m.as_bytes())?,
                Some(s) => out.text(&render::render(s, &render::api_block(&value_of(m.as_bytes()), i, s)))?,
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
            loader: a.loader.name(),
            model: view.model.clone(),
            messages: view.len(),
            tokens: view.tokens(),
            prompt: a.prompt.is_some(),
            rules: claude_api::rules_of(&fired),
        };
        return Ok((diags, Report::ApiView(record)));
    }
    let mut released = src.releaser();
    for (i, &pos) in chain.positions.iter().enumerate() {
        if let Some(s) = st {
            if chain.earlier_parts.contains(&i) {
                out.text(&render::separator(
                    s,
                    "earlier history, replaced by a compaction (not loaded on resume)",
                ))?;
            } else if !chain.earlier_parts.is_empty() && chain.loaded_from == Some(i) {
                out.text(&render::separator(s, "what a resume loads"))?;
            }
        }
        let node = t.node(pos);
        let bytes = src.read_range(node.offset, node.len as usize)?;
        match st {
            None => out.record(&bytes)?,
            Some(s) => out.text(&render::render(
                s,
                &render::claude_block(&value_of(&bytes), node.line, s),
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
    st: Option<Style>,
    out: &mut Out,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let rollout = crate::formats::codex::read_records_with_progress(src, &mut |at| bar.set_position(at))
        .map_err(|e| Fatal(format!("{}: cannot read: {e}", src.name())))?;
    bar.finish_and_clear();
    let (history, other) = match a.replay {
        Replay::Current => (codex::reconstruct(&rollout), codex::replay_forward(&rollout)),
        Replay::Legacy => (codex::replay_forward(&rollout), codex::reconstruct(&rollout)),
    };
    let mut diags = rollout.diagnostics.clone();
    if rollout.era == Era::Bare || rollout.era == Era::Document {
        diags.push(Diagnostic::new(
            src.name(),
            None,
            "pre-envelope-format",
            Severity::Info,
            "written by a 2025 Codex that current Codex cannot resume; its history is read by plain forward replay",
        ));
    }
    let srcs = |h: &codex::History| h.items.iter().map(|i| i.src.clone()).collect::<Vec<_>>();
    if rollout.era == Era::Envelope && srcs(&history) != srcs(&other) {
        let (cur, leg) = match a.replay {
            Replay::Current => (&history, &other),
            Replay::Legacy => (&other, &history),
        };
        diags.push(Diagnostic::new(
            src.name(),
            None,
            "replay-differs",
            Severity::Warning,
            format!(
                "current Codex resumes {} items, the pre-2026-02-27 forward replay gives {}: a rollback crosses a compaction",
                cur.items.len(),
                leg.items.len()
            ),
        ));
    }
    if history.discarded_turns > 0 && a.replay == Replay::Current {
        diags.push(Diagnostic::new(
            src.name(),
            None,
            "rolled-back",
            Severity::Info,
            format!(
                "{} turn(s) rolled back and discarded ({} records)",
                history.discarded_turns, history.discarded_records
            ),
        ));
    }
    let mut released = src.releaser();
    for item in &history.items {
        let (bytes, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let bytes = src.read_range(*offset, *len as usize)?.into_owned();
                released.touch(*offset, u64::from(*len));
                (bytes, Some(*line))
            }
            ItemSrc::Synth(s) => (s.clone().into_bytes(), None),
        };
        match st {
            None => out.record(&bytes)?,
            Some(s) => out.text(&render::render(s, &render::codex_block(&value_of(&bytes), line, s)))?,
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

fn session_chain(src: &Source, st: Option<Style>, out: &mut Out) -> anyhow::Result<(Vec<Diagnostic>, Report)> {
    let s = session::read_messages(src).map_err(|e| Fatal(format!("{}: {}", src.name(), e.0)))?;
    for (i, m) in s.messages.iter().enumerate() {
        match st {
            None => out.record(m)?,
            Some(style) => out.text(&render::render(style, &render::session_block(&value_of(m), i)))?,
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
