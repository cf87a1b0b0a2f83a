//! What `scan` reports of a Codex rollout.

use std::collections::BTreeMap;

use super::history;
use super::rollout::{self, Record};
use crate::io::Source;
use crate::model::project;
use crate::model::session::{SessionRecord, parse, prompt_text, str_at, title};
use crate::model::time::format_ms;

/// The cwd a Codex rollout's first line (its `session_meta`) records.
fn codex_cwd(src: &Source) -> std::io::Result<Option<String>> {
    // The first line holds the instructions too: read until its end, up to 4 MiB.
    let mut len = 64 * 1024;
    loop {
        let n = len.min(src.len() as usize);
        let head = src.read_range(0, n)?;
        if let Some(end) = memchr::memchr(b'\n', &head) {
            let v = parse(&head[..end]);
            return Ok(v.as_ref().and_then(|v| {
                str_at(v, &["payload", "cwd"])
                    .or_else(|| str_at(v, &["cwd"]))
                    .map(str::to_string)
            }));
        }
        if n == src.len() as usize || len >= 4 << 20 {
            return Ok(parse(&head).and_then(|v| str_at(&v, &["payload", "cwd"]).map(str::to_string)));
        }
        len *= 4;
    }
}

/// What names a rollout (`SessionRecord::LISTING`): its session id and versions, its first
/// prompt as title, the cwd of its first line, its times.
pub(crate) fn named(src: &Source, rollout: &rollout::Rollout) -> std::io::Result<SessionRecord> {
    let mut versions: Vec<String> = Vec::new();
    let mut session_id = None;
    let mut prompt = None;
    for (_, r) in &rollout.records {
        match r {
            Record::SessionMeta { id, cli_version } => {
                if session_id.is_none() {
                    session_id.clone_from(id);
                }
                if let Some(v) = cli_version
                    && !versions.contains(v)
                {
                    versions.push(v.clone());
                }
            }
            Record::Response(item) if prompt.is_none() => {
                prompt = item.user_text().and_then(prompt_text);
            }
            _ => {}
        }
    }
    let cwd = codex_cwd(src)?;
    let (title, title_source) = title(None, prompt);
    Ok(SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        agent_versions: versions,
        session_id,
        project: project::name(cwd.as_deref(), src.name()),
        cwd,
        title_source,
        title,
        first_timestamp: rollout.time_span.map(|s| format_ms(s.0)),
        last_timestamp: rollout.time_span.map(|s| format_ms(s.1)),
        last_ms: rollout.time_span.map(|s| s.1),
        role: "session",
        ..SessionRecord::default()
    })
}

/// What `search` names a rollout by, as [`scan`] gives it: its records read, without the
/// history a resume reconstructs or the payloads' second pass.
pub fn listing(src: &Source) -> std::io::Result<SessionRecord> {
    named(src, &rollout::read_records(src)?)
}

/// A Codex rollout at a glance: the history a resume reconstructs, its compactions and where
/// they were made, its first prompt.
pub fn scan(src: &Source) -> std::io::Result<SessionRecord> {
    let rollout = rollout::read_records(src)?;
    let history = history::reconstruct(&rollout);
    let tokens = super::history::history_tokens(&history.items);
    let mut origins: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut compactions = 0;
    for (_, r) in &rollout.records {
        if let Record::Compacted(c) = r {
            compactions += 1;
            let origin = match &c.replacement_history {
                None => "legacy",
                Some(rh) if rh.iter().any(|i| i.remote_compaction) => "remote",
                Some(_) => "local",
            };
            *origins.entry(origin).or_default() += 1;
        }
    }
    Ok(SessionRecord {
        bytes: src.len(),
        lines: rollout.lines,
        bad_lines: rollout.bad_lines,
        chain_messages: history.items.len(),
        chain_end: Some(
            history
                .base_line
                .map_or_else(|| "start".to_string(), |l| format!("compacted:{l}")),
        ),
        compactions,
        compaction_origins: origins,
        resume_tokens: tokens,
        payload_bytes: Some(cctool_core::slim::payload_bytes(src, &super::slim::CodexSlim)?),
        ..named(src, &rollout)?
    })
}
