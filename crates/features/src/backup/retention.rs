//! Warnings before Claude Code's retention sweep deletes sessions, and what its prompt
//! history still holds of the sessions already deleted.
//!
//! At start-up Claude Code deletes the transcripts last written more than `cleanupPeriodDays`
//! days ago (default 30; there is no trash). The setting is read from the managed, local
//! project, shared project and user settings files, in that order of precedence.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

/// Claude Code's own default.
pub(crate) const DEFAULT_DAYS: u64 = 30;

/// Where the effective `cleanupPeriodDays` comes from.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Setting {
    pub(crate) days: u64,
    pub(crate) source: String,
}

/// The settings files Claude Code reads, highest precedence first: managed, the project's
/// local and shared files (in `cwd`), then the user's of each config folder.
pub(crate) fn settings_files(config_dirs: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    let mut v = vec![
        PathBuf::from("/etc/claude-code/managed-settings.json"),
        cwd.join(".claude/settings.local.json"),
        cwd.join(".claude/settings.json"),
    ];
    v.extend(config_dirs.iter().map(|d| d.join("settings.json")));
    v
}

/// The effective setting: the first file that sets it; `None` when none does.
pub(crate) fn cleanup_setting(files: &[PathBuf], problems: &mut Vec<String>) -> Option<Setting> {
    for f in files {
        let Ok(text) = std::fs::read(f) else { continue };
        let v: serde_json::Value = match serde_json::from_slice(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!(
                    "{}: not JSON ({e}); Claude Code ignores it, so its cleanupPeriodDays is not read",
                    f.display()
                ));
                continue;
            }
        };
        if let Some(n) = v.get("cleanupPeriodDays") {
            let days = n
                .as_u64()
                .or_else(|| n.as_f64().filter(|x| *x >= 0.0).map(|x| x as u64));
            match days {
                Some(days) => {
                    return Some(Setting {
                        days,
                        source: f.display().to_string(),
                    });
                }
                None => problems.push(format!(
                    "{}: cleanupPeriodDays is not a number of days: {n}",
                    f.display()
                )),
            }
        }
    }
    None
}

/// One session the next sweep deletes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AtRisk {
    pub(crate) path: String,
    pub(crate) last_modified: String,
    /// Whether the archive holds it with every byte it has now.
    pub(crate) backed_up: bool,
}

/// The retention finding of `doctor`.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub(crate) severity: &'static str,
    pub(crate) cleanup_period_days: u64,
    pub(crate) source: Option<String>,
    pub(crate) archive: Option<String>,
    pub(crate) sessions: usize,
    pub(crate) at_risk: usize,
    pub(crate) backed_up: usize,
    pub(crate) message: String,
    pub(crate) at_risk_sessions: Vec<AtRisk>,
}

/// The Claude Code config folders: those of the stores found (`…/projects`' parents).
pub fn claude_dirs(stores: &crate::io::paths::Stores) -> Vec<PathBuf> {
    stores
        .found
        .iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "projects"))
        .filter_map(|d| d.parent().map(Path::to_path_buf))
        .collect()
}

/// What the next sweep deletes, or `None` when the setting is the default or longer and
/// nothing is at risk. `now` is the time of the next start of Claude Code.
pub(crate) fn check(
    config_dirs: &[PathBuf],
    cwd: &Path,
    archive: Option<&Path>,
    now: SystemTime,
    problems: &mut Vec<String>,
) -> Option<Finding> {
    let setting = cleanup_setting(&settings_files(config_dirs, cwd), problems);
    let days = setting.as_ref().map_or(DEFAULT_DAYS, |s| s.days);
    let cutoff = now
        .checked_sub(Duration::from_secs(days * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut sessions = 0;
    let mut at_risk = Vec::new();
    let stored = archive.map(stored_sizes).unwrap_or_default();
    for dir in config_dirs {
        for e in walkdir::WalkDir::new(dir.join("projects"))
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let p = e.path();
            if !e.file_type().is_file()
                || p.extension().is_none_or(|x| x != "jsonl")
                || p.components().any(|c| c.as_os_str() == "subagents")
            {
                continue;
            }
            sessions += 1;
            let Ok(meta) = e.metadata() else { continue };
            let Ok(modified) = meta.modified() else { continue };
            if days > 0 && modified >= cutoff {
                continue;
            }
            let key = p.to_string_lossy().into_owned();
            at_risk.push(AtRisk {
                backed_up: stored.get(&key).is_some_and(|s| *s == meta.len()),
                path: key,
                last_modified: modified
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map(|d| crate::model::time::format_ms(d.as_millis() as i64))
                    .unwrap_or_default(),
            });
        }
    }
    let low = setting.as_ref().is_some_and(|s| s.days < DEFAULT_DAYS);
    if !low && at_risk.is_empty() {
        return None;
    }
    let backed_up = at_risk.iter().filter(|a| a.backed_up).count();
    let from = setting
        .as_ref()
        .map_or_else(|| "the default".to_string(), |s| format!("set in {}", s.source));
    let message = if days == 0 {
        format!(
            "cleanupPeriodDays is 0 ({from}): Claude Code deletes every transcript at its next start ({} sessions, {backed_up} of them backed up) and may stop writing new ones; run `cctool backup`, and set it to a number of days",
            at_risk.len()
        )
    } else {
        format!(
            "cleanupPeriodDays is {days} ({from}): Claude Code's next start deletes {} of {sessions} sessions, last written more than {days} days ago; {backed_up} of them are backed up{}",
            at_risk.len(),
            if backed_up < at_risk.len() {
                "; run `cctool backup` first"
            } else {
                ""
            }
        )
    };
    let severity = if at_risk.len() > backed_up || days == 0 {
        "warning"
    } else {
        "info"
    };
    Some(Finding {
        severity,
        cleanup_period_days: days,
        source: setting.map(|s| s.source),
        archive: archive.map(|a| a.display().to_string()),
        sessions,
        at_risk: at_risk.len(),
        backed_up,
        message,
        at_risk_sessions: at_risk,
    })
}

/// The size of the newest stored copy of each file, by its original path.
fn stored_sizes(archive: &Path) -> HashMap<String, u64> {
    let a = super::Archive::new(archive);
    a.latest_files()
        .map(|(files, _)| files.into_iter().map(|(f, _)| (f.path, f.size)).collect())
        .unwrap_or_default()
}

/// The prompts of one session: time (ms) and text.
type Prompts = Vec<(Option<i64>, String)>;

/// One prompt of `history.jsonl`.
#[derive(Debug, Clone, Serialize)]
pub struct Prompt {
    /// When it was typed (ISO-8601 UTC), when the entry says.
    pub timestamp: Option<String>,
    /// The prompt as the history shows it (its `display`).
    pub text: String,
}

/// What `history.jsonl` holds of one session whose transcript is gone: a partial record.
#[derive(Debug, Clone, Serialize)]
pub struct FromHistory {
    /// Always true: only the user's prompts survive, not the answers or the tools.
    pub(crate) partial: bool,
    /// The session's id; none for entries written before Claude Code recorded it, which are
    /// grouped by project.
    pub session_id: Option<String>,
    /// The project folder the entries name.
    pub project: Option<String>,
    /// The time of its first prompt (ISO-8601 UTC).
    pub first_timestamp: Option<String>,
    /// The time of its last prompt (ISO-8601 UTC).
    pub last_timestamp: Option<String>,
    pub(crate) history_file: String,
    /// Its prompts, oldest first.
    pub prompts: Vec<Prompt>,
}

/// The sessions of `history.jsonl` files whose transcripts no longer exist in the store
/// (`exists` says whether a session id still has one). Entries written before Claude Code
/// recorded session ids are grouped by project. Bad lines are named in `problems`.
pub fn from_history(
    config_dirs: &[PathBuf],
    exists: &dyn Fn(&str) -> bool,
    problems: &mut Vec<String>,
) -> Vec<FromHistory> {
    let mut out = Vec::new();
    for dir in config_dirs {
        let file = dir.join("history.jsonl");
        let Ok(f) = std::fs::File::open(&file) else { continue };
        let mut groups: BTreeMap<(Option<String>, Option<String>), Prompts> = BTreeMap::new();
        use std::io::BufRead;
        for (i, line) in std::io::BufReader::new(f).split(b'\n').enumerate() {
            let Ok(line) = line else {
                problems.push(format!("{}: cannot read past line {i}", file.display()));
                break;
            };
            let line = &line[..];
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let v: serde_json::Value = match serde_json::from_slice(line) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!("{}:{}: not JSON ({e}); skipped", file.display(), i + 1));
                    continue;
                }
            };
            let sid = v.get("sessionId").and_then(|s| s.as_str()).map(str::to_string);
            if sid.as_deref().is_some_and(exists) {
                continue;
            }
            let project = v.get("project").and_then(|s| s.as_str()).map(str::to_string);
            let ts = v
                .get("timestamp")
                .and_then(|t| t.as_i64().or_else(|| t.as_str().and_then(crate::model::time::parse_ms)));
            let display = v.get("display").and_then(|s| s.as_str()).unwrap_or("").to_string();
            groups.entry((sid, project)).or_default().push((ts, display));
        }
        for ((sid, project), mut prompts) in groups {
            prompts.sort_by_key(|p| p.0);
            let fmt = |t: Option<i64>| t.map(crate::model::time::format_ms);
            out.push(FromHistory {
                partial: true,
                first_timestamp: fmt(prompts.first().and_then(|p| p.0)),
                last_timestamp: fmt(prompts.last().and_then(|p| p.0)),
                session_id: sid,
                project,
                history_file: file.display().to_string(),
                prompts: prompts
                    .into_iter()
                    .map(|(t, text)| Prompt {
                        timestamp: fmt(t),
                        text,
                    })
                    .collect(),
            });
        }
    }
    out
}

/// What `doctor` adds when it checks the user's own stores: the retention finding at or above
/// `min`, if there is one (what stopped the check is said with `say`).
pub fn doctor_finding(min: crate::model::diag::Severity, say: &crate::output::report::Reporter) -> Option<Finding> {
    let stores = crate::io::paths::default_stores();
    let dirs = claude_dirs(&stores);
    if dirs.is_empty() {
        return None;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let archive = super::default_archive_env();
    let mut problems = Vec::new();
    let finding = check(&dirs, &cwd, archive.as_deref(), SystemTime::now(), &mut problems);
    for p in &problems {
        say.note(p);
    }
    finding.filter(|f| severity(f) >= min)
}

fn severity(f: &Finding) -> crate::model::diag::Severity {
    if f.severity == "warning" {
        crate::model::diag::Severity::Warning
    } else {
        crate::model::diag::Severity::Info
    }
}

/// The finding as the block of text `doctor` prints on stdout.
pub fn text(f: &Finding, paint: crate::output::style::Paint) -> String {
    use crate::output::sanitize::escape_str;
    let mut s = format!(
        "{}\n  {} [retention] {}\n",
        paint.paint(crate::output::style::BOLD, "Claude Code retention"),
        paint.severity(severity(f)),
        escape_str(&f.message)
    );
    for r in &f.at_risk_sessions {
        s.push_str(&format!(
            "    {}  {}  {}\n",
            r.last_modified.get(..10).unwrap_or(&r.last_modified),
            if r.backed_up { "backed up    " } else { "NOT backed up" },
            escape_str(&r.path)
        ));
    }
    s.push('\n');
    s
}
