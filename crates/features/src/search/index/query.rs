//! Reading the index for a search: which files it is fresh for, and which of those may hold
//! a hit. A file is ruled out only when, for some pattern, no text of it holds what every
//! match of that pattern holds: a run of the pattern found through the trigram index, or,
//! for a pattern without one (a regex, a pattern under three characters), the pattern
//! itself, tried on every indexed text with the search's own matcher.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::SCHEMA;
use super::store::{IndexError, db_path, indexed};
use super::update::Stat;
use crate::search::{Matcher, Options, Scope};

/// An index opened for reading.
pub struct Reader {
    conn: Connection,
    path: PathBuf,
}

/// The files of a search that may hold a hit, by their index ids.
#[derive(Debug, Default)]
pub struct Candidates {
    /// The files that may match.
    pub files: HashSet<i64>,
    /// The best relevance (bm25: lower is better) of a text of each file, where the index
    /// could measure it.
    pub file_score: HashMap<i64, f64>,
    /// The relevance of each line's best text.
    pub line_score: HashMap<(i64, u64), f64>,
}

impl Reader {
    /// The index in `dir`, when there is one of this schema.
    pub fn open(dir: &Path) -> Option<Reader> {
        let path = db_path(dir);
        if !path.is_file() {
            return None;
        }
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).ok()?;
        let version: i32 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).ok()?;
        (version == SCHEMA).then_some(Reader { conn, path })
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        IndexError::sql_at(&self.path)
    }

    /// The id of the file at `path` when the index holds it as it is now (same device, inode,
    /// size and modification time), read as the agent `agent` when one is said; for `--scope
    /// effective`, also only when what a resume rebuilds of it is known.
    pub fn fresh(&self, path: &Path, agent: Option<&str>, scope: Scope) -> Option<i64> {
        let key = super::key(path);
        let now = Stat::of(&key).ok()?;
        let old = indexed(&self.conn, &key).ok()??;
        if old.stat != now || agent.is_some_and(|a| a != old.agent) {
            return None;
        }
        if scope == Scope::Effective {
            let known: bool = self
                .conn
                .query_row("SELECT rebuilt_known FROM files WHERE id = ?1", [old.id], |r| r.get(0))
                .ok()?;
            if !known {
                return None;
            }
        }
        Some(old.id)
    }

    /// The agent the file at `path` was indexed as, if the index holds it.
    pub fn agent_of(&self, path: &Path) -> Option<String> {
        indexed(&self.conn, &super::key(path)).ok()?.map(|i| i.agent)
    }

    /// Which of the files `among` may hold a hit of `m` in the texts `opts` reads.
    pub fn candidates(&self, among: &HashSet<i64>, m: &Matcher, opts: &Options) -> Result<Candidates, IndexError> {
        let seen = texts_read(opts);
        let mut out = Candidates {
            files: among.clone(),
            ..Candidates::default()
        };
        let mut scored = false;
        for (text, p) in m.query.patterns.iter().zip(&m.patterns) {
            let mut files = HashSet::new();
            match run(text, m.query.regex, p.insensitive) {
                Some(run) => {
                    let mut st = self
                        .conn
                        .prepare_cached(&format!(
                            "SELECT pieces.file, pieces.line, bm25(texts) FROM texts JOIN pieces ON pieces.id = texts.rowid
                             WHERE texts MATCH ?1 AND {seen}"
                        ))
                        .map_err(self.sql())?;
                    let phrase = format!("\"{}\"", run.replace('"', "\"\""));
                    let mut rows = st.query([phrase]).map_err(self.sql())?;
                    while let Some(r) = rows.next().map_err(self.sql())? {
                        let file: i64 = r.get(0).map_err(self.sql())?;
                        if !out.files.contains(&file) {
                            continue;
                        }
                        files.insert(file);
                        if !scored {
                            let score: f64 = r.get(2).map_err(self.sql())?;
                            let best = out.file_score.entry(file).or_insert(score);
                            *best = best.min(score);
                            if let Some(line) = r.get::<_, Option<i64>>(1).map_err(self.sql())? {
                                let best = out.line_score.entry((file, line as u64)).or_insert(score);
                                *best = best.min(score);
                            }
                        }
                    }
                    scored = true;
                }
                None => {
                    let mut st = self
                        .conn
                        .prepare_cached(&format!("SELECT file, text FROM pieces WHERE {seen}"))
                        .map_err(self.sql())?;
                    let mut rows = st.query([]).map_err(self.sql())?;
                    while let Some(r) = rows.next().map_err(self.sql())? {
                        let file: i64 = r.get(0).map_err(self.sql())?;
                        if files.contains(&file) || !out.files.contains(&file) {
                            continue;
                        }
                        let text: String = r.get(1).map_err(self.sql())?;
                        if p.re.find_iter(&text).any(|m| !m.is_empty()) {
                            files.insert(file);
                        }
                    }
                }
            }
            out.files = files;
        }
        Ok(out)
    }
}

/// The SQL condition on `pieces` of the texts a search with `opts` reads: the scope's, and
/// the roles and fields asked (the same texts [`crate::search::pieces`] chooses, as the
/// index labelled them).
fn texts_read(opts: &Options) -> String {
    let mut and = vec![match opts.scope {
        Scope::Full => "seen = 'records'".to_string(),
        Scope::Effective => "1".to_string(),
    }];
    if !opts.thinking {
        and.push("field <> 'thinking'".into());
    }
    if !opts.tools {
        and.push("field NOT IN ('tool_input', 'tool_output')".into());
    }
    if !opts.roles.is_empty() {
        let roles: Vec<String> = opts.roles.iter().map(|r| format!("'{}'", r.name())).collect();
        and.push(format!("role IN ({})", roles.join(", ")));
    }
    and.join(" AND ")
}

/// The longest run of `pattern` that every match of it holds as written, up to the case
/// SQLite's trigrams fold, when it is long enough for a trigram (three characters). Under
/// case-insensitive matching only characters whose every case variant SQLite folds alike
/// are kept: ASCII, but `k` and `s` (Unicode folds them with the Kelvin sign and the long
/// s), and characters without case.
fn run(pattern: &str, regex: bool, insensitive: bool) -> Option<&str> {
    if regex {
        return None;
    }
    let keeps = |c: char| {
        c != '\0'
            && (!insensitive
                || (c.is_ascii() && !matches!(c, 'k' | 'K' | 's' | 'S'))
                || (!c.is_ascii() && c.to_lowercase().eq([c]) && c.to_uppercase().eq([c])))
    };
    let mut best: Option<&str> = None;
    let mut start = None;
    for (i, c) in pattern.char_indices().chain([(pattern.len(), '\0')]) {
        match (keeps(c) && i < pattern.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let r = &pattern[s..i];
                if best.is_none_or(|b| r.chars().count() > b.chars().count()) {
                    best = Some(r);
                }
                start = None;
            }
            _ => {}
        }
    }
    best.filter(|b| b.chars().count() >= 3)
}

#[cfg(test)]
mod tests {
    use super::run;

    #[test]
    fn a_run_is_what_every_match_holds() {
        assert_eq!(run("deploy staging", false, true), Some("deploy "));
        assert_eq!(run("Deploy", false, false), Some("Deploy"));
        assert_eq!(run("café 😀 au lait", false, true), Some(" 😀 au lait"));
        assert_eq!(run("ab", false, false), None);
        assert_eq!(run("a.b+c", true, false), None);
        assert_eq!(run("日本語です", false, true), Some("日本語です"));
    }
}
