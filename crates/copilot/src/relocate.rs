//! How Copilot CLI's sessions follow a project folder that moved (`docs/stores.md`, "Sessions
//! follow the project"): a session is the folder of its id, wherever the project is, so it
//! stays; the `context` of `session.start` and of each `session.resume` says the directory
//! and its git root, and `workspace.yaml` beside the events repeats them (`cwd`, `git_root`).

use std::ops::Range;
use std::path::{Path, PathBuf};

use cctool_core::relocate::{PathMap, Relocator, string_at, strings_at};

/// Copilot CLI's answers to `relocate`.
pub struct CopilotRelocator;

impl Relocator for CopilotRelocator {
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
        let kind = string_at(line, &["type"]);
        if matches!(kind.as_deref(), Some("session.start" | "session.resume")) {
            strings_at(line, &["data", "context", "cwd"], out);
            strings_at(line, &["data", "context", "gitRoot"], out);
        }
    }

    fn placed(&self, _session: &Path, _old_cwd: &str, _new_cwd: &str) -> Option<PathBuf> {
        None
    }

    fn side_files(&self, session: &Path, map: &PathMap) -> Vec<(PathBuf, Vec<u8>)> {
        let yaml = session.with_file_name("workspace.yaml");
        let Ok(text) = std::fs::read_to_string(&yaml) else {
            return Vec::new();
        };
        match relocated_yaml(&text, map) {
            Some(new) => vec![(yaml, new.into_bytes())],
            None => Vec::new(),
        }
    }
}

/// `workspace.yaml` with its top-level `cwd` and `git_root` mapped, every other line as it is;
/// `None` when neither names a folder under OLD.
fn relocated_yaml(text: &str, map: &PathMap) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let value = ["cwd:", "git_root:"]
            .iter()
            .find_map(|k| body.strip_prefix(k).map(|v| (&body[..k.len()], v)));
        let new = value.and_then(|(key, v)| {
            let old = scalar(v.trim())?;
            Some(format!("{key} {}", yaml_scalar(&map.map(&old)?)))
        });
        match new {
            Some(n) => {
                changed = true;
                out.push_str(&n);
                out.push_str(ending);
            }
            None => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// The string a YAML scalar as Copilot CLI writes one holds: plain, or quoted.
fn scalar(v: &str) -> Option<String> {
    if v.starts_with('"') {
        return serde_json::from_str(v).ok();
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return Some(inner.replace("''", "'"));
    }
    (!v.is_empty() && !v.contains(" #")).then(|| v.to_string())
}

/// `s` as a YAML scalar: plain where YAML reads it back as the same string, else double-quoted
/// (JSON's escapes are YAML's).
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        && !s.ends_with(' ')
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.chars().any(char::is_control);
    match plain {
        true => s.to_string(),
        false => serde_json::to_string(s).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_says_the_new_folder_and_nothing_else_changes() {
        let map = PathMap::new("/home/dev/gadget", "/work/my gadget: v2");
        let text = "id: 5b1d\ncwd: /home/dev/gadget\ngit_root: '/home/dev/gadget'\nsummary: cwd: /home/dev/gadget\n";
        assert_eq!(
            relocated_yaml(text, &map).unwrap(),
            "id: 5b1d\ncwd: \"/work/my gadget: v2\"\ngit_root: \"/work/my gadget: v2\"\nsummary: cwd: /home/dev/gadget\n"
        );
        assert_eq!(relocated_yaml("cwd: /home/dev/gadgets\n", &map), None);
        let map = PathMap::new("/home/dev/gadget", "/work/gadget");
        assert_eq!(
            relocated_yaml("cwd: \"/home/dev/gadget/sub\"\r\n", &map).unwrap(),
            "cwd: /work/gadget/sub\r\n"
        );
    }

    #[test]
    fn only_the_start_and_resume_contexts_say_the_directory() {
        let line = r#"{"type":"session.start","data":{"sessionId":"x","context":{"cwd":"/a","gitRoot":"/a","branch":"main"}},"id":"1"}"#;
        let mut out = Vec::new();
        CopilotRelocator.cwd_spans(line.as_bytes(), &mut out);
        assert_eq!(out.len(), 2);
        let other = r#"{"type":"tool.execution_start","data":{"context":{"cwd":"/a"}}}"#;
        out.clear();
        CopilotRelocator.cwd_spans(other.as_bytes(), &mut out);
        assert!(out.is_empty());
    }
}
