//! Where Claude Code finds a session (`docs/stores.md#claude-code`): the project folder named
//! after the working directory, the transcript named by the session id, and the command that
//! resumes it.
//!
//! Nothing else needs writing for Claude Code to list a transcript: `--resume ID`,
//! `--continue` and the `--resume` picker read the project folder of the directory they run
//! in. `history.jsonl` is the prompt history of the input box, not an index of sessions, and
//! is never written.

use std::path::{Path, PathBuf};

/// Longest folder name Claude Code makes from a working directory before it shortens it.
const SLUG_MAX: usize = 200;

/// The folder name under `projects/` that Claude Code gives a working directory: every UTF-16
/// code unit that is not an ASCII letter or digit becomes `-` (so a character outside the
/// Basic Multilingual Plane becomes `--`); a name longer than 200 units is cut to 200 and
/// followed by `-` and the base-36 absolute value of the directory's 32-bit string hash (the
/// `h = 31·h + unit` hash over UTF-16 units, as Java's `String.hashCode`).
pub fn project_slug(cwd: &str) -> String {
    let units: Vec<u16> = cwd.encode_utf16().collect();
    let mut slug: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if slug.len() <= SLUG_MAX {
        return slug;
    }
    let hash = units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    // The slug is ASCII, so bytes are units.
    slug.truncate(SLUG_MAX);
    slug.push('-');
    slug.push_str(&base36(i64::from(hash).unsigned_abs()));
    slug
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The directory as Claude Code sees it: it names the project folder after the physical path
/// (`getcwd`, links resolved), whatever `$PWD` says, so a directory reached through a
/// symbolic link is resolved when it exists here.
pub fn physical_cwd(cwd: &str) -> String {
    match std::fs::canonicalize(cwd) {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(_) => cwd.to_string(),
    }
}

/// The project folder of `cwd` in the store `config_dir` (`CLAUDE_CONFIG_DIR`, else
/// `~/.claude`).
pub fn project_dir(config_dir: &Path, cwd: &str) -> PathBuf {
    config_dir.join("projects").join(project_slug(&physical_cwd(cwd)))
}

/// Where `claude --resume SESSION_ID`, run in `cwd`, looks for the transcript.
pub fn transcript_path(config_dir: &Path, cwd: &str, session_id: &str) -> PathBuf {
    project_dir(config_dir, cwd).join(format!("{session_id}.jsonl"))
}

/// The command that resumes the session: Claude Code looks in the project folder of the
/// directory it runs in only, so the command changes to `cwd` first.
pub fn resume_command(session_id: &str, cwd: &str) -> String {
    use crate::output::shell::quote as shell_quote;
    format!("cd {} && claude --resume {}", shell_quote(cwd), shell_quote(session_id))
}

/// Claude Code's store from the environment: the folder `CLAUDE_CONFIG_DIR` names (when it is
/// a comma-separated list, as ccusage reads it, the first folder), else `~/.claude`.
pub fn config_dir_from(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(v) = env("CLAUDE_CONFIG_DIR") {
        let whole = PathBuf::from(&v);
        if whole.is_dir() {
            return Some(whole);
        }
        let first = v
            .to_str()
            .and_then(|l| l.split(',').map(str::trim).find(|s| !s.is_empty()))
            .map(PathBuf::from);
        return Some(first.unwrap_or(whole));
    }
    env("HOME").map(|h| PathBuf::from(h).join(".claude"))
}

/// [`config_dir_from`] with the process environment.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(&|k| std::env::var_os(k).filter(|v| !v.is_empty()))
}

/// Claude Code's store as backup, restore and session ids see it: `projects/` of each
/// config folder, a transcript named by its session id, subagent transcripts in the session's
/// side folder, and the prompt history beside it.
pub struct ClaudeCodeStore;

impl crate::agents::Store for ClaudeCodeStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &["projects"]
    }

    fn archive_folder(&self) -> &'static str {
        "claude"
    }

    fn side_file(&self) -> Option<crate::agents::SideFile> {
        Some(crate::agents::SideFile {
            role: "history",
            name: "history.jsonl",
        })
    }

    fn role(&self, path: &Path) -> &'static str {
        if path.components().any(|c| c.as_os_str() == "subagents") {
            "subagent"
        } else {
            "session"
        }
    }

    fn id_in_stem<'a>(&self, stem: &'a str) -> Option<&'a str> {
        super::subagents::is_uuid(stem).then_some(stem)
    }

    fn resumes_by_name(&self) -> bool {
        true
    }

    fn is_side_folder(&self, name: &str) -> bool {
        super::subagents::is_uuid(name) || name == "subagents"
    }

    fn is_sub_session(&self, path: &str) -> bool {
        super::subagents::is_subagent_path(path)
    }

    fn read_head(&self, rec: &serde_json::Value, head: &mut cctool_core::model::store::SessionHead) -> bool {
        let text = |k: &str| rec.get(k).and_then(serde_json::Value::as_str).map(str::to_string);
        let Some(id) = text("sessionId") else {
            return false;
        };
        head.format = Some(crate::ID);
        head.id.get_or_insert(id);
        head.cwd = head.cwd.take().or_else(|| text("cwd"));
        true
    }

    fn retention(&self) -> Option<&'static dyn crate::agents::Retention> {
        Some(&super::retention::ClaudeCodeRetention)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_replace_every_utf16_unit_that_is_not_a_letter_or_digit() {
        assert_eq!(project_slug("/home/u/my_proj.v2"), "-home-u-my-proj-v2");
        assert_eq!(project_slug("D:\\oh-my-posh"), "D--oh-my-posh");
        // é is one UTF-16 unit, 😀 two.
        assert_eq!(project_slug("/tmp/dé😀x"), "-tmp-d---x");
        assert_eq!(project_slug(""), "");
    }

    #[test]
    fn long_slugs_are_cut_and_hashed_as_the_client_names_them() {
        // A folder the real Claude Code 2.1.332 made for this working directory.
        let cwd = format!(
            "/tmp/sx/dé😀_x.{}/{}/{}",
            "a".repeat(60),
            "b".repeat(70),
            "c".repeat(70)
        );
        let want = format!(
            "-tmp-sx-d----x-{}-{}-{}-499j56",
            "a".repeat(60),
            "b".repeat(70),
            "c".repeat(53)
        );
        assert_eq!(project_slug(&cwd), want);
        assert_eq!(want.len(), 207);
        // Exactly 200 units are kept whole.
        let edge = "/".to_string() + &"x".repeat(199);
        assert_eq!(project_slug(&edge).len(), 200);
    }

    #[test]
    fn base36_matches_javascript() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(2_147_483_648), "zik0zk");
    }

    #[test]
    fn transcript_paths_and_commands() {
        let p = transcript_path(Path::new("/c"), "/no/such/dir here", "abc");
        assert_eq!(p, Path::new("/c/projects/-no-such-dir-here/abc.jsonl"));
        assert_eq!(
            resume_command("11111111-2222-4333-8444-555555555555", "/w/it's here"),
            "cd '/w/it'\\''s here' && claude --resume 11111111-2222-4333-8444-555555555555"
        );
    }

    #[test]
    fn a_linked_directory_is_named_by_its_target() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::create_dir(&real).unwrap();
        #[cfg(unix)]
        {
            let link = d.path().join("link");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            assert_eq!(
                project_dir(Path::new("/c"), &link.to_string_lossy()),
                project_dir(Path::new("/c"), &real.to_string_lossy())
            );
        }
    }

    #[test]
    fn the_store_follows_claude_config_dir() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::create_dir(&a).unwrap();
        let env = |list: String| {
            move |k: &str| match k {
                "CLAUDE_CONFIG_DIR" => Some(std::ffi::OsString::from(list.clone())),
                "HOME" => Some("/h".into()),
                _ => None,
            }
        };
        let list = format!("{},/other", a.display());
        assert_eq!(config_dir_from(&env(list)), Some(a.clone()));
        assert_eq!(config_dir_from(&env(a.display().to_string())), Some(a));
        assert_eq!(
            config_dir_from(&|k| (k == "HOME").then(|| "/h".into())),
            Some(PathBuf::from("/h/.claude"))
        );
    }
}
