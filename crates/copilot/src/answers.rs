//! A Copilot CLI session at a glance (`scan`) and its compaction summaries
//! (`extract-summary`).

use crate::lite::{Lite, Session};
use crate::model::conversational;
use cctool_core::io::Source;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::{format_ms, parse_ms};
use cctool_core::summary::SummaryRecord;

/// The file at a glance, read as `s`.
pub fn scan(src: &Source, s: &Session) -> SessionRecord {
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        role: "session",
        lines: s.lines,
        bad_lines: s.bad_lines(),
        agent_versions: s.versions(),
        session_id: s.session_id().map(str::to_string),
        cwd: s.cwd().map(str::to_string),
        ..SessionRecord::default()
    };
    r.project = cctool_core::model::project::name(s.cwd(), src.name());
    let order = crate::model::resume_order(s.events.len(), s.last_compaction(), |i| s.events[i].ty.as_str());
    let loaded = || order.iter().map(|&i| &s.events[i]).filter(|e| conversational(&e.ty));
    r.chain_messages = loaded().count();
    r.chain_end = Some(match s.last_compaction() {
        Some(i) => format!("compacted:{}", s.events[i].line),
        None => "start".into(),
    });
    // A resume sends the conversation from the last compaction on (and what was written while
    // it ran, GH11); its lines as written are the measure, as for the other agents.
    r.resume_tokens = cctool_core::model::approx_tokens(loaded().map(|e| e.len + 1).sum());
    r.resume_model = s.events.iter().rev().find_map(|e| e.model.clone());
    let compactions: Vec<_> = s.events.iter().filter(|e| e.is_compaction()).collect();
    r.compactions = compactions.len();
    if let Some(last) = compactions.last() {
        r.last_compaction_trigger = last.s("trigger").map(str::to_string);
        r.last_compaction_pre_tokens = last.get("preCompactionTokens").and_then(serde_json::Value::as_i64);
    }
    r.dangling_parents = Some(s.broken_links().len());
    let first_prompt = s
        .events
        .iter()
        .filter(|e| e.ty == "user.message")
        .find_map(|e| prompt_text(e.content.as_deref()?));
    let named = s.workspace.name.clone().map(|n| (n, "workspace-name"));
    (r.title, r.title_source) = title(named, first_prompt);
    let times: Vec<i64> = s.events.iter().filter_map(|e| parse_ms(e.time.as_deref()?)).collect();
    let span = times.iter().min().zip(times.iter().max());
    r.first_timestamp = span.map(|s| format_ms(*s.0));
    r.last_timestamp = span.map(|s| format_ms(*s.1));
    r.last_ms = span.map(|s| *s.1);
    r
}

/// Every `session.compaction_complete`, its summary exactly as stored; the current one is the
/// last finished compaction, which the next resume starts from.
pub fn summaries(src: &Source, s: &Session) -> Vec<SummaryRecord> {
    let current = s.last_compaction();
    let extra = |e: &Lite| {
        let keep = [
            "checkpointNumber",
            "checkpointPath",
            "messagesRemoved",
            "tokensRemoved",
            "postCompactionTokens",
            "success",
        ];
        let m: serde_json::Map<String, serde_json::Value> = keep
            .iter()
            .filter_map(|k| e.get(k).map(|v| ((*k).to_string(), v.clone())))
            .collect();
        (!m.is_empty()).then_some(serde_json::Value::Object(m))
    };
    s.events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.ty == "session.compaction_complete")
        .enumerate()
        .map(|(n, (i, e))| {
            let summary = e.s("summaryContent").map(str::to_string);
            SummaryRecord {
                kind: "summary",
                file: src.name().to_string(),
                format: crate::ID.name(),
                session_id: s.session_id().map(str::to_string),
                index: n,
                current: current == Some(i),
                line: Some(e.line),
                timestamp: e.time.clone(),
                trigger: e.s("trigger").map(str::to_string),
                pre_tokens: e.get("preCompactionTokens").and_then(serde_json::Value::as_i64),
                origin: Some("local"),
                warning: summary
                    .is_none()
                    .then(|| "the compaction record holds no summaryContent".to_string()),
                summary_source: summary.as_ref().map(|_| "message"),
                summary_line: summary.as_ref().map(|_| e.line),
                summary,
                event: "compaction_complete",
                metadata: extra(e),
                ..SummaryRecord::default()
            }
        })
        .collect()
}
