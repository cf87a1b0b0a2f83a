//! Codex's tools in neutral terms (`docs/convert.md#tools`): its shell tools (`exec_command`,
//! `shell`, `local_shell`, `container.exec`) and `apply_patch`.
//!
//! A file read is the command Codex's own models read files with (`nl -ba`), a write or an
//! edit an `apply_patch` patch of one file. A neutral call is written only when reading it
//! back gives the same call, but for what a patch has no words for, which is counted: an
//! edit's `replace_all` (a hunk replaces the text where it stands) and a write of text
//! without a final newline (a patch ends every added line with one). A path on several lines
//! is not written at all: it is the rest of a patch's header line.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Todo, Vocabulary, Written, command_in, exit_on_line, quote,
    rest, starts_with_any, unquote,
};

/// Codex's tools.
#[derive(Debug)]
pub struct CodexTools;

impl Vocabulary for CodexTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let kind = match name {
            "exec_command" => exec_of(input),
            "shell" | "local_shell" | "container.exec" => argv_of(input),
            "apply_patch" => input
                .get("input")
                .or_else(|| input.get("patch"))
                .and_then(Value::as_str)
                .and_then(patch_to_edit)
                .map(|k| (k, Map::new())),
            _ => None,
        };
        let Some((kind, extra)) = kind else {
            return Call::other(name, input);
        };
        let file = match &kind {
            Kind::Read(Read { path, .. }) | Kind::Write { path, .. } | Kind::Edit { path, .. } => Some(path.clone()),
            _ => None,
        };
        Call {
            name: name.to_string(),
            kind,
            extra,
            file,
        }
    }

    /// Its shell tools as a recap reads them, a command with its words as given (a read by
    /// `nl -ba` is a command run, shown as such), and the plan, which has no neutral kind.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        match name {
            "shell" | "shell_command" | "exec_command" | "local_shell" | "container.exec" => {
                command_in(input).map_or(Gist::Other, Gist::Shell)
            }
            "update_plan" => Gist::Todo(plan(input)),
            _ => Gist::Other,
        }
    }

    /// The headers of every `apply_patch` patch in the input: the tool's, or one run
    /// through a shell.
    fn patched(&self, input: &Value) -> Vec<String> {
        let mut out = Vec::new();
        patch_paths(input, &mut out, 0);
        out
    }

    /// A shell result's status: the `metadata.exit_code` of the JSON its `shell` tool
    /// answers with, else the `Exit code: N` or `Process exited with code N` line of its text.
    fn stated_exit(&self, text: &str) -> Option<i64> {
        serde_json::from_str::<Value>(text.trim())
            .ok()
            .and_then(|v| v.pointer("/metadata/exit_code").and_then(Value::as_i64))
            .or_else(|| exit_on_line(text, &["exit code", "process exited with code"]))
    }

    /// The environment context, user instructions and `AGENTS.md` it sends as user messages.
    fn injected(&self, text: &str) -> bool {
        starts_with_any(text, &["<environment_context>", "<user_instructions>", "# AGENTS.md"])
    }

    fn from_neutral(&self, call: &Call, ctx: Context) -> Option<Written> {
        let (written, kept) = write(call, ctx)?;
        let back = self.to_neutral(&written.name, &written.input.clone().into_value());
        back.says_the_same(&kept).then_some(written)
    }
}

/// The call as Codex writes it, and the call that comes back from it: the same, less what
/// the tool cannot say.
fn write(call: &Call, ctx: Context) -> Option<(Written, Call)> {
    let function = |name: &str, m: Map<String, Value>| Written {
        name: name.into(),
        input: Input::Json(Value::Object(m)),
        lost: None,
    };
    let written = match &call.kind {
        Kind::Shell(Command::Line(cmd)) => {
            let mut m = Map::from_iter([("cmd".to_string(), json!(cmd))]);
            m.extend(call.extra.clone());
            function("exec_command", m)
        }
        Kind::Shell(Command::Argv(argv)) => {
            let mut m = Map::from_iter([("command".to_string(), json!(argv))]);
            m.extend(call.extra.clone());
            function("shell", m)
        }
        Kind::Read(r) if call.extra.is_empty() => function(
            "exec_command",
            Map::from_iter([("cmd".to_string(), json!(read_to_exec(r)?))]),
        ),
        Kind::Write { .. } | Kind::Edit { .. } if call.extra.is_empty() => return patch(call, ctx),
        Kind::Other(input) if call.name == "apply_patch" => match input.as_object() {
            Some(m) if m.len() == 1 => Written {
                name: "apply_patch".into(),
                input: Input::Text(m.get("input")?.as_str()?.to_string()),
                lost: None,
            },
            _ => return None,
        },
        _ => return None,
    };
    Some((written, call.clone()))
}

/// A write or an edit as an `apply_patch` patch, and the call that comes back from it.
fn patch(call: &Call, ctx: Context) -> Option<(Written, Call)> {
    let mut kept = call.clone();
    let lost = match &mut kept.kind {
        // apply_patch ends every added line with a newline.
        Kind::Write { content, .. } if !content.is_empty() && !content.ends_with('\n') => {
            content.push('\n');
            Some("no final newline")
        }
        Kind::Edit { edits, .. } => {
            let all = edits.iter().any(|h| h.replace_all == Some(Value::Bool(true)));
            edits.iter_mut().for_each(|h| h.replace_all = None);
            all.then_some("replace_all flag")
        }
        _ => None,
    };
    let written = Written {
        name: "apply_patch".into(),
        input: Input::Text(edit_to_patch(&call.kind, ctx.exists)?),
        lost: lost.map(|l| format!("{}:{l}", call.name)),
    };
    Some((written, kept))
}

/// The steps of an `update_plan` plan: each one's `status` and `step` (or `content`).
fn plan(input: &Value) -> Option<Vec<Todo>> {
    let list = input.get("plan")?.as_array()?;
    Some(
        list.iter()
            .filter_map(|t| {
                Some(Todo {
                    text: t.get("step").or_else(|| t.get("content"))?.as_str()?.to_string(),
                    status: t.get("status").and_then(Value::as_str).unwrap_or_default().to_string(),
                })
            })
            .collect(),
    )
}

/// The files named by the headers of every patch inside `v`, in order, each once.
fn patch_paths(v: &Value, out: &mut Vec<String>, depth: usize) {
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

fn exec_of(input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let cmd = input.get("cmd")?.as_str()?;
    let others = rest(input, &["cmd"])?;
    if others.is_empty()
        && let Some(read) = read_of(cmd)
    {
        return Some((Kind::Read(read), others));
    }
    Some((Kind::Shell(Command::Line(cmd.to_string())), others))
}

/// Codex's `shell` (`{"command": [argv]}`) and `local_shell_call` actions.
fn argv_of(input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let argv: Vec<String> = input
        .get("command")?
        .as_array()?
        .iter()
        .map(|a| a.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    Some((Kind::Shell(Command::Argv(argv)), rest(input, &["command", "type"])?))
}

/// A read as the command Codex's own models read files with: numbered lines (`nl -ba`, as
/// Claude Code's `Read` numbers them), a range with `sed -n`, a count with `head -n`.
fn read_to_exec(r: &Read) -> Option<String> {
    let mut cmd = format!("nl -ba {}", quote(&r.path));
    match (r.offset, r.limit) {
        (None, None) => {}
        (Some(a), Some(n)) if n > 0 => cmd.push_str(&format!(" | sed -n '{a},{}p'", a + n - 1)),
        (Some(a), None) => cmd.push_str(&format!(" | sed -n '{a},$p'")),
        (None, Some(n)) => cmd.push_str(&format!(" | head -n {n}")),
        _ => return None,
    }
    Some(cmd)
}

/// The read of a command [`read_to_exec`] writes.
fn read_of(cmd: &str) -> Option<Read> {
    let rest = cmd.strip_prefix("nl -ba ")?;
    let (path, tail) = match rest.find(" | ") {
        Some(i) => (&rest[..i], Some(&rest[i + 3..])),
        None => (rest, None),
    };
    let mut read = Read {
        path: unquote(path)?,
        offset: None,
        limit: None,
    };
    if let Some(t) = tail {
        if let Some(n) = t.strip_prefix("head -n ") {
            read.limit = Some(n.parse::<u64>().ok()?);
        } else {
            let range = t.strip_prefix("sed -n '")?.strip_suffix("p'")?;
            let (a, b) = range.split_once(',')?;
            let a: u64 = a.parse().ok()?;
            read.offset = Some(a);
            if b != "$" {
                let b: u64 = b.parse().ok()?;
                read.limit = Some(b.checked_sub(a)? + 1);
            }
        }
    }
    Some(read)
}

/// Lines of `s` for a patch: split at every newline (a final newline gives a last empty
/// line, so [`hunk_side`] gives the same text back).
fn patch_lines<'a>(prefix: char, lines: impl IntoIterator<Item = &'a str>, out: &mut String) {
    for l in lines {
        out.push(prefix);
        out.push_str(l);
        out.push('\n');
    }
}

/// A write or an edit as an `apply_patch` patch of one file, as Codex writes one: an added
/// file (after its deletion when the conversation knows it exists), or an updated file with
/// a hunk per edit.
fn edit_to_patch(kind: &Kind, exists: bool) -> Option<String> {
    let (Kind::Write { path, .. } | Kind::Edit { path, .. }) = kind else {
        return None;
    };
    // The path is the rest of a header line.
    if path.is_empty() || path.contains(['\n', '\r']) {
        return None;
    }
    let mut p = String::from("*** Begin Patch\n");
    match kind {
        Kind::Write { content, .. } => {
            if exists {
                p.push_str(&format!("*** Delete File: {path}\n"));
            }
            p.push_str(&format!("*** Add File: {path}\n"));
            // apply_patch ends every added line with a newline; an empty file has none.
            if !content.is_empty() {
                patch_lines('+', content.strip_suffix('\n').unwrap_or(content).split('\n'), &mut p);
            }
        }
        Kind::Edit { edits, .. } => {
            if edits.is_empty() {
                return None;
            }
            p.push_str(&format!("*** Update File: {path}\n"));
            edits.iter().for_each(|h| hunk(h, &mut p));
        }
        _ => return None,
    }
    p.push_str("*** End Patch");
    Some(p)
}

/// An edit as a hunk: the lines both strings start and end with as context, the others
/// removed and added. An edit replaces text, not lines, so the strings are the hunk's lines
/// as they are: the file is not at hand to widen them to whole lines.
fn hunk(h: &Hunk, p: &mut String) {
    let old: Vec<&str> = h.old.split('\n').collect();
    let new: Vec<&str> = h.new.split('\n').collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - head;
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    p.push_str("@@\n");
    patch_lines(' ', old[..head].iter().copied(), p);
    patch_lines('-', old[head..old.len() - tail].iter().copied(), p);
    patch_lines('+', new[head..new.len() - tail].iter().copied(), p);
    patch_lines(' ', old[old.len() - tail..].iter().copied(), p);
}

/// One side of a hunk: the lines it has before (`-` and context) or after (`+` and context).
fn hunk_side(lines: &[&str], keep: char) -> String {
    lines
        .iter()
        .filter(|l| l.starts_with(keep) || l.starts_with(' ') || l.is_empty())
        .map(|l| l.get(1..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A patch of one file as a write (an added file, or one deleted and added again) or an
/// edit (a hunk per replacement); `None` for anything else (several files, a move, a deletion
/// alone, an end-of-file marker).
fn patch_to_edit(patch: &str) -> Option<Kind> {
    let body = patch
        .trim_end_matches('\n')
        .strip_prefix("*** Begin Patch\n")?
        .strip_suffix("*** End Patch")?;
    let lines: Vec<&str> = body.strip_suffix('\n').unwrap_or(body).split('\n').collect();
    let (head, rest) = lines.split_first()?;
    let (head, rest) = match (head.strip_prefix("*** Delete File: "), rest.split_first()) {
        (Some(gone), Some((add, rest))) if add.strip_prefix("*** Add File: ") == Some(gone) => (add, rest),
        _ => (head, rest),
    };
    if rest.iter().any(|l| l.starts_with("*** ")) {
        return None;
    }
    if let Some(path) = head.strip_prefix("*** Add File: ") {
        let lines: Vec<&str> = rest.iter().map(|l| l.strip_prefix('+')).collect::<Option<_>>()?;
        let content: String = lines.iter().flat_map(|l| [l, "\n"]).collect();
        return Some(Kind::Write {
            path: path.to_string(),
            content,
        });
    }
    let path = head.strip_prefix("*** Update File: ")?;
    let mut hunks: Vec<Vec<&str>> = Vec::new();
    for l in rest {
        if l.starts_with("@@") {
            hunks.push(Vec::new());
        } else {
            let h = hunks.last_mut()?;
            if !(l.starts_with(['+', '-', ' ']) || l.is_empty()) {
                return None;
            }
            h.push(l);
        }
    }
    if hunks.is_empty() {
        return None;
    }
    let edits = hunks
        .iter()
        .map(|h| Hunk {
            old: hunk_side(h, '-'),
            new: hunk_side(h, '+'),
            replace_all: None,
        })
        .collect();
    Some(Kind::Edit {
        path: path.to_string(),
        edits,
    })
}

#[cfg(test)]
mod tests;
