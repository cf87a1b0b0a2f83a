//! The one table of how each agent's tools map to the other's (`docs/convert.md#tools`).
//!
//! A call is mapped only when mapping it back gives the same call: a Claude Code call that
//! goes to Codex and back keeps its name and its input, but for what Codex's tool has no
//! words for, which is counted ([`ToCodex::lost`]): an `Edit`'s `replace_all` (a patch hunk
//! replaces the text where it stands) and a `Write` of text without a final newline (a patch
//! ends every added line with one). A call the target tool cannot express at all (a path on
//! several lines) keeps its own name. Keys without an equivalent (`description`, `workdir`,
//! `yield_time_ms`) go across as they are.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

/// A call as Codex writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum CodexCall {
    /// A `function_call` with JSON arguments.
    Function { name: String, arguments: Value },
    /// A `custom_tool_call` with free-form input (`apply_patch`).
    Custom { name: String, input: String },
}

impl CodexCall {
    /// The call back in Claude Code's terms.
    fn to_claude(&self) -> (String, Value) {
        match self {
            CodexCall::Function { name, arguments } => to_claude(name, arguments).0,
            CodexCall::Custom { name, input } => to_claude(name, &json!({"input": input})).0,
        }
    }

    fn name(&self) -> &str {
        match self {
            CodexCall::Function { name, .. } | CodexCall::Custom { name, .. } => name,
        }
    }
}

/// The mapping a call took, for the report: `Bash → exec_command`.
pub type Mapped = Option<String>;

fn label(from: &str, to: &str) -> Mapped {
    (from != to).then(|| format!("{from} → {to}"))
}

/// A Claude Code call in Codex's terms.
#[derive(Debug, PartialEq)]
pub struct ToCodex {
    pub call: CodexCall,
    pub mapped: Mapped,
    /// What of the call the Codex tool cannot say, for the report's left-out count.
    pub lost: Option<&'static str>,
}

/// The files a conversation's calls have read or written so far: a `Write` to one of them
/// replaces a file that exists, which a patch says as a deletion and an addition.
#[derive(Debug, Default)]
pub struct Files(HashSet<String>);

impl Files {
    /// Notes the file of a Claude Code file tool's call; whether it was known before.
    fn touch(&mut self, name: &str, input: &Value) -> bool {
        let path = match name {
            "Read" | "Write" | "Edit" | "MultiEdit" => input.get("file_path").and_then(Value::as_str),
            _ => None,
        };
        path.is_some_and(|p| !self.0.insert(p.to_string()))
    }
}

/// A call in Codex's terms. Claude Code's `Bash` and `Read` become `exec_command`, `Write`,
/// `Edit` and `MultiEdit` become an `apply_patch` patch; everything else keeps its name.
pub fn to_codex(name: &str, input: &Value, files: &mut Files) -> ToCodex {
    let exists = files.touch(name, input);
    let mapped = match name {
        "Bash" => bash_to_exec(input),
        "Read" => read_to_exec(input),
        "Write" | "Edit" | "MultiEdit" => edit_to_patch(name, input, exists).map(|p| CodexCall::Custom {
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
        let (lost, expected) = what_patch_keeps(name, input);
        if call.to_claude() == expected {
            let mapped = label(name, call.name());
            return ToCodex { call, mapped, lost };
        }
    }
    let arguments = if input.is_object() {
        input.clone()
    } else {
        json!({ "input": input })
    };
    ToCodex {
        call: CodexCall::Function {
            name: name.to_string(),
            arguments,
        },
        mapped: None,
        lost: None,
    }
}

/// The call a mapped call comes back as, and what it lost on the way: an edit's
/// `replace_all` (false is the default and says nothing), the final newline a patch adds to a
/// `Write`; several edits come back as the `Edit` with an `edits` list of Claude Code 2.1.332
/// (whose request drops an `Edit`'s single-edit fields beside such a list), one as that edit.
fn what_patch_keeps(name: &str, input: &Value) -> (Option<&'static str>, (String, Value)) {
    let same = (None, (name.to_string(), input.clone()));
    let Some(m) = input.as_object() else { return same };
    let all = |e: &Map<String, Value>| e.get("replace_all") == Some(&Value::Bool(true));
    let without_all = |e: &Map<String, Value>| {
        let mut e = e.clone();
        e.shift_remove("replace_all");
        e
    };
    match (name, m.get("edits")) {
        ("Edit", None) => {
            let lost = all(m).then_some("Edit:replace_all flag");
            (lost, (name.to_string(), Value::Object(without_all(m))))
        }
        ("Edit" | "MultiEdit", Some(edits)) => {
            let Some(edits) = edits
                .as_array()
                .and_then(|e| e.iter().map(Value::as_object).collect::<Option<Vec<_>>>())
            else {
                return same;
            };
            let lost = edits.iter().any(|e| all(e)).then(|| {
                if name == "Edit" {
                    "Edit:replace_all flag"
                } else {
                    "MultiEdit:replace_all flag"
                }
            });
            let mut edits: Vec<Map<String, Value>> = edits.into_iter().map(without_all).collect();
            let mut m = m.clone();
            for k in ["old_string", "new_string", "replace_all"] {
                m.shift_remove(k);
            }
            if let [one] = edits.as_mut_slice() {
                m.shift_remove("edits");
                m.extend(std::mem::take(one));
            } else {
                m.insert("edits".into(), json!(edits));
            }
            (lost, ("Edit".into(), Value::Object(m)))
        }
        ("Write", _) => match m.get("content").and_then(Value::as_str) {
            Some(c) if !c.is_empty() && !c.ends_with('\n') => {
                let mut m = m.clone();
                m.insert("content".into(), json!(format!("{c}\n")));
                (Some("Write:no final newline"), (name.to_string(), Value::Object(m)))
            }
            _ => same,
        },
        _ => same,
    }
}

/// A call in Claude Code's terms: Codex's shell tools become `Bash` (or `Read` for the file
/// reads [`to_codex`] writes), an `apply_patch` of one file `Write` or `Edit`;
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
fn patch_lines<'a>(prefix: char, lines: impl IntoIterator<Item = &'a str>, out: &mut String) {
    for l in lines {
        out.push(prefix);
        out.push_str(l);
        out.push('\n');
    }
}

/// Claude Code's file tools as an `apply_patch` patch of one file, as Codex writes one: an
/// added file (after its deletion when the conversation knows it exists), or an updated file
/// with a hunk per edit.
fn edit_to_patch(name: &str, input: &Value, exists: bool) -> Option<String> {
    let path = input.get("file_path")?.as_str()?;
    // The path is the rest of a header line.
    if path.is_empty() || path.contains(['\n', '\r']) {
        return None;
    }
    let mut p = String::from("*** Begin Patch\n");
    match name {
        "Write" => {
            let content = input.get("content")?.as_str()?;
            if exists {
                p.push_str(&format!("*** Delete File: {path}\n"));
            }
            p.push_str(&format!("*** Add File: {path}\n"));
            // apply_patch ends every added line with a newline; an empty file has none.
            if !content.is_empty() {
                patch_lines('+', content.strip_suffix('\n').unwrap_or(content).split('\n'), &mut p);
            }
        }
        _ => {
            p.push_str(&format!("*** Update File: {path}\n"));
            match input.get("edits") {
                Some(edits) => {
                    let edits = edits.as_array()?;
                    if edits.is_empty() {
                        return None;
                    }
                    for e in edits {
                        hunk(e, &mut p)?;
                    }
                }
                None => hunk(input, &mut p)?,
            }
        }
    }
    p.push_str("*** End Patch");
    Some(p)
}

/// An edit as a hunk: the lines both strings start and end with as context, the others
/// removed and added. An edit replaces text, not lines, so the strings are the hunk's lines
/// as they are: the file is not at hand to widen them to whole lines.
fn hunk(e: &Value, p: &mut String) -> Option<()> {
    let old: Vec<&str> = e.get("old_string")?.as_str()?.split('\n').collect();
    let new: Vec<&str> = e.get("new_string")?.as_str()?.split('\n').collect();
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

/// A patch of one file as `Write` (an added file, or one deleted and added again) or `Edit`
/// (one hunk, or several as its `edits` list, as Claude Code 2.1.332 writes them); `None` for anything else (several files, a move, a deletion
/// alone, an end-of-file marker).
fn patch_to_edit(patch: &str) -> Option<(String, Value)> {
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
        return Some(("Write".into(), json!({"file_path": path, "content": content})));
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
        _ => Some(("Edit".into(), json!({"file_path": path, "edits": edits}))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(name: &str, input: Value) -> (CodexCall, (String, Value)) {
        let c = to_codex(name, &input, &mut Files::default()).call;
        let back = c.to_claude();
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
                "Edit",
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

    fn patch_of(name: &str, input: Value, files: &mut Files) -> (String, Option<&'static str>) {
        let m = to_codex(name, &input, files);
        assert_eq!(m.mapped.as_deref(), Some(&*format!("{name} → apply_patch")), "{input}");
        match m.call {
            CodexCall::Custom { input, .. } => (input, m.lost),
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn file_tools_are_patches_as_codex_writes_them() {
        let mut files = Files::default();
        let edit = json!({"file_path": "src/a.rs", "old_string": "fn a() {\n    1\n}",
                          "new_string": "fn a() {\n    2\n}", "replace_all": false});
        // The lines both strings share are the hunk's context.
        assert_eq!(
            patch_of("Edit", edit, &mut files),
            (
                "*** Begin Patch\n*** Update File: src/a.rs\n@@\n fn a() {\n-    1\n+    2\n }\n*** End Patch".into(),
                None
            )
        );
        let all = json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": true});
        assert_eq!(
            patch_of("Edit", all, &mut files),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch".into(),
                Some("Edit:replace_all flag")
            )
        );
        // A new file is added; one the conversation has read or written is replaced.
        let write = json!({"file_path": "b.txt", "content": "one\ntwo"});
        assert_eq!(
            patch_of("Write", write.clone(), &mut files),
            (
                "*** Begin Patch\n*** Add File: b.txt\n+one\n+two\n*** End Patch".into(),
                Some("Write:no final newline")
            )
        );
        assert_eq!(
            patch_of("Write", write, &mut files).0,
            "*** Begin Patch\n*** Delete File: b.txt\n*** Add File: b.txt\n+one\n+two\n*** End Patch"
        );
        let one = json!({"file_path": "c", "edits": [{"old_string": "p", "new_string": "q", "replace_all": false}]});
        assert_eq!(
            patch_of("MultiEdit", one, &mut files).0,
            "*** Begin Patch\n*** Update File: c\n@@\n-p\n+q\n*** End Patch"
        );
    }

    #[test]
    fn a_patch_comes_back_as_the_edit_less_what_it_cannot_say() {
        let cases = [
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "a\nb\n", "new_string": "a\nc\n", "replace_all": true}),
                (
                    "Edit",
                    json!({"file_path": "/x", "old_string": "a\nb\n", "new_string": "a\nc\n"}),
                ),
            ),
            (
                "Write",
                json!({"file_path": "/x", "content": "no final newline"}),
                ("Write", json!({"file_path": "/x", "content": "no final newline\n"})),
            ),
            (
                "Write",
                json!({"file_path": "/x", "content": ""}),
                ("Write", json!({"file_path": "/x", "content": ""})),
            ),
            (
                "Write",
                json!({"file_path": "/x", "content": "\n"}),
                ("Write", json!({"file_path": "/x", "content": "\n"})),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/x", "edits": [{"old_string": "*** End Patch", "new_string": "@@", "replace_all": false}]}),
                (
                    "Edit",
                    json!({"file_path": "/x", "old_string": "*** End Patch", "new_string": "@@"}),
                ),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d", "replace_all": true}]}),
                (
                    "Edit",
                    json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
                ),
            ),
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "a", "new_string": "b", "edits": [{"old_string": "c", "new_string": "d"}]}),
                ("Edit", json!({"file_path": "/x", "old_string": "c", "new_string": "d"})),
            ),
        ];
        for (name, input, (to, expected)) in cases {
            let (c, back) = round(name, input.clone());
            assert!(matches!(c, CodexCall::Custom { .. }), "{input}");
            assert_eq!(back, (to.to_string(), expected), "{input}");
        }
    }

    #[test]
    fn calls_the_target_cannot_express_keep_their_name() {
        for (name, input) in [
            (
                "Edit",
                json!({"file_path": "/x\ny", "old_string": "a", "new_string": "b"}),
            ),
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "a", "new_string": "b", "other": 1}),
            ),
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
