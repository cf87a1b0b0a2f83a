//! A test on raw bytes that rules out the lines that cannot hold a match,
//! so that only candidates are decoded. It must never rule out a line whose decoded text
//! matches: a transcript writes text JSON-escaped, and writers differ in what they escape
//! (`\"`, `\\`, `\n`, `\t` always; `\uXXXX` for every non-ASCII character in Python's
//! default, for `<`, `>`, `&` in Go's; `\/` in some), so a needle is either a run of the
//! pattern made only of characters no writer escapes, or every way one character can be
//! written.
//!
//! A regular expression gets no prefilter: every line is decoded.

use aho_corasick::AhoCorasick;

use super::matcher::{Matcher, Query};
use crate::io::Source;

/// The needles of each pattern: a candidate holds one needle of every pattern.
#[derive(Debug)]
pub struct Prefilter {
    each: Vec<AhoCorasick>,
    /// The length of the longest needle, in bytes.
    longest: usize,
}

impl Prefilter {
    /// The prefilter of `m`'s patterns; `None` when a pattern has no needle that is sure to
    /// be in every line that matches it (a regex; a pattern whose every character changes
    /// with case when case is ignored).
    pub fn of(m: &Matcher) -> Option<Prefilter> {
        if m.query.regex {
            return None;
        }
        let mut longest = 0;
        let each = m
            .query
            .patterns
            .iter()
            .zip(&m.patterns)
            .map(|(text, p)| {
                let (needles, fold) = needles(text, p.insensitive)?;
                longest = needles.iter().map(Vec::len).fold(longest, usize::max);
                AhoCorasick::builder().ascii_case_insensitive(fold).build(needles).ok()
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Prefilter { each, longest })
    }

    /// Whether `bytes` (a line or a record as written) may hold a match of every pattern.
    pub fn candidate(&self, bytes: &[u8]) -> bool {
        self.each.iter().all(|ac| ac.is_match(bytes))
    }

    /// Whether the file `src` may hold a match of `m`'s patterns (this prefilter's), read by
    /// a reader that makes the texts `made` (([`MadeText::Only`](crate::model::events::MadeText::Only))): whether its bytes hold a
    /// needle of every pattern that cannot match a made text (anywhere: a candidate holds them
    /// all in one line). Read at the speed of the searchers, up to where that is known.
    pub fn file_may_match(&self, src: &Source, m: &Matcher, made: &[&str]) -> std::io::Result<bool> {
        let longest = self.longest;
        let mut found: Vec<bool> = m.query.patterns.iter().map(|p| may_match_made(m, p, made)).collect();
        let mut known = found.iter().all(|&f| f);
        // The end of the window before, so that a needle across two windows is seen.
        let mut seam: Vec<u8> = Vec::new();
        src.for_each_chunk(|_, chunk, _| {
            if known {
                return;
            }
            seam.extend_from_slice(&chunk[..chunk.len().min(longest)]);
            for bytes in [&seam[..], chunk] {
                for (f, ac) in found.iter_mut().zip(&self.each) {
                    *f = *f || ac.is_match(bytes);
                }
            }
            known = found.iter().all(|&f| f);
            let keep = chunk.len().min(longest.saturating_sub(1));
            seam.clear();
            seam.extend_from_slice(&chunk[chunk.len() - keep..]);
        })?;
        Ok(known)
    }
}

/// Whether `pattern` (of `m`) may match text a reader makes, `made` (([`MadeText::Only`](crate::model::events::MadeText::Only))):
/// a match that reaches into a made text joined to the file's holds its first or last
/// character, and one inside it is a match of the pattern in it, a number standing for any.
/// Whole words are not asked, which may only say yes more often.
fn may_match_made(m: &Matcher, pattern: &str, made: &[&str]) -> bool {
    let same = |a: char, b: char| a == b || a.to_lowercase().eq(b.to_lowercase());
    made.iter().any(|t| {
        let ends = [t.chars().next(), t.chars().last()];
        if pattern.chars().any(|c| ends.iter().flatten().any(|&e| same(c, e))) {
            return true;
        }
        let query = Query {
            patterns: vec![any_number(pattern)],
            word: false,
            ..m.query.clone()
        };
        Matcher::new(&query).map_or(true, |inner| inner.which(&any_number(t)) != 0)
    })
}

/// `text` with each run of ASCII digits written `0`.
fn any_number(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        let digit = c.is_ascii_digit();
        if !(digit && in_number) {
            out.push(if digit { '0' } else { c });
        }
        in_number = digit;
    }
    out
}

/// A pattern's needles, and whether they match regardless of ASCII case: the longest run of
/// characters no writer escapes, else every spelling of one character of the pattern.
pub(crate) fn needles(pattern: &str, insensitive: bool) -> Option<(Vec<Vec<u8>>, bool)> {
    if let Some(run) = longest_run(pattern, insensitive) {
        return Some((vec![run.as_bytes().to_vec()], insensitive));
    }
    // A character whose case cannot change, when case is ignored: its spellings are all
    // there is to find.
    let c = pattern
        .chars()
        .find(|&c| !insensitive || (c.to_lowercase().eq([c]) && c.to_uppercase().eq([c])))?;
    Some((spellings(c), false))
}

/// Whether a character is written as itself by every JSON writer. Under case-insensitive
/// matching `k` and `s` are left out: Unicode folds them with characters outside ASCII
/// (the Kelvin sign, the long s), which a byte needle would miss.
fn plain(c: char, insensitive: bool) -> bool {
    let folds_outside_ascii = matches!(c, 'k' | 'K' | 's' | 'S');
    (c.is_ascii_alphanumeric() || " !#$%()*+,-.:;=?@[]^_`{|}~".contains(c)) && !(insensitive && folds_outside_ascii)
}

/// The longest run of [`plain`] characters of `pattern`.
fn longest_run(pattern: &str, insensitive: bool) -> Option<&str> {
    let mut best: Option<&str> = None;
    let mut start = None;
    for (i, c) in pattern.char_indices().chain([(pattern.len(), '\n')]) {
        match (plain(c, insensitive) && i < pattern.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let run = &pattern[s..i];
                if best.is_none_or(|b| run.len() > b.len()) {
                    best = Some(run);
                }
                start = None;
            }
            _ => {}
        }
    }
    best
}

/// Every way a JSON writer spells `c` inside a string: itself (where JSON allows it), its
/// short escape, its `\u` escape in either case of hex digits (a surrogate pair beyond the
/// basic plane).
fn spellings(c: char) -> Vec<Vec<u8>> {
    let mut out: Vec<String> = Vec::new();
    let short = match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '/' => Some("\\/"),
        '\n' => Some("\\n"),
        '\t' => Some("\\t"),
        '\r' => Some("\\r"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        _ => None,
    };
    out.extend(short.map(str::to_string));
    if c >= ' ' && c != '"' && c != '\\' {
        out.push(c.to_string());
    }
    let mut units = [0u16; 2];
    let escaped: String = c
        .encode_utf16(&mut units)
        .iter()
        .map(|u| format!("\\u{u:04x}"))
        .collect();
    out.push(escaped.to_uppercase().replace("\\U", "\\u"));
    out.push(escaped);
    out.sort();
    out.dedup();
    out.into_iter().map(String::into_bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: Option<(Vec<Vec<u8>>, bool)>) -> Vec<String> {
        n.unwrap()
            .0
            .into_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect()
    }

    #[test]
    fn a_needle_is_the_longest_run_no_writer_escapes() {
        assert_eq!(text(needles("say \"hi there\" now", false)), ["hi there"]);
        assert_eq!(text(needles("café au lait", false)), [" au lait"]);
        // Ignoring case, `s` and `k` end runs: Unicode folds them with non-ASCII letters.
        assert_eq!(text(needles("ask me", true)), [" me"]);
    }

    #[test]
    fn a_pattern_may_match_made_text_inside_it_or_reaching_into_it() {
        let made = ["…0 tokens truncated…", "(no summary available)"];
        let may = |p: &str, case: super::super::Case| {
            let m = Matcher::new(&Query {
                patterns: vec![p.to_string()],
                case,
                ..Query::default()
            })
            .unwrap();
            may_match_made(&m, p, &made)
        };
        let smart = super::super::Case::Smart;
        for p in [
            "truncated",
            "12 tokens",
            "3",
            "…",
            "x…",
            "(no",
            "summary)",
            "ns tru",
            "TOKENS",
        ] {
            assert!(may(p, super::super::Case::Insensitive), "{p}");
        }
        for p in ["zyzzogeton", "socket", "tokens  truncated", "1 2 tokens", "summary."] {
            assert!(!may(p, smart), "{p}");
        }
        assert!(!may("TOKENS", super::super::Case::Sensitive));
        assert_eq!(any_number("a12b3 4"), "a0b0 0");
    }

    #[test]
    fn without_a_run_every_spelling_of_one_character() {
        assert_eq!(text(needles("\"", false)), ["\\\"", "\\u0022"]);
        assert_eq!(text(needles("é", false)), ["\\u00E9", "\\u00e9", "é"]);
        assert_eq!(text(needles("😀", false)), ["\\uD83D\\uDE00", "\\ud83d\\ude00", "😀"]);
        assert_eq!(text(needles("\n", false)), ["\\n", "\\u000A", "\\u000a"]);
        // Ignoring case, a letter with case is skipped for one without; none: no prefilter.
        assert_eq!(text(needles("é日", true)), ["\\u65E5", "\\u65e5", "日"]);
        assert!(needles("é", true).is_none());
    }
}
