//! `cctool relocate OLD NEW`: what an agent is asked so that its sessions follow a project
//! folder that moved (`docs/stores.md`, "Sessions follow the project").
//!
//! The engine (`cctool_features::relocate`) is the same for every agent. Each agent that can be
//! relocated says, through its [`Relocator`], which JSON strings of a line record the working
//! directory (never the conversation), where its store files a session of another directory,
//! what goes with a session, and how its index learns the new directory. Only those strings
//! are replaced, each by the same path mapped, so every other byte of a file is kept.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

/// A move of a folder: OLD, and everything under it, to NEW.
#[derive(Clone, Debug)]
pub struct PathMap {
    old: String,
    new: String,
    needle: Vec<u8>,
}

impl PathMap {
    /// The move of `old` to `new`, both absolute, a trailing separator ignored.
    pub fn new(old: &str, new: &str) -> PathMap {
        let old = trimmed(old).to_string();
        let escaped = serde_json::to_string(&old).unwrap_or_default();
        let needle = escaped.as_bytes()[1..escaped.len() - 1].to_vec();
        PathMap {
            old,
            new: trimmed(new).to_string(),
            needle,
        }
    }

    /// The folder moved.
    pub fn old(&self) -> &str {
        &self.old
    }

    /// Where it is now.
    pub fn new_path(&self) -> &str {
        &self.new
    }

    /// `path` after the move: NEW when it is OLD, the same place under NEW when it is under
    /// OLD; `None` for any other path (a sibling whose name starts as OLD's does included).
    pub fn map(&self, path: &str) -> Option<String> {
        let p = trimmed(path);
        let rest = p.strip_prefix(self.old.as_str())?;
        if rest.is_empty() {
            return Some(self.new.clone());
        }
        let rest = match self.old.ends_with(['/', '\\']) {
            true => rest,
            false => rest.strip_prefix(['/', '\\'])?,
        };
        Some(format!("{}{}{rest}", self.new, separator(&self.new, &self.old)))
    }

    /// OLD as a JSON string spells it, without the quotes: a line that does not hold these
    /// bytes names nothing under OLD (the byte prefilter).
    pub fn needle(&self) -> &[u8] {
        &self.needle
    }
}

/// `p` without its trailing separators, except the one of a root (`/`, `C:\\`).
fn trimmed(p: &str) -> &str {
    let t = p.trim_end_matches(['/', '\\']);
    match t.is_empty() || t.ends_with(':') {
        true => &p[..(t.len() + 1).min(p.len())],
        false => t,
    }
}

fn separator<'a>(new: &str, old: &'a str) -> &'a str {
    if new.ends_with(['/', '\\']) {
        ""
    } else if old.contains('\\') && !old.contains('/') {
        "\\"
    } else {
        "/"
    }
}

/// What `relocate` asks of an agent whose sessions can follow their project.
pub trait Relocator: Sync {
    /// The JSON strings of `line` (spans, quotes included) that record the working directory
    /// of the session or of a turn: the fields the agent lists and files sessions by.
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>);

    /// Where the store files `session` once its working directory `old_cwd` is `new_cwd`:
    /// `Some` when the store names a session's folder after its directory, `None` when the
    /// file stays where it is.
    fn placed(&self, session: &Path, old_cwd: &str, new_cwd: &str) -> Option<PathBuf>;

    /// The folder beside `session` that holds what belongs to it (subagent transcripts, tool
    /// results) and moves with it.
    fn side_folder(&self, session: &Path) -> Option<PathBuf> {
        let _ = session;
        None
    }

    /// The files beside `session` that also record its directory (Copilot CLI's
    /// `workspace.yaml`), each with its content relocated by `map`: only those that change.
    /// The engine replaces each after the session, with a backup.
    fn side_files(&self, session: &Path, map: &PathMap) -> Vec<(PathBuf, Vec<u8>)> {
        let _ = (session, map);
        Vec::new()
    }

    /// For an agent whose sessions are rows of one database (opencode's): every session of
    /// `db` whose directory is OLD or under it relocated, in one transaction after a copy of
    /// the database is kept. Sessions found this way are not read as files.
    fn relocate_database(&self, db: &Path, map: &PathMap, run: DatabaseRun) -> crate::error::Result<DatabaseMoves> {
        let _ = (db, map, run);
        Ok(DatabaseMoves::default())
    }

    /// For an agent whose store says which folder each project is (Gemini CLI's
    /// `projects.json`): every project of the store whose session folder is `root` that is OLD
    /// or under it made NEW, each file written atomically after a backup. Called once per
    /// store, whatever its sessions say.
    fn relocate_store(&self, root: &Path, map: &PathMap, run: DatabaseRun) -> crate::error::Result<DatabaseMoves> {
        let _ = (root, map, run);
        Ok(DatabaseMoves::default())
    }

    /// Whether a copy of a session may keep its id (`--copy`): true where the store keeps
    /// one folder per directory and resumes a session from its directory's folder first.
    fn copy_keeps_id(&self) -> bool {
        false
    }

    /// Tells the store's index that each session moved to its new directory, in one
    /// transaction with a backup of the index first: one line for each index changed.
    fn reindex(&self, moved: &[Moved], dry_run: bool) -> crate::error::Result<Vec<String>> {
        let _ = (moved, dry_run);
        Ok(Vec::new())
    }
}

/// How [`Relocator::relocate_database`] is asked to work.
#[derive(Clone, Copy, Debug, Default)]
pub struct DatabaseRun {
    /// Count only, change nothing.
    pub dry_run: bool,
    /// Write while the agent has the database open (under SQLite's locking).
    pub force: bool,
}

/// One session (or project) of a database or a store's index relocated.
#[derive(Clone, Debug)]
pub struct RowMove {
    /// How `relocate`'s records name it: `DB#ID` for a session of a database, the folder of a
    /// project.
    pub name: String,
    /// Its directory before.
    pub old_cwd: String,
    /// And after.
    pub new_cwd: String,
    /// The working-directory values changed: the session's own and those its messages hold.
    pub fields: u64,
}

/// What [`Relocator::relocate_database`] did, or would do.
#[derive(Clone, Debug, Default)]
pub struct DatabaseMoves {
    /// The sessions relocated.
    pub sessions: Vec<RowMove>,
    /// The copy of the database kept before it was changed.
    pub backup: Option<PathBuf>,
    /// What else was changed (a project's folder), one sentence each.
    pub notes: Vec<String>,
}

/// `session` filed under the folder named `new_name` instead of `old_name`, that folder being
/// `up` levels above the file (1: the file's own folder): for a store that names a session's
/// folder after its directory ([`Relocator::placed`]). `None` when that folder is not named
/// `old_name` (the session is filed by another directory, or in a folder the user chose).
pub fn refiled(session: &Path, up: usize, old_name: &str, new_name: &str) -> Option<PathBuf> {
    let folder = session.ancestors().nth(up)?;
    if folder.file_name()? != old_name {
        return None;
    }
    let below = session.strip_prefix(folder).ok()?;
    Some(folder.parent()?.join(new_name).join(below))
}

/// A session whose working directory changed, as its index hears of it.
#[derive(Clone, Debug)]
pub struct Moved {
    /// The session file, where it is now.
    pub session: PathBuf,
    /// Its working directory before.
    pub old_cwd: String,
    /// And now.
    pub new_cwd: String,
}

/// A replacement of some bytes of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The bytes replaced.
    pub span: Range<usize>,
    /// What replaces them.
    pub with: Vec<u8>,
}

/// What [`line_edits`] found in one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineEdits {
    /// Working-directory fields rewritten.
    pub cwd: u64,
    /// Occurrences of OLD in the conversation rewritten (`--rewrite-content`).
    pub content: u64,
    /// The first working directory the line records, as written before the move.
    pub first_cwd: Option<String>,
}

/// The edits that relocate `line`: its working-directory fields that name OLD or a folder
/// under it and, with `content`, every whole occurrence of such a path elsewhere in it. A
/// line without OLD's bytes gets none and costs one search.
pub fn line_edits(line: &[u8], r: &dyn Relocator, map: &PathMap, content: bool, out: &mut Vec<Edit>) -> LineEdits {
    out.clear();
    let mut found = LineEdits::default();
    if memchr::memmem::find(line, map.needle()).is_none() {
        return found;
    }
    let mut spans = Vec::new();
    r.cwd_spans(line, &mut spans);
    for span in &spans {
        let Ok(old) = serde_json::from_slice::<String>(&line[span.clone()]) else {
            continue;
        };
        if found.first_cwd.is_none() {
            found.first_cwd = Some(old.clone());
        }
        if let Some(new) = map.map(&old) {
            out.push(Edit {
                span: span.clone(),
                with: serde_json::to_vec(&new).unwrap_or_default(),
            });
            found.cwd += 1;
        }
    }
    if content {
        let new = serde_json::to_string(map.new_path()).unwrap_or_default();
        let new = &new.as_bytes()[1..new.len() - 1];
        for at in memchr::memmem::find_iter(line, map.needle()) {
            let end = at + map.needle().len();
            if spans.iter().any(|s| s.start <= at && at < s.end) || !whole_path(line, at, end) {
                continue;
            }
            out.push(Edit {
                span: at..end,
                with: new.to_vec(),
            });
            found.content += 1;
        }
    }
    out.sort_by_key(|e| e.span.start);
    found
}

/// Whether the bytes `at..end` of `line` are a whole path or the start of one under it: not
/// the tail of a longer name or path before, not followed by more of a name.
fn whole_path(line: &[u8], at: usize, end: usize) -> bool {
    let name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'~') || b >= 0x80;
    let before_ok = match at.checked_sub(1).map(|i| line[i]) {
        None => true,
        Some(b'/') => line[..at].ends_with(b"file://"),
        // A JSON escape (`\\n`, `\\t`) before the path is a separator, not a name.
        Some(b'n' | b't' | b'r') if escaped(line, at - 1) => true,
        Some(b) => !name(b) && b != b'.',
    };
    let after_ok = match line.get(end) {
        None => true,
        Some(b'.') => !line.get(end + 1).is_some_and(|&b| name(b) || b == b'.'),
        Some(&b) => !name(b),
    };
    before_ok && after_ok
}

/// Whether the byte at `i` follows an unescaped backslash.
fn escaped(line: &[u8], i: usize) -> bool {
    line[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// `line` with `edits` (sorted, apart) made.
pub fn apply(line: &[u8], edits: &[Edit], w: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut at = 0;
    for e in edits {
        w.write_all(&line[at..e.span.start])?;
        w.write_all(&e.with)?;
        at = e.span.end;
    }
    w.write_all(&line[at..])
}

/// The spans of the string values at `path` (keys from the line's top-level object down) of
/// the JSON object `line`, every one where a key is written twice: for an agent's
/// [`Relocator::cwd_spans`]. Nothing when the line is not a JSON object.
pub fn strings_at(line: &[u8], path: &[&str], out: &mut Vec<Range<usize>>) {
    let Ok(text) = std::str::from_utf8(line) else { return };
    strings_in(text, 0, path, out);
}

/// The string at `path` of the JSON object `line`, the last one where a key is written twice
/// (as a JSON parser reads it): a record's `type`, to tell which records state a directory.
pub fn string_at(line: &[u8], path: &[&str]) -> Option<String> {
    let mut spans = Vec::new();
    strings_at(line, path, &mut spans);
    let last = spans.pop()?;
    serde_json::from_slice(&line[last]).ok()
}

fn strings_in(text: &str, base: usize, path: &[&str], out: &mut Vec<Range<usize>>) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let mut found: Vec<&RawValue> = Vec::new();
    crate::io::json::for_each_member(text, |k, v| {
        if k == *first {
            found.push(v);
        }
    });
    for v in found {
        let raw = v.get();
        let start = base + (raw.as_ptr() as usize - text.as_ptr() as usize);
        match rest.is_empty() {
            true if raw.starts_with('"') => out.push(start..start + raw.len()),
            true => {}
            false => strings_in(raw, start, rest, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TopCwd;
    impl Relocator for TopCwd {
        fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
            strings_at(line, &["cwd"], out);
            strings_at(line, &["payload", "cwd"], out);
        }
        fn placed(&self, _: &Path, _: &str, _: &str) -> Option<PathBuf> {
            None
        }
    }

    fn relocated(line: &str, content: bool) -> (String, LineEdits) {
        let map = PathMap::new("/home/me/app", "/work/app");
        let mut edits = Vec::new();
        let found = line_edits(line.as_bytes(), &TopCwd, &map, content, &mut edits);
        let mut out = Vec::new();
        apply(line.as_bytes(), &edits, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), found)
    }

    #[test]
    fn a_path_maps_when_it_is_old_or_under_it() {
        let m = PathMap::new("/home/me/app/", "/work/app");
        assert_eq!(m.map("/home/me/app").as_deref(), Some("/work/app"));
        assert_eq!(m.map("/home/me/app/").as_deref(), Some("/work/app"));
        assert_eq!(m.map("/home/me/app/src/x").as_deref(), Some("/work/app/src/x"));
        assert_eq!(m.map("/home/me/app2"), None);
        assert_eq!(m.map("/home/me"), None);
        let w = PathMap::new("C:\\Users\\me\\app", "D:\\app");
        assert_eq!(w.map("C:\\Users\\me\\app\\src").as_deref(), Some("D:\\app\\src"));
        let root = PathMap::new("/", "/mnt/old");
        assert_eq!(root.map("/etc").as_deref(), Some("/mnt/old/etc"));
    }

    #[test]
    fn only_the_working_directory_fields_change_unless_content_is_asked() {
        let line = r#"{"type":"user","cwd":"/home/me/app/sub","message":{"content":"ls /home/me/app/src","cwd":"/home/me/app"}}"#;
        let (out, found) = relocated(line, false);
        assert_eq!(
            out,
            r#"{"type":"user","cwd":"/work/app/sub","message":{"content":"ls /home/me/app/src","cwd":"/home/me/app"}}"#
        );
        assert_eq!((found.cwd, found.content), (1, 0));
        assert_eq!(found.first_cwd.as_deref(), Some("/home/me/app/sub"));
        let (out, found) = relocated(line, true);
        assert_eq!(
            out,
            r#"{"type":"user","cwd":"/work/app/sub","message":{"content":"ls /work/app/src","cwd":"/work/app"}}"#
        );
        assert_eq!((found.cwd, found.content), (1, 2));
    }

    #[test]
    fn content_is_rewritten_only_where_the_whole_path_is_named() {
        let (out, found) = relocated(
            r#"{"t":"/home/me/app2 /home/me/app.v2 x/home/me/app /home/me/app. file:///home/me/app/a 'home/me/app' \"/home/me/app\"\n/home/me/app_x\n/home/me/app/y"}"#,
            true,
        );
        assert_eq!(
            out,
            r#"{"t":"/home/me/app2 /home/me/app.v2 x/home/me/app /work/app. file:///work/app/a 'home/me/app' \"/work/app\"\n/home/me/app_x\n/work/app/y"}"#
        );
        assert_eq!(found.content, 4);
    }

    #[test]
    fn nested_and_repeated_keys_are_all_found_and_escapes_are_kept_apart() {
        let line = r#"{"payload":{"cwd":"/home/me/app","x":1},"payload":{"cwd":"/home/me/app/\u00e9"}}"#;
        let (out, found) = relocated(line, false);
        assert_eq!(found.cwd, 2);
        assert_eq!(
            out,
            r#"{"payload":{"cwd":"/work/app","x":1},"payload":{"cwd":"/work/app/é"}}"#
        );
        let (out, found) = relocated("not json /home/me/app", false);
        assert_eq!((out.as_str(), found.cwd), ("not json /home/me/app", 0));
    }

    #[test]
    fn the_prefilter_answers_as_reading_every_line() {
        // A line without OLD's bytes would get no edit even if read: the prefilter skips
        // only lines whose fields cannot name OLD.
        for line in [
            r#"{"cwd":"/elsewhere"}"#,
            r#"{"cwd":"/home/me/ap"}"#,
            r#"{"payload":{"cwd":"/home/me/application"}}"#,
        ] {
            let mut spans = Vec::new();
            TopCwd.cwd_spans(line.as_bytes(), &mut spans);
            let map = PathMap::new("/home/me/app", "/work/app");
            let unfiltered = spans
                .iter()
                .filter(|s| {
                    serde_json::from_slice::<String>(&line.as_bytes()[(*s).clone()])
                        .ok()
                        .and_then(|p| map.map(&p))
                        .is_some()
                })
                .count();
            assert_eq!(relocated(line, true).1.cwd, unfiltered as u64, "{line}");
        }
    }
}
