//! Gemini CLI's retention sweep (`cleanupExpiredSessions`): its side of the core's `Retention`.
//!
//! At start-up Gemini CLI 0.61.0 deletes the chats older than `general.sessionRetention.maxAge`
//! (`<n>h`, `d`, `w` or `m`; default `30d`) while `general.sessionRetention.enabled` (default
//! true) holds, with no trash. Settings are merged with the system file first, then the
//! workspace's, then the user's; each field is taken from the first that sets it. The same sweep
//! deletes a chat with no conversation together with every chat of its short id: `doctor`'s
//! `stub-twin` finding.

use std::path::{Path, PathBuf};

use cctool_core::model::retention::{FromHistory, Setting, Sweep};
use serde_json::Value;

/// The client's default `maxAge`.
const DEFAULT_DAYS: u64 = 30;

/// The days that stand for a sweep that is switched off: longer than any file's age, so no
/// chat is at risk, and small enough to count in seconds.
const NEVER: u64 = 365 * 1000;

/// Gemini CLI's sweep of its chats folders.
pub struct GeminiRetention;

impl cctool_core::agents::Retention for GeminiRetention {
    fn default_days(&self) -> u64 {
        DEFAULT_DAYS
    }

    fn settings_files(&self, roots: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
        let mut v = vec![
            PathBuf::from("/etc/gemini-cli/settings.json"),
            cwd.join(".gemini/settings.json"),
        ];
        v.extend(roots.iter().map(|r| r.join("settings.json")));
        v
    }

    fn setting(&self, files: &[PathBuf], problems: &mut Vec<String>) -> Option<Setting> {
        let mut enabled: Option<(bool, String)> = None;
        let mut max_age: Option<(Value, String)> = None;
        for f in files {
            let Ok(text) = std::fs::read(f) else { continue };
            let v: Value = match serde_json::from_slice(&text) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!(
                        "{}: not JSON ({e}); its sessionRetention is not read",
                        f.display()
                    ));
                    continue;
                }
            };
            let r = &v["general"]["sessionRetention"];
            if enabled.is_none()
                && let Some(b) = r.get("enabled").and_then(Value::as_bool)
            {
                enabled = Some((b, f.display().to_string()));
            }
            if max_age.is_none()
                && let Some(a) = r.get("maxAge")
            {
                max_age = Some((a.clone(), f.display().to_string()));
            }
        }
        if let Some((false, source)) = enabled {
            return Some(Setting {
                days: NEVER,
                source: format!("{source} (sessionRetention disabled)"),
            });
        }
        let (age, source) = max_age?;
        match age.as_str().and_then(days_of) {
            Some(days) => Some(Setting { days, source }),
            None => {
                // The client then leaves its chats alone (`validateRetentionConfig`).
                problems.push(format!(
                    "{source}: sessionRetention.maxAge {age} is not <number><h|d|w|m>: Gemini CLI sweeps nothing"
                ));
                Some(Setting { days: NEVER, source })
            }
        }
    }

    fn swept(&self, path: &Path) -> bool {
        let in_chats = path.parent().and_then(Path::file_name).is_some_and(|n| n == "chats");
        in_chats
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(crate::store::is_chat_name)
    }

    fn warning(&self, s: &Sweep<'_>) -> String {
        let from = s
            .setting
            .map_or_else(|| "the default".to_string(), |s| format!("set in {}", s.source));
        format!(
            "sessionRetention.maxAge is {} days ({from}): Gemini CLI's next start deletes {} of {} chats, older than that; {} of them are backed up{}",
            s.days,
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

    // The prompt log beside the chats (`logs/`) was empty in every recorded run: nothing read.
    fn history_of_deleted(&self, _: &[PathBuf], _: &mut Vec<String>) -> Vec<FromHistory> {
        Vec::new()
    }
}

/// A retention period `<n><h|d|w|m>` in whole days (`parseRetentionPeriod`; a month is 30
/// days); `None` when the client refuses it.
pub fn days_of(period: &str) -> Option<u64> {
    let unit = period.chars().last()?;
    let n: u64 = period[..period.len() - unit.len_utf8()].parse().ok()?;
    if n == 0 || !period[..period.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match unit {
        'h' => (n / 24).max(1),
        'd' => n,
        'w' => n * 7,
        'm' => n * 30,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::agents::Retention;

    #[test]
    fn periods_read_as_the_client_reads_them() {
        assert_eq!(days_of("30d"), Some(30));
        assert_eq!(days_of("2w"), Some(14));
        assert_eq!(days_of("1m"), Some(30));
        assert_eq!(days_of("48h"), Some(2));
        assert_eq!(days_of("0d"), None);
        assert_eq!(days_of("30"), None);
        assert_eq!(days_of("+3d"), None);
    }

    #[test]
    fn each_field_comes_from_the_first_file_that_sets_it() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("w.json");
        let user = dir.path().join("u.json");
        std::fs::write(&workspace, r#"{"general":{"sessionRetention":{"maxAge":"7d"}}}"#).unwrap();
        std::fs::write(
            &user,
            r#"{"general":{"sessionRetention":{"enabled":false,"maxAge":"90d"}}}"#,
        )
        .unwrap();
        let mut problems = Vec::new();
        let s = GeminiRetention
            .setting(std::slice::from_ref(&workspace), &mut problems)
            .unwrap();
        assert_eq!(s.days, 7);
        let off = GeminiRetention.setting(&[workspace, user], &mut problems).unwrap();
        assert_eq!(off.days, NEVER);
        assert!(problems.is_empty());
    }
}
