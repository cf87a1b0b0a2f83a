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
/// wherever it occurs. Read a window at a time: what is held is one window, never the file.
pub(crate) fn learn_file(src: &Source, r: &Redactor, bar: &ProgressBar) -> Result<(), ExportError> {
    if let Some(document) = one_document_of(src)? {
        r.learn_value(&crate::io::json::parse_kept(document.body()).unwrap_or(Value::Null));
        bar.inc(src.len());
        return Ok(());
    }
    for_each_window(src, |parts| {
        // Parts searched in parallel, their secrets numbered in file order.
        let found: Vec<Learned> = parts
            .par_iter()
            .map(|part| {
                let mut found = Learned::default();
                for l in *part {
                    r.find_line(l.bytes, &mut found);
                    bar.inc(l.bytes.len() as u64 + 1);
                }
                found
            })
            .collect();
        for f in found {
            r.commit(f);
        }
    })
    .map_err(|e| cannot_read(src, e))
}

/// A file that is one JSON document spanning lines, read whole (it is parsed whole).
struct Document<'a>(std::borrow::Cow<'a, [u8]>);

impl Document<'_> {
    /// The document without its byte-order mark.
    fn body(&self) -> &[u8] {
        self.0.strip_prefix(BOM).unwrap_or(&self.0)
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The file read whole when it is one JSON document ([`one_document`]); `None` for JSON Lines,
/// told from the first line alone unless that line could start such a document, so that a
/// JSON Lines file is never read whole to tell.
fn one_document_of(src: &Source) -> Result<Option<Document<'_>>, ExportError> {
    if !may_be_one_document(src).map_err(|e| cannot_read(src, e))? {
        return Ok(None);
    }
    let document = Document(src.whole().map_err(|e| cannot_read(src, e))?);
    Ok(one_document(document.body()).then_some(document))
}

/// Whether the first line of `src` may start a document spanning lines: it is blank or starts
/// an object, is not a JSON value of its own, and a newline follows it. Read in growing
/// pieces until its end.
fn may_be_one_document(src: &Source) -> std::io::Result<bool> {
    let mut want: u64 = 64 * 1024;
    loop {
        let n = want.min(src.len());
        let head = src.read_range(0, n as usize)?;
        let body = head.strip_prefix(BOM).unwrap_or(&head);
        match memchr::memchr(b'\n', body) {
            Some(i) => {
                let first = &body[..i];
                let start = first.iter().find(|b| !b.is_ascii_whitespace());
                return Ok(matches!(start, None | Some(b'{')) && for_each_line_is_not_jsonl(first));
            }
            None if n == src.len() => return Ok(false),
            None => want *= 2,
        }
    }
}

/// The lines of `src` a window at a time ([`Source::for_each_chunk`]: windows end on line
/// ends; a mapping's pages are given back behind each), each window's lines in parts of about
/// [`PART`] bytes handed to `each`, in file order.
fn for_each_window(src: &Source, mut each: impl FnMut(&[&[Line<'_>]])) -> std::io::Result<()> {
    let mut stats = crate::io::lines::LineStats::default();
    src.for_each_chunk(|at, chunk, last| {
        let mut lines = Vec::new();
        crate::io::lines::split_chunk(at, chunk, last, &mut stats, &mut |l| lines.push(l));
        each(&chunks(&lines));
    })
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
    if let Some(document) = one_document_of(src)? {
        let body = document.body();
        // Read with the caps; the error, where there is one, is serde_json's own.
        let kept = crate::io::json::serde_reads(body).then(|| crate::io::json::parse_kept_exact(body));
        let mut v = match kept.flatten() {
            Some(v) => v,
            None => serde_json::from_slice::<Value>(body).map_err(|e| ExportError::Invalid {
                file: src.name().to_string(),
                cause: Box::new(e),
            })?,
        };
        bar.inc(src.len());
        if r.redact_value(&mut v) {
            let out =
                serde_json::to_vec_pretty(&crate::io::json::Json(&v)).map_err(|e| ExportError::Write(e.into()))?;
            w.write_all(&out).map_err(ExportError::Write)?;
            return w.write_all(b"\n").map_err(ExportError::Write);
        }
        return w.write_all(&document.0).map_err(ExportError::Write);
    }
    let redact = |part: &[Line<'_>]| {
        let mut out = Vec::with_capacity(PART + PART / 4);
        for l in part {
            out.extend_from_slice(&r.redact_line(l.bytes));
            out.push(b'\n');
            bar.inc(l.bytes.len() as u64 + 1);
        }
        out
    };
    // Once every secret is known, parts are independent: a window's parts are redacted in
    // parallel and written in order (what is held is one window and its redacted copy).
    let sealed = r.is_sealed();
    let mut written = Ok(());
    let read = for_each_window(src, |parts| {
        if written.is_err() {
            return;
        }
        let done: Vec<Vec<u8>> = if sealed {
            parts.par_iter().map(|p| redact(p)).collect()
        } else {
            parts.iter().map(|p| redact(p)).collect()
        };
        written = done.iter().try_for_each(|d| w.write_all(d));
    });
    written.map_err(ExportError::Write)?;
    read.map_err(|e| cannot_read(src, e))
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
