//! Claude Code's retention sweep and what its prompt history still holds of the sessions the
//! sweep deleted: its side of the core's `Retention`.
//!
//! At start-up Claude Code deletes the transcripts last written more than `cleanupPeriodDays`
//! days ago (default 30; there is no trash). The setting is read from the managed, local
//! project, shared project and user settings files, in that order of precedence.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use cctool_core::model::retention::{FromHistory, Prompt, Setting, Sweep};
use cctool_core::model::time::{format_ms, parse_ms};

/// Claude Code's own default.
const DEFAULT_DAYS: u64 = 30;

/// Claude Code's sweep of its `projects/` folders.
pub(crate) struct ClaudeCodeRetention;

impl crate::agents::Retention for ClaudeCodeRetention {
    fn default_days(&self) -> u64 {
        DEFAULT_DAYS
    }

    fn settings_files(&self, roots: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
        settings_files(roots, cwd)
    }

    fn setting(&self, files: &[PathBuf], problems: &mut Vec<String>) -> Option<Setting> {
        cleanup_setting(files, problems)
    }

    fn swept(&self, path: &Path) -> bool {
        path.extension().is_some_and(|x| x == "jsonl") && !path.components().any(|c| c.as_os_str() == "subagents")
    }

    fn warning(&self, sweep: &Sweep<'_>) -> String {
        warning(sweep)
    }

    fn history_of_deleted(&self, roots: &[PathBuf], problems: &mut Vec<String>) -> Vec<FromHistory> {
        // A session still has its transcript when a file of the store is named by its id,
        // wherever in the store, subagents' included.
        let transcripts: HashSet<String> = roots
            .iter()
            .flat_map(|d| {
                walkdir::WalkDir::new(d.join("projects"))
                    .into_iter()
                    .filter_map(Result::ok)
            })
            .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        from_history(roots, &|id| transcripts.contains(id), problems)
    }
}

/// The settings files Claude Code reads, highest precedence first: managed, the project's
/// local and shared files (in `cwd`), then the user's of each config folder.
fn settings_files(config_dirs: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    let mut v = vec![
        PathBuf::from("/etc/claude-code/managed-settings.json"),
        cwd.join(".claude/settings.local.json"),
        cwd.join(".claude/settings.json"),
    ];
    v.extend(config_dirs.iter().map(|d| d.join("settings.json")));
    v
}

/// The effective setting: the first file that sets it; `None` when none does.
fn cleanup_setting(files: &[PathBuf], problems: &mut Vec<String>) -> Option<Setting> {
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

/// What the next sweep deletes, said as `doctor` warns of it.
fn warning(s: &Sweep<'_>) -> String {
    let days = s.days;
    let from = s
        .setting
        .map_or_else(|| "the default".to_string(), |s| format!("set in {}", s.source));
    if days == 0 {
        format!(
            "cleanupPeriodDays is 0 ({from}): Claude Code deletes every transcript at its next start ({} sessions, {} of them backed up) and may stop writing new ones; run `cctool backup`, and set it to a number of days",
            s.at_risk, s.backed_up
        )
    } else {
        format!(
            "cleanupPeriodDays is {days} ({from}): Claude Code's next start deletes {} of {} sessions, last written more than {days} days ago; {} of them are backed up{}",
            s.at_risk,
            s.sessions,
            s.backed_up,
            if s.backed_up < s.at_risk {
                "; run `cctool backup` first"
            } else {
                ""
            }
        )
    }
}

/// The prompts of one session: time (ms) and text.
type Prompts = Vec<(Option<i64>, String)>;

/// The sessions of `history.jsonl` files whose transcripts no longer exist in the store
/// (`exists` says whether a session id still has one). Entries written before Claude Code
/// recorded session ids are grouped by project. Bad lines are named in `problems`.
fn from_history(
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
                .and_then(|t| t.as_i64().or_else(|| t.as_str().and_then(parse_ms)));
            let display = v.get("display").and_then(|s| s.as_str()).unwrap_or("").to_string();
            groups.entry((sid, project)).or_default().push((ts, display));
        }
        for ((sid, project), mut prompts) in groups {
            prompts.sort_by_key(|p| p.0);
            let fmt = |t: Option<i64>| t.map(format_ms);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_file_that_sets_the_days_wins_and_unreadable_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("project");
        let user = dir.path().join("user");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::create_dir_all(&user).unwrap();
        std::fs::write(cwd.join(".claude/settings.local.json"), "{not json").unwrap();
        std::fs::write(cwd.join(".claude/settings.json"), r#"{"cleanupPeriodDays": "soon"}"#).unwrap();
        std::fs::write(user.join("settings.json"), r#"{"cleanupPeriodDays": 7.5}"#).unwrap();
        let files = settings_files(std::slice::from_ref(&user), &cwd);
        assert_eq!(files[0], Path::new("/etc/claude-code/managed-settings.json"));
        assert_eq!(files[3], user.join("settings.json"));
        let mut problems = Vec::new();
        let s = cleanup_setting(&files[1..], &mut problems).expect("the user's setting");
        assert_eq!(
            (s.days, s.source),
            (7, user.join("settings.json").display().to_string())
        );
        assert_eq!(problems.len(), 2);
        assert!(problems[0].contains("not JSON"), "{problems:?}");
        assert!(problems[1].ends_with(r#"cleanupPeriodDays is not a number of days: "soon""#));
    }

    #[test]
    fn the_history_gives_only_sessions_whose_transcripts_are_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("projects/p")).unwrap();
        std::fs::write(root.join("projects/p/kept.jsonl"), "").unwrap();
        std::fs::write(
            root.join("history.jsonl"),
            concat!(
                r#"{"display":"b","timestamp":2000,"project":"/p","sessionId":"gone"}"#,
                "\n",
                r#"{"display":"x","timestamp":1500,"project":"/p","sessionId":"kept"}"#,
                "\nnot json\n",
                r#"{"display":"a","timestamp":1000,"project":"/p","sessionId":"gone"}"#,
                "\n"
            ),
        )
        .unwrap();
        let mut problems = Vec::new();
        let found = crate::agents::Retention::history_of_deleted(&ClaudeCodeRetention, &[root], &mut problems);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].session_id.as_deref(), Some("gone"));
        let texts: Vec<&str> = found[0].prompts.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("history.jsonl:3: not JSON"), "{problems:?}");
    }
}
