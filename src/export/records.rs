//! Reading the records of each format for an export: the chain a resume loads (or the whole
//! history), and the file line by line for `--format native`.

use std::io::Write;

use indicatif::ProgressBar;
use rayon::prelude::*;

use serde_json::Value;

use super::{Entry, ExportError, claude_msg, codex_msg, local_time, parse_record};
use crate::agents::claude_code::chain as claude;
use crate::agents::codex::rollout::{Era, ItemSrc};
use crate::io::Source;
use crate::io::lines::{Line, for_each_line};
use crate::model::Format;
use crate::redact::{Learned, Redactor};

/// The size of the parts a file's lines are shared among threads in.
const PART: usize = 1 << 20;

fn cannot_read(src: &Source, cause: std::io::Error) -> ExportError {
    ExportError::Read {
        file: src.name().to_string(),
        cause,
    }
}

type ClaudeChain = (Vec<(u64, Vec<u8>)>, Vec<usize>, Option<usize>);

/// The records of the chain Claude Code loads (earlier history too, with `full`), as written,
/// with their line numbers; then the indexes where earlier parts start, and where what a
/// resume loads starts.
fn claude_chain(src: &Source, full: bool) -> Result<ClaudeChain, ExportError> {
    let t = claude::read(src).map_err(|e| cannot_read(src, e))?;
    let chain = t
        .rebuild(&claude::Options {
            loader: claude::Loader::default(),
            tip: None,
            full,
        })
        .map_err(|e| ExportError::Invalid {
            file: src.name().to_string(),
            message: e.to_string(),
        })?;
    let mut out = Vec::with_capacity(chain.positions.len());
    for &pos in &chain.positions {
        let node = t.node(pos);
        let bytes = src
            .read_range(node.offset, node.len as usize)
            .map_err(|e| cannot_read(src, e))?;
        out.push((node.line, bytes.into_owned()));
    }
    Ok((out, chain.earlier_parts.clone(), chain.loaded_from))
}

pub fn claude_entries(src: &Source, full: bool, redactor: Option<&Redactor>) -> Result<Vec<Entry>, ExportError> {
    let (records, earlier, loaded_from) = claude_chain(src, full)?;
    let mut entries = Vec::with_capacity(records.len());
    for (i, (line, bytes)) in records.iter().enumerate() {
        if earlier.contains(&i) {
            entries.push(Entry::Mark {
                title: "Earlier history, replaced by a compaction (not loaded on resume)".into(),
                summary: None,
            });
        } else if !earlier.is_empty() && loaded_from == Some(i) {
            entries.push(Entry::Mark {
                title: "What a resume loads".into(),
                summary: None,
            });
        }
        if let Some(e) = claude_msg(&parse_record(bytes, redactor), *line) {
            entries.push(e);
        }
    }
    Ok(entries)
}

/// The local time of every line that has a `timestamp` (Codex writes one per envelope).
fn line_times(src: &Source) -> Result<Vec<(u64, String)>, ExportError> {
    #[derive(serde::Deserialize)]
    struct Stamp<'a> {
        #[serde(borrow, default)]
        timestamp: Option<std::borrow::Cow<'a, str>>,
    }
    let mut out = Vec::new();
    for_each_line(src, |l| {
        if let Ok(Stamp { timestamp: Some(t) }) = serde_json::from_slice::<Stamp<'_>>(l.bytes) {
            out.push((l.no, local_time(&t)));
        }
    })
    .map_err(|e| cannot_read(src, e))?;
    Ok(out)
}

pub fn codex_entries(src: &Source, full: bool, redactor: Option<&Redactor>) -> Result<Vec<Entry>, ExportError> {
    let rollout = crate::agents::codex::rollout::read_records(src).map_err(|e| cannot_read(src, e))?;
    let times = line_times(src)?;
    let time_of = |line: u64| {
        times
            .binary_search_by_key(&line, |(l, _)| *l)
            .ok()
            .map(|i| times[i].1.clone())
    };
    let mut entries = Vec::new();
    if full && rollout.era == Era::Envelope {
        // Every item in file order; each compaction marked where it happened, with its summary.
        for_each_line(src, |l| {
            let v = parse_record(l.bytes, redactor);
            let payload = v.get("payload").unwrap_or(&Value::Null);
            match v.get("type").and_then(Value::as_str) {
                Some("response_item") => {
                    if let Some(e) = codex_msg(payload, Some(l.no), time_of(l.no)) {
                        entries.push(e);
                    }
                }
                Some("compacted") => entries.push(Entry::Mark {
                    title: format!(
                        "Compaction{}",
                        time_of(l.no).map(|t| format!(" at {t}")).unwrap_or_default()
                    ),
                    summary: payload
                        .get("message")
                        .and_then(Value::as_str)
                        .filter(|m| !m.is_empty())
                        .map(str::to_string),
                }),
                _ => {}
            }
        })
        .map_err(|e| cannot_read(src, e))?;
        return Ok(entries);
    }
    let history = crate::agents::codex::history::reconstruct(&rollout);
    if let Some(base) = history.base_line {
        entries.push(Entry::Mark {
            title: format!("Resumed from the compaction at line {base}"),
            summary: None,
        });
    }
    for item in &history.items {
        let (bytes, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => (
                src.read_range(*offset, *len as usize)
                    .map_err(|e| cannot_read(src, e))?
                    .into_owned(),
                Some(*line),
            ),
            ItemSrc::Synth(s) => (s.clone().into_bytes(), None),
        };
        let v = parse_record(&bytes, redactor);
        if let Some(e) = codex_msg(&v, line, line.and_then(time_of)) {
            entries.push(e);
        }
    }
    Ok(entries)
}

/// `--format jsonl`: the records the document shows, one per line, as written (redacted).
pub fn write_jsonl(
    src: &Source,
    format: Format,
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
    match format {
        Format::ClaudeCode => {
            for (_, bytes) in claude_chain(src, full)?.0 {
                emit(&bytes)?;
            }
        }
        Format::Codex => {
            let rollout = crate::agents::codex::rollout::read_records(src).map_err(|e| cannot_read(src, e))?;
            if full && rollout.era == Era::Envelope {
                // The whole history: every item and every compaction, as the lines were written.
                let mut failed = Ok(());
                for_each_line(src, |l| {
                    #[derive(serde::Deserialize)]
                    struct Kind<'a> {
                        #[serde(borrow, rename = "type")]
                        ty: Option<std::borrow::Cow<'a, str>>,
                    }
                    let keep = serde_json::from_slice::<Kind<'_>>(l.bytes)
                        .ok()
                        .and_then(|k| k.ty)
                        .is_some_and(|t| t == "response_item" || t == "compacted");
                    if keep && failed.is_ok() {
                        failed = emit(l.bytes);
                    }
                })
                .map_err(|e| cannot_read(src, e))?;
                return failed;
            }
            for item in crate::agents::codex::history::reconstruct(&rollout).items {
                match item.src {
                    ItemSrc::Raw { offset, len, .. } => {
                        emit(&src.read_range(offset, len as usize).map_err(|e| cannot_read(src, e))?)?
                    }
                    ItemSrc::Synth(s) => emit(s.as_bytes())?,
                }
            }
        }
        Format::CctoolSession => {
            let m = crate::agents::cctool::file::read_messages(src)?;
            for raw in m.messages.iter() {
                emit(raw)?;
            }
        }
    }
    Ok(())
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
pub fn learn_file(src: &Source, r: &Redactor, bar: &ProgressBar) -> Result<(), ExportError> {
    let whole = src.whole().map_err(|e| cannot_read(src, e))?;
    let body = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&whole);
    if one_document(body) {
        r.learn_value(&crate::io::json::parse_record(body));
        bar.inc(whole.len() as u64);
        return Ok(());
    }
    let (lines, _) = crate::io::lines::lines_of(&whole);
    // Parts searched in parallel, their secrets numbered in file order.
    let found: Vec<Learned> = chunks(&lines)
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

fn copy_native(
    src: &Source,
    redactor: Option<&Redactor>,
    bar: &ProgressBar,
    w: &mut dyn Write,
) -> Result<(), ExportError> {
    let whole = src.whole().map_err(|e| cannot_read(src, e))?;
    let Some(r) = redactor else {
        return w.write_all(&whole).map_err(ExportError::Write);
    };
    let body = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&whole);
    if one_document(body) {
        let mut v: Value = serde_json::from_slice(body).map_err(|e| ExportError::Invalid {
            file: src.name().to_string(),
            message: e.to_string(),
        })?;
        bar.inc(whole.len() as u64);
        if r.redact_value(&mut v) {
            let out = serde_json::to_vec_pretty(&v).map_err(|e| ExportError::Write(e.into()))?;
            w.write_all(&out).map_err(ExportError::Write)?;
            return w.write_all(b"\n").map_err(ExportError::Write);
        }
        return w.write_all(&whole).map_err(ExportError::Write);
    }
    let (lines, _) = crate::io::lines::lines_of(&whole);
    let redact = |part: &[Line<'_>]| {
        let mut out = Vec::with_capacity(PART + PART / 4);
        for l in part {
            out.extend_from_slice(&r.redact_line(l.bytes));
            out.push(b'\n');
            bar.inc(l.bytes.len() as u64 + 1);
        }
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
