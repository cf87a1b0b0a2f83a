//! An opencode session at a glance (`scan`) and its compaction summaries (`extract-summary`).

use crate::file::Session;
use crate::model::{current_compaction, pre_tokens, resume_start, summary_of, text_of};
use cctool_core::io::Source;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::format_ms;
use cctool_core::summary::SummaryRecord;
use serde_json::Value;

/// The session at a glance, read as `s`.
pub fn scan(src: &Source, s: &Session) -> SessionRecord {
    let cwd = s.s("directory");
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        role: if s.s("parentID").is_some() {
            "subagent"
        } else {
            "session"
        },
        lines: s.messages.len() as u64,
        bad_lines: s.unreadable.len() as u64,
        agent_versions: s.s("version").map(str::to_string).into_iter().collect(),
        session_id: s.id().map(str::to_string),
        cwd: cwd.map(str::to_string),
        parent_session: s.s("parentID").map(str::to_string),
        ..SessionRecord::default()
    };
    r.project = cctool_core::model::project::name(cwd, src.name());
    let start = resume_start(s);
    let loaded = &s.messages[start.min(s.messages.len())..];
    r.chain_messages = loaded.len();
    r.chain_end = Some(match current_compaction(s) {
        Some(i) => format!("compacted:{}", s.messages[i].id().unwrap_or("")),
        None => "start".into(),
    });
    // A resume sends the messages from the last answered compaction on; their JSON as
    // written is the measure, as for the other agents.
    r.resume_tokens = cctool_core::model::approx_tokens(loaded.iter().map(|m| m.raw.len() + 1).sum());
    r.resume_model = s.messages.iter().rev().find_map(|m| m.model().map(str::to_string));
    let compactions: Vec<usize> = (0..s.messages.len())
        .filter(|&i| s.messages[i].asks_compaction())
        .collect();
    r.compactions = compactions.len();
    if let Some(&last) = compactions.last() {
        let c = crate::model::compaction(s, last);
        r.last_compaction_trigger = c.measured.as_ref().and_then(|m| m.trigger.clone());
        r.last_compaction_pre_tokens = pre_tokens(s, last).and_then(|v| v.as_i64());
    }
    let first_prompt = s
        .messages
        .iter()
        .filter(|m| m.role() == "user" && !m.asks_compaction())
        .find_map(|m| prompt_text(&text_of(m)));
    let named = s.s("title").map(|t| (t.to_string(), "session-title"));
    (r.title, r.title_source) = title(named, first_prompt);
    let created = s.info.pointer("/time/created").and_then(Value::as_i64);
    let updated = s.info.pointer("/time/updated").and_then(Value::as_i64);
    let times: Vec<i64> = s
        .messages
        .iter()
        .filter_map(|m| m.created_ms())
        .chain(created)
        .chain(updated)
        .collect();
    let span = times.iter().min().zip(times.iter().max());
    r.first_timestamp = span.map(|s| format_ms(*s.0));
    r.last_timestamp = span.map(|s| format_ms(*s.1));
    r.last_ms = span.map(|s| *s.1);
    r
}

/// Every compaction's summary, the text of the assistant message that answers it exactly as
/// stored; the current one is the compaction a resume starts from.
pub fn summaries(src: &Source, s: &Session) -> Vec<SummaryRecord> {
    let current = current_compaction(s);
    (0..s.messages.len())
        .filter(|&i| s.messages[i].asks_compaction())
        .enumerate()
        .map(|(n, i)| {
            let c = crate::model::compaction(s, i);
            let answer = summary_of(s, i);
            let summary = answer.map(text_of);
            let warning = match answer {
                None => Some("the compaction was never answered: no summary message".to_string()),
                Some(a) if !a.is_finished_summary() => {
                    Some("the summary was not finished (or failed): a resume does not start from it".to_string())
                }
                Some(_) => None,
            };
            SummaryRecord {
                kind: "summary",
                file: src.name().to_string(),
                format: crate::ID.name(),
                session_id: s.id().map(str::to_string),
                index: n,
                current: current == Some(i),
                line: None,
                timestamp: c.time.clone(),
                trigger: c.measured.as_ref().and_then(|m| m.trigger.clone()),
                pre_tokens: c
                    .measured
                    .as_ref()
                    .and_then(|m| m.pre_tokens.as_ref())
                    .and_then(Value::as_i64),
                origin: Some("local"),
                warning,
                summary_source: summary.as_ref().map(|_| "message"),
                summary,
                event: "compaction",
                boundary_uuid: s.messages[i].id().map(str::to_string),
                ..SummaryRecord::default()
            }
        })
        .collect()
}
