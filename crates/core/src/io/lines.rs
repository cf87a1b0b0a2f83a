//! Splitting a session file into physical lines.
//!
//! Agents write one JSON record per `\n`-terminated line, but real files also carry a
//! leading BOM, CRLF endings (files edited or copied on Windows), blank lines, a final line
//! without its newline (the agent is still writing, or crashed mid-append) and lines of many
//! megabytes (tool results, base64 images). The splitter handles all of these and leaves the
//! JSON to the caller; nothing here allocates per line.

use std::io;

use super::source::Source;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One physical line, without its terminator (`\n` or `\r\n`) and without a leading BOM.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// 1-based physical line number.
    pub no: u64,
    /// Byte offset of `bytes[0]` in the file.
    pub offset: u64,
    /// The content: raw bytes, not checked to be UTF-8.
    pub bytes: &'a [u8],
    /// False only for a last line that has no newline after it.
    pub terminated: bool,
}

/// What the splitter saw besides the lines it handed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineStats {
    /// Physical lines, blank ones included.
    pub lines: u64,
    /// Lines of only spaces, tabs and line ends, which are not handed over.
    pub blank: u64,
    /// The file starts with a UTF-8 BOM (which is not part of the first line's bytes).
    pub had_bom: bool,
    /// Lines ended by `\r\n` rather than `\n`.
    pub crlf: u64,
    /// The file does not end with a newline (and its last line is not blank).
    pub unterminated_tail: bool,
}

/// Calls `f` for every non-blank line of `src`, in order.
pub fn for_each_line(src: &Source, mut f: impl FnMut(Line<'_>)) -> io::Result<LineStats> {
    let mut stats = LineStats::default();
    src.for_each_chunk(|offset, chunk, last| split_chunk(offset, chunk, last, &mut stats, &mut f))?;
    Ok(stats)
}

/// Calls `f` for every non-blank line from byte `offset` on, which starts line `first_line`.
pub fn for_each_line_from(
    src: &Source,
    offset: u64,
    first_line: u64,
    mut f: impl FnMut(Line<'_>),
) -> io::Result<LineStats> {
    for_each_line_windowed(src, offset, first_line, |l| {
        if let Some(l) = l {
            f(l);
        }
    })
}

/// [`for_each_line_from`], also calling `f(None)` at the end of each window the file is read
/// in, before a mapped window's pages are released: where a caller that holds on to lines
/// (a mapped file's lines can be re-borrowed from [`Source::as_slice`]) finishes with them.
pub fn for_each_line_windowed(
    src: &Source,
    offset: u64,
    first_line: u64,
    mut f: impl FnMut(Option<Line<'_>>),
) -> io::Result<LineStats> {
    let mut stats = LineStats {
        lines: first_line.saturating_sub(1),
        ..LineStats::default()
    };
    src.for_each_chunk_from(offset, |at, chunk, last| {
        split_chunk(at, chunk, last, &mut stats, &mut |l| f(Some(l)));
        f(None);
    })?;
    Ok(stats)
}

/// Calls `f` for every line holding one of `needles`, found with a SIMD substring search;
/// no other line is looked at beyond counting newlines for line numbers. The cheap way to
/// read the few records a command needs from a large file.
pub fn for_each_marker_line(src: &Source, needles: &[&[u8]], mut f: impl FnMut(Line<'_>)) -> io::Result<()> {
    let finders = super::needles::Needles::new(needles);
    if let Some(r) = par_marker_windows(src, &finders, Some, |no, l| f(Line { no, ..l })) {
        return r;
    }
    let mut line_no = 1u64;
    src.for_each_chunk(|base, chunk, last| scan_markers(&finders, base, chunk, last, &mut line_no, &mut f))
}

/// For every line holding one of `needles`: `map` on the line (on every core for a large
/// file held as one slice, a window each), then `sink` on its number and what `map` made,
/// in file order. For the records a command reads from most lines of a file, such as every
/// tool call.
pub fn map_marker_lines<T: Send>(
    src: &Source,
    needles: &[&[u8]],
    map: impl for<'l> Fn(Line<'l>) -> Option<T> + Sync,
    mut sink: impl FnMut(u64, T),
) -> io::Result<()> {
    let finders = super::needles::Needles::new(needles);
    if let Some(r) = par_marker_windows(src, &finders, &map, &mut sink) {
        return r;
    }
    let mut line_no = 1u64;
    src.for_each_chunk(|base, chunk, last| {
        scan_markers(&finders, base, chunk, last, &mut line_no, &mut |l| {
            let no = l.no;
            if let Some(t) = map(l) {
                sink(no, t);
            }
        })
    })
}

/// Maps `map` over every non-blank line of `src` (its `no` counted from the start of its
/// window) into one `W` per window, on every core, and hands each `W` to `fold` in file order
/// with the number of lines before its window: `no + base` is the line's number in the file.
/// A source not held as one slice is read in order, a chunk a window. For a pass that needs
/// something of every line, such as the type of each line a conversion leaves out.
pub fn par_fold<W: Send>(
    src: &Source,
    new: impl Fn() -> W + Sync,
    map: impl Fn(&mut W, Line<'_>) + Sync,
    mut fold: impl FnMut(W, u64),
) -> std::io::Result<()> {
    let mut base = 0u64;
    let parallel = src.par_rounds(
        0,
        rayon::current_num_threads() * 2,
        |at, chunk, last| {
            let mut stats = LineStats::default();
            let mut w = new();
            split_chunk(at, chunk, last, &mut stats, &mut |l| map(&mut w, l));
            (w, stats.lines)
        },
        |(w, lines)| {
            fold(w, base);
            base += lines;
        },
    );
    match parallel {
        Some(done) => done,
        // Folded a chunk at a time, so what `map` makes of every line is never held at once.
        None => {
            let mut stats = LineStats::default();
            src.for_each_chunk(|offset, chunk, last| {
                let mut w = new();
                split_chunk(offset, chunk, last, &mut stats, &mut |l| map(&mut w, l));
                fold(w, 0);
            })
        }
    }
}

/// The marker search of a large file held as one slice, on every core: each window is
/// searched and its lines mapped in parallel, then handed to `sink` in file order, before
/// the window's mapped pages are released (so that a file where most lines hold a marker
/// does not stay resident). None for files searched in order.
fn par_marker_windows<'s, T: Send>(
    src: &'s Source,
    finders: &super::needles::Needles<'_>,
    map: impl Fn(Line<'s>) -> Option<T> + Sync,
    mut sink: impl FnMut(u64, T),
) -> Option<io::Result<()>> {
    if src.len() < PARALLEL_SCAN_MIN {
        return None;
    }
    let mut first_line = 1u64;
    src.par_rounds(
        0,
        rayon::current_num_threads() * 2,
        |base, chunk, last| {
            let mut found = Vec::new();
            let mut line_no = 0u64;
            scan_markers(finders, base, chunk, last, &mut line_no, &mut |l| {
                let no = l.no;
                if let Some(t) = map(l) {
                    found.push((no, t));
                }
            });
            (found, line_no)
        },
        |(found, newlines)| {
            for (no, t) in found {
                sink(first_line + no, t);
            }
            first_line += newlines;
        },
    )
}

/// Files at least this large are searched for markers on every core.
const PARALLEL_SCAN_MIN: u64 = 32 * 1024 * 1024;

/// The marker lines of one chunk that starts a line; `line_no` is the number of the chunk's
/// first line on entry and of the next chunk's on return (after the last chunk, of its last
/// marker line).
fn scan_markers<'a>(
    finders: &super::needles::Needles<'_>,
    base: u64,
    chunk: &'a [u8],
    last: bool,
    line_no: &mut u64,
    f: &mut impl FnMut(Line<'a>),
) {
    let hits = finders.find_all(chunk);
    let mut cursor = 0usize;
    let mut last_start = usize::MAX;
    // The end of the last line reported: later hits before it are in that line (a long line
    // holds many), and searching back from each for the line's start cost a pass over the
    // line per hit.
    let mut last_end = 0usize;
    for hit in hits {
        if hit < last_end {
            continue;
        }
        let start = memchr::memrchr(b'\n', &chunk[..hit]).map_or(0, |i| i + 1);
        // Never behind the line before: a mapped page that turned to zeros under a truncation
        // (see `mapguard`) can hide the newline the hit was found after.
        let start = start.max(cursor);
        if start == last_start {
            continue;
        }
        last_start = start;
        *line_no += memchr::memchr_iter(b'\n', &chunk[cursor..start]).count() as u64;
        cursor = start;
        let nl = memchr::memchr(b'\n', &chunk[hit..]).map(|i| hit + i);
        let end = nl.unwrap_or(chunk.len());
        last_end = end;
        let mut bytes = &chunk[start..end];
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let mut at = start;
        if base == 0 && start == 0 && bytes.starts_with(BOM) {
            bytes = &bytes[BOM.len()..];
            at = BOM.len();
        }
        f(Line {
            no: *line_no,
            offset: base + at as u64,
            bytes,
            terminated: nl.is_some() || !last,
        });
    }
    // Nothing is numbered after the last chunk: most files hold no marker at all, and counting
    // their newlines would be a second pass over the whole file.
    if !last {
        *line_no += memchr::memchr_iter(b'\n', &chunk[cursor..]).count() as u64;
    }
}

/// Splits one chunk. Chunks always end on a line boundary except the last one.
pub fn split_chunk<'a>(offset: u64, chunk: &'a [u8], last: bool, stats: &mut LineStats, f: &mut impl FnMut(Line<'a>)) {
    let mut start = 0usize;
    if offset == 0 && chunk.starts_with(BOM) {
        stats.had_bom = true;
        start = BOM.len();
    }
    while start < chunk.len() {
        let (end, next, terminated) = match memchr::memchr(b'\n', &chunk[start..]) {
            Some(i) => (start + i, start + i + 1, true),
            None => (chunk.len(), chunk.len(), !last),
        };
        let mut bytes = &chunk[start..end];
        if let Some(stripped) = bytes.strip_suffix(b"\r") {
            if terminated {
                stats.crlf += 1;
            }
            bytes = stripped;
        }
        stats.lines += 1;
        if is_blank(bytes) {
            stats.blank += 1;
        } else {
            if !terminated {
                stats.unterminated_tail = true;
            }
            f(Line {
                no: stats.lines,
                offset: offset + start as u64,
                bytes,
                terminated,
            });
        }
        start = next;
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// Splits a byte slice held in memory (tests, benches, one-off helpers).
pub fn lines_of(bytes: &[u8]) -> (Vec<Line<'_>>, LineStats) {
    let mut stats = LineStats::default();
    let mut out = Vec::new();
    split_chunk(0, bytes, true, &mut stats, &mut |l| out.push(l));
    (out, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_lines_of_a_large_file_are_numbered_as_read_in_order() {
        // Over PARALLEL_SCAN_MIN, so the windows are searched on every core; lines of many
        // sizes so that markers fall at window edges too.
        let mut bytes = b"\xEF\xBB\xBFfirst MARK line\r\n".to_vec();
        let mut i = 0u64;
        while (bytes.len() as u64) < PARALLEL_SCAN_MIN + 3 * 1024 * 1024 {
            let pad = "x".repeat((i as usize * 7919) % 20_000);
            let mark = if i.is_multiple_of(97) {
                "MARK"
            } else if i.is_multiple_of(89) {
                "OTHER"
            } else {
                ""
            };
            bytes.extend_from_slice(format!("{{\"i\":{i},\"p\":\"{pad}{mark}\"}}\n").as_bytes());
            i += 1;
        }
        bytes.extend_from_slice(b"last MARK without newline");
        let expected: Vec<(u64, u64, bool)> = {
            let mut out = Vec::new();
            let mut offset = 0u64;
            for (n, l) in bytes.split(|&b| b == b'\n').enumerate() {
                if memchr::memmem::find(l, b"MARK").is_some() || memchr::memmem::find(l, b"OTHER").is_some() {
                    let skip = if offset == 0 { 3 } else { 0 };
                    let terminated = offset + (l.len() as u64) < bytes.len() as u64;
                    out.push((n as u64 + 1, offset + skip, terminated));
                }
                offset += l.len() as u64 + 1;
            }
            out
        };
        let src = Source::from_bytes("big", bytes);
        let mut got = Vec::new();
        for_each_marker_line(&src, &[b"MARK", b"OTHER"], |l| got.push((l.no, l.offset, l.terminated))).unwrap();
        assert_eq!(got.len(), expected.len());
        assert_eq!(got, expected);
    }

    #[test]
    fn mapped_marker_lines_are_the_marker_lines() {
        for size in [200_000, PARALLEL_SCAN_MIN + 1024 * 1024] {
            let mut bytes = Vec::new();
            let mut i = 0u64;
            while (bytes.len() as u64) < size {
                let mark = if i.is_multiple_of(13) { "MARK" } else { "" };
                bytes.extend_from_slice(
                    format!("{{\"i\":{i},\"p\":\"{}{mark}\"}}\n", "y".repeat((i % 3000) as usize)).as_bytes(),
                );
                i += 1;
            }
            let src = Source::from_bytes("m", bytes);
            let mut plain = Vec::new();
            for_each_marker_line(&src, &[b"MARK"], |l| plain.push((l.no, l.offset, l.bytes.len()))).unwrap();
            let mut mapped = Vec::new();
            map_marker_lines(
                &src,
                &[b"MARK"],
                |l| Some((l.offset, l.bytes.len())),
                |no, (o, n)| mapped.push((no, o, n)),
            )
            .unwrap();
            assert!(plain.len() > 10);
            assert_eq!(plain, mapped, "{size}");
        }
    }

    fn texts(input: &[u8]) -> (Vec<(u64, String, bool)>, LineStats) {
        let (lines, stats) = lines_of(input);
        (
            lines
                .iter()
                .map(|l| (l.no, String::from_utf8_lossy(l.bytes).into_owned(), l.terminated))
                .collect(),
            stats,
        )
    }

    #[test]
    fn crlf_bom_blank_and_unterminated_tail() {
        let (lines, stats) = texts(b"\xEF\xBB\xBF{\"a\":1}\r\n\r\n  \n{\"b\":2}\n{\"c\"");
        assert_eq!(
            lines,
            vec![
                (1, "{\"a\":1}".into(), true),
                (4, "{\"b\":2}".into(), true),
                (5, "{\"c\"".into(), false)
            ]
        );
        assert!(stats.had_bom && stats.unterminated_tail);
        assert_eq!((stats.lines, stats.blank, stats.crlf), (5, 2, 2));
    }

    #[test]
    fn offsets_point_at_line_starts() {
        let input = b"ab\ncd\r\nef";
        let (lines, _) = lines_of(input);
        for l in &lines {
            assert_eq!(&input[l.offset as usize..l.offset as usize + l.bytes.len()], l.bytes);
        }
    }

    #[test]
    fn empty_and_newline_only_inputs() {
        assert!(lines_of(b"").0.is_empty());
        let (l, s) = lines_of(b"\n\n\n");
        assert!(l.is_empty());
        assert_eq!((s.lines, s.blank, s.unterminated_tail), (3, 3, false));
    }

    #[test]
    fn chunked_reading_matches_whole_reading() {
        // The stream reader hands over chunks ending on newlines; a chunk boundary must not
        // change numbering or offsets.
        let input = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}";
        let mut stats = LineStats::default();
        let mut got = Vec::new();
        split_chunk(0, &input[..8], false, &mut stats, &mut |l| got.push((l.no, l.offset)));
        split_chunk(8, &input[8..], true, &mut stats, &mut |l| got.push((l.no, l.offset)));
        let whole: Vec<_> = lines_of(input).0.iter().map(|l| (l.no, l.offset)).collect();
        assert_eq!(got, whole);
    }

    /// Every line of a file of many windows, numbered and placed as the reading in order
    /// numbers and places it: a BOM, CRLF endings, blank lines, an unterminated last line.
    #[test]
    fn par_fold_sees_the_lines_for_each_line_sees() {
        let mut bytes = b"\xEF\xBB\xBF{\"a\":1}\r\n\n".to_vec();
        let mut i = 0u64;
        // Past three windows of the parallel reader.
        while bytes.len() < 26 << 20 {
            let pad = "x".repeat((i * 7919 % 3000) as usize);
            bytes.extend(format!("{{\"n\":{i},\"pad\":\"{pad}\"}}").as_bytes());
            bytes.extend(match i % 5 {
                0 => &b"\r\n"[..],
                1 => b"\n  \n",
                _ => b"\n",
            });
            i += 1;
        }
        bytes.extend(b"{\"last\":true}");
        let src = Source::from_bytes("t", bytes);
        let mut plain = Vec::new();
        for_each_line(&src, |l| plain.push((l.no, l.offset, l.bytes.to_vec(), l.terminated))).unwrap();
        let mut par = Vec::new();
        let mut windows = 0;
        par_fold(
            &src,
            Vec::new,
            |w: &mut Vec<(u64, u64, Vec<u8>, bool)>, l| w.push((l.no, l.offset, l.bytes.to_vec(), l.terminated)),
            |w, base| {
                windows += 1;
                par.extend(w.into_iter().map(|(no, o, b, t)| (no + base, o, b, t)));
            },
        )
        .unwrap();
        assert!(windows > 2, "{windows} windows");
        assert_eq!(par.len(), plain.len());
        assert!(par == plain);
    }
}
