//! The agents' tool vocabularies as the recap reads them: which calls read or modify a file,
//! which run a command, and the paths a patch touches.

use super::*;

pub(super) const READ_TOOLS: [&str; 4] = ["Read", "NotebookRead", "Grep", "Glob"];
pub(super) const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
pub(super) const NEUTRAL_READ: [&str; 4] = ["read_file", "view_file", "open_file", "read"];
pub(super) const NEUTRAL_WRITE: [&str; 6] = [
    "write_file",
    "edit_file",
    "create_file",
    "str_replace",
    "replace_in_file",
    "write",
];

pub(super) fn tool_call(
    name: &str,
    args: &Value,
    outcome: Option<&Outcome>,
    files: &mut Files,
    progress: &mut Vec<Step>,
    todos: &mut Option<Vec<(String, String)>>,
) {
    let parsed;
    // Arguments that were not valid JSON arrive as `{"_raw": text}`; a string may still hold JSON.
    let args = match args.get("_raw").or(Some(args)).and_then(Value::as_str) {
        Some(s) => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or_else(|_| json!({"input": s}));
            &parsed
        }
        None => args,
    };
    let failed = outcome.is_some_and(|o| o.failed);
    let arg = |k: &str| args.get(k).and_then(Value::as_str);

    if READ_TOOLS.contains(&name) {
        let key = match name {
            "Read" => "file_path",
            "NotebookRead" => "notebook_path",
            _ => "path",
        };
        if let (Some(p), false) = (arg(key), failed) {
            files.read(p);
        }
        return;
    }
    if WRITE_TOOLS.contains(&name) {
        let p = if name == "NotebookEdit" {
            arg("notebook_path")
        } else {
            arg("file_path")
        };
        if let (Some(p), false) = (p, failed)
            && files.modified(p)
        {
            progress.push(Step::Modified(p.trim().to_string()));
        }
        return;
    }
    // Harness-neutral names (the v5 spec's own example is `read_file {path}`).
    let neutral_path = || arg("path").or_else(|| arg("file_path")).or_else(|| arg("filename"));
    if NEUTRAL_READ.contains(&name) {
        if let (Some(p), false) = (neutral_path(), failed) {
            files.read(p);
        }
        return;
    }
    if NEUTRAL_WRITE.contains(&name) {
        if let (Some(p), false) = (neutral_path(), failed)
            && files.modified(p)
        {
            progress.push(Step::Modified(p.trim().to_string()));
        }
        return;
    }
    if name == "TodoWrite" || name == "update_plan" {
        if let Some(list) = todo_list(args) {
            *todos = Some(list);
        }
        return;
    }

    let command = shell_command(name, args);
    if let Some(cmd) = &command {
        if !failed {
            for p in cmd.reads() {
                files.read(&p);
            }
        }
        let status = match outcome {
            Some(o) => o.exit.or(claude_bash_success(name, o)),
            None => None,
        };
        let status = status.map_or_else(|| "?".to_string(), |c| c.to_string());
        progress.push(Step::Command(format!("Ran `{}` (exit {status})", cmd.display())));
    }
    if !failed {
        let mut patched = Vec::new();
        patch_paths(args, &mut patched, 0);
        for p in patched {
            if files.modified(&p) {
                progress.push(Step::Modified(p));
            }
        }
    }
}

/// Interrupted, timed-out and background commands have no status yet.
pub(super) const UNFINISHED: [&str; 3] = [
    "[Request interrupted",
    "Command timed out",
    "Command running in background",
];

/// Claude Code reports a failing command as `Exit code N` and a successful one by its output
/// alone: a result without that line, and not an error, is a success.
pub(super) fn claude_bash_success(name: &str, o: &Outcome) -> Option<i64> {
    let finished = !UNFINISHED.iter().any(|u| o.text.contains(u));
    (name == "Bash" && !o.failed && finished).then_some(0)
}

/// `(status, content)` of each entry of a TodoWrite list or an update_plan plan.
pub(super) fn todo_list(args: &Value) -> Option<Vec<(String, String)>> {
    let (list, key) = match args.get("todos").and_then(Value::as_array) {
        Some(l) => (l, "content"),
        None => (args.get("plan").and_then(Value::as_array)?, "step"),
    };
    Some(
        list.iter()
            .filter_map(|t| {
                let content = t.get(key).or_else(|| t.get("content")).and_then(Value::as_str)?;
                let status = t.get("status").and_then(Value::as_str).unwrap_or_default();
                Some((status.to_string(), content.to_string()))
            })
            .collect(),
    )
}

/// The files named by the headers of every `apply_patch` patch inside `v`.
pub(super) fn patch_paths(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::String(s) if s.contains("*** Begin Patch") => {
            const HEADS: [&str; 4] = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"];
            for line in s.lines() {
                let line = line.trim_start();
                if let Some(p) = HEADS.iter().find_map(|h| line.strip_prefix(h)) {
                    let p = p.trim();
                    if !p.is_empty() && !out.iter().any(|f| f == p) {
                        out.push(p.to_string());
                    }
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| patch_paths(x, out, depth + 1)),
        Value::Object(m) => m.values().for_each(|x| patch_paths(x, out, depth + 1)),
        _ => {}
    }
}
