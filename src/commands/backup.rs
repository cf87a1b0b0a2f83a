//! `cctool backup [--to DIR] [--verify]`: arguments, output and exit status; the work is in
//! `crate::backup`.

use super::error::Usage;
use crate::ExitStatus;
use crate::backup::{Archive, run, stores};
use crate::cli::{BackupArgs, GlobalArgs};
use crate::output::Out;
use crate::output::sanitize::escape_str;

/// The archive named, else the default one; a usage error when there is no home to put it in.
pub fn archive_dir(named: Option<&std::path::Path>) -> Result<std::path::PathBuf, Usage> {
    named
        .map(std::path::Path::to_path_buf)
        .or_else(crate::backup::default_archive_env)
        .ok_or(Usage::NoArchiveFolder)
}

fn bytes(n: u64) -> String {
    indicatif::HumanBytes(n).to_string()
}

pub fn run(g: &GlobalArgs, a: &BackupArgs) -> super::Result<ExitStatus> {
    let dir = archive_dir(a.to.as_deref())?;
    let archive = Archive::new(&dir);
    if a.verify {
        return verify(g, &archive);
    }
    let st = crate::io::paths::default_stores();
    let say = g.reporter();
    for n in &st.notes {
        say.note(n);
    }
    if st.found.is_empty() {
        return Err(Usage::NoStoresToBackUp {
            looked_in: st.looked_in(),
        }
        .into());
    }
    let mut problems = Vec::new();
    let files = stores::files(&st, &mut problems);
    let bar = super::files_bar("backup", files.len(), g.quiet);
    let mut report =
        run::backup(&archive, &files, "backup", run::SETTLE, &bar).map_err(|cause| Usage::ArchiveUnwritable {
            dir: dir.clone(),
            cause,
        })?;
    bar.finish_and_clear();
    problems.append(&mut report.problems);
    report.problems = problems;
    let mut out = Out::new(g.color);
    if g.json {
        out.json(&super::record::Record::Backup(&report))?;
        out.flush()?;
    } else {
        for p in &report.problems {
            say.note(p);
        }
        let line = match &report.snapshot {
            None => format!(
                "nothing new since the last snapshot: {} files unchanged, nothing written ({})",
                report.files,
                escape_str(&report.archive)
            ),
            Some(s) => format!(
                "{} files: {} new, {} changed, {} unchanged{}; {} new bytes taken, {} written; snapshot {}",
                report.files,
                report.new_files,
                report.changed_files,
                report.unchanged_files,
                if report.gone_files > 0 {
                    format!(", {} gone from the stores (kept in the archive)", report.gone_files)
                } else {
                    String::new()
                },
                bytes(report.new_bytes),
                bytes(report.written_bytes),
                escape_str(s)
            ),
        };
        say.note(&line);
        if report.partial_lines > 0 {
            say.note(&format!(
                "{} files end in a line still being written; the rest of it is taken next time",
                report.partial_lines
            ));
        }
    }
    Ok(if report.problems.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Error
    })
}

#[derive(serde::Serialize)]
pub struct Verified {
    archive: String,
    chunks: usize,
    damaged: usize,
    problems: Vec<String>,
}

fn verify(g: &GlobalArgs, archive: &Archive) -> super::Result<ExitStatus> {
    if !archive.exists() {
        return Err(Usage::NotAnArchiveToVerify {
            dir: archive.root.clone(),
        }
        .into());
    }
    let bar = super::files_bar("verify", usize::MAX, g.quiet);
    let (chunks, bad_chunks) = archive.verify_chunks(&bar)?;
    bar.finish_and_clear();
    let bad_hashes: std::collections::HashSet<&str> = bad_chunks.iter().map(|(h, _)| h.as_str()).collect();
    let mut damaged: Vec<String> = bad_chunks.iter().map(|(_, e)| e.to_string()).collect();
    // A snapshot that cannot be read, or that names a chunk that is missing, is damage too;
    // and every stored file a damaged chunk belongs to is named, newest copy first.
    let (manifests, bad) = archive.manifests()?;
    damaged.extend(bad.iter().map(ToString::to_string));
    let mut missing = std::collections::BTreeSet::new();
    let mut named = std::collections::BTreeSet::new();
    for (p, m) in manifests.iter().rev() {
        for f in &m.files {
            if f.chunks.iter().any(|c| bad_hashes.contains(c.sha256.as_str())) && named.insert(f.path.clone()) {
                damaged.push(format!(
                    "{}: its copy in {} is damaged",
                    f.path,
                    p.file_name().unwrap_or_default().to_string_lossy()
                ));
            }
            for c in &f.chunks {
                if !archive.chunk_path(&c.sha256).is_file() && missing.insert(c.sha256.clone()) {
                    damaged.push(format!("{}: chunk {} of {} is missing", p.display(), c.sha256, f.path));
                }
            }
        }
    }
    let damaged_files: Vec<String> = damaged.clone();
    let mut out = Out::new(g.color);
    if g.json {
        out.json(&super::record::Record::Verify(&Verified {
            archive: archive.root.display().to_string(),
            chunks,
            damaged: damaged_files.len(),
            problems: damaged_files,
        }))?;
        out.flush()?;
    } else {
        for d in &damaged {
            out.text(&format!("{}\n", escape_str(d)))?;
        }
        out.flush()?;
        g.reporter().note(&format!(
            "{} chunks checked in {} snapshots: {}",
            chunks,
            manifests.len(),
            if damaged.is_empty() {
                "all intact".to_string()
            } else {
                format!("{} problems; restore what you need from another copy", damaged.len())
            }
        ));
    }
    Ok(if damaged.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Negative
    })
}
