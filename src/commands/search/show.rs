//! `search` for people: the hits grouped by session (its title, project, agent, date and id),
//! each a line with its role, time and the text around the match, marked, fitting the width;
//! `-l` the sessions only, `-c` their counts, `--context N` the messages around each hit.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::Matched;
use crate::cli::SearchArgs;
use crate::model::project;
use crate::output::Out;
use crate::output::sanitize::escape_str;
use crate::output::style::{self, Paint};
use crate::output::table;
use crate::search::{Brief, Hit, one_line};

/// How the lines of one run are laid out.
struct Layout {
    paint: Paint,
    /// The width to fit; none in a pipe without `COLUMNS`.
    width: Option<usize>,
    tz: jiff::tz::TimeZone,
}

pub(super) fn text(out: &mut Out, a: &SearchArgs, matched: &[Matched]) -> std::io::Result<()> {
    let lay = Layout {
        paint: out.paint(),
        width: table::target_width(out.terminal),
        tz: jiff::tz::TimeZone::system(),
    };
    let ids = super::super::scan::short_ids(
        &matched
            .iter()
            .map(|m| m.session.session_id.as_deref())
            .collect::<Vec<_>>(),
    );
    let folders: Vec<Option<String>> = matched
        .iter()
        .map(|m| project::folder(m.session.cwd.as_deref(), &m.session.path))
        .collect();
    let projects = project::names(folders.iter().map(Option::as_deref));
    let mut s = String::new();
    for (i, ((m, id), project)) in matched.iter().zip(ids).zip(projects).enumerate() {
        let head = header(m, &id, project.as_deref(), &lay);
        let count = match m.found.hits.len() {
            _ if !a.count => String::new(),
            1 => "  1 hit".to_string(),
            n => format!("  {n} hits"),
        };
        // The count is never cut: the heading gives way.
        let room = lay.width.map(|w| w.saturating_sub(table::width(&count)).max(10));
        let head = room.map_or_else(|| head.clone(), |w| table::fit(&head, w)) + &count;
        if a.files_with_matches || a.count {
            let _ = writeln!(s, "{head}");
            continue;
        }
        if i > 0 {
            s.push('\n');
        }
        let _ = writeln!(s, "{}", lay.paint.paint(style::BOLD, &head));
        hits(&mut s, m, a.context, &lay);
    }
    out.text(&s)
}

/// A session's heading: short id, last activity, project, agent and version, title.
fn header(m: &Matched, id: &str, project: Option<&str>, lay: &Layout) -> String {
    let r = &m.session;
    let agent = crate::agents::registry()
        .by_name(r.format)
        .map_or("cctool", |a| a.about().short_name);
    let agent = match r.agent_versions.last() {
        Some(v) => format!("{agent} {v}"),
        None => agent.to_string(),
    };
    let date = r
        .last_ms
        .map_or_else(|| "-".to_string(), |ms| super::super::scan::local_minute(&lay.tz, ms));
    // The id and the date first: a heading too wide for the line cuts the title, never what
    // names the session.
    [
        if id.is_empty() { "-" } else { id },
        &date,
        project.unwrap_or("-"),
        &agent,
        r.title.as_deref().unwrap_or("-"),
    ]
    .iter()
    .map(|p| escape_str(p))
    .collect::<Vec<_>>()
    .join(" · ")
}

/// The lines of a session's hits, with the messages around each that `--context` asks.
fn hits(s: &mut String, m: &Matched, context: usize, lay: &Layout) {
    let found = &m.found;
    let mut shown: BTreeSet<usize> = BTreeSet::new();
    for h in &found.hits {
        let from = h.message.saturating_sub(context);
        let to = (h.message + context).min(found.messages.len().saturating_sub(1).max(h.message));
        shown.extend(from..=to);
    }
    let mut last: Option<usize> = None;
    for i in shown {
        if context > 0 && last.is_some_and(|l| l + 1 < i) {
            let _ = writeln!(s, "  {}", lay.paint.paint(style::DIM, "--"));
        }
        last = Some(i);
        let of_message: Vec<&Hit> = found.hits.iter().filter(|h| h.message == i).collect();
        if of_message.is_empty() {
            if let Some(b) = found.messages.get(i) {
                brief(s, b, lay);
            }
            continue;
        }
        for h in of_message {
            hit(s, h, lay);
        }
    }
}

/// A hit's line: role, time, whether a resume leaves it out, the text with the match marked.
fn hit(s: &mut String, h: &Hit, lay: &Layout) {
    let mut prefix = format!("  {:<9} {:<16}  ", h.role.name(), time(h.ms, lay));
    if !h.effective {
        prefix.push_str("(not resumed) ");
    }
    let room = lay
        .width
        .map_or(usize::MAX, |w| w.saturating_sub(table::width(&prefix)).max(20));
    let _ = write!(s, "{}", lay.paint.paint(style::DIM, &prefix));
    for (piece, marked) in one_line(&h.snippet.text, &h.snippet.relative(&h.matches), room) {
        if marked {
            let _ = write!(s, "{}", lay.paint.paint(style::MATCH, &piece));
        } else {
            s.push_str(&piece);
        }
    }
    s.push('\n');
}

/// A message shown around a hit, dimmed.
fn brief(s: &mut String, b: &Brief, lay: &Layout) {
    let prefix = format!("  {:<9} {:<16}  ", b.role.name(), time(b.ms, lay));
    let room = lay
        .width
        .map_or(usize::MAX, |w| w.saturating_sub(table::width(&prefix)).max(20));
    let text: String = one_line(&b.text, &[], room).into_iter().map(|(t, _)| t).collect();
    let _ = writeln!(s, "{}", lay.paint.paint(style::DIM, &format!("{prefix}{text}")));
}

fn time(ms: Option<i64>, lay: &Layout) -> String {
    ms.map_or_else(|| "-".to_string(), |ms| super::super::scan::local_minute(&lay.tz, ms))
}
