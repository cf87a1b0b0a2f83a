//! `cctool slim DB`: a database that holds every session of an agent, asked of the agent's
//! [`DatabaseSlimmer`]: where its space goes (`--dry-run`), and taking it back (`--in-place`).

use std::path::Path;

use serde::Serialize;

use super::error::Usage;
use crate::cli::{GlobalArgs, SlimArgs};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::output::table::{self, Align, Column};
use crate::slim::database::{DatabaseSlimmer, Reclaim, Reclaimed, Space};
use crate::slim::payload::size_text;

/// How many sessions the text lists; `--json` lists all.
const SESSIONS_SHOWN: usize = 10;
/// How many tables and indexes the report lists, the largest first (`--json` has them all).
const OBJECTS_SHOWN: usize = 8;

/// `slim` of one database.
#[derive(Serialize, Debug, Default)]
pub struct DatabaseRecord {
    pub file: String,
    pub dry_run: bool,
    /// Where the space goes, before anything is taken back.
    pub space: Space,
    /// With --in-place: what was taken back.
    pub reclaimed: Option<Reclaimed>,
    pub error: Option<String>,
}

/// The database slimmer of the agent whose database `p` is, when it is one.
pub fn slimmer_of(p: &Path) -> Option<&'static dyn DatabaseSlimmer> {
    if !p.is_file() || !crate::io::member::is_sqlite(p) {
        return None;
    }
    crate::agents::all()
        .filter_map(|a| a.database_slimmer())
        .find(|s| s.claims(p))
}

/// The options that only a session file takes, refused for a database.
pub fn refuse_file_options(a: &SlimArgs, p: &Path) -> super::Result<()> {
    let name = p.display().to_string();
    let given = [
        (a.output.is_some(), "-o"),
        (a.images != crate::slim::Images::None, "--images"),
        (a.max_payload.is_some(), "--max-payload"),
        (a.extract.is_some(), "--extract"),
        (a.restore.is_some(), "--restore"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, opt)) => Err(Usage::SlimDatabaseOption(name, opt).into()),
        None => Ok(()),
    }
}

/// Reports on, or slims, the database `p`.
pub fn one(a: &SlimArgs, p: &Path, s: &dyn DatabaseSlimmer, r: &mut DatabaseRecord) -> super::Result<()> {
    r.space = s.space(p)?;
    if a.dry_run {
        return Ok(());
    }
    let nothing = r.space.free_bytes == 0 && !(a.clear_unloaded_outputs && r.space.tool_outputs.unloaded_count > 0);
    if nothing {
        return Ok(());
    }
    let opts = Reclaim {
        unloaded_outputs: a.clear_unloaded_outputs,
        backup_dir: a.backup_dir.clone(),
        force: a.force,
    };
    r.reclaimed = Some(s.reclaim(p, &opts)?);
    Ok(())
}

/// The tables and indexes by the pages they take, the largest first, as a table; nothing
/// when the database could not say.
fn objects(s: &cctool_core::slim::database::Space, width: Option<usize>) -> String {
    if s.objects.is_empty() {
        return String::new();
    }
    let columns = [
        Column::new("table or index", Align::Left, 0),
        Column::new("of", Align::Left, 1),
        Column::new("size", Align::Right, 0),
    ];
    let rows: Vec<Vec<String>> = s
        .objects
        .iter()
        .filter(|x| x.bytes > 0)
        .take(OBJECTS_SHOWN)
        .map(|x| vec![escape_str(&x.name), escape_str(&x.table), size_text(x.bytes)])
        .collect();
    let mut o = table::render(&columns, &rows, width, crate::output::style::Paint::OFF, false);
    o.push('\n');
    o
}

/// Whether `--in-place` with the same options would change the database.
pub fn would_change(a: &SlimArgs, r: &DatabaseRecord) -> bool {
    r.space.free_bytes > 0 || (a.clear_unloaded_outputs && r.space.tool_outputs.unloaded_count > 0)
}

/// The report for people, fitting the terminal.
pub fn text(out: &Out, r: &DatabaseRecord) -> String {
    let s = &r.space;
    let width = table::target_width(out.terminal);
    let mut o = format!(
        "{}: {} ({} in its write-ahead log), {} in {} sessions' rows, {} in free pages\n",
        escape_str(&r.file),
        size_text(s.file_bytes),
        size_text(s.wal_bytes),
        size_text(s.row_bytes),
        s.sessions.len(),
        size_text(s.free_bytes),
    );
    let columns = [
        Column::new("size", Align::Right, 0),
        Column::new("tool outputs", Align::Right, 1),
        Column::new("not loaded", Align::Right, 0),
        Column::new("parts", Align::Right, 2),
        Column::new("session", Align::Left, 0),
        Column::new("title", Align::Left, 3).flex(10, 1),
    ];
    let rows: Vec<Vec<String>> = s
        .sessions
        .iter()
        .take(SESSIONS_SHOWN)
        .map(|x| {
            vec![
                size_text(x.bytes),
                size_text(x.tool_output_bytes),
                size_text(x.unloaded_output_bytes),
                x.parts.to_string(),
                escape_str(&x.id),
                escape_str(x.title.as_deref().unwrap_or("")),
            ]
        })
        .collect();
    o.push_str(&table::render(
        &columns,
        &rows,
        width,
        crate::output::style::Paint::OFF,
        false,
    ));
    if s.sessions.len() > SESSIONS_SHOWN {
        o.push_str(&format!(
            "… {} more sessions (--json lists every one)\n",
            s.sessions.len() - SESSIONS_SHOWN
        ));
    }
    o.push('\n');
    o.push_str(&objects(s, width));
    let columns = [
        Column::new("part type", Align::Left, 0),
        Column::new("count", Align::Right, 0),
        Column::new("size", Align::Right, 0),
    ];
    let rows: Vec<Vec<String>> = s
        .kinds
        .iter()
        .map(|k| vec![escape_str(&k.kind), k.count.to_string(), size_text(k.bytes)])
        .collect();
    o.push_str(&table::render(
        &columns,
        &rows,
        width,
        crate::output::style::Paint::OFF,
        false,
    ));
    o.push_str(&outputs_and_copies(s));
    let t = &s.tool_outputs;
    match &r.reclaimed {
        Some(x) => o.push_str(&format!(
            "slimmed: {} tool outputs cleared ({}), free pages returned ({}): {} -> {} (backup {})\n",
            x.outputs,
            size_text(x.output_bytes),
            x.vacuum,
            size_text(s.file_bytes),
            size_text(x.file_bytes_after),
            escape_str(&x.backup.display().to_string()),
        )),
        None if r.dry_run => {
            let mut back = Vec::new();
            if s.free_bytes > 0 {
                back.push(format!("{} of free pages (--in-place)", size_text(s.free_bytes)));
            }
            if t.unloaded_count > 0 {
                back.push(format!(
                    "{} of tool outputs a resume no longer loads (--in-place --clear-unloaded-outputs)",
                    size_text(t.unloaded_bytes)
                ));
            }
            match back.is_empty() {
                true => o.push_str("nothing to take back\n"),
                false => o.push_str(&format!("would take back: {}\n", back.join(", "))),
            }
        }
        None => o.push_str("nothing to take back: left alone\n"),
    }
    o
}

/// The lines on tool outputs and duplicated values.
fn outputs_and_copies(s: &Space) -> String {
    let mut o = String::new();
    let t = &s.tool_outputs;
    o.push_str(&format!(
        "\ntool outputs: {} ({}); {} ({}) before the compaction a resume starts from, which it no longer loads; {} ({}) marked cleared by the client\n",
        t.count,
        size_text(t.bytes),
        t.unloaded_count,
        size_text(t.unloaded_bytes),
        t.cleared_count,
        size_text(t.cleared_bytes),
    ));
    let d = &s.duplicates;
    o.push_str(&format!(
        "duplicates: {} values of {} or more stored more than once, {} copies too many ({})\n",
        d.values,
        size_text(d.min_bytes),
        d.copies,
        size_text(d.bytes),
    ));
    for x in &d.largest {
        o.push_str(&format!(
            "  {} x{} {}: part {} of {}\n",
            size_text(x.bytes),
            x.copies,
            escape_str(&x.what),
            escape_str(&x.part),
            escape_str(&x.session),
        ));
    }
    o
}

/// One database of `slim`'s PATHs: its report, as text or a JSON record.
pub fn run_one(
    g: &GlobalArgs,
    a: &SlimArgs,
    p: &Path,
    s: &dyn DatabaseSlimmer,
    out: &mut Out,
    say: &mut crate::output::report::Reporter,
) -> super::Result<()> {
    let mut r = DatabaseRecord {
        file: p.display().to_string(),
        dry_run: a.dry_run,
        ..DatabaseRecord::default()
    };
    refuse_file_options(a, p)?;
    if let Err(e) = one(a, p, s, &mut r) {
        r.error = Some(e.to_string());
    }
    if a.dry_run && r.error.is_none() && would_change(a, &r) {
        say.merge(crate::ExitStatus::Negative);
    }
    if g.json {
        if r.error.is_some() {
            say.merge(crate::ExitStatus::Error);
        }
        out.json(&super::record::Record::SlimDatabase(&r))?;
    } else if let Some(e) = &r.error {
        say.file_error(&r.file, e);
    } else {
        out.text(&text(out, &r))?;
    }
    Ok(())
}
