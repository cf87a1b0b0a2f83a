//! Integrity findings: one per problem, each with the file, the line and a stable code.
//!
//! Codes and severities (an error means a resume loses or misreads data):
//!
//! | code | severity | meaning |
//! |---|---|---|
//! | `truncated-last-line` | warning | last line incomplete: still being written, or a crash mid-append |
//! | `unterminated-last-line` | info | the file does not end with a newline |
//! | `two-records-on-one-line` | error | a record lost its newline; the agent loses both |
//! | `invalid-json` | error | a line that is not JSON |
//! | `invalid-utf8` | error | a line that is not UTF-8 |
//! | `lone-surrogate` | warning | a lone UTF-16 surrogate escape (text damaged) |
//! | `not-an-object` | error | a JSON line that is not an object |
//! | `unknown-record-type` | info | a record type no loader knows |
//! | `missing-uuid` | warning | a message without a uuid: it cannot be linked |
//! | `dangling-parent` | error | a `parentUuid` that names nothing in the file: the chain breaks |
//! | `cycle` | error | parent links that loop |
//! | `duplicate-uuid` | warning | a uuid written twice |
//! | `preserved-segment-broken` | warning | the last boundary's preserved segment cannot be walked |
//! | `stale-preserved-segment` | info | a preserved segment made stale by a later boundary |
//! | `boundary-without-summary` | warning | a compact boundary with no summary message |
//! | `logical-parent-unresolved` | info | a boundary's `logicalParentUuid` names nothing in the file |
//! | `tool-call-without-result` | warning | a tool call never answered |
//! | `tool-result-without-call` | warning | a tool result whose call is not in the file |
//! | `session-model-retired` | warning | Claude Code: the session's model is retired at the resume time; a resume sends another model (`chain::claude_model`) |
//! | `session-model-retiring` | info | Claude Code: the session's model retires within 30 days |
//! | `chain-misses-last-boundary` | error | the resumed chain does not reach the last boundary |
//! | `rollback-crosses-checkpoint` | warning | Codex: current and pre-2026-02-27 replay disagree |
//! | `unusable-compacted` | error | Codex: a `compacted` record Codex cannot read |
//! | `bad-rollback` | warning | Codex: a rollback without a usable turn count |
//! | `invalid-session` | error | cctool session: not a valid session document |

use std::collections::BTreeMap;

use serde_json::Value;

use crate::chain::claude::{self, Chain, Kind, Transcript, flag};
use crate::chain::codex as codex_chain;
use crate::formats::codex::{Event, ItemSrc, Record, Rollout};
use crate::io::Source;
use crate::io::lines::for_each_marker_line;
use crate::model::diag::{Diagnostic, Severity};

/// Codes from the loaders that doctor reports as they are.
const LOADER_CODES: &[&str] = &[
    "truncated-last-line",
    "unterminated-last-line",
    "two-records-on-one-line",
    "invalid-json",
    "invalid-utf8",
    "lone-surrogate",
    "not-an-object",
    "too-deep",
    "unknown-record-type",
    "missing-uuid",
    "duplicate-uuid",
    "preserved-segment-broken",
    "stale-preserved-segment",
    "chain-misses-last-boundary",
    "unusable-compacted",
    "bad-rollback",
];

fn finding(file: &str, line: Option<u64>, code: &'static str, severity: Severity, message: String) -> Diagnostic {
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(file, line, code, severity, message)
    }
}

fn adopt(d: &Diagnostic) -> Diagnostic {
    // A torn last line is a warning for the loaders and for doctor alike; a complete last line
    // without its newline is only worth knowing.
    let severity = match d.code {
        "lone-surrogate" => Severity::Warning,
        "preserved-segment-broken" => Severity::Warning,
        "chain-misses-last-boundary" | "unusable-compacted" => Severity::Error,
        _ => d.severity,
    };
    Diagnostic {
        kind: "finding",
        severity,
        ..d.clone()
    }
}

/// Every finding of a Claude Code transcript read with [`claude::read_for_audit`].
pub fn claude(src: &Source, t: &Transcript, chain: &Chain) -> std::io::Result<Vec<Diagnostic>> {
    let file = t.file.as_str();
    let mut out: Vec<Diagnostic> = t
        .diagnostics
        .iter()
        .chain(&chain.diagnostics)
        .filter(|d| LOADER_CODES.contains(&d.code))
        .map(adopt)
        .collect();

    // Every parent reference that names nothing, progress rows included.
    for link in t.links.iter().flatten() {
        if !t.knows(link.parent) {
            out.push(finding(
                file,
                Some(link.line),
                "dangling-parent",
                Severity::Error,
                format!(
                    "parent {} of {} is not in the file: the chain breaks here, and a resume loses what came before (2.1.332 bridges only gaps of at most 5 s)",
                    t.ids.text(link.parent),
                    t.ids.text(link.uuid)
                ),
            ));
        }
    }

    out.extend(cycles(t));

    // Boundaries: summary present, logical parent resolvable.
    let boundaries: Vec<u32> = (0..t.nodes.len() as u32).filter(|&p| t.node(p).is_boundary()).collect();
    for (i, &b) in boundaries.iter().enumerate() {
        let node = t.node(b);
        let next = boundaries.get(i + 1).copied().unwrap_or(u32::MAX);
        let has_summary = (0..t.nodes.len() as u32).any(|p| {
            let n = t.node(p);
            n.kind == Kind::User
                && n.has(flag::COMPACT_SUMMARY)
                && (n.parent_id() == Some(node.uuid) || (p > b && p < next))
        });
        if !has_summary {
            out.push(finding(
                file,
                Some(node.line),
                "boundary-without-summary",
                Severity::Warning,
                "compact boundary without a summary message: after it the agent resumes with no account of what came before".into(),
            ));
        }
    }
    for info in &t.boundaries {
        if let Some(lp) = info.logical_parent
            && !t.knows(lp)
        {
            out.push(finding(
                file,
                Some(t.node(info.pos).line),
                "logical-parent-unresolved",
                Severity::Info,
                format!(
                    "logicalParentUuid {} names no record of this file (common: it is informational only)",
                    t.ids.text(lp)
                ),
            ));
        }
    }

    out.extend(claude_tool_pairing(src, file)?);
    lone_surrogates(src, file, &mut out)?;
    sort(&mut out);
    Ok(out)
}

/// Parent cycles anywhere in the message graph, one finding per cycle.
fn cycles(t: &Transcript) -> Vec<Diagnostic> {
    let parents = t.parents();
    let n = parents.len();
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; n];
    let mut out = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut path = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            match state[c] {
                0 => {
                    state[c] = 1;
                    path.push(c);
                    cur = parents[c].map(|p| p as usize);
                }
                1 => {
                    let at = path.iter().position(|&x| x == c).unwrap_or(0);
                    let mut lines: Vec<u64> = path[at..].iter().map(|&p| t.node(p as u32).line).collect();
                    lines.sort_unstable();
                    out.push(finding(
                        &t.file,
                        lines.first().copied(),
                        "cycle",
                        Severity::Error,
                        format!(
                            "the parent links of the messages on lines {} form a cycle",
                            lines.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                    break;
                }
                _ => break,
            }
        }
        for p in path {
            state[p] = 2;
        }
    }
    out
}

/// Tool calls and results that do not pair up, found by reading only the lines that hold them.
fn claude_tool_pairing(src: &Source, file: &str) -> std::io::Result<Vec<Diagnostic>> {
    let mut calls: BTreeMap<String, u64> = BTreeMap::new();
    let mut results: BTreeMap<String, u64> = BTreeMap::new();
    for_each_marker_line(src, &[b"\"tool_use\"", b"\"tool_result\""], |line| {
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else {
            return;
        };
        let ty = v.get("type").and_then(Value::as_str);
        let Some(blocks) = v
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
        else {
            return;
        };
        for b in blocks {
            match (ty, b.get("type").and_then(Value::as_str)) {
                (Some("assistant"), Some("tool_use")) => {
                    if let Some(id) = b.get("id").and_then(Value::as_str) {
                        calls.entry(id.to_string()).or_insert(line.no);
                    }
                }
                (Some("user"), Some("tool_result")) => {
                    if let Some(id) = b.get("tool_use_id").and_then(Value::as_str) {
                        results.entry(id.to_string()).or_insert(line.no);
                    }
                }
                _ => {}
            }
        }
    })?;
    Ok(pairing(file, &calls, &results))
}

fn pairing(file: &str, calls: &BTreeMap<String, u64>, results: &BTreeMap<String, u64>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (id, &line) in calls {
        if !results.contains_key(id) {
            out.push(finding(
                file,
                Some(line),
                "tool-call-without-result",
                Severity::Warning,
                format!("tool call {id} has no result in the file (interrupted, or the session ended during the call)"),
            ));
        }
    }
    for (id, &line) in results {
        if !calls.contains_key(id) {
            out.push(finding(
                file,
                Some(line),
                "tool-result-without-call",
                Severity::Warning,
                format!("tool result for {id}, whose call is not in the file"),
            ));
        }
    }
    out
}

/// Every finding of a Codex rollout.
pub fn codex(src: &Source, rollout: &Rollout) -> std::io::Result<Vec<Diagnostic>> {
    let file = rollout.file.as_str();
    let mut out: Vec<Diagnostic> = rollout
        .diagnostics
        .iter()
        .filter(|d| LOADER_CODES.contains(&d.code))
        .map(adopt)
        .collect();
    let current = codex_chain::reconstruct(rollout);
    let legacy = codex_chain::replay_forward(rollout);
    let srcs = |h: &codex_chain::History| h.items.iter().map(|i| i.src.clone()).collect::<Vec<ItemSrc>>();
    if srcs(&current) != srcs(&legacy) {
        let line = rollout
            .records
            .iter()
            .rev()
            .find(|(_, r)| matches!(r, Record::Event(Event::RolledBack(_))))
            .map(|(l, _)| *l);
        out.push(finding(
            file,
            line,
            "rollback-crosses-checkpoint",
            Severity::Warning,
            format!(
                "a rollback crosses a compaction: current Codex resumes {} items, Codex before 2026-02-27 resumed {}",
                current.items.len(),
                legacy.items.len()
            ),
        ));
    }
    let mut calls = BTreeMap::new();
    let mut results = BTreeMap::new();
    for_each_marker_line(src, &[b"\"call_id\""], |line| {
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else {
            return;
        };
        let item = if v.get("payload").is_some() {
            if v.get("type").and_then(Value::as_str) != Some("response_item") {
                return;
            }
            &v["payload"]
        } else {
            &v
        };
        let Some(id) = item.get("call_id").and_then(Value::as_str) else {
            return;
        };
        match item.get("type").and_then(Value::as_str) {
            Some("function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call") => {
                calls.entry(id.to_string()).or_insert(line.no);
            }
            Some("function_call_output" | "custom_tool_call_output" | "tool_search_output") => {
                results.entry(id.to_string()).or_insert(line.no);
            }
            _ => {}
        }
    })?;
    out.extend(pairing(file, &calls, &results));
    lone_surrogates(src, file, &mut out)?;
    sort(&mut out);
    Ok(out)
}

/// Lone surrogate escapes anywhere in a line, including fields the loaders skip (where no
/// parser notices them): lines holding `\ud`/`\uD` are checked with the repair scan.
fn lone_surrogates(src: &Source, file: &str, found: &mut Vec<Diagnostic>) -> std::io::Result<()> {
    let known: std::collections::HashSet<u64> = found
        .iter()
        .filter(|d| d.code == "lone-surrogate")
        .filter_map(|d| d.line)
        .collect();
    for_each_marker_line(src, &[b"\\ud", b"\\uD"], |line| {
        if !known.contains(&line.no) && crate::io::json::repair_surrogates(line.bytes).is_some() {
            found.push(finding(
                file,
                Some(line.no),
                "lone-surrogate",
                Severity::Warning,
                "lone UTF-16 surrogate escape: the text around it was cut mid-character".into(),
            ));
        }
    })
}

fn sort(findings: &mut [Diagnostic]) {
    findings.sort_by(|a, b| a.line.unwrap_or(0).cmp(&b.line.unwrap_or(0)).then(a.code.cmp(b.code)));
}

/// A cctool session file: findings are schema problems.
pub fn session(src: &Source) -> Vec<Diagnostic> {
    match crate::formats::session::read_messages(src) {
        Ok(s) => match s.version {
            Some(1..=5) => Vec::new(),
            other => vec![finding(
                src.name(),
                None,
                "invalid-session",
                Severity::Error,
                format!(
                    "unknown schema version {}",
                    other.map_or("(missing)".to_string(), |v| v.to_string())
                ),
            )],
        },
        Err(e) => vec![finding(src.name(), None, "invalid-session", Severity::Error, e.0)],
    }
}

/// Loads and checks one Claude Code transcript; `resume` configures the model findings
/// (`session-model-retired`, `session-model-retiring`, from `chain::claude_model`).
pub fn check_claude(src: &Source, resume: &crate::chain::claude_config::Overrides) -> std::io::Result<Vec<Diagnostic>> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let mut out = claude(src, &t, &chain)?;
    out.extend(crate::chain::claude_model::doctor_findings(&t, &chain, src, resume)?);
    sort(&mut out);
    Ok(out)
}
