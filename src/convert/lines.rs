//! The readers' whole-file passes (what a resume does not load, the timestamps of a rollout)
//! spread over every core: each window of the file is parsed on its own, and the results are
//! folded in file order, so what a pass computes is what the same pass in order computes.

use crate::io::lines::{Line, LineStats, split_chunk};
use crate::io::{Source, for_each_line};

/// Maps `map` over every non-blank line of `src` (its `no` counted from the start of its
/// window) into one `W` per window, on every core, and hands each `W` to `fold` in file order
/// with the number of lines before its window: `no + base` is the line's number in the file.
/// A source not held as one slice is read in order, as one window.
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
        None => {
            let mut w = new();
            for_each_line(src, |l| map(&mut w, l))?;
            fold(w, 0);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
