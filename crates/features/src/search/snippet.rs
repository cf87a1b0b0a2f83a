//! The text shown of a hit: a window of the decoded text around its first match, kept with
//! the hit, and that window made one line of a given width with the matches marked.

use unicode_width::UnicodeWidthChar;

/// How much of the text is kept before and after the first match, in bytes.
const BEFORE: usize = 120;
const AFTER: usize = 240;

/// A window of a decoded text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    /// The text of the window.
    pub text: String,
    /// Where it starts in the decoded text, in bytes.
    pub start: usize,
}

impl Snippet {
    /// The window of `text` around `first`, cut at character boundaries.
    pub fn around(text: &str, first: (usize, usize)) -> Snippet {
        let mut start = first.0.saturating_sub(BEFORE);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (first.1 + AFTER).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        Snippet {
            text: text[start..end].to_string(),
            start,
        }
    }

    /// The matches that fall in the window, relative to it.
    pub fn relative(&self, matches: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let end = self.start + self.text.len();
        matches
            .iter()
            .filter(|&&(s, e)| s < end && e > self.start)
            .map(|&(s, e)| (s.max(self.start) - self.start, e.min(end) - self.start))
            .collect()
    }
}

/// The first `max` bytes of `text` (cut at a character boundary).
pub(crate) fn head(text: &str, max: usize) -> String {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// `text` as one line at most `width` columns wide, as pieces each marked when it is inside a
/// match (`matches`: byte ranges of `text`): line breaks shown as `⏎`, other control
/// characters as spaces, the first match in view with some text before it, and `…` where
/// the line is cut.
pub fn one_line(text: &str, matches: &[(usize, usize)], width: usize) -> Vec<(String, bool)> {
    let cells: Vec<(char, bool, usize)> = text
        .char_indices()
        .map(|(i, c)| {
            let shown = match c {
                '\n' => '⏎',
                c if c.is_control() => ' ',
                c => c,
            };
            let marked = matches.iter().any(|&(s, e)| i >= s && i < e);
            (shown, marked, shown.width().unwrap_or(0))
        })
        .collect();
    let total: usize = cells.iter().map(|c| c.2).sum();
    let (from, to) = if total <= width {
        (0, cells.len())
    } else {
        window(&cells, width.max(2))
    };
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut push = |s: &str, marked: bool| match out.last_mut() {
        Some((t, m)) if *m == marked => t.push_str(s),
        _ => out.push((s.to_string(), marked)),
    };
    if from > 0 {
        push("…", false);
    }
    for &(c, marked, _) in &cells[from..to] {
        push(c.encode_utf8(&mut [0; 4]), marked);
    }
    if to < cells.len() {
        push("…", false);
    }
    out
}

/// The cells shown when the line is cut: from a third of the width before the first match,
/// as many as fit with a `…` at each end that is cut.
fn window(cells: &[(char, bool, usize)], width: usize) -> (usize, usize) {
    let first = cells.iter().position(|c| c.1).unwrap_or(0);
    let mut from = first;
    let mut before = 0;
    while from > 0 && before + cells[from - 1].2 <= width / 3 {
        from -= 1;
        before += cells[from].2;
    }
    let mut room = width - usize::from(from > 0);
    let mut to = from;
    while to < cells.len() && cells[to].2 <= room {
        room -= cells[to].2;
        to += 1;
    }
    if to < cells.len() {
        // Room for the `…` of the end.
        while to > from && room < 1 {
            to -= 1;
            room += cells[to].2;
        }
    }
    (from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(p: &[(String, bool)]) -> String {
        p.iter()
            .map(|(t, m)| if *m { format!("[{t}]") } else { t.clone() })
            .collect()
    }

    #[test]
    fn a_line_fits_the_width_with_the_match_in_view() {
        let text = "a\nb\tc needle and more text after it";
        assert_eq!(
            shown(&one_line(text, &[(6, 12)], 80)),
            "a⏎b c [needle] and more text after it"
        );
        let long = format!("{} needle {}", "x".repeat(100), "y".repeat(100));
        let line = one_line(&long, &[(101, 107)], 30);
        let s = shown(&line);
        assert!(s.starts_with('…') && s.ends_with('…') && s.contains("[needle]"), "{s}");
        assert_eq!(s.chars().filter(|&c| c != '[' && c != ']').count(), 30);
    }

    #[test]
    fn a_window_cuts_at_character_boundaries() {
        let text = format!("{}é needle", "é".repeat(200));
        let at = text.find("needle").unwrap();
        let s = Snippet::around(&text, (at, at + 6));
        assert!(s.text.ends_with("needle") && s.start <= at - 120);
        assert_eq!(s.relative(&[(at, at + 6)]), [(at - s.start, at - s.start + 6)]);
    }
}
