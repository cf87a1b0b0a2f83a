//! One page of a long text: at most `max` bytes from `offset`, ended after a line where one
//! ends in its second half (a page never cuts a line it could keep whole), never inside a
//! character.

use crate::catalog::ToolError;

/// A page of a text, and where the next one starts (`None` at the end).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Page<'a> {
    pub(crate) text: &'a str,
    pub(crate) next: Option<usize>,
}

/// The page of `text` from `offset`, of at most `max` bytes (at least one character).
pub(crate) fn page(text: &str, offset: usize, max: usize) -> Result<Page<'_>, ToolError> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Err(ToolError(format!(
            "offset {offset} is not where a page starts (the text has {} bytes): give 0 or an answer's next_offset",
            text.len()
        )));
    }
    let mut end = offset.saturating_add(max).min(text.len());
    if end < text.len() {
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let half = offset + max / 2;
        if let Some(nl) = text[offset..end].rfind('\n').map(|i| offset + i + 1)
            && nl > half
        {
            end = nl;
        }
        if end == offset {
            // A first character longer than the page: it is given whole.
            end = offset + text[offset..].chars().next().map_or(0, char::len_utf8);
        }
    }
    Ok(Page {
        text: &text[offset..end],
        next: (end < text.len()).then_some(end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let p = page(text, at, max).unwrap();
            out.push(p.text.to_string());
            match p.next {
                Some(n) => at = n,
                None => return out,
            }
        }
    }

    #[test]
    fn pages_join_to_the_text_and_keep_lines_whole_where_they_can() {
        let text = "first line\nsecond line é\nthird 😀 line that is long\n";
        for max in 1..text.len() + 2 {
            let pages = all(text, max);
            assert_eq!(pages.concat(), text, "max {max}");
            assert!(pages.iter().all(|p| !p.is_empty()));
            assert!(pages.iter().all(|p| p.len() <= max.max(4)), "max {max}: {pages:?}");
        }
        assert_eq!(all(text, 16)[0], "first line\n");
    }

    #[test]
    fn an_offset_inside_a_character_or_past_the_end_is_refused() {
        assert!(page("é", 1, 10).is_err());
        assert!(page("abc", 4, 10).is_err());
        assert_eq!(page("abc", 3, 10).unwrap(), Page { text: "", next: None });
    }
}
