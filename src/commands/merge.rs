//! `cctool merge SOURCE…`: arguments, output and exit status; the work is in
//! `crate::backup::merge`.

use super::error::Usage;
use crate::ExitStatus;
use crate::backup::Archive;
use crate::backup::merge::{self, Source};
use crate::cli::{GlobalArgs, MergeArgs};
use crate::output::Out;
use crate::output::sanitize::escape_str;

pub fn run(g: &GlobalArgs, a: &MergeArgs) -> super::Result<ExitStatus> {
    let dir = super::backup::archive_dir(a.to.as_deref())?;
    let archive = Archive::new(&dir);
    let mut sources = Vec::new();
    for s in &a.sources {
        if !s.is_dir() {
            return Err(Usage::MergeSource(s.clone()).into());
        }
        if crate::io::paths::same_file(s, &dir) {
            continue;
        }
        sources.push(Source::of(s));
    }
    let bar = super::files_bar("merge", 0, g.quiet);
    let report = merge::merge(&archive, &sources, &bar).map_err(|cause| Usage::ArchiveUnwritable {
        dir: dir.clone(),
        cause,
    })?;
    bar.finish_and_clear();
    let mut out = Out::new(g.color);
    let mut say = g.reporter();
    if !report.problems.is_empty() {
        say.merge(ExitStatus::Negative);
    }
    if g.json {
        out.json(&super::record::Record::Merge(&report))?;
        out.flush()?;
        return Ok(say.status());
    }
    for p in &report.problems {
        say.note(p);
    }
    for d in &report.diverged {
        say.note(&format!(
            "{} session {}: its copies went apart; each is kept:",
            d.agent, d.session
        ));
        for c in &d.copies {
            say.detail(&format!("{} bytes from {}: {}", c.bytes, c.source, c.kept_as));
        }
    }
    let what = match &report.snapshot {
        Some(s) => format!("snapshot {}", escape_str(s)),
        None => "the archive already held everything".into(),
    };
    out.text(&format!(
        "{}: {} files read, {} kept, {} identical and {} shorter copies left out, {} diverged; {}\n",
        escape_str(&report.archive),
        report.files,
        report.kept,
        report.identical,
        report.prefixes,
        report.diverged.len(),
        what
    ))?;
    out.flush()?;
    Ok(say.status())
}
