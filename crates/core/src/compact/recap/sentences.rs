//! The sentences of a message that state a constraint or a decision.

use super::*;

/// The sentences of `text` containing one of `words` (whole words, any case), quoted. Code
/// blocks are skipped: code is not a statement of intent.
pub(super) fn matching_sentences(text: &str, words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for sentence in sentences(strip_marker(trimmed.trim_start_matches('#').trim_start())) {
            if has_word(sentence, words) {
                out.push(quote(sentence, SENTENCE_CAP));
            }
        }
    }
    out
}

/// A line without its list marker (`- `, `* `, `+ `, `• `, `1. `, `2) `).
pub(crate) fn strip_marker(t: &str) -> &str {
    for m in ["- ", "* ", "+ ", "• "] {
        if let Some(r) = t.strip_prefix(m) {
            return r.trim_start();
        }
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let after = &t[digits..];
        if let Some(r) = after.strip_prefix(". ").or_else(|| after.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    t
}

/// Splits after `.`, `!` or `?` followed by a space.
pub(super) fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev_end = false;
    for (i, c) in line.char_indices() {
        if prev_end && c.is_whitespace() {
            let s = line[start..i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i;
        }
        prev_end = matches!(c, '.' | '!' | '?');
    }
    let s = line[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

pub(super) fn has_word(sentence: &str, words: &[&str]) -> bool {
    let lower = collapse(&sentence.to_lowercase().replace('\u{2019}', "'"));
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    words.iter().any(|w| {
        lower
            .match_indices(w)
            .any(|(i, _)| boundary(lower[..i].chars().next_back()) && boundary(lower[i + w.len()..].chars().next()))
    })
}
