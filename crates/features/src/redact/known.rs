//! The secrets an export has found, each with its rule and number, and their replacement
//! wherever they occur: a token the rules recognise in one place (after `HF_TOKEN=`) is
//! replaced in every other place too (the sentence before it, a key, another file), by one
//! Aho-Corasick pass over each string.

use std::collections::HashMap;

use rustc_hash::FxHashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// Secrets shorter than this are replaced only where they stand as a whole word: `alice`
/// must not take the middle of `malice`. Longer ones are distinctive wherever they are (a
/// token glued to other text is still the token).
const BOUNDED_BELOW: usize = 16;

#[derive(Default)]
struct Secrets {
    /// secret → (label, number); the first rule that found a secret names it.
    numbers: HashMap<String, (usize, u32)>,
    /// The last number given under each label.
    next: Vec<u32>,
    /// The secrets to search for, in the order found.
    list: Vec<String>,
    searcher: Option<Arc<Searcher>>,
}

/// The automaton over [`Secrets::list`] as it was when built.
struct Searcher {
    ac: AhoCorasick,
    /// Per pattern: label, number, whether only a whole word is replaced.
    of: Vec<(usize, u32, bool)>,
}

#[derive(Default)]
struct Uses {
    count: Vec<u64>,
    seen: FxHashSet<(usize, u32)>,
}

/// One occurrence of a known secret: its span, label and number.
pub(super) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) label: usize,
    pub(crate) number: u32,
}

pub(super) struct Known {
    labels: Vec<String>,
    /// Per label, its placeholders' text up to the number (`[REDACTED:token#`): a record
    /// holds the home folder's path several times, and each is replaced.
    prefixes: Vec<String>,
    /// Labels whose secrets are names (home folders, the user's name): whole words only.
    bounded: Vec<bool>,
    secrets: RwLock<Secrets>,
    uses: Mutex<Uses>,
    /// Whether a secret is a number: only then are a record's numbers looked up.
    numeric: AtomicBool,
}

impl Known {
    pub(crate) fn new(labels: Vec<String>) -> Known {
        let bounded = labels.iter().map(|l| l == "home-path" || l == "user-name").collect();
        let n = labels.len();
        Known {
            prefixes: labels.iter().map(|l| format!("[REDACTED:{l}#")).collect(),
            labels,
            bounded,
            secrets: RwLock::new(Secrets {
                next: vec![0; n],
                ..Secrets::default()
            }),
            uses: Mutex::new(Uses {
                count: vec![0; n],
                seen: FxHashSet::default(),
            }),
            numeric: AtomicBool::new(false),
        }
    }

    /// Records `secret` under `label` (unless already known) and returns its label and number.
    /// `searched`: whether its other occurrences are replaced (not for an image's hash).
    pub(crate) fn learn(&self, label: usize, secret: &str, searched: bool) -> (usize, u32) {
        if let Some(&got) = self
            .secrets
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .numbers
            .get(secret)
        {
            return got;
        }
        let mut s = self.secrets.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&got) = s.numbers.get(secret) {
            return got;
        }
        s.next[label] += 1;
        let got = (label, s.next[label]);
        s.numbers.insert(secret.to_string(), got);
        if secret.parse::<f64>().is_ok() {
            self.numeric.store(true, Ordering::Release);
        }
        if searched && !secret.is_empty() {
            s.list.push(secret.to_string());
        }
        got
    }

    /// The placeholder of secret `number` under `label`, counted as one use.
    pub(crate) fn placeholder(&self, label: usize, number: u32) -> String {
        let mut out = String::with_capacity(self.prefixes[label].len() + 11);
        self.push_placeholder(&mut out, label, number);
        out
    }

    /// One use of `label` counted without a placeholder: what the search of an image counts,
    /// as it did when it numbered the image itself (the report's counts stay as they were).
    pub(crate) fn count_use(&self, label: usize) {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner).count[label] += 1;
    }

    /// Secret `number` of `label` counted as seen (one of the distinct), without a use.
    pub(crate) fn count_seen(&self, (label, number): (usize, u32)) {
        self.uses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .seen
            .insert((label, number));
    }

    /// [`Known::placeholder`], written at the end of `out`.
    pub(crate) fn push_placeholder(&self, out: &mut String, label: usize, number: u32) {
        {
            let mut u = self.uses.lock().unwrap_or_else(PoisonError::into_inner);
            u.count[label] += 1;
            u.seen.insert((label, number));
        }
        out.push_str(&self.prefixes[label]);
        let mut digits = [0u8; 10];
        let mut n = number;
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        out.extend(digits[at..].iter().map(|&d| d as char));
        out.push(']');
    }

    /// Whether some secret is a number.
    pub(crate) fn has_numbers(&self) -> bool {
        self.numeric.load(Ordering::Acquire)
    }

    /// The label and number of `s` when it is a known secret as a whole.
    pub(crate) fn exact(&self, s: &str) -> Option<(usize, u32)> {
        let secrets = self.secrets.read().unwrap_or_else(PoisonError::into_inner);
        secrets.numbers.get(s).copied()
    }

    fn searcher(&self) -> Option<Arc<Searcher>> {
        {
            let s = self.secrets.read().unwrap_or_else(PoisonError::into_inner);
            if s.list.is_empty() {
                return None;
            }
            if let Some(a) = &s.searcher
                && a.of.len() == s.list.len()
            {
                return Some(Arc::clone(a));
            }
        }
        let mut s = self.secrets.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(a) = &s.searcher
            && a.of.len() == s.list.len()
        {
            return Some(Arc::clone(a));
        }
        // Leftmost-longest: of two secrets at one place (`/home/alice` and `alice`) the
        // longer is replaced.
        // A DFA: built once per new secret, searched over every string of the export.
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&s.list)
            .ok()?;
        let of = s
            .list
            .iter()
            .map(|p| {
                let (label, n) = s.numbers[p];
                (label, n, self.bounded[label] || p.len() < BOUNDED_BELOW)
            })
            .collect();
        let a = Arc::new(Searcher { ac, of });
        s.searcher = Some(Arc::clone(&a));
        Some(a)
    }

    /// Every occurrence of a known secret in `s`, in order.
    pub(crate) fn find(&self, s: &str) -> Vec<Found> {
        let Some(searcher) = self.searcher() else {
            return Vec::new();
        };
        let b = s.as_bytes();
        searcher
            .ac
            .find_iter(s)
            .filter_map(|m| {
                let (label, number, bounded) = searcher.of[m.pattern().as_usize()];
                if bounded && !whole_word(b, m.start(), m.end()) {
                    return None;
                }
                Some(Found {
                    start: m.start(),
                    end: m.end(),
                    label,
                    number,
                })
            })
            .collect()
    }

    /// `s` with every known secret replaced, or `None` when it holds none.
    pub(crate) fn replace(&self, s: &str) -> Option<String> {
        let found = self.find(s);
        if found.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        for f in found {
            out.push_str(&s[at..f.start]);
            self.push_placeholder(&mut out, f.label, f.number);
            at = f.end;
        }
        out.push_str(&s[at..]);
        Some(out)
    }

    /// Per label in label order: (label, uses, distinct secrets used).
    pub(crate) fn counts(&self) -> Vec<(String, u64, u32)> {
        let u = self.uses.lock().unwrap_or_else(PoisonError::into_inner);
        (0..self.labels.len())
            .filter(|&i| u.count[i] > 0)
            .map(|i| {
                let distinct = u.seen.iter().filter(|(l, _)| *l == i).count();
                (
                    self.labels[i].clone(),
                    u.count[i],
                    u32::try_from(distinct).unwrap_or(u32::MAX),
                )
            })
            .collect()
    }
}

/// Whether `b[start..end]` is not part of a longer word on either side.
fn whole_word(b: &[u8], start: usize, end: usize) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let open = start == 0 || !word(b[start]) || !word(b[start - 1]);
    let close = end == b.len() || !word(b[end - 1]) || !word(b[end]);
    open && close
}
