//! Tables for people: one line per row at any width.
//!
//! Columns have a priority; when the rows do not fit the width, the least important columns
//! are dropped, then flexible columns (titles, names) are cut with `…`. Headers are never cut
//! or wrapped: a column is as wide as its header at least. Cells are measured in terminal
//! columns (wide characters count two), and must already be escaped (see
//! [`super::sanitize::escape_str`]); styles are added after measuring.

use anstyle::Style;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::style::{self, Paint};

/// Which side of its column a cell sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Padded on the right: text.
    Left,
    /// Padded on the left: numbers.
    Right,
}

/// One column.
#[derive(Clone, Debug)]
pub struct Column {
    /// The header text: never cut, so the column is at least this wide.
    pub header: &'static str,
    /// Where cells sit.
    pub align: Align,
    /// Lower is more important: columns are dropped from the highest priority number down.
    pub priority: u8,
    /// A flexible column takes what is left, down to `min` (its header at least).
    pub flex: Option<Flex>,
    /// The style of the column's cells (the header has [`style::HEADER`]).
    pub style: Option<Style>,
    /// Cut from the start rather than the end: a path's file name is what tells rows apart.
    pub keep_end: bool,
}

/// How a flexible column shares the width.
#[derive(Clone, Copy, Debug)]
pub struct Flex {
    /// The width it may be cut to, in terminal columns: less on a narrow screen (three eighths
    /// of it), never less than its header.
    pub min: usize,
    /// Share of the spare width, relative to the other flexible columns.
    pub weight: usize,
}

impl Column {
    /// A fixed-width, unstyled column; `priority` as on the field.
    pub fn new(header: &'static str, align: Align, priority: u8) -> Column {
        Column {
            header,
            align,
            priority,
            flex: None,
            style: None,
            keep_end: false,
        }
    }

    /// Cuts cells from the start rather than the end (see the field).
    pub fn keep_end(mut self) -> Column {
        self.keep_end = true;
        self
    }

    /// Makes the column flexible: down to `min` columns, taking `weight` shares of the spare
    /// width.
    pub fn flex(mut self, min: usize, weight: usize) -> Column {
        self.flex = Some(Flex { min, weight });
        self
    }

    /// Styles every cell with `s`.
    pub fn styled(mut self, s: Style) -> Column {
        self.style = Some(s);
        self
    }
}

const GAP: usize = 2;

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` terminal columns, ending in `…` when it was cut.
pub fn fit(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut to at most `max` terminal columns, starting with `…` when it was cut.
pub fn fit_end(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut tail = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        tail.push(c);
        used += w;
    }
    std::iter::once('…').chain(tail.into_iter().rev()).collect()
}

/// The width a table for people must fit: `COLUMNS` when set, else the terminal's (80 when
/// a pseudo-terminal reports no size); none in a pipe.
pub fn target_width(terminal: bool) -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        && n > 0
    {
        return Some(n);
    }
    terminal.then(|| terminal_size::terminal_size_of(std::io::stdout()).map_or(80, |(w, _)| usize::from(w.0)))
}

/// Lays out `rows` (each one cell per column) in at most `max_width` columns, or with every
/// column at its natural width when there is no limit. `last_is_total` styles the last row.
pub fn render(
    columns: &[Column],
    rows: &[Vec<String>],
    max_width: Option<usize>,
    paint: Paint,
    last_is_total: bool,
) -> String {
    let (shown, widths) = layout(columns, rows, max_width);
    let mut out = String::new();
    out.push_str(&line(
        columns,
        &widths,
        paint,
        &mut shown
            .iter()
            .map(|&c| (c, columns[c].header.to_string(), Some(style::HEADER))),
    ));
    for (r, row) in rows.iter().enumerate() {
        let total = last_is_total && r + 1 == rows.len();
        out.push_str(&line(
            columns,
            &widths,
            paint,
            &mut shown.iter().map(|&c| {
                let st = if total { Some(style::BOLD) } else { columns[c].style };
                (c, row[c].clone(), st)
            }),
        ));
    }
    out
}

/// The columns shown, in order, and the width of each column: the least important are left
/// out until the rest fit in `max_width`, and the flexible ones share what is left.
fn layout(columns: &[Column], rows: &[Vec<String>], max_width: Option<usize>) -> (Vec<usize>, Vec<usize>) {
    let natural: Vec<usize> = (0..columns.len())
        .map(|c| {
            rows.iter()
                .map(|r| width(&r[c]))
                .chain([width(columns[c].header)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // A flexible column gives up to five eighths of its minimum on a narrow screen, so that
    // the most important columns still fit side by side.
    let floor = |c: usize| match columns[c].flex {
        Some(f) => {
            let min = max_width.map_or(f.min, |m| f.min.min(m * 3 / 8));
            min.max(width(columns[c].header)).min(natural[c])
        }
        None => natural[c],
    };
    let mut shown: Vec<usize> = (0..columns.len()).collect();
    let mut widths = natural.clone();
    if let Some(max) = max_width {
        let needed = |shown: &[usize]| -> usize {
            shown.iter().map(|&c| floor(c)).sum::<usize>() + GAP * shown.len().saturating_sub(1)
        };
        // Drop the least important columns until the rest fit at their minimum widths.
        while needed(&shown) > max && shown.len() > 1 {
            let (i, _) = shown
                .iter()
                .enumerate()
                .max_by_key(|&(i, &c)| (columns[c].priority, i))
                .unwrap_or((0, &0));
            shown.remove(i);
        }
        let fixed: usize = shown
            .iter()
            .filter(|&&c| columns[c].flex.is_none())
            .map(|&c| natural[c])
            .sum();
        let gaps = GAP * shown.len().saturating_sub(1);
        let flex: Vec<usize> = shown.iter().copied().filter(|&c| columns[c].flex.is_some()).collect();
        let mut spare = max.saturating_sub(fixed + gaps);
        for &c in &flex {
            widths[c] = floor(c);
            spare = spare.saturating_sub(widths[c]);
        }
        // Share what is left by weight, never past a column's natural width; what a column
        // cannot take goes round again to the others.
        loop {
            let hungry: Vec<usize> = flex.iter().copied().filter(|&c| widths[c] < natural[c]).collect();
            let total: usize = hungry
                .iter()
                .map(|&c| columns[c].flex.map_or(1, |f| f.weight.max(1)))
                .sum();
            if spare == 0 || hungry.is_empty() || total == 0 {
                break;
            }
            let mut given = 0;
            for &c in &hungry {
                let share = (spare * columns[c].flex.map_or(1, |f| f.weight.max(1)) / total).max(1);
                let take = share.min(natural[c] - widths[c]).min(spare - given);
                widths[c] += take;
                given += take;
            }
            if given == 0 {
                break;
            }
            spare -= given;
        }
    }
    (shown, widths)
}

/// One line of the table: each cell fitted to its column's width and aligned, spaces only
/// between cells that hold text.
fn line(
    columns: &[Column],
    widths: &[usize],
    paint: Paint,
    cells: &mut dyn Iterator<Item = (usize, String, Option<Style>)>,
) -> String {
    let mut s = String::new();
    let mut pending = 0;
    for (n, (c, text, st)) in cells.enumerate() {
        let text = if columns[c].keep_end {
            fit_end(&text, widths[c])
        } else {
            fit(&text, widths[c])
        };
        let pad = widths[c] - width(&text);
        if n > 0 {
            pending += GAP;
        }
        let (before, after) = match columns[c].align {
            Align::Left => (0, pad),
            Align::Right => (pad, 0),
        };
        if !text.is_empty() {
            s.push_str(&" ".repeat(pending + before));
            match st {
                Some(st) => s.push_str(&paint.paint(st, &text)),
                None => s.push_str(&text),
            }
            pending = after;
        } else {
            pending += before + after;
        }
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<Column> {
        vec![
            Column::new("when", Align::Left, 1),
            Column::new("title", Align::Left, 0).flex(5, 1),
            Column::new("n", Align::Right, 2),
            Column::new("size", Align::Right, 3),
        ]
    }

    fn rows() -> Vec<Vec<String>> {
        vec![
            vec![
                "today".into(),
                "a rather long title".into(),
                "12".into(),
                "1.0 KiB".into(),
            ],
            vec!["now".into(), "short".into(), "3".into(), "".into()],
        ]
    }

    #[test]
    fn everything_at_natural_width_without_a_limit() {
        assert_eq!(
            render(&cols(), &rows(), None, Paint::OFF, false),
            "when   title                 n     size\n\
             today  a rather long title  12  1.0 KiB\n\
             now    short                 3\n"
        );
    }

    #[test]
    fn narrow_drops_by_priority_then_cuts_the_flexible_column() {
        let out = render(&cols(), &rows(), Some(22), Paint::OFF, false);
        assert_eq!(
            out,
            "when   title         n\ntoday  a rather l…  12\nnow    short         3\n"
        );
        assert!(out.lines().all(|l| width(l) <= 22));
        // Headers are never cut: at 10 columns only what fits whole is left.
        let out = render(&cols(), &rows(), Some(12), Paint::OFF, false);
        assert_eq!(out, "when   title\ntoday  a ra…\nnow    short\n");
    }

    #[test]
    fn a_column_that_keeps_its_end_is_cut_at_the_start() {
        assert_eq!(fit_end("projects/abc/session.jsonl", 12), "…ssion.jsonl");
        assert_eq!(fit_end("short", 12), "short");
        let cols = [Column::new("file", Align::Left, 0).flex(4, 1).keep_end()];
        let rows = [vec!["a/b/c/last.jsonl".to_string()]];
        assert_eq!(render(&cols, &rows, Some(8), Paint::OFF, false), "file\n…t.jsonl\n");
    }

    #[test]
    fn wide_characters_count_two_columns() {
        assert_eq!(fit("日本語のタイトル", 7), "日本語…");
        assert_eq!(width(&fit("日本語のタイトル", 7)), 7);
    }
}
