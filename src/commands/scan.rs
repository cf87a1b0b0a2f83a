//! `cctool scan [PATH...]`: one record per session file, in parallel, then a total; on a
//! terminal or in a pipe, a table with one line per session at any width.

use std::collections::BTreeMap;

use serde::Serialize;

use super::FileOutcome;
use crate::ExitStatus;
use crate::cli::{GlobalArgs, ScanArgs, ScanSort};
use crate::model::diag::{Diagnostic, Severity};
use crate::model::session::{SessionRecord, is_uuid};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::output::style::{self, Paint};
use crate::output::table::{self, Align, Column};
use crate::scan::link_subagents;

#[derive(Serialize, Debug, Default)]
pub struct Total {
    files: usize,
    sessions: usize,
    subagent_files: usize,
    bytes: u64,
    lines: u64,
    bad_lines: u64,
    chain_messages: usize,
    compactions: usize,
    resume_tokens: usize,
    dangling_parents: usize,
    chain_breaks: usize,
    by_format: BTreeMap<&'static str, usize>,
    skipped: usize,
    errors: usize,
}

pub fn run(g: &GlobalArgs, a: &ScanArgs) -> super::Result<ExitStatus> {
    let overrides = a.resume.overrides();
    // A bad --as-of or --settings is a usage error, said once rather than per file.
    crate::agents::registry()
        .check_resume(&overrides)
        .map_err(super::error::Usage::Resume)?;
    if let Some(table) = a.rows.rows {
        return super::scan_rows::run(g, a, table);
    }
    let (expanded, named) = super::session_inputs(&a.paths, &a.files, g)?;
    // Every file is read once through, like a search: small files into a buffer reused by
    // each thread rather than a fresh one each, a large file's pages kept for the reads of its
    // chain rows after the index (see `io::source::ReadMode`).
    let outcomes = super::each_session_reading(
        &expanded.inputs,
        &named,
        g,
        "scan",
        crate::io::ReadMode::Search,
        |src, format| crate::agents::agent(format).scan(src, &overrides),
    );
    let mut diags: Vec<Diagnostic> = expanded.problems.clone();
    let mut records = Vec::new();
    let mut total = Total {
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
            total.subagent_files += 1;
        } else {
            total.sessions += 1;
        }
        total.bytes += r.bytes;
        total.lines += r.lines;
        total.bad_lines += r.bad_lines;
        total.chain_messages += r.chain_messages;
        total.compactions += r.compactions;
        total.resume_tokens += r.resume_tokens;
        total.dangling_parents += r.dangling_parents.unwrap_or(0);
        total.chain_breaks += r.chain_breaks.unwrap_or(0);
        *total.by_format.entry(r.format).or_default() += 1;
    }

    let mut out = Out::new(g.color);
    if g.json {
        for r in &records {
            out.json(&super::record::Record::Session(r))?;
        }
        for d in &diags {
            out.json(&super::record::Record::diagnostic(d))?;
        }
        out.json(&super::record::Record::ScanTotal(&total))?;
    } else {
        sort(&mut records, a.sort);
        let width = if a.wide {
            None
        } else {
            table::target_width(out.terminal)
        };
        out.text(&render_table(&records, &total, a.wide, width, out.paint()))?;
    }
    out.flush()?;
    let mut say = g.reporter();
    if !g.json {
        for d in diags.iter().filter(|d| d.severity > Severity::Info) {
            say.diagnostic(d);
        }
        if total.skipped > 0 {
            say.note(&super::skipped_note(total.skipped));
        }
    }
    if total.errors > 0 {
        say.merge(ExitStatus::Error);
    }
    Ok(say.status())
}

fn sort(records: &mut [SessionRecord], by: ScanSort) {
    match by {
        ScanSort::Activity => records.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then(a.path.cmp(&b.path))),
        ScanSort::Size => records.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.path.cmp(&b.path))),
        ScanSort::Tokens => records.sort_by(|a, b| b.resume_tokens.cmp(&a.resume_tokens).then(a.path.cmp(&b.path))),
        ScanSort::Messages => records.sort_by(|a, b| b.chain_messages.cmp(&a.chain_messages).then(a.path.cmp(&b.path))),
        ScanSort::Compactions => records.sort_by(|a, b| b.compactions.cmp(&a.compactions).then(a.path.cmp(&b.path))),
        ScanSort::Path => records.sort_by(|a, b| a.path.cmp(&b.path)),
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

/// Milliseconds since the epoch as local time to the minute, in the zone `TZ` names (or the
/// system's).
pub(crate) fn local_minute(tz: &jiff::tz::TimeZone, ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map_or_else(
        |_| "-".to_string(),
        |t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d %H:%M").to_string(),
    )
}

/// For uuids, the shortest prefix of each, 8 characters at least, that no other id shares:
/// what tells sessions apart (ids of one day's Codex sessions share their first 8). Other
/// ids (cctool sessions name theirs) are shown whole, or by their last 11 characters.
pub(crate) fn short_ids(ids: &[Option<&str>]) -> Vec<String> {
    let mut sorted: Vec<&str> = ids.iter().flatten().copied().filter(|id| is_uuid(id)).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let need: BTreeMap<&str, usize> = sorted
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let before = i.checked_sub(1).map_or(0, |j| common(sorted[j], id));
            let after = sorted.get(i + 1).map_or(0, |n| common(n, id));
            (*id, (before.max(after) + 1).max(8))
        })
        .collect();
    ids.iter()
        .map(|id| match id {
            // Ids alike up to their tails (made by hand, or by tools) by their two ends.
            Some(id) if is_uuid(id) && need[id] > 13 => format!("{}…{}", &id[..8], &id[32..]),
            Some(id) if is_uuid(id) => id[..need[id]].to_string(),
            Some(id) if id.chars().count() > 12 => {
                let tail: Vec<char> = id.chars().rev().take(11).collect();
                format!("…{}", tail.into_iter().rev().collect::<String>())
            }
            Some(id) => id.to_string(),
            None => String::new(),
        })
        .collect()
}

/// Column of the table, in display order. Another column goes here with its priority.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Activity,
    Id,
    Project,
    Title,
    Messages,
    Tokens,
    Compactions,
    Size,
    Agent,
    Model,
    Subagents,
    Bad,
    Path,
}

fn column(c: Col) -> Column {
    match c {
        Col::Activity => Column::new("last activity", Align::Left, 1),
        Col::Id => Column::new("id", Align::Left, 3).styled(style::DIM),
        Col::Project => Column::new("project", Align::Left, 2).flex(10, 1),
        Col::Title => Column::new("title", Align::Left, 0).flex(30, 3),
        Col::Messages => Column::new("msgs", Align::Right, 5),
        Col::Tokens => Column::new("ctx", Align::Right, 4),
        Col::Compactions => Column::new("compact", Align::Right, 6),
        Col::Size => Column::new("size", Align::Right, 7),
        Col::Agent => Column::new("agent", Align::Left, 8),
        Col::Model => Column::new("model", Align::Left, 8),
        Col::Subagents => Column::new("subs", Align::Right, 9),
        Col::Bad => Column::new("bad", Align::Right, 9).styled(style::WARNING),
        Col::Path => Column::new("path", Align::Left, 10),
    }
}

/// How a session's line is shown: whether it is a subagent's under its session (`--wide`),
/// and its short id and project name among the sessions shown.
struct Shown<'a> {
    sub: bool,
    wide: bool,
    id: &'a str,
    project: Option<&'a str>,
}

/// One cell of a session's line.
fn cell(c: Col, r: &SessionRecord, shown: &Shown<'_>, tz: &jiff::tz::TimeZone) -> String {
    let dash = || "-".to_string();
    let Shown { sub, wide, id, project } = *shown;
    match c {
        Col::Activity => r.last_ms.map_or_else(dash, |ms| local_minute(tz, ms)),
        Col::Id => escape_str(id),
        Col::Project => escape_str(project.unwrap_or("-")),
        Col::Title => {
            let t = escape_str(r.title.as_deref().unwrap_or("-"));
            if sub && wide { format!("↳ {t}") } else { t }
        }
        Col::Messages => r.chain_messages.to_string(),
        Col::Tokens => human_count(r.resume_tokens),
        Col::Compactions => match (r.compactions, &r.last_compaction_trigger) {
            (0, _) => dash(),
            (n, Some(tr)) => escape_str(&format!("{n} {tr}")),
            (n, None) if r.compaction_origins.contains_key("remote") => format!("{n} remote"),
            (n, None) => n.to_string(),
        },
        Col::Size => human_bytes(r.bytes),
        Col::Model => r.resume_model.as_deref().map_or_else(dash, |m| {
            let short = crate::agents::registry()
                .by_name(r.format)
                .map_or_else(|| m.to_string(), |a| a.short_model_name(m));
            escape_str(&short)
        }),
        Col::Agent => {
            let name = crate::agents::registry()
                .by_name(r.format)
                .map_or("cctool", |a| a.about().short_name);
            match r.agent_versions.last() {
                Some(v) => escape_str(&format!("{name} {v}")),
                None => name.to_string(),
            }
        }
        Col::Subagents => match r.subagents.len() {
            0 => String::new(),
            n => n.to_string(),
        },
        Col::Bad => match r.bad_lines {
            0 => String::new(),
            n => n.to_string(),
        },
        Col::Path => escape_str(&home_relative(&r.path)),
    }
}

/// The table: a line per session (subagents are counted on their session's line, and get
/// lines of their own only with `--wide` or when their session is not among the inputs),
/// then the total.
fn render_table(records: &[SessionRecord], total: &Total, wide: bool, width: Option<usize>, paint: Paint) -> String {
    let tz = jiff::tz::TimeZone::system();
    let by_path: BTreeMap<&str, &SessionRecord> = records.iter().map(|r| (r.path.as_str(), r)).collect();
    let linked: std::collections::HashSet<&str> = records
        .iter()
        .flat_map(|r| r.subagents.iter().map(String::as_str))
        .collect();
    let mut shown: Vec<(&SessionRecord, bool)> = Vec::new();
    for r in records {
        if linked.contains(r.path.as_str()) {
            continue;
        }
        shown.push((r, r.role == "subagent"));
        if wide {
            let mut subs: Vec<&SessionRecord> = r
                .subagents
                .iter()
                .filter_map(|p| by_path.get(p.as_str()).copied())
                .collect();
            subs.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then(a.path.cmp(&b.path)));
            shown.extend(subs.into_iter().map(|s| (s, true)));
        }
    }
    let any_subs = shown.iter().any(|(r, _)| !r.subagents.is_empty());
    let any_bad = shown.iter().any(|(r, _)| r.bad_lines > 0);
    let mut cols = vec![
        Col::Activity,
        Col::Id,
        Col::Project,
        Col::Title,
        Col::Messages,
        Col::Tokens,
        Col::Compactions,
        Col::Size,
        Col::Agent,
    ];
    if shown.iter().any(|(r, _)| r.resume_model.is_some()) {
        cols.push(Col::Model);
    }
    if any_subs {
        cols.push(Col::Subagents);
    }
    if any_bad {
        cols.push(Col::Bad);
    }
    if wide {
        cols.push(Col::Path);
    }
    let ids = short_ids(&shown.iter().map(|(r, _)| r.session_id.as_deref()).collect::<Vec<_>>());
    let folders: Vec<Option<String>> = shown
        .iter()
        .map(|(r, _)| crate::scan::project::folder(r.cwd.as_deref(), &r.path))
        .collect();
    let projects = crate::scan::project::names(folders.iter().map(Option::as_deref));
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (((r, sub), id), project) in shown.iter().zip(ids).zip(projects) {
        let how = Shown {
            sub: *sub,
            wide,
            id: &id,
            project: project.as_deref(),
        };
        let row = cols.iter().map(|&c| cell(c, r, &how, &tz)).collect();
        rows.push(row);
    }
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut sessions = plural(total.sessions, "session", "sessions");
    if total.subagent_files > 0 {
        sessions.push_str(&format!(", {}", plural(total.subagent_files, "subagent", "subagents")));
    }
    rows.push(
        cols.iter()
            .map(|&c| match c {
                Col::Activity => "total".to_string(),
                Col::Title => sessions.clone(),
                Col::Messages => total.chain_messages.to_string(),
                Col::Tokens => human_count(total.resume_tokens),
                Col::Compactions => total.compactions.to_string(),
                Col::Size => human_bytes(total.bytes),
                Col::Subagents => total.subagent_files.to_string(),
                Col::Bad => total.bad_lines.to_string(),
                _ => String::new(),
            })
            .collect(),
    );
    let columns: Vec<Column> = cols.iter().map(|&c| column(c)).collect();
    table::render(&columns, &rows, width, paint, true)
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
    fn short_ids_grow_only_where_they_clash() {
        let ids = [
            Some("019ddd6f-3680-7fb3-8f93-e567af97d303"),
            Some("019ddd6f-5fc0-7a12-9b3e-652b15d942dd"),
            Some("5e551000-0000-4000-8000-0000000000f0"),
            Some("cc-session-20260408-e5f6a7"),
            Some("11111111-0000-7000-8000-000000000001"),
            Some("11111111-0000-7000-8000-000000000002"),
            None,
        ];
        assert_eq!(
            short_ids(&ids),
            [
                "019ddd6f-3",
                "019ddd6f-5",
                "5e551000",
                "…0408-e5f6a7",
                "11111111…0001",
                "11111111…0002",
                ""
            ]
        );
    }
}
