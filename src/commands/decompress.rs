//! `cctool decompress COMPACTED --from FULL`: undo tier-1 compaction of a v5 session.

use std::path::Path;

use serde::Serialize;

use super::error::{FormatRefusal, Refusal};
use crate::ExitStatus;
use crate::agents::cctool::compact::{self as session, Unrestored};
use crate::cli::{DecompressArgs, GlobalArgs};
use crate::error::Error;
use crate::io::Input;
use crate::io::atomic::{InPlace, Seen, replace_with_backup_by, write_new_file_by};
use crate::io::paths::beside;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::v5::schema::{self as migrate, MessageV3};

#[derive(Serialize, Debug, Default)]
pub struct Decompression {
    pub file: String,
    pub from: String,
    pub output: Option<String>,
    pub backup: Option<String>,
    pub messages: usize,
    pub placeholders: usize,
    pub reasoning: usize,
    pub unrestored: Vec<Unrestored>,
    pub error: Option<String>,
}

pub fn run(g: &GlobalArgs, a: &DecompressArgs) -> super::Result<ExitStatus> {
    let mut d = Decompression {
        file: a.file.display().to_string(),
        from: a.from.display().to_string(),
        ..Decompression::default()
    };
    let result = decompress(g, a, &mut d);
    let mut out = Out::new(g.color);
    let mut say = g.reporter();
    match &result {
        Err(e) => {
            d.error = Some(e.to_string());
            say.merge(ExitStatus::Error);
        }
        Ok(()) if !d.unrestored.is_empty() => say.merge(ExitStatus::Negative),
        Ok(()) => {}
    }
    if g.json {
        out.json(&super::record::Record::Decompression(&d))?;
    } else if let Some(e) = &d.error {
        say.fatal_for(&d.file, e);
    } else {
        let verb = if a.dry_run { "would restore" } else { "restored" };
        let mut s = format!(
            "{}: {verb} {} placeholders and {} reasoning items in {} messages from {}",
            d.file, d.placeholders, d.reasoning, d.messages, d.from
        );
        if let Some(o) = &d.output {
            s.push_str(&format!(
                "; {} {o}",
                if a.dry_run { "would write" } else { "written to" }
            ));
        }
        if let Some(b) = &d.backup {
            s.push_str(&format!(" (backup {b})"));
        }
        out.text(&format!("{}\n", escape_str(&s)))?;
        for u in &d.unrestored {
            out.text(&format!(
                "  not restored: message {} (tool call {})\n",
                u.message_id.map_or_else(|| "?".into(), |i| i.to_string()),
                escape_str(u.tool_call_id.as_deref().unwrap_or("?"))
            ))?;
        }
    }
    out.flush()?;
    say.swept();
    Ok(say.status())
}

/// The full record's messages: a session file, or a native file imported with its full history.
fn full_messages(g: &GlobalArgs, path: &Path) -> super::Result<Vec<MessageV3>> {
    let from = || format!("--from {}", path.display());
    let (src, format) = super::open_session(&Input::Path(path.to_path_buf()), g).map_err(|e| e.about(from()))?;
    let s = crate::agents::agent(format)
        .full_session(&src)
        .and_then(|s| src.check().map(|()| s).map_err(Error::Read))
        .map_err(|e| e.about(from()))?;
    // Taken out, not copied: a full record of a million messages is held once.
    Ok(match s {
        migrate::Session::V3Plus { messages, .. } => messages,
        _ => Vec::new(),
    })
}

fn decompress(g: &GlobalArgs, a: &DecompressArgs, d: &mut Decompression) -> super::Result<()> {
    let input = super::file_input(&a.file)?;
    if matches!(input, Input::Archived(_)) && (a.in_place || a.output.is_none()) {
        return Err(Refusal::ArchivedNeedsOutput.into());
    }
    let file = super::input_path(&input, &a.file);
    let (src, format) = super::open_session(&input, g)?;
    if !crate::agents::is_own_session(format) {
        return Err(Refusal::from(FormatRefusal::Decompress(format)).into());
    }
    let mut s = super::read_session(&src)?;
    let full = full_messages(g, &a.from)?;
    let r = session::decompress(&mut s, &full);
    d.messages = r.messages;
    d.placeholders = r.placeholders;
    d.reasoning = r.reasoning;
    d.unrestored = r.unrestored;
    let target = if a.in_place {
        file.clone()
    } else {
        a.output.clone().unwrap_or_else(|| beside(&file, "decompressed.json"))
    };
    d.output = Some(target.display().to_string());
    if a.dry_run {
        return Ok(());
    }
    if a.in_place {
        if let Some(why) = src.in_place_refusal() {
            return Err(Refusal::InPlace(why).into());
        }
        if let Some(age) = src.recently_modified().filter(|_| !a.force) {
            return Err(Refusal::LiveDecompress { secs: age.as_secs() }.into());
        }
        let how = InPlace {
            tag: "predecompress",
            seen: Seen::of(&src),
            force: a.force,
        };
        let done =
            replace_with_backup_by(&file, &how, |w| migrate::write_to(s, w)).map_err(crate::error::rewrite_failed)?;
        d.output = Some(done.target.display().to_string());
        d.backup = Some(done.backup.display().to_string());
    } else {
        write_new_file_by(&target, a.force, |w| migrate::write_to(s, w)).map_err(|e| Error::new_file(&target, e))?;
    }
    Ok(())
}
