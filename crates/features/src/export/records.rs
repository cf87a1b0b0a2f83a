//! Reading the records of a session for an export: those the document shows (each agent's
//! `Agent::export_records`) for `--format jsonl`, and the file line by line for `--format
//! native` and for finding its secrets.

use std::io::Write;

use indicatif::ProgressBar;
use rayon::prelude::*;

use serde_json::Value;

use super::ExportError;
use crate::io::Source;
use crate::io::lines::Line;
use crate::model::AgentId;
use crate::model::doc::cannot_read;
use crate::redact::{Learned, Redactor};

/// The size of the parts a file's lines are shared among threads in.
const PART: usize = 1 << 20;

/// `--format jsonl`: the records the document shows, one per line, as written (redacted).
pub fn write_jsonl(
    src: &Source,
    format: AgentId,
    full: bool,
    redactor: Option<&Redactor>,
    w: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut emit = |bytes: &[u8]| -> Result<(), ExportError> {
        let bytes = crate::io::json::minify(bytes);
        match redactor {
            Some(r) => w.write_all(&r.redact_line(&bytes)).map_err(ExportError::Write)?,
            None => w.write_all(&bytes).map_err(ExportError::Write)?,
        }
        w.write_all(b"\n").map_err(ExportError::Write)
    };
    crate::agents::agent(format).export_records(src, full, &mut emit)
}

/// Whether `body` (a file without its byte-order mark) is one JSON document spanning lines
/// (cctool sessions v1–v4, the 2025 Codex document) rather than JSON Lines.
fn one_document(body: &[u8]) -> bool {
    let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
    first == Some(b'{')
        && memchr::memchr(b'\n', body.trim_ascii()).is_some()
        && for_each_line_is_not_jsonl(body)
        && serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
}

/// The first pass of a redacted export: every secret of the file, found in every record as
/// written (whatever part of it the export shows), so that the second pass replaces each
/// wherever it occurs.
pub(crate) fn learn_file(src: &Source, r: &Redactor, bar: &ProgressBar) -> Result<(), ExportError> {
    let whole = src.whole().map_err(|e| cannot_read(src, e))?;
    let body = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&whole);
    if one_document(body) {
        r.learn_value(&crate::io::json::parse_kept(body).unwrap_or(Value::Null));
        bar.inc(whole.len() as u64);
        return Ok(());
    }
    let lines = lines_released(src, &whole);
    // Parts searched in parallel, their secrets numbered in file order.
    let found: Vec<Learned> = chunks(&lines)
        .par_iter()
        .map(|part| {
            let mut found = Learned::default();
            for l in *part {
                r.find_line(l.bytes, &mut found);
                bar.inc(l.bytes.len() as u64 + 1);
            }
            release(src, part);
            found
        })
        .collect();
    for f in found {
        r.commit(f);
    }
    Ok(())
}

/// Lines in parts of about [`PART`] bytes, for work shared among threads.
fn chunks<'l, 'a>(lines: &'l [Line<'a>]) -> Vec<&'l [Line<'a>]> {
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, l) in lines.iter().enumerate() {
        size += l.bytes.len() + 1;
        if size >= PART {
            out.push(&lines[start..=i]);
            (start, size) = (i + 1, 0);
        }
    }
    if start < lines.len() {
        out.push(&lines[start..]);
    }
    out
}

/// `--format native`: the whole file in its own format, every record redacted, nothing else
/// changed; lines without a match are copied as written. A file that is one JSON document
/// (cctool sessions v1–v4, the 2025 Codex document) is redacted as that document.
pub fn write_native(
    src: &Source,
    redactor: Option<&Redactor>,
    bar: &ProgressBar,
    w: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut checked = Checked {
        src,
        w,
        held: Vec::with_capacity(CHECKED_PIECE),
    };
    // A write refused by the check is the source's change, said as such.
    copy_native(src, redactor, bar, &mut checked).map_err(|e| match (e, src.check()) {
        (ExportError::Write(_), Err(changed)) => cannot_read(src, changed),
        (other, _) => other,
    })?;
    checked.pass().map_err(|e| cannot_read(src, e))
}

/// What [`Checked`] holds before it checks the source and passes it on.
const CHECKED_PIECE: usize = 1 << 20;

/// A writer that copies what it is given, checks that the source it came from is still as it
/// was read ([`Source::check`]), and only then passes it on: bytes read from a mapping that a
/// truncation turned into zeros are never written, since the check after the copy sees the
/// truncation that made them.
struct Checked<'a> {
    src: &'a Source,
    w: &'a mut dyn Write,
    held: Vec<u8>,
}

impl Checked<'_> {
    fn pass(&mut self) -> std::io::Result<()> {
        self.src.check()?;
        self.w.write_all(&self.held)?;
        self.held.clear();
        Ok(())
    }
}

impl Write for Checked<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(CHECKED_PIECE);
        self.held.extend_from_slice(&buf[..n]);
        if self.held.len() >= CHECKED_PIECE {
            self.pass()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.pass()?;
        self.w.flush()
    }
}

/// The lines of `whole`, the content of `src`: the pages of a mapping given back behind the
/// split, which reads every page before any part is read.
fn lines_released<'a>(src: &Source, whole: &'a [u8]) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    let mut behind = 0;
    crate::io::lines::split_chunk(0, whole, true, &mut Default::default(), &mut |l| {
        if l.offset - behind >= PART as u64 * 8 {
            src.done_with(behind, l.offset - behind);
            behind = l.offset;
        }
        lines.push(l);
    });
    src.done_with(0, whole.len() as u64);
    lines
}

/// Gives back the mapped pages of a part once it is read (a no-op for a file read into
/// memory), so that a pass over a mapped file does not keep it all resident.
fn release(src: &Source, part: &[Line<'_>]) {
    if let (Some(first), Some(last)) = (part.first(), part.last()) {
        src.done_with(first.offset, last.offset + last.bytes.len() as u64 + 1 - first.offset);
    }
}

fn copy_native(
    src: &Source,
    redactor: Option<&Redactor>,
    bar: &ProgressBar,
    w: &mut dyn Write,
) -> Result<(), ExportError> {
    let Some(r) = redactor else {
        // Copied a window at a time, so that neither the file nor its mapped pages are held.
        let mut written = Ok(());
        src.for_each_chunk(|_, bytes, _| {
            if written.is_ok() {
                written = w.write_all(bytes);
            }
        })
        .map_err(|e| cannot_read(src, e))?;
        return written.map_err(ExportError::Write);
    };
    let whole = src.whole().map_err(|e| cannot_read(src, e))?;
    let body = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&whole);
    if one_document(body) {
        // Read with the caps; the error, where there is one, is serde_json's own.
        let kept = crate::io::json::serde_reads(body).then(|| crate::io::json::parse_kept_exact(body));
        let mut v = match kept.flatten() {
            Some(v) => v,
            None => serde_json::from_slice::<Value>(body).map_err(|e| ExportError::Invalid {
                file: src.name().to_string(),
                cause: Box::new(e),
            })?,
        };
        bar.inc(whole.len() as u64);
        if r.redact_value(&mut v) {
            let out =
                serde_json::to_vec_pretty(&crate::io::json::Json(&v)).map_err(|e| ExportError::Write(e.into()))?;
            w.write_all(&out).map_err(ExportError::Write)?;
            return w.write_all(b"\n").map_err(ExportError::Write);
        }
        return w.write_all(&whole).map_err(ExportError::Write);
    }
    let lines = lines_released(src, &whole);
    let redact = |part: &[Line<'_>]| {
        let mut out = Vec::with_capacity(PART + PART / 4);
        for l in part {
            out.extend_from_slice(&r.redact_line(l.bytes));
            out.push(b'\n');
            bar.inc(l.bytes.len() as u64 + 1);
        }
        release(src, part);
        out
    };
    let parts = chunks(&lines);
    // Once every secret is known, parts are independent: redacted in parallel a few at a
    // time (what is held is a few parts per thread), written in order.
    let at_once = if r.is_sealed() {
        2 * rayon::current_num_threads()
    } else {
        1
    };
    for batch in parts.chunks(at_once) {
        let done: Vec<Vec<u8>> = if at_once > 1 {
            batch.par_iter().map(|p| redact(p)).collect()
        } else {
            batch.iter().map(|p| redact(p)).collect()
        };
        for d in done {
            w.write_all(&d).map_err(ExportError::Write)?;
        }
    }
    Ok(())
}

/// Whether the first line of a document is not a JSON value of its own (so the file is one
/// pretty-printed document, not JSON Lines).
fn for_each_line_is_not_jsonl(body: &[u8]) -> bool {
    let first = body.split(|&b| b == b'\n').next().unwrap_or(body);
    serde_json::from_slice::<serde::de::IgnoredAny>(first).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::source::{COLD_AFTER, MMAP_MIN, MmapChoice};

    /// A mapped input cut after it was opened: the native export fails naming the change and
    /// writes nothing, where it wrote the zeros the cut pages read as.
    #[test]
    fn a_native_export_of_a_file_cut_under_its_mapping_writes_no_zeros() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line = b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n";
        let lines = (MMAP_MIN as usize + 8192) / line.len() + 1;
        std::fs::write(&path, line.repeat(lines)).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() - COLD_AFTER * 2).unwrap();
        let src = Source::open_path(&path, MmapChoice::Auto).unwrap();
        assert!(src.is_mapped(), "the file is mapped");
        f.set_len(100).unwrap();
        let mut out = Vec::new();
        let err = write_native(&src, None, &indicatif::ProgressBar::hidden(), &mut out).unwrap_err();
        assert!(
            err.to_string().contains("changed while it was read: truncated from"),
            "{err}"
        );
        assert!(!out.contains(&0), "zero bytes written");
    }
}
