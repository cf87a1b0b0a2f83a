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
    /// Where the different file that was there (replaced with `--force`) is kept, else null.
    replaced_kept_at: Option<String>,
}

pub fn run(g: &GlobalArgs, a: &RestoreArgs) -> super::Result<ExitStatus> {
    if a.from_history {
        return from_history(g);
    }
    let dir = super::backup::archive_dir(a.from.as_deref())?;
    let archive = Archive::new(&dir);
    if !archive.exists() {
        return Err(super::error::Usage::NotAnArchiveToRestore { dir }.into());
    }
    let (files, bad) = archive.latest_files()?;
    let mut say = g.reporter();
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
    let roots = restore::store_roots(&crate::io::paths::default_stores());
    let mut mapped = a
        .map
        .as_ref()
        .map(|(old, new)| super::relocate::restore::Mapped::new(old, new));
    let mut chosen = match &mapped {
        // From another machine, a session is gone when it is not where it would be put here.
        Some(m) if a.deleted => {
            let gone: Vec<String> = files
                .iter()
                .filter(|(f, _)| f.role == "session")
                .filter(|(f, _)| m.target(f, a.to.as_deref(), &roots).is_ok_and(|t| !t.exists()))
                .filter_map(|(f, _)| restore::session_of(f))
                .collect();
            restore::select(&files, &gone, false)
        }
        _ => restore::select(&files, &a.sessions, a.deleted),
    };
    // A session before what belongs to it: where it goes decides where they go.
    chosen.sort_by_key(|f| f.role != "session");
    let held = restore::select_held(&files, &a.sessions, a.deleted);
    for want in &a.sessions {
        if !chosen
            .iter()
            .any(|f| restore::session_of(f).is_some_and(|s| s == *want) || restore::names_id(want, &f.path))
            && !held.iter().any(|(_, h)| restore::names_id(want, &h.id))
        {
            say.alert(&format!("{want}: no such session in {}", dir.display()));
            say.merge(ExitStatus::Negative);
        }
    }
    let mut restored = 0;
    for f in &chosen {
        let mut to = Destination {
            archive: &archive,
            roots: &roots,
            mapped: mapped.as_mut(),
        };
        restored += usize::from(put_back(g, a, f, &mut to, &mut out, &mut say)?);
    }
    for problem in mapped.as_ref().map(|m| m.finish()).unwrap_or_default() {
        say.alert(&problem);
        say.merge(ExitStatus::Negative);
    }
    restored += put_back_held(g, a, &archive, &held, &mut out, &mut say)?;
    out.flush()?;
    if !g.json {
        say.note(&format!("{restored} files restored"));
    }
    Ok(say.status())
}

/// Where stored files go: the archive they come from, the stores here, and the map of paths
/// (`--map`).
struct Destination<'a> {
    archive: &'a Archive,
    roots: &'a [(&'static str, std::path::PathBuf)],
    mapped: Option<&'a mut super::relocate::restore::Mapped>,
}

/// Puts one stored file back (or says why not); whether it was written.
fn put_back(
    g: &GlobalArgs,
    a: &RestoreArgs,
    f: &crate::backup::FileEntry,
    d: &mut Destination<'_>,
    out: &mut Out,
    say: &mut Reporter,
) -> super::Result<bool> {
    let (archive, roots) = (d.archive, d.roots);
    let mapped = &mut d.mapped;
    let target = match &mapped {
        Some(m) => m.target(f, a.to.as_deref(), roots),
        None => restore::target(f, a.to.as_deref(), roots),
    };
    let to = match target {
        // A copy `merge` found gone apart from the one restored under this name: beside it,
        // under a name the agent does not list.
        Ok(to) if mapped.is_none() => restore::diverged_name(f, to),
        Ok(to) => to,
        Err(why) => {
            let entry = escape_str(&f.path);
            say.alert(&restore::RestoreError::Outside { entry, why }.to_string());
            say.merge(ExitStatus::Negative);
            return Ok(false);
        }
    };
    let put = match mapped {
        Some(m) => m.put(archive, f, &to, a.force),
        None => restore::restore_file(archive, f, &to, a.force)
            .map(|p| (p, to.clone()))
            .map_err(|e| e.to_string()),
    };
    let (put, to) = match put {
        Ok((p, to)) => (Ok(p), to),
        Err(e) => (Err(e), to),
    };
    let put = match put {
        // A file already there with exactly these bytes needs nothing.
        Ok(restore::Put::Same) => return Ok(false),
        Ok(restore::Put::Kept { extra }) => {
            say.note(&format!(
                "{}: holds the archived copy and {extra} bytes written since; left as it is",
                escape_str(&to.display().to_string())
            ));
            return Ok(false);
        }
        Ok(put) => put,
        Err(e) => {
            say.alert(&e);
            say.merge(ExitStatus::Negative);
            return Ok(false);
        }
    };
    let store = match &mapped {
        Some(_) => crate::agents::registry()
            .store_by_name(&f.agent)
            .and_then(|s| store_of(&to, s.session_folders())),
        None => Some(std::path::PathBuf::from(&f.store)),
    };
    // A rollout back in Codex's store is listed again only once indexed (docs/stores.md).
    if a.to.is_none()
        && let Some(store_kind) = crate::agents::registry().store_by_name(&f.agent)
        && let Some(home) = &store
        && let Err(e) = store_kind.register_restored(home, &to)
    {
        say.alert(&e.to_string());
    }
    let replaced = match put {
        restore::Put::Replaced { backup } => Some(backup.display().to_string()),
        _ => None,
    };
    if g.json {
        out.json(&super::record::Record::Restored(&Restored {
            session_id: restore::session_of(f),
            from: &f.path,
            to: to.display().to_string(),
            bytes: f.size,
            replaced_kept_at: replaced,
        }))?;
    } else {
        say.note(&format!(
            "restored {} ({} bytes){}",
            to.display(),
            f.size,
            replaced.map_or_else(String::new, |b| format!("; the file it replaced is kept at {b}"))
        ));
    }
    Ok(true)
}

/// Writes the sessions chosen inside stored databases out as their agents' own documents
/// under `--to DIR` (a database is never overwritten by a copy of it: what the agent wrote
/// since would be lost); how many were written.
fn put_back_held(
    g: &GlobalArgs,
    a: &RestoreArgs,
    archive: &Archive,
    held: &[(&crate::backup::FileEntry, &crate::backup::archive::Held)],
    out: &mut Out,
    say: &mut Reporter,
) -> super::Result<usize> {
    let mut written = 0;
    let mut by_copy: Vec<(
        &crate::backup::FileEntry,
        Vec<(&crate::backup::archive::Held, std::path::PathBuf)>,
    )> = Vec::new();
    for (f, h) in held {
        let name = escape_str(&restore::member_name(f, h));
        let Some(dir) = a.to.as_deref() else {
            say.alert(&format!(
                "{name}: a session inside a database is restored as a file of its own: add --to DIR"
            ));
            say.merge(ExitStatus::Negative);
            continue;
        };
        match restore::held_target(f, h, dir) {
            Ok(to) => match by_copy.iter_mut().find(|(e, _)| std::ptr::eq(*e, *f)) {
                Some((_, list)) => list.push((h, to)),
                None => by_copy.push((f, vec![(h, to)])),
            },
            Err(why) => {
                say.alert(&restore::RestoreError::Outside { entry: name, why }.to_string());
                say.merge(ExitStatus::Negative);
            }
        }
    }
    for (f, list) in &by_copy {
        let hint = crate::agents::registry()
            .by_name(&f.agent)
            .and_then(|a| a.container())
            .map(|c| c.import_hint());
        let results = match restore::restore_held(archive, f, list, a.force) {
            Ok(r) => r,
            Err(e) => {
                say.alert(&e.to_string());
                say.merge(ExitStatus::Negative);
                continue;
            }
        };
        for ((h, to), r) in list.iter().zip(results) {
            let replaced = match r {
                Ok(restore::Put::Same) => continue,
                Ok(restore::Put::Replaced { backup }) => Some(backup.display().to_string()),
                Ok(_) => None,
                Err(e) => {
                    say.alert(&e.to_string());
                    say.merge(ExitStatus::Negative);
                    continue;
                }
            };
            written += 1;
            let from = restore::member_name(f, h);
            let bytes = std::fs::metadata(to).map_or(0, |m| m.len());
            if g.json {
                out.json(&super::record::Record::Restored(&Restored {
                    session_id: Some(h.id.clone()),
                    from: &from,
                    to: to.display().to_string(),
                    bytes,
                    replaced_kept_at: replaced,
                }))?;
            } else {
                say.note(&format!(
                    "restored {} ({bytes} bytes){}{}",
                    escape_str(&to.display().to_string()),
                    replaced.map_or_else(String::new, |b| format!("; the file it replaced is kept at {b}")),
                    hint.map_or_else(String::new, |h| format!("; {h}"))
                ));
            }
        }
    }
    Ok(written)
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

fn from_history(g: &GlobalArgs) -> super::Result<ExitStatus> {
    let st = crate::io::paths::default_stores();
    let mut problems = Vec::new();
    let sessions = retention::from_history(&st, &mut problems);
    let say = g.reporter();
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

/// The store folder (`~/.codex`) of a file put back at `path`: the parent of the agent's
/// session folder (`sessions/`) it is under.
fn store_of(path: &std::path::Path, folders: &[&str]) -> Option<std::path::PathBuf> {
    path.ancestors()
        .find(|a| a.file_name().is_some_and(|n| folders.iter().any(|f| n == *f)))
        .and_then(std::path::Path::parent)
        .map(std::path::Path::to_path_buf)
}
