//! `cctool scan [PATH...]`: one record per session file, in parallel, then a total.
//!
//! Each file is loaded, its chain rebuilt and the request a resume would send estimated, then
//! dropped: only the small per-file record is kept, so memory does not grow with the number
//! of sessions. Subagent transcripts found beside a Claude Code session (`<session>/subagents/`
//! and legacy `agent-*.jsonl`) are scanned too and linked to their parent session.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};
use serde::Serialize;

use super::FileOutcome;
use crate::chain::claude::{self, Options};
use crate::chain::claude_api::api_view;
use crate::chain::codex;
use crate::cli::{GlobalArgs, ScanArgs, ScanSort};
use crate::formats::codex::Record;
use crate::io::{Input, Source};
use crate::model::Format;
use crate::model::diag::{Diagnostic, Severity};
use crate::model::time::format_ms;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::{ExitStatus, formats};

/// One session file.
#[derive(Serialize, Debug, Default, Clone)]
pub struct SessionRecord {
    pub kind: &'static str,
    pub path: String,
    pub format: &'static str,
    pub agent_versions: Vec<String>,
    pub session_id: Option<String>,
    pub bytes: u64,
    pub lines: u64,
    pub bad_lines: u64,
    pub chain_messages: usize,
    pub chain_end: Option<String>,
    pub leaves: Option<usize>,
    pub compactions: usize,
    pub last_compaction_trigger: Option<String>,
    pub last_compaction_pre_tokens: Option<i64>,
    pub compaction_origins: BTreeMap<&'static str, usize>,
    pub resume_tokens: usize,
    pub dangling_parents: Option<usize>,
    pub duplicate_uuids: Option<u64>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    /// `session` or `subagent`.
    pub role: &'static str,
    /// For a subagent transcript: the session it belongs to.
    pub parent_session: Option<String>,
    /// For a session: the subagent transcripts found for it.
    pub subagents: Vec<String>,
}

#[derive(Serialize, Debug, Default)]
struct Total {
    kind: &'static str,
    files: usize,
    sessions: usize,
    subagents: usize,
    bytes: u64,
    lines: u64,
    bad_lines: u64,
    chain_messages: usize,
    compactions: usize,
    resume_tokens: usize,
    by_format: BTreeMap<&'static str, usize>,
    skipped: usize,
    errors: usize,
}

pub fn run(g: &GlobalArgs, a: &ScanArgs) -> anyhow::Result<ExitStatus> {
    let (mut expanded, named) = super::batch_inputs(&a.paths, g)?;
    add_subagent_files(&mut expanded.inputs, g.follow);
    let outcomes = super::each_session(&expanded.inputs, &named, g, "scan", |src, format| {
        match format {
            Format::ClaudeCode => scan_claude(src),
            Format::Codex => scan_codex(src),
            Format::CctoolSession => Ok(scan_session(src)),
        }
        .map_err(|e| e.to_string())
    });
    let mut diags: Vec<Diagnostic> = expanded.problems.clone();
    let mut records = Vec::new();
    let mut total = Total {
        kind: "total",
        errors: diags.iter().filter(|d| d.severity == Severity::Error).count(),
        ..Total::default()
    };
    for (input, o) in expanded.inputs.iter().zip(outcomes) {
        match o {
            FileOutcome::Done(r) => records.push(r),
            other => {
                let Some(d) = other.problem_counted(input, &mut total.errors, &mut total.skipped) else {
                    continue;
                };
                diags.push(d);
            }
        }
    }
    link_subagents(&mut records);
    for r in &records {
        total.files += 1;
        if r.role == "subagent" {
            total.subagents += 1;
        } else {
            total.sessions += 1;
        }
        total.bytes += r.bytes;
        total.lines += r.lines;
        total.bad_lines += r.bad_lines;
        total.chain_messages += r.chain_messages;
        total.compactions += r.compactions;
        total.resume_tokens += r.resume_tokens;
        *total.by_format.entry(r.format).or_default() += 1;
    }

    let mut out = Out::new(g.color);
    if g.json {
        for r in &records {
            out.json(r)?;
        }
        for d in &diags {
            out.json(d)?;
        }
        out.json(&total)?;
    } else {
        sort(&mut records, a.sort);
        out.text(&table(&records, &total, out.terminal))?;
    }
    out.flush()?;
    if !g.json && !g.quiet {
        let mut e = std::io::stderr().lock();
        for d in diags.iter().filter(|d| d.severity > Severity::Info) {
            let _ = writeln!(e, "cctool: {}", escape_str(&d.to_string()));
        }
        if total.skipped > 0 {
            let _ = writeln!(e, "cctool: {} files skipped as not sessions", total.skipped);
        }
    }
    Ok(if total.errors > 0 {
        ExitStatus::Error
    } else {
        ExitStatus::Success
    })
}

fn is_uuid_stem(p: &Path) -> bool {
    p.file_stem().and_then(|s| s.to_str()).is_some_and(|s| {
        s.len() == 36
            && s.bytes().enumerate().all(|(i, b)| {
                if matches!(i, 8 | 13 | 18 | 23) {
                    b == b'-'
                } else {
                    b.is_ascii_hexdigit()
                }
            })
    })
}

/// Adds the subagent transcripts of every named Claude Code session that are not inputs yet:
/// `<dir>/<session>/subagents/**.jsonl`, and legacy `<dir>/agent-*.jsonl` of that session.
fn add_subagent_files(inputs: &mut Vec<Input>, follow: bool) {
    let mut extra: Vec<PathBuf> = Vec::new();
    for input in inputs.iter() {
        let Input::Path(p) = input else { continue };
        if !is_uuid_stem(p) || p.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let (Some(dir), Some(stem)) = (p.parent(), p.file_stem().and_then(|s| s.to_str())) else {
            continue;
        };
        let sub = dir.join(stem).join("subagents");
        if sub.is_dir() {
            extra.extend(
                crate::io::paths::expand(&[sub], follow)
                    .inputs
                    .into_iter()
                    .filter_map(|i| match i {
                        Input::Path(p) => Some(p),
                        Input::Stdin => None,
                    }),
            );
        }
        if let Ok(entries) = std::fs::read_dir(dir) {
            let needle = format!("\"sessionId\":\"{stem}\"");
            for e in entries.flatten() {
                let ap = e.path();
                let name = ap.file_name().and_then(|n| n.to_str()).unwrap_or("");
                // Regular files only, as in any walk: a FIFO named like one would block.
                let regular = e.file_type().is_ok_and(|t| t.is_file());
                if regular
                    && name.starts_with("agent-")
                    && name.ends_with(".jsonl")
                    && head_contains(&ap, needle.as_bytes())
                {
                    extra.push(ap);
                }
            }
        }
    }
    for p in extra {
        let i = Input::Path(p);
        if !inputs.contains(&i) {
            inputs.push(i);
        }
    }
}

/// Whether the first 64 KiB of a regular file hold `needle`.
fn head_contains(path: &Path, needle: &[u8]) -> bool {
    crate::io::paths::regular_file_head(path, 64 * 1024).is_some_and(|buf| memchr::memmem::find(&buf, needle).is_some())
}

fn is_subagent_path(path: &str) -> bool {
    let p = Path::new(path);
    p.components().any(|c| c.as_os_str() == "subagents")
        || p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

/// Subagent transcripts keep their parent's session id: link both ways.
fn link_subagents(records: &mut [SessionRecord]) {
    let mut parents: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if r.format == "claude-code"
            && r.role == "session"
            && let Some(id) = &r.session_id
        {
            parents.entry(id.clone()).or_insert(i);
        }
    }
    let mut links = Vec::new();
    for (i, r) in records.iter_mut().enumerate() {
        if r.role == "subagent" {
            r.parent_session = r.session_id.clone();
            if let Some(&p) = r.session_id.as_ref().and_then(|id| parents.get(id)) {
                links.push((p, i));
            }
        }
    }
    for (p, i) in links {
        let path = records[i].path.clone();
        records[p].subagents.push(path);
    }
}

fn scan_claude(src: &Source) -> std::io::Result<SessionRecord> {
    let t = claude::read(src)?;
    let chain = t.rebuild(&Options::default()).unwrap_or_default();
    let view = api_view(&t, &chain, src, None)?;
    let last = t.boundaries.iter().max_by_key(|b| b.pos);
    let span = t.time_span();
    let session_id = t.session_ids.first().cloned().or_else(|| {
        let p = Path::new(src.name());
        is_uuid_stem(p).then(|| p.file_stem().unwrap_or_default().to_string_lossy().into_owned())
    });
    Ok(SessionRecord {
        kind: "session",
        path: src.name().to_string(),
        format: Format::ClaudeCode.name(),
        agent_versions: t.versions.clone(),
        session_id,
        bytes: src.len(),
        lines: t.lines,
        bad_lines: t.bad_lines,
        chain_messages: chain.positions.len(),
        chain_end: chain.end.as_ref().map(ToString::to_string),
        leaves: Some(chain.leaves),
        compactions: t.boundaries.len(),
        last_compaction_trigger: last.and_then(|b| b.trigger.clone()),
        last_compaction_pre_tokens: last.and_then(|b| b.pre_tokens),
        compaction_origins: if t.boundaries.is_empty() {
            BTreeMap::new()
        } else {
            BTreeMap::from([("local", t.boundaries.len())])
        },
        resume_tokens: view.tokens(),
        dangling_parents: Some(t.dangling_parents()),
        duplicate_uuids: Some(t.duplicate_uuids),
        first_timestamp: span.map(|s| format_ms(s.0)),
        last_timestamp: span.map(|s| format_ms(s.1)),
        role: if is_subagent_path(src.name()) {
            "subagent"
        } else {
            "session"
        },
        ..SessionRecord::default()
    })
}

fn scan_codex(src: &Source) -> std::io::Result<SessionRecord> {
    let rollout = formats::codex::read_records(src)?;
    let history = codex::reconstruct(&rollout);
    let mut tokens = 0usize;
    let mut bytes = 0usize;
    for item in &history.items {
        bytes += match &item.src {
            formats::codex::ItemSrc::Raw { len, .. } => *len as usize,
            formats::codex::ItemSrc::Synth(s) => s.len(),
        } + 1;
    }
    if !history.items.is_empty() {
        tokens = (bytes + 1).div_ceil(4); // the JSON array of the items
    }
    let mut origins: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut compactions = 0;
    let mut versions: Vec<String> = Vec::new();
    let mut session_id = None;
    for (_, r) in &rollout.records {
        match r {
            Record::Compacted(c) => {
                compactions += 1;
                let origin = match &c.replacement_history {
                    None => "legacy",
                    Some(rh) if rh.iter().any(|i| i.remote_compaction) => "remote",
                    Some(_) => "local",
                };
                *origins.entry(origin).or_default() += 1;
            }
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
            _ => {}
        }
    }
    let lines = rollout.lines;
    Ok(SessionRecord {
        kind: "session",
        path: src.name().to_string(),
        format: Format::Codex.name(),
        agent_versions: versions,
        session_id,
        bytes: src.len(),
        lines,
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
        first_timestamp: rollout.time_span.map(|s| format_ms(s.0)),
        last_timestamp: rollout.time_span.map(|s| format_ms(s.1)),
        role: "session",
        ..SessionRecord::default()
    })
}

fn scan_session(src: &Source) -> SessionRecord {
    let (messages, version_tokens, id, summaries) = match formats::session::read_messages(src) {
        Ok(s) => {
            let bytes: usize = s.messages.iter().map(|m| m.len() + 1).sum();
            let n = s
                .messages
                .iter()
                .filter(|m| memchr::memmem::find(m, br#""type":"summary""#).is_some())
                .count();
            (s.messages.len(), bytes.div_ceil(4), s.session_id, n)
        }
        Err(_) => (0, 0, None, 0),
    };
    SessionRecord {
        kind: "session",
        path: src.name().to_string(),
        format: Format::CctoolSession.name(),
        session_id: id,
        bytes: src.len(),
        lines: src
            .as_slice()
            .map_or(0, |b| memchr::memchr_iter(b'\n', b).count() as u64),
        chain_messages: messages,
        chain_end: Some("start".into()),
        compactions: summaries,
        compaction_origins: if summaries > 0 {
            BTreeMap::from([("local", summaries)])
        } else {
            BTreeMap::new()
        },
        resume_tokens: version_tokens,
        role: "session",
        ..SessionRecord::default()
    }
}

fn sort(records: &mut [SessionRecord], by: ScanSort) {
    match by {
        ScanSort::Activity => records.sort_by(|a, b| b.last_timestamp.cmp(&a.last_timestamp).then(a.path.cmp(&b.path))),
        ScanSort::Size => records.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.path.cmp(&b.path))),
        ScanSort::Tokens => records.sort_by(|a, b| b.resume_tokens.cmp(&a.resume_tokens).then(a.path.cmp(&b.path))),
        ScanSort::Messages => records.sort_by(|a, b| b.chain_messages.cmp(&a.chain_messages).then(a.path.cmp(&b.path))),
        ScanSort::Compactions => records.sort_by(|a, b| b.compactions.cmp(&a.compactions).then(a.path.cmp(&b.path))),
        ScanSort::Path => records.sort_by(|a, b| a.path.cmp(&b.path)),
    }
}

/// A long path cut to its last two components (project folder and file) for a terminal.
fn short_path(path: &str) -> String {
    let p = home_relative(path);
    if p.chars().count() <= 60 {
        return p;
    }
    let parts: Vec<&str> = p.rsplitn(3, '/').collect();
    match parts.as_slice() {
        [file, dir, _] => format!("…/{dir}/{file}"),
        _ => p,
    }
}

/// A path with the user's home directory written as `~`.
fn home_relative(path: &str) -> String {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && path.starts_with(&format!("{home}/")) => format!("~{}", &path[home.len()..]),
        _ => path.to_string(),
    }
}

/// Bytes in the unit people read them in.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn human_count(n: usize) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

fn table(records: &[SessionRecord], total: &Total, terminal: bool) -> String {
    let mut t = Table::new();
    // On a terminal a framed table fitted to its width; in a pipe plain aligned columns,
    // which grep and awk read well.
    if terminal {
        t.load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic);
        // Pseudo-terminals (script, some CI runners) may report no width at all.
        if t.width().is_none_or(|w| w < 60) {
            t.set_width(120);
        }
    } else {
        t.load_style(presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled)
            .force_no_tty();
    }
    t.set_header([
        "last activity",
        "format",
        "size",
        "chain",
        "compactions",
        "resume tokens",
        "bad",
        "session",
    ]);
    let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
    for r in records {
        let activity = r
            .last_timestamp
            .as_deref()
            .map_or("-".to_string(), |t| t.get(..16).unwrap_or(t).replace('T', " "));
        let compact = match (&r.last_compaction_trigger, r.compactions) {
            (_, 0) => "-".to_string(),
            (Some(tr), n) => format!("{n} ({tr})"),
            (None, n) => {
                let origins: Vec<String> = r.compaction_origins.iter().map(|(k, v)| format!("{v} {k}")).collect();
                if origins.is_empty() {
                    n.to_string()
                } else {
                    origins.join(", ")
                }
            }
        };
        let path = if terminal {
            short_path(&r.path)
        } else {
            home_relative(&r.path)
        };
        let name = if r.role == "subagent" {
            format!("  ↳ {path}")
        } else {
            path
        };
        t.add_row(vec![
            Cell::new(activity),
            Cell::new(r.format),
            right(human_bytes(r.bytes)),
            right(r.chain_messages.to_string()),
            right(compact),
            right(human_count(r.resume_tokens)),
            right(if r.bad_lines > 0 {
                r.bad_lines.to_string()
            } else {
                "-".into()
            }),
            Cell::new(escape_str(&name)),
        ]);
    }
    t.add_row(vec![
        Cell::new("total"),
        Cell::new(format!("{} files", total.files)),
        right(human_bytes(total.bytes)),
        right(total.chain_messages.to_string()),
        right(total.compactions.to_string()),
        right(human_count(total.resume_tokens)),
        right(total.bad_lines.to_string()),
        Cell::new(format!("{} sessions, {} subagents", total.sessions, total.subagents)),
    ]);
    format!("{}\n", t.trim_fmt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(105 * 1024), "105.0 KiB");
        assert_eq!(human_bytes(5_662_310), "5.4 MiB");
        assert_eq!(human_count(41_230), "41.2k");
    }

    #[test]
    fn subagent_paths() {
        assert!(is_subagent_path("/p/x/5e55/subagents/agent-a1.jsonl"));
        assert!(is_subagent_path("/p/x/agent-a1.jsonl"));
        assert!(!is_subagent_path("/p/x/5e551000-0000-4000-8000-000000000000.jsonl"));
        assert!(is_uuid_stem(Path::new("/p/5e551000-0000-4000-8000-000000000000.jsonl")));
    }
}
