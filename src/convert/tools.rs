//! The one table of how each agent's tools map to the other's (`docs/convert.md#tools`).
//!
//! A call is mapped only when mapping it back gives the very same call: a Claude Code call
//! that goes to Codex and back keeps its name and its input exactly, and a call whose input
//! the target tool cannot express (an `Edit` with `replace_all`, a `Write` of text without a
//! final newline, which `apply_patch` cannot write) keeps its own name. Keys without an
//! equivalent (`description`, `workdir`, `yield_time_ms`) go across as they are.

use serde_json::{Map, Value, json};

/// A call as Codex writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum CodexCall {
    /// A `function_call` with JSON arguments.
    Function { name: String, arguments: Value },
    /// A `custom_tool_call` with free-form input (`apply_patch`).
    Custom { name: String, input: String },
}

/// The mapping a call took, for the report: `Bash → exec_command`.
pub type Mapped = Option<String>;

fn label(from: &str, to: &str) -> Mapped {
    (from != to).then(|| format!("{from} → {to}"))
}

/// A call in Codex's terms. Claude Code's `Bash` and `Read` become `exec_command`, `Write`,
/// `Edit` and `MultiEdit` become an `apply_patch` patch; everything else keeps its name.
pub fn to_codex(name: &str, input: &Value) -> (CodexCall, Mapped) {
    let mapped = match name {
        "Bash" => bash_to_exec(input),
        "Read" => read_to_exec(input),
        "Write" | "Edit" | "MultiEdit" => edit_to_patch(name, input).map(|p| CodexCall::Custom {
            name: "apply_patch".into(),
            input: p,
        }),
        "apply_patch" => match input.as_object() {
            Some(m) if m.len() == 1 => m.get("input").and_then(Value::as_str).map(|p| CodexCall::Custom {
                name: "apply_patch".into(),
                input: p.to_string(),
            }),
            _ => None,
        },
        _ => None,
    };
    if let Some(call) = mapped {
        let back = match &call {
            CodexCall::Function { name, arguments } => to_claude(name, arguments).0,
            CodexCall::Custom { name, input } => to_claude(name, &json!({"input": input})).0,
        };
        if back.0 == name && &back.1 == input {
            let to = match &call {
                CodexCall::Function { name, .. } | CodexCall::Custom { name, .. } => name.clone(),
            };
            return (call, label(name, &to));
        }
    }
    let arguments = if input.is_object() {
        input.clone()
    } else {
        json!({ "input": input })
    };
    (
        CodexCall::Function {
            name: name.to_string(),
            arguments,
        },
        None,
    )
}

/// A call in Claude Code's terms: Codex's shell tools become `Bash` (or `Read` for the file
/// reads [`to_codex`] writes), an `apply_patch` of one file `Write`, `Edit` or `MultiEdit`;
/// everything else keeps its name, its input made an object.
pub fn to_claude(name: &str, input: &Value) -> ((String, Value), Mapped) {
    let mapped = match name {
        "exec_command" => exec_to_claude(input),
        "shell" | "local_shell" | "container.exec" => argv_to_bash(input),
        "apply_patch" => input
            .get("input")
            .or_else(|| input.get("patch"))
            .and_then(Value::as_str)
            .and_then(patch_to_edit),
        _ => None,
    };
    if let Some((to, v)) = mapped {
        let l = label(name, &to);
        return ((to, v), l);
    }
    let input = if input.is_object() {
        input.clone()
    } else {
        json!({ "input": input })
    };
    ((name.to_string(), input), None)
}

/// `input` without `key`, or `None` when it is not an object.
fn rest(input: &Value, keys: &[&str]) -> Option<Map<String, Value>> {
    let mut m = input.as_object()?.clone();
    for k in keys {
        m.shift_remove(*k);
    }
    Some(m)
}

fn bash_to_exec(input: &Value) -> Option<CodexCall> {
    let cmd = input.get("command")?.as_str()?;
    let mut m = Map::from_iter([("cmd".to_string(), json!(cmd))]);
    m.extend(rest(input, &["command"])?);
    Some(CodexCall::Function {
        name: "exec_command".into(),
        arguments: Value::Object(m),
    })
}

fn exec_to_claude(input: &Value) -> Option<(String, Value)> {
    let cmd = input.get("cmd")?.as_str()?;
    let others = rest(input, &["cmd"])?;
    if others.is_empty()
        && let Some(read) = read_of(cmd)
    {
        return Some(("Read".into(), read));
    }
    let mut m = Map::from_iter([("command".to_string(), json!(cmd))]);
    m.extend(others);
    Some(("Bash".into(), Value::Object(m)))
}

/// Codex's `shell` (`{"command": [argv]}`) and `local_shell_call` actions as `Bash`.
fn argv_to_bash(input: &Value) -> Option<(String, Value)> {
    let argv: Vec<&str> = input
        .get("command")?
        .as_array()?
        .iter()
        .map(Value::as_str)
        .collect::<Option<_>>()?;
    let script = match argv.as_slice() {
        [sh, flag, script] if is_shell(sh) && matches!(*flag, "-c" | "-lc") => script.to_string(),
        _ => argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "),
    };
    let mut m = Map::from_iter([("command".to_string(), json!(script))]);
    m.extend(rest(input, &["command", "type"])?);
    Some(("Bash".into(), Value::Object(m)))
}

fn is_shell(s: &str) -> bool {
    matches!(s.rsplit('/').next(), Some("bash" | "sh" | "zsh" | "dash"))
}

/// A word as the shell reads it back: bare when it is safe, else in single quotes.
pub fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./+-:@%,=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The word [`quote`] wrote, if `s` is exactly one.
fn unquote(s: &str) -> Option<String> {
    if !s.starts_with('\'') {
        return (quote(s) == s).then(|| s.to_string());
    }
    let mut out = String::new();
    let mut rest = s;
    loop {
        let body = rest.strip_prefix('\'')?;
        let end = body.find('\'')?;
        out.push_str(&body[..end]);
        rest = &body[end + 1..];
        if rest.is_empty() {
            break;
        }
        rest = rest.strip_prefix("\\'")?;
        out.push('\'');
    }
    (quote(&out) == s).then_some(out)
}

/// Claude Code's `Read` as the command Codex's own models read files with: numbered lines
/// (`nl -ba`, as `Read` numbers them), a range with `sed -n`, a count with `head -n`.
fn read_to_exec(input: &Value) -> Option<CodexCall> {
    let path = input.get("file_path")?.as_str()?;
    let offset = input
        .get("offset")
        .map(|v| v.as_u64())
        .map_or(Ok(None), |v| v.ok_or(()).map(Some))
        .ok()?;
    let limit = input
        .get("limit")
        .map(|v| v.as_u64())
        .map_or(Ok(None), |v| v.ok_or(()).map(Some))
        .ok()?;
    let mut cmd = format!("nl -ba {}", quote(path));
    match (offset, limit) {
        (None, None) => {}
        (Some(a), Some(n)) if n > 0 => cmd.push_str(&format!(" | sed -n '{a},{}p'", a + n - 1)),
        (Some(a), None) => cmd.push_str(&format!(" | sed -n '{a},$p'")),
        (None, Some(n)) => cmd.push_str(&format!(" | head -n {n}")),
        _ => return None,
    }
    Some(CodexCall::Function {
        name: "exec_command".into(),
        arguments: json!({ "cmd": cmd }),
    })
}

/// The `Read` input of a command [`read_to_exec`] writes.
fn read_of(cmd: &str) -> Option<Value> {
    let rest = cmd.strip_prefix("nl -ba ")?;
    let (path, tail) = match rest.find(" | ") {
        Some(i) => (&rest[..i], Some(&rest[i + 3..])),
        None => (rest, None),
    };
    let path = unquote(path)?;
    let mut m = Map::from_iter([("file_path".to_string(), json!(path))]);
    match tail {
        None => {}
        Some(t) => {
            if let Some(n) = t.strip_prefix("head -n ") {
                m.insert("limit".into(), json!(n.parse::<u64>().ok()?));
            } else {
                let range = t.strip_prefix("sed -n '")?.strip_suffix("p'")?;
                let (a, b) = range.split_once(',')?;
                let a: u64 = a.parse().ok()?;
                m.insert("offset".into(), json!(a));
                if b != "$" {
                    let b: u64 = b.parse().ok()?;
                    m.insert("limit".into(), json!(b.checked_sub(a)? + 1));
                }
            }
        }
    }
    Some(Value::Object(m))
}

/// Lines of `s` for a patch: split at every newline (a final newline gives a last empty
/// line, so [`hunk_side`] gives the same text back).
fn patch_lines(prefix: char, s: &str, out: &mut String) {
    for l in s.split('\n') {
        out.push(prefix);
        out.push_str(l);
        out.push('\n');
    }
}

/// Claude Code's file tools as an `apply_patch` patch of one file.
fn edit_to_patch(name: &str, input: &Value) -> Option<String> {
    let path = input.get("file_path")?.as_str()?;
    let mut p = String::from("*** Begin Patch\n");
    match name {
        "Write" => {
            // apply_patch ends every added file with a newline.
            let content = input.get("content")?.as_str()?.strip_suffix('\n')?;
            p.push_str(&format!("*** Add File: {path}\n"));
            patch_lines('+', content, &mut p);
        }
        "Edit" => {
            p.push_str(&format!("*** Update File: {path}\n"));
            hunk(input, &mut p)?;
        }
        _ => {
            p.push_str(&format!("*** Update File: {path}\n"));
            let edits = input.get("edits")?.as_array()?;
            if edits.len() < 2 {
                return None;
            }
            for e in edits {
                hunk(e, &mut p)?;
            }
        }
    }
    p.push_str("*** End Patch");
    Some(p)
}

fn hunk(e: &Value, p: &mut String) -> Option<()> {
    let old = e.get("old_string")?.as_str()?;
    let new = e.get("new_string")?.as_str()?;
    p.push_str("@@\n");
    patch_lines('-', old, p);
    patch_lines('+', new, p);
    Some(())
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

/// A patch of one file as `Write` (an added file), `Edit` (one hunk) or `MultiEdit`; `None`
/// for anything else (several files, a move, a deletion, an end-of-file marker).
fn patch_to_edit(patch: &str) -> Option<(String, Value)> {
    let body = patch
        .trim_end_matches('\n')
        .strip_prefix("*** Begin Patch\n")?
        .strip_suffix("*** End Patch")?;
    let lines: Vec<&str> = body.strip_suffix('\n').unwrap_or(body).split('\n').collect();
    let (head, rest) = lines.split_first()?;
    if rest.iter().any(|l| l.starts_with("*** ")) {
        return None;
    }
    if let Some(path) = head.strip_prefix("*** Add File: ") {
        let content: Vec<&str> = rest.iter().map(|l| l.strip_prefix('+')).collect::<Option<_>>()?;
        return Some((
            "Write".into(),
            json!({"file_path": path, "content": format!("{}\n", content.join("\n"))}),
        ));
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
    let edits: Vec<Value> = hunks
        .iter()
        .map(|h| json!({"old_string": hunk_side(h, '-'), "new_string": hunk_side(h, '+')}))
        .collect();
    match edits.len() {
        0 => None,
        1 => {
            let mut m = Map::from_iter([("file_path".to_string(), json!(path))]);
            if let Value::Object(e) = &edits[0] {
                m.extend(e.clone());
            }
            Some(("Edit".into(), Value::Object(m)))
        }
        _ => Some(("MultiEdit".into(), json!({"file_path": path, "edits": edits}))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(name: &str, input: Value) -> (CodexCall, (String, Value)) {
        let (c, _) = to_codex(name, &input);
        let back = match &c {
            CodexCall::Function { name, arguments } => to_claude(name, arguments).0,
            CodexCall::Custom { name, input } => to_claude(name, &json!({"input": input})).0,
        };
        (c, back)
    }

    #[test]
    fn claude_tools_map_and_come_back() {
        let cases = [
            ("Bash", json!({"command": "ls -la", "description": "list"})),
            ("Read", json!({"file_path": "/a b/c.rs"})),
            ("Read", json!({"file_path": "/x.rs", "offset": 10, "limit": 5})),
            ("Read", json!({"file_path": "/x.rs", "offset": 10})),
            ("Read", json!({"file_path": "/x.rs", "limit": 7})),
            ("Write", json!({"file_path": "/x.rs", "content": "a\nb\n"})),
            (
                "Edit",
                json!({"file_path": "/x.rs", "old_string": "a\nb", "new_string": "c"}),
            ),
            (
                "Edit",
                json!({"file_path": "/x.rs", "old_string": "", "new_string": "c\n"}),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
            ),
        ];
        for (name, input) in cases {
            let (c, back) = round(name, input.clone());
            assert!(
                matches!(&c, CodexCall::Function { name, .. } | CodexCall::Custom { name, .. } if name == "exec_command" || name == "apply_patch"),
                "{name} not mapped: {c:?}"
            );
            assert_eq!(back, (name.to_string(), input));
        }
    }

    #[test]
    fn calls_the_target_cannot_express_keep_their_name() {
        for (name, input) in [
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "a", "new_string": "b", "replace_all": true}),
            ),
            ("Write", json!({"file_path": "/x", "content": "no final newline"})),
            ("Read", json!({"file_path": "/x", "offset": "3"})),
            ("Grep", json!({"pattern": "x"})),
        ] {
            let (c, back) = round(name, input.clone());
            assert_eq!(
                c,
                CodexCall::Function {
                    name: name.into(),
                    arguments: input.clone()
                }
            );
            assert_eq!(back, (name.to_string(), input));
        }
    }

    #[test]
    fn codex_tools_become_claude_tools() {
        let ((n, i), _) = to_claude(
            "shell",
            &json!({"command": ["bash", "-lc", "cargo test"], "workdir": "/w"}),
        );
        assert_eq!(
            (n.as_str(), i),
            ("Bash", json!({"command": "cargo test", "workdir": "/w"}))
        );
        let ((n, i), _) = to_claude("local_shell", &json!({"type": "exec", "command": ["ls", "a b"]}));
        assert_eq!((n.as_str(), i), ("Bash", json!({"command": "ls 'a b'"})));
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@ fn main\n ctx\n-old\n+new\n*** End Patch\n";
        let ((n, i), _) = to_claude("apply_patch", &json!({"input": patch}));
        assert_eq!(
            (n.as_str(), i),
            (
                "Edit",
                json!({"file_path": "src/a.rs", "old_string": "ctx\nold", "new_string": "ctx\nnew"})
            )
        );
        let two = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch";
        let ((n, _), _) = to_claude("apply_patch", &json!({"input": two}));
        assert_eq!(n, "apply_patch");
        let ((n, i), _) = to_claude("mcp__x__y", &json!("s"));
        assert_eq!((n.as_str(), i), ("mcp__x__y", json!({"input": "s"})));
    }

    #[test]
    fn quoting_round_trips() {
        for s in ["plain/path.rs", "a b", "it's", "", "'", "a'b'c"] {
            assert_eq!(unquote(&quote(s)).as_deref(), Some(s), "{s:?}");
        }
    }
}
