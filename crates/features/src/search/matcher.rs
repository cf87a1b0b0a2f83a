//! What a search looks for: its patterns compiled once (literal or regex, smart case, whole
//! words), matched against decoded text.

use regex::{Regex, RegexBuilder};

/// How letters of different case match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Case {
    /// Insensitive unless the pattern holds an upper-case letter (as ripgrep's `--smart-case`).
    #[default]
    Smart,
    /// Always insensitive.
    Insensitive,
    /// Always sensitive.
    Sensitive,
}

/// The patterns of a search and how they are read.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// Every pattern must match somewhere in a message (the first is the command's PATTERN,
    /// the others its `--and`).
    pub patterns: Vec<String>,
    /// Patterns are regular expressions (the `regex` crate's syntax), not literal text.
    pub regex: bool,
    /// How case matches.
    pub case: Case,
    /// A match must be a whole word.
    pub word: bool,
}

/// A pattern that cannot be compiled.
#[derive(Debug, thiserror::Error)]
#[error("the pattern {pattern:?} is not a valid regular expression: {cause}")]
pub struct BadPattern {
    /// The pattern as given.
    pub pattern: String,
    /// What the regex crate said.
    #[source]
    pub cause: regex::Error,
}

/// One compiled pattern.
#[derive(Debug)]
pub(crate) struct Pattern {
    pub(crate) re: Regex,
    /// Whether it matches regardless of case.
    pub(crate) insensitive: bool,
}

/// The compiled patterns of a [`Query`].
#[derive(Debug)]
pub struct Matcher {
    pub(crate) patterns: Vec<Pattern>,
    pub(crate) query: Query,
}

impl Matcher {
    /// Compiles `query`'s patterns.
    pub fn new(query: &Query) -> Result<Matcher, BadPattern> {
        let patterns = query
            .patterns
            .iter()
            .map(|p| compile(p, query))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Matcher {
            patterns,
            query: query.clone(),
        })
    }

    /// Every match of any pattern in `text`, as byte ranges in order of their start (a match
    /// of one pattern that overlaps another's is kept: each is a match).
    pub fn find_all(&self, text: &str) -> Vec<(usize, usize)> {
        let mut all: Vec<(usize, usize)> = self
            .patterns
            .iter()
            .flat_map(|p| {
                p.re.find_iter(text)
                    .filter(|m| !m.is_empty())
                    .map(|m| (m.start(), m.end()))
            })
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Which patterns match somewhere in `text`, as a bit per pattern.
    pub(crate) fn which(&self, text: &str) -> u64 {
        self.patterns
            .iter()
            .enumerate()
            .filter(|(_, p)| p.re.find_iter(text).any(|m| !m.is_empty()))
            .fold(0, |acc, (i, _)| acc | (1 << i.min(63)))
    }

    /// The bits of [`Matcher::which`] when every pattern matched.
    pub(crate) fn all_bits(&self) -> u64 {
        (0..self.patterns.len()).fold(0, |acc, i| acc | (1 << i.min(63)))
    }
}

/// One pattern as a regex: literal text escaped, case as asked, whole words bounded by `\b`
/// (a word character on one side, none on the other, as grep -w).
fn compile(pattern: &str, q: &Query) -> Result<Pattern, BadPattern> {
    let insensitive = match q.case {
        Case::Insensitive => true,
        Case::Sensitive => false,
        Case::Smart => !has_upper(pattern, q.regex),
    };
    let body = if q.regex {
        pattern.to_string()
    } else {
        regex::escape(pattern)
    };
    let body = if q.word { format!(r"\b(?:{body})\b") } else { body };
    let re = RegexBuilder::new(&body)
        .case_insensitive(insensitive)
        .build()
        .map_err(|cause| BadPattern {
            pattern: pattern.to_string(),
            cause,
        })?;
    Ok(Pattern { re, insensitive })
}

/// Whether a pattern holds an upper-case letter, as smart case reads it: in a regex, a letter
/// right after a backslash names a class or an escape (`\S`, `\W`), not a letter to match.
fn has_upper(pattern: &str, regex: bool) -> bool {
    let mut escaped = false;
    for c in pattern.chars() {
        if regex && !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        if !escaped && c.is_uppercase() {
            return true;
        }
        escaped = false;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(p: &str, regex: bool, case: Case, word: bool) -> Matcher {
        Matcher::new(&Query {
            patterns: vec![p.into()],
            regex,
            case,
            word,
        })
        .unwrap()
    }

    #[test]
    fn smart_case_is_insensitive_until_an_upper_case_letter() {
        assert_eq!(
            matcher("hello", false, Case::Smart, false).find_all("Say HELLO"),
            [(4, 9)]
        );
        assert!(
            matcher("Hello", false, Case::Smart, false)
                .find_all("say hello")
                .is_empty()
        );
        assert_eq!(
            matcher("Hello", false, Case::Insensitive, false).find_all("hello"),
            [(0, 5)]
        );
        assert!(
            matcher("hello", false, Case::Sensitive, false)
                .find_all("HELLO")
                .is_empty()
        );
        // `\S` is a class, not an upper-case letter.
        assert_eq!(matcher(r"a\Sc", true, Case::Smart, false).find_all("AbC"), [(0, 3)]);
    }

    #[test]
    fn literals_are_literal_and_words_whole() {
        assert_eq!(matcher("a.c", false, Case::Smart, false).find_all("abc a.c"), [(4, 7)]);
        assert_eq!(
            matcher("cat", false, Case::Smart, true).find_all("concat cat cats"),
            [(7, 10)]
        );
        assert!(
            Matcher::new(&Query {
                patterns: vec!["(".into()],
                regex: true,
                ..Query::default()
            })
            .is_err()
        );
    }
}
