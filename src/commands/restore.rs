//! `cctool restore`: list an archive, restore sessions from it, or print what
//! `history.jsonl` holds of deleted ones. The work is in `crate::backup`.

use crate::ExitStatus;
use crate::backup::{Archive, restore, retention};
use crate::cli::{GlobalArgs, RestoreArgs};
use crate::output::Out;
use crate::output::report::Reporter;
use crate::output::sanitize::escape_str;

#[derive(serde::Serialize)]
pub struct Restored<'a> {
    session_id: Option<String>,
    from: &'a str,
    to: String,
    bytes: u64,
}

pub fn run(g: &GlobalArgs, a: &RestoreArgs) -> anyhow::Result<ExitStatus> {
    if a.from_history {
        return from_history(g);
    }
    let dir = super::backup::archive_dir(a.from.as_deref())?;
    let archive = Archive::new(&dir);
    if !archive.exists() {
        return Err(crate::Fatal(format!(
            "{}: not a cctool archive (no snapshots/ folder); name one with --from ARCHIVE",
            escape_str(&dir.display().to_string())
        ))
        .into());
    }
    let (files, bad) = archive.latest_files()?;
    let mut say = Reporter::new(g);
    for b in &bad {
        say.note(&format!("{b} (skipped)"));
    }
    let mut out = Out::new(g.color);
    if a.sessions.is_empty() && !a.deleted {
        let listed = restore::list(&files);
        if g.json {
            for l in &listed {
                out.json(&super::record::Record::ArchivedSession(l))?;
            }
        } else {
            out.text(&table(&listed))?;
        }
        out.flush()?;
        return Ok(ExitStatus::Success);
    }
    let chosen = restore::select(&files, &a.sessions, a.deleted);
    for want in &a.sessions {
        if !chosen
            .iter()
            .any(|f| restore::session_of(f).is_some_and(|s| s == *want) || f.path.contains(want.as_str()))
        {
            say.alert(&format!("{want}: no such session in {}", dir.display()));
            say.merge(ExitStatus::Negative);
        }
    }
    let mut restored = 0;
    for f in &chosen {
        let to = restore::target(f, a.to.as_deref());
        // A file already there with exactly these bytes needs nothing.
        if restore::same_bytes(f, &to) {
            continue;
        }
        match restore::restore_file(&archive, f, &to, a.force) {
            Ok(()) => {
                restored += 1;
                // A rollout back in Codex's store is listed again only once indexed (docs/stores.md).
                if a.to.is_none()
                    && f.agent == "codex"
                    && let Err(e) = crate::agents::codex::store::register_restored(std::path::Path::new(&f.store), &to)
                {
                    say.alert(&e.to_string());
                }
                if g.json {
                    out.json(&super::record::Record::Restored(&Restored {
                        session_id: restore::session_of(f),
                        from: &f.path,
                        to: to.display().to_string(),
                        bytes: f.size,
                    }))?;
                } else {
                    say.note(&format!("restored {} ({} bytes)", to.display(), f.size));
                }
            }
            Err(e) => {
                say.alert(&e.to_string());
                say.merge(ExitStatus::Negative);
            }
        }
    }
    out.flush()?;
    if !g.json {
        say.note(&format!("{restored} files restored"));
    }
    Ok(say.status())
}

fn table(listed: &[restore::Listed]) -> String {
    let mut s = String::new();
    for l in listed {
        let state = if !l.exists {
            "deleted"
        } else if l.same {
            "present"
        } else {
            "changed"
        };
        let date = l.last_timestamp.as_deref().map_or("-", |t| t.get(..10).unwrap_or(t));
        s.push_str(&format!(
            "{:<7}  {:<11}  {:<10}  {:<36}  {:<20}  {}\n",
            state,
            l.agent,
            date,
            escape_str(l.session_id.as_deref().unwrap_or("-")),
            escape_str(l.project.as_deref().unwrap_or("-")),
            escape_str(l.title.as_deref().unwrap_or("-"))
        ));
    }
    s
}

fn from_history(g: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let st = crate::io::paths::default_stores();
    let dirs = retention::claude_dirs(&st);
    let transcripts: std::collections::HashSet<String> = dirs
        .iter()
        .flat_map(|d| {
            walkdir::WalkDir::new(d.join("projects"))
                .into_iter()
                .filter_map(Result::ok)
        })
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    let mut problems = Vec::new();
    let sessions = retention::from_history(&dirs, &|id| transcripts.contains(id), &mut problems);
    let say = Reporter::new(g);
    for p in &problems {
        say.note(p);
    }
    let mut out = Out::new(g.color);
    for s in &sessions {
        if g.json {
            out.json(&super::record::Record::HistorySession(s))?;
        } else {
            out.text(&format!(
                "PARTIAL RECORD (prompts from history.jsonl only; the transcript is gone)\nsession {}  project {}  {} .. {}\n",
                escape_str(s.session_id.as_deref().unwrap_or("(not recorded)")),
                escape_str(s.project.as_deref().unwrap_or("-")),
                s.first_timestamp.as_deref().unwrap_or("-"),
                s.last_timestamp.as_deref().unwrap_or("-")
            ))?;
            for p in &s.prompts {
                out.text(&format!(
                    "  {}  {}\n",
                    p.timestamp.as_deref().unwrap_or("-"),
                    escape_str(&p.text)
                ))?;
            }
            out.text("\n")?;
        }
    }
    out.flush()?;
    Ok(if sessions.is_empty() {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    })
}
