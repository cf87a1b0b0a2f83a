//! `rebuild-chain` of a Claude Code transcript: the records of the chain a resume loads, or the
//! request the client sends after it (`--api-view`).

use super::api::{self as claude_api, api_view};
use super::chain::{self as claude, Options};
use super::config::Config;
use super::events::{parts, record_of};
use super::model as claude_model;
use crate::agents::view::ChainOptions;
use crate::agents::view::{ApiViewSummary, ChainSummary, Report, cannot_read, value_of};
use crate::error::Error;
use crate::io::Source;
use crate::output::Out;
use crate::output::render::{self, Render};
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::events::{At, Record};

/// The chain a resume of this transcript loads, or with `--api-view` the request Claude Code
/// sends after it, printed to `out`.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    st: Option<Render>,
    out: &mut Out,
    bar: &indicatif::ProgressBar,
) -> crate::error::Result<(Vec<Diagnostic>, Report)> {
    let t = claude::read_with_progress(src, &mut |at| bar.set_position(at)).map_err(|e| cannot_read(src, e))?;
    bar.finish_and_clear();
    let opts = Options {
        loader: a.loader(),
        tip: a.tip.clone(),
        full: a.full,
    };
    let chain = t.rebuild(&opts).map_err(|e| Error::agent(e).about(src.name()))?;
    let mut diags = t.diagnostics.clone();
    diags.extend(chain.diagnostics.iter().cloned());
    if a.api_view {
        let cwd = claude_model::session_cwd(&t, &chain, src)?;
        let cfg = Config::load(&a.resume, cwd.as_deref(), &|k| std::env::var(k).ok())
            .map_err(|e| Error::agent(e).about(src.name()))?;
        let rm = claude_model::choose(&t, &chain, src, &cfg)?;
        let view = api_view(&t, &chain, src, a.prompt.as_deref(), &rm).map_err(|e| cannot_read(src, e))?;
        diags.extend(view.diagnostics(&t.file));
        let messages: Vec<String> = view.messages().collect();
        print_request(&rm, &cfg, a.body, &messages, st, out)?;
        let mut fired = view.fired.clone();
        for (rule, n) in [("B1", chain.bridges.len()), ("B3", chain.appended)] {
            if n > 0 {
                fired.insert(rule, n);
            }
        }
        if a.loader() == claude::Loader::V2_1_332 && chain.recovered > 0 {
            fired.insert("B2", chain.recovered);
        }
        let record = ApiViewSummary {
            file: t.file.clone(),
            format: crate::ID.name(),
            sent_by: None,
            client: crate::client::CLIENT.version,
            loader: Some(a.loader().name()),
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
            assumptions: serde_json::to_value(rm.assumptions(&cfg)).ok(),
            refused: None,
        };
        return Ok((diags, Report::ApiView(record)));
    }
    print_chain(src, &t, &chain, st, out)?;
    let summary = ChainSummary {
        file: t.file.clone(),
        format: crate::ID.name(),
        loader: Some(a.loader().name()),
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

/// The request after a resume: with a style, its statement (model and settings) first; then
/// its messages, or with `body` the whole body sent.
fn print_request(
    rm: &claude_model::RequestModel,
    cfg: &Config,
    body: bool,
    messages: &[String],
    st: Option<Render>,
    out: &mut Out,
) -> crate::error::Result<()> {
    if let Some(s) = st {
        let statement = render::Block {
            role: "request".into(),
            line: None,
            timestamp: None,
            id: Some(format!("Claude Code {}", claude_model::client_version())),
            body: rm.statement(cfg, body),
        };
        out.text(&render::render(&s, &statement))?;
    }
    if body {
        let body = rm.body(messages.iter().map(String::as_str));
        match st {
            None => out.record(body.as_bytes())?,
            Some(s) => {
                let mut v = value_of(body.as_bytes());
                let sent = match v.get_mut("messages").map(serde_json::Value::take) {
                    Some(serde_json::Value::Array(a)) => a,
                    _ => Vec::new(),
                };
                for (i, m) in sent.into_iter().enumerate() {
                    out.text(&render::render(&s, &api_block(m, i, &s)))?;
                }
            }
        }
    } else {
        for (i, m) in messages.iter().enumerate() {
            match st {
                None => out.record(m.as_bytes())?,
                Some(s) => out.text(&render::render(&s, &api_block(value_of(m.as_bytes()), i, &s)))?,
            }
        }
    }
    Ok(())
}

/// The chain's records as written, or rendered with a style, with a separator where the
/// history a compaction replaced ends.
fn print_chain(
    src: &Source,
    t: &claude::Transcript,
    chain: &claude::Chain,
    st: Option<Render>,
    out: &mut Out,
) -> crate::error::Result<()> {
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
            Some(s) => {
                let at = At {
                    line: node.line,
                    offset: node.offset,
                };
                let (record, compaction) = record_of(value_of(&bytes), at, node.len, true);
                let block = render::record_block(&s, &record, compaction.as_ref());
                out.text(&render::render(&s, &block))?;
            }
        }
        released.touch(node.offset, node.len);
    }
    Ok(())
}

/// A message of the request (`{"role","content"}`) as a block numbered `message N`.
fn api_block(mut m: serde_json::Value, index: usize, r: &Render) -> render::Block {
    let content = m.get_mut("content").map(serde_json::Value::take);
    let role = m.get("role").and_then(serde_json::Value::as_str).map(str::to_string);
    let record = Record {
        kind: role.clone().unwrap_or_default(),
        role,
        parts: content.map(parts).unwrap_or_default(),
        ..Record::default()
    };
    let mut block = render::record_block(r, &record, None);
    block.id = Some(format!("message {}", index + 1));
    block
}
