//! `rebuild-chain` of a Codex rollout: the history a resume loads, or the request Codex sends
//! after it (`--api-view`).

use super::api as codex_api;
use super::events::{self as model, item_record};
use super::history::{self as codex, Replay};
use super::rollout::{Era, ItemSrc};
use crate::agents::view::ChainOptions;
use crate::agents::view::{ApiViewSummary, ChainSummary, Report, cannot_read, value_of};
use crate::io::Source;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::events::At;
use crate::output::Out;
use crate::output::render::{self, Render};

/// The history a resume of this rollout loads, or with `--api-view` the request Codex sends
/// after it, printed to `out`.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    st: Option<Render>,
    out: &mut Out,
    bar: &indicatif::ProgressBar,
) -> crate::error::Result<(Vec<Diagnostic>, Report)> {
    let rollout = crate::rollout::read_records_with_progress(src, &mut |at| bar.set_position(at))
        .map_err(|e| cannot_read(src, e))?;
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
    diags.extend(super::doctor::notes(&rollout, current));
    let same =
        |a: &codex::History, b: &codex::History| a.items.iter().map(|i| &i.src).eq(b.items.iter().map(|i| &i.src));
    if rollout.era == Era::Envelope && !same(&history, &other) {
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
        let report = api_view(src, a, st, out, &rollout, &history, &mut diags)?;
        return Ok((diags, Report::ApiView(report)));
    }
    let mut released = src.releaser();
    for item in &history.items {
        let (bytes, at) = match &item.src {
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
                (
                    bytes,
                    Some(At {
                        line: *line,
                        offset: *offset,
                    }),
                )
            }
            ItemSrc::Synth(s) => (s.as_bytes().to_vec(), None),
        };
        match st {
            // The 2025 TypeScript CLI's document is pretty-printed: its items span lines.
            None if rollout.era == Era::Document => out.record(&crate::io::json::minify(&bytes))?,
            None => out.record(&bytes)?,
            Some(s) => {
                // A rollout's items carry no time; their lines do, but reading every line's
                // for a heading would read the file twice.
                let (record, compaction) = item_record(item, value_of(&bytes), at, None);
                let block = render::record_block(&s, &record, compaction.as_ref());
                out.text(&render::render(&s, &block))?;
            }
        }
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
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
fn api_view(
    src: &Source,
    a: &ChainOptions,
    st: Option<Render>,
    out: &mut Out,
    rollout: &crate::rollout::Rollout,
    history: &codex::History,
    diags: &mut Vec<Diagnostic>,
) -> crate::error::Result<ApiViewSummary> {
    let view = codex_api::api_view(rollout, history, src, a.resume.model.as_deref(), a.prompt.as_deref())
        .map_err(|e| cannot_read(src, e))?;
    let mut record = ApiViewSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        sent_by: None,
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
                let v = value_of(item.as_bytes());
                let ty = v
                    .get("type")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let (item, compaction) = model::record(v, &ty, None, None);
                let mut block = render::record_block(&s, &item, compaction.as_ref());
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
