//! Warnings before an agent's retention sweep deletes sessions, and what its prompt history
//! still holds of the sessions already deleted.
//!
//! Some agents delete their own sessions once they are old enough, by a setting the user may
//! change, and keep no trash. What each agent reads and how it words it is its store's
//! `Retention`; what is at risk, whether the archive holds it, and the finding `doctor` prints
//! are the same for every agent, and are here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::agents::{Agent, Retention, Store};
use crate::io::paths::Stores;
use crate::model::retention::Sweep;

pub use crate::model::retention::{FromHistory, Prompt};

/// One session the next sweep deletes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AtRisk {
    pub(crate) path: String,
    pub(crate) last_modified: String,
    /// Whether the archive holds it with every byte it has now.
    pub(crate) backed_up: bool,
}

/// The retention finding of `doctor`: one agent's next sweep.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The agent whose sweep it is, as sentences name it.
    #[serde(skip)]
    pub(crate) agent: &'static str,
    pub(crate) severity: &'static str,
    /// The days in force. The record's field keeps the name it had when Claude Code's was the
    /// only sweep.
    #[serde(rename = "cleanup_period_days")]
    pub(crate) days: u64,
    pub(crate) source: Option<String>,
    pub(crate) archive: Option<String>,
    pub(crate) sessions: usize,
    pub(crate) at_risk: usize,
    pub(crate) backed_up: usize,
    pub(crate) message: String,
    pub(crate) at_risk_sessions: Vec<AtRisk>,
}

/// An agent whose store sweeps itself.
#[derive(Clone, Copy)]
struct Sweeper {
    agent: &'static dyn Agent,
    store: &'static dyn Store,
    retention: &'static dyn Retention,
}

/// The agents among `agents` whose stores sweep themselves, in their order.
fn sweepers(agents: &[&'static dyn Agent]) -> Vec<Sweeper> {
    agents
        .iter()
        .filter_map(|&agent| {
            let store = agent.store()?;
            Some(Sweeper {
                agent,
                store,
                retention: store.retention()?,
            })
        })
        .collect()
}

/// The roots of the stores found that are `s`'s: the parents of its session folders, but not
/// a folder another agent found as its own under the same name.
fn roots(s: &Sweeper, stores: &Stores) -> Vec<PathBuf> {
    let (store, format) = (s.store, s.agent.about().format);
    let mut roots: Vec<PathBuf> = Vec::new();
    let root = |d: &PathBuf| {
        if stores.owners.iter().any(|(o, id)| o == d && *id != format) {
            return None;
        }
        let name = d.file_name()?;
        store
            .session_folders()
            .iter()
            .any(|f| name == *f)
            .then(|| d.parent().map(Path::to_path_buf))?
    };
    for r in stores.found.iter().filter_map(root) {
        if !roots.contains(&r) {
            roots.push(r);
        }
    }
    roots
}

/// What the next sweep of `s` deletes, or `None` when the setting is the default or longer
/// and nothing is at risk. `now` is the time of the agent's next start.
fn check(
    s: Sweeper,
    roots: &[PathBuf],
    cwd: &Path,
    archive: Option<&Path>,
    now: SystemTime,
    problems: &mut Vec<String>,
) -> Option<Finding> {
    let r = s.retention;
    let setting = r.setting(&r.settings_files(roots, cwd), problems);
    let default = r.default_days();
    let days = setting.as_ref().map_or(default, |s| s.days);
    let cutoff = now
        .checked_sub(Duration::from_secs(days * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut sessions = 0;
    let mut at_risk = Vec::new();
    let stored = archive.map(stored_sizes).unwrap_or_default();
    let folders = roots
        .iter()
        .flat_map(|root| s.store.session_folders().iter().map(move |f| root.join(f)));
    for folder in folders {
        for e in walkdir::WalkDir::new(folder)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let p = e.path();
            if !e.file_type().is_file() || !r.swept(p) {
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
    let low = setting.as_ref().is_some_and(|s| s.days < default);
    if !low && at_risk.is_empty() {
        return None;
    }
    let backed_up = at_risk.iter().filter(|a| a.backed_up).count();
    let message = r.warning(&Sweep {
        days,
        setting: setting.as_ref(),
        sessions,
        at_risk: at_risk.len(),
        backed_up,
    });
    let severity = if at_risk.len() > backed_up || days == 0 {
        "warning"
    } else {
        "info"
    };
    Some(Finding {
        agent: s.agent.about().display_name,
        severity,
        days,
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

/// What the prompt histories of the stores found still hold of the sessions whose transcripts
/// are gone, agent after agent in the registry's order. Bad lines are named in `problems`.
pub fn from_history(stores: &Stores, problems: &mut Vec<String>) -> Vec<FromHistory> {
    sweepers(crate::agents::registry().agents())
        .into_iter()
        .flat_map(|s| s.retention.history_of_deleted(&roots(&s, stores), problems))
        .collect()
}

/// What `doctor` adds when it checks the user's own stores: the finding of each agent's next
/// sweep at or above `min`, if there is one (what stopped a check is said with `say`).
pub fn doctor_findings(min: crate::model::diag::Severity, say: &crate::output::report::Reporter) -> Vec<Finding> {
    let stores = crate::io::paths::default_stores();
    let mut out = Vec::new();
    for s in sweepers(crate::agents::registry().agents()) {
        let roots = roots(&s, &stores);
        if roots.is_empty() {
            continue;
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        let archive = super::default_archive_env();
        let mut problems = Vec::new();
        let finding = check(s, &roots, &cwd, archive.as_deref(), SystemTime::now(), &mut problems);
        for p in &problems {
            say.note(p);
        }
        out.extend(finding.filter(|f| severity(f) >= min));
    }
    out
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
        paint.paint(crate::output::style::BOLD, &format!("{} retention", f.agent)),
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

#[cfg(test)]
mod tests {
    use super::*;

    static CODEX: &dyn Agent = &cctool_codex::agent::Codex;
    static CLAUDE: &dyn Agent = &cctool_claude_code::agent::ClaudeCode;

    /// A store whose session folder holds one session, and the stores found: only it.
    fn store_with_one_session(folder: &str, name: &str) -> (tempfile::TempDir, Stores) {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("root").join(folder).join("p");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), "{}\n").unwrap();
        let stores = Stores {
            found: vec![home.path().join("root").join(folder)],
            ..Stores::default()
        };
        (home, stores)
    }

    #[test]
    fn a_store_without_retention_gives_no_finding() {
        assert!(sweepers(&[CODEX]).is_empty());
        let (_home, stores) = store_with_one_session("sessions", "rollout.jsonl");
        let mut problems = Vec::new();
        let found: Vec<_> = sweepers(&[CODEX, CLAUDE])
            .into_iter()
            .filter_map(|s| {
                let roots = roots(&s, &stores);
                (!roots.is_empty()).then(|| {
                    check(
                        s,
                        &roots,
                        Path::new("/nonexistent"),
                        None,
                        SystemTime::now(),
                        &mut problems,
                    )
                })
            })
            .collect();
        assert!(
            found.is_empty(),
            "Codex's store has no sweep and Claude Code's is not found"
        );
        assert!(problems.is_empty());
    }

    #[test]
    fn an_old_session_of_a_store_that_sweeps_is_named_in_the_agents_words() {
        let (home, stores) = store_with_one_session("projects", "s.jsonl");
        let s = sweepers(&[CODEX, CLAUDE])[0];
        let roots = roots(&s, &stores);
        assert_eq!(roots, [home.path().join("root")]);
        let later = SystemTime::now() + Duration::from_secs(31 * 86_400);
        let mut problems = Vec::new();
        let f = check(s, &roots, Path::new("/nonexistent"), None, later, &mut problems).expect("a finding");
        assert_eq!(
            f.message,
            "cleanupPeriodDays is 30 (the default): Claude Code's next start deletes 1 of 1 sessions, last written more than 30 days ago; 0 of them are backed up; run `cctool backup` first"
        );
        let shown = text(&f, crate::output::style::Paint::default());
        assert!(shown.starts_with("Claude Code retention\n  "), "{shown}");
    }
}
