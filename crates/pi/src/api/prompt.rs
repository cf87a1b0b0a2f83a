//! The system prompt and the tools pi 1.6.0 sends after a resume (`docs/pi.md`, rules P10–P12).
//!
//! pi 1.6.0 keeps its prompt and tool loadout in the session as `system` messages: the first
//! request of a session records one with every prompt section and tool declaration, and each
//! later change records a patch (`sections` replaced by name, `null` removing one; `toolsAdded`,
//! `toolsRemoved`). On resume it restores the loadout those messages declare
//! (`AgentSession._restoreToolsFromTranscript`), builds its prompt sections for that loadout
//! (`system-prompt.js`, `buildSystemPromptSections`), records what differs from the replayed ones
//! as one more patch (`diffSystemPromptSections`) and declares the tools that differ
//! (pi-agent-core's `declareToolChanges`). A Chat Completions provider without mid-conversation
//! system messages then gets every system message folded into one leading prompt and one tool
//! list (pi-ai's `utils/transcript.js`, `collapseSystemMessages`, `resolveTranscriptTools`).
//! A session of an earlier release, with no such message, gets pi's defaults the same way.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::NotEmulated;
use crate::file::Session;
use crate::tree::Tree;

/// The tools pi activates when the branch records no loadout (`_buildRuntime`).
const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// The fixed parts of the default prompt and each built-in tool's contribution to it.
const PROMPT: &str = include_str!("prompt.json");

/// The built-in tools' declarations as pi records them in `toolsAdded`.
const TOOLS: &str = include_str!("tools.json");

/// The rules every prompt ends with (`buildRules`).
const CLOSING_RULES: [&str; 2] = [
    "Be concise in your responses",
    "Show file paths clearly when working with files",
];

/// What follows the tool list in the `tools` section.
const MORE_TOOLS: &str = "\n\nAdditional tools may be available.";

/// The data files, parsed once; both are part of the build, so failing to parse them is a bug
/// of this crate, caught by its tests.
fn prompt_data() -> &'static Value {
    static P: OnceLock<Value> = OnceLock::new();
    P.get_or_init(|| serde_json::from_str(PROMPT).expect("prompt.json is JSON"))
}

pub(crate) fn builtins() -> &'static [Value] {
    static T: OnceLock<Vec<Value>> = OnceLock::new();
    T.get_or_init(|| serde_json::from_str(TOOLS).expect("tools.json is a JSON array"))
}

fn builtin(name: &str) -> Option<&'static Value> {
    builtins()
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

/// One declaration in the replayed tool state: its name (`undefined` in JavaScript when it has
/// none), the declaration as written and the line that added it.
struct Declared {
    name: Option<String>,
    decl: Value,
    line: u64,
}

/// The prompt and tools a sequence of system messages replays to (`getCurrentSystemMessage`).
#[derive(Default)]
struct Replayed {
    /// Each message's non-empty text content, in order.
    content: Vec<String>,
    /// The sections by name, in the order a JavaScript `Map` keeps them.
    sections: Vec<(String, String)>,
    tools: Vec<Declared>,
}

fn list<'a>(m: &'a Map<String, Value>, key: &str, line: u64) -> Result<&'a [Value], NotEmulated> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(NotEmulated::Malformed(line, format!("its {key} is not a list"))),
    }
}

/// A tool reference's name; pi reads `tool.name` of any object, so only a non-object fails.
fn tool_name(t: &Value, key: &str, line: u64) -> Result<Option<String>, NotEmulated> {
    match t {
        Value::Object(o) => Ok(o.get("name").and_then(Value::as_str).map(str::to_string)),
        _ => Err(NotEmulated::Malformed(
            line,
            format!("an entry of its {key} is not an object"),
        )),
    }
}

/// `getCurrentTools` applied to one more message: its removals, then its additions; a name
/// added again keeps its place (`Map.set`), one removed and added goes last.
fn apply_tools(tools: &mut Vec<Declared>, m: &Map<String, Value>, line: u64) -> Result<(), NotEmulated> {
    for t in list(m, "toolsRemoved", line)? {
        let name = tool_name(t, "toolsRemoved", line)?;
        tools.retain(|d| d.name != name);
    }
    for t in list(m, "toolsAdded", line)? {
        let name = tool_name(t, "toolsAdded", line)?;
        match tools.iter_mut().find(|d| d.name == name) {
            Some(d) => {
                d.decl = t.clone();
                d.line = line;
            }
            None => tools.push(Declared {
                name,
                decl: t.clone(),
                line,
            }),
        }
    }
    Ok(())
}

/// `contentText`: a string as it is, text blocks joined with newlines.
fn content_text(m: &Map<String, Value>, line: u64) -> Result<String, NotEmulated> {
    match m.get("content") {
        // The session manager gives a system message without content an empty one.
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(b)) => Ok(b
            .iter()
            .filter(|x| x.get("type").and_then(Value::as_str) == Some("text"))
            .map(|x| x.get("text").and_then(Value::as_str).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")),
        Some(_) => Err(NotEmulated::Malformed(
            line,
            "its content is neither text nor a list".into(),
        )),
    }
}

/// Replays the system messages among `msgs` (P11, P12). Section names are kept in the order
/// they come; JavaScript would put integer-like names first, but no section pi builds has such
/// a name, so none of them outlives the patch that makes the replayed sections pi's own.
fn replay<'a>(msgs: impl Iterator<Item = (u64, &'a Map<String, Value>)>) -> Result<Replayed, NotEmulated> {
    let mut r = Replayed::default();
    for (line, m) in msgs.filter(|(_, m)| m.get("role").and_then(Value::as_str) == Some("system")) {
        let text = content_text(m, line)?;
        if !text.is_empty() {
            r.content.push(text);
        }
        match m.get("sections") {
            None | Some(Value::Null) => {}
            Some(Value::Object(sections)) => {
                for (name, value) in sections {
                    match value {
                        Value::Null => r.sections.retain(|(n, _)| n != name),
                        Value::String(text) => match r.sections.iter_mut().find(|(n, _)| n == name) {
                            Some(s) => s.1 = text.clone(),
                            None => r.sections.push((name.clone(), text.clone())),
                        },
                        _ => {
                            return Err(NotEmulated::Malformed(
                                line,
                                format!("its section {name:?} is neither text nor null"),
                            ));
                        }
                    }
                }
            }
            Some(_) => return Err(NotEmulated::Malformed(line, "its sections are not an object".into())),
        }
        apply_tools(&mut r.tools, m, line)?;
    }
    Ok(r)
}

/// P10: the tools active after a resume. The loadout every system message on the branch
/// declares, those before a compaction too, or pi's defaults when there is none; pi's own
/// default tools first, in their order, then the others in the order declared.
fn loadout(s: &Session, t: &Tree) -> Result<Vec<String>, NotEmulated> {
    let mut tools = Vec::new();
    let mut any = false;
    for &i in &t.branch {
        let e = &s.entries[i];
        if let Some(m) = e.message().filter(|_| e.role() == Some("system")) {
            any = true;
            apply_tools(&mut tools, m, e.line)?;
        }
    }
    if !any {
        return Ok(DEFAULT_TOOLS.iter().map(|n| n.to_string()).collect());
    }
    let mut names = Vec::new();
    for d in tools {
        // A declaration without a name names no registered tool: pi activates nothing for it.
        let Some(name) = d.name else { continue };
        // A tool an extension or MCP server registers is declared again only when that is
        // installed where pi resumes, which the file does not say.
        if builtin(&name).is_none() {
            return Err(NotEmulated::UnknownTool(d.line, name));
        }
        names.push(name);
    }
    let mut active: Vec<String> = DEFAULT_TOOLS
        .iter()
        .filter(|d| names.iter().any(|n| n == *d))
        .map(|d| d.to_string())
        .collect();
    for n in names {
        if !active.contains(&n) {
            active.push(n);
        }
    }
    Ok(active)
}

/// `buildRules`: the file-operation rule for a shell without the search tools, each tool's
/// guidelines in the loadout's order, then the closing rules, every rule once.
fn rules(active: &[String]) -> String {
    let has = |n: &str| active.iter().any(|a| a == n);
    let mut rules: Vec<String> = Vec::new();
    let mut add = |r: &str| {
        let r = r.trim();
        if !r.is_empty() && !rules.iter().any(|x| x == r) {
            rules.push(r.to_string());
        }
    };
    if (has("bash") || has("powershell")) && !has("grep") && !has("find") && !has("ls") {
        add(match (has("bash"), has("powershell")) {
            (true, true) => "Use bash or PowerShell for file operations like listing, searching, and finding files",
            (false, true) => "Use PowerShell for file operations like listing, searching, and finding files",
            _ => "Use bash for file operations like ls, rg, find",
        });
    }
    let tools = &prompt_data()["tools"];
    for name in active {
        for g in tools[name.as_str()]["guidelines"].as_array().into_iter().flatten() {
            add(g.as_str().unwrap_or(""));
        }
    }
    for r in CLOSING_RULES {
        add(r);
    }
    rules.iter().map(|r| format!("- {r}")).collect::<Vec<_>>().join("\n")
}

/// `buildSystemPromptSections` for the loadout `active`, with no custom prompt, context files,
/// skills or extension sections: preamble, tools, rules, docs, cwd.
fn sections(active: &[String], cwd: &str, package_dir: &str) -> Vec<(String, String)> {
    let p = prompt_data();
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let snippets: Vec<String> = active
        .iter()
        .filter_map(|n| {
            p["tools"][n.as_str()]["snippet"]
                .as_str()
                .map(|s| format!("- {n}: {s}"))
        })
        .collect();
    let tools = if snippets.is_empty() {
        "(none)".to_string()
    } else {
        snippets.join("\n")
    };
    let tag = |name: &str, body: String| (name.to_string(), format!("<{name}>\n{body}\n</{name}>"));
    vec![
        ("preamble".to_string(), text(&p["preamble"])),
        tag("tools", format!("{tools}{MORE_TOOLS}")),
        tag("rules", rules(active)),
        tag("docs", text(&p["docs"]).replace("{PKG}", package_dir)),
        tag("cwd", cwd.replace('\\', "/")),
    ]
}

/// `toToolDeclaration` as `declarationsEqual` compares it: name, description, parameters and
/// `constrainedSampling`, in that order, fields that are absent left out.
fn declaration(t: &Value) -> String {
    let mut d = Map::new();
    for key in ["name", "description", "parameters", "constrainedSampling"] {
        if let Some(v) = t.get(key) {
            d.insert(key.into(), v.clone());
        }
    }
    serde_json::to_string(&Value::Object(d)).unwrap_or_default()
}

/// The leading system prompt and the request's tools (P11, P12) for a resume of `s` whose sent
/// messages are `sent` (each with its line).
pub(crate) fn prompt_and_tools(
    s: &Session,
    t: &Tree,
    sent: &[(u64, Value)],
    cwd: &str,
    package_dir: &str,
) -> Result<(String, Vec<Value>), NotEmulated> {
    let active = loadout(s, t)?;
    let before = replay(sent.iter().filter_map(|(l, m)| m.as_object().map(|m| (*l, m))))?;
    let wanted = sections(&active, cwd, package_dir);
    // The patch makes every section pi's own: a replayed one keeps its place with pi's text or
    // goes, and pi's others follow in its order.
    let value = |name: &str| wanted.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let mut order: Vec<String> = before
        .sections
        .iter()
        .filter_map(|(n, _)| value(n).map(|_| n.clone()))
        .collect();
    for (n, _) in &wanted {
        if !order.contains(n) {
            order.push(n.clone());
        }
    }
    let mut parts = vec![before.content.join("\n\n")];
    parts.extend(order.iter().filter_map(|n| value(n)));
    let prompt = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");

    // The declarations already replayed that equal pi's stay in their place; the others are
    // removed, and pi's declarations of the loadout's other tools are added after them.
    let current: Vec<&Value> = active.iter().filter_map(|n| builtin(n)).collect();
    let mut tools: Vec<&Value> = Vec::new();
    for d in &before.tools {
        let Some(c) = current
            .iter()
            .find(|c| d.name.as_deref() == c.get("name").and_then(Value::as_str))
        else {
            continue;
        };
        // pi compares through a JSON round trip of the parameters, which fails without them.
        if d.decl.get("parameters").is_none() {
            return Err(NotEmulated::Malformed(
                d.line,
                format!(
                    "its declaration of {:?} has no parameters",
                    d.name.as_deref().unwrap_or("")
                ),
            ));
        }
        if declaration(&d.decl) == declaration(c) {
            tools.push(c);
        }
    }
    for c in current {
        if !tools.iter().any(|k| std::ptr::eq(*k, c)) {
            tools.push(c);
        }
    }
    let tools = tools
        .into_iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["parameters"],
            }})
        })
        .collect();
    Ok((prompt, tools))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_files_are_pi_s_built_in_tools() {
        let names: Vec<&str> = builtins().iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(
            names,
            ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"]
        );
        for n in names {
            assert!(prompt_data()["tools"][n]["snippet"].is_string(), "{n}");
        }
    }

    #[test]
    fn rules_follow_the_loadout() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            rules(&[]),
            "- Be concise in your responses\n- Show file paths clearly when working with files"
        );
        assert!(rules(&v(&["bash", "powershell"])).starts_with("- Use bash or PowerShell for"));
        assert!(rules(&v(&["powershell"])).starts_with("- Use PowerShell for"));
        // A search tool makes the shell rule go; the shared guideline is said once.
        let r = rules(&v(&["bash", "powershell", "ls"]));
        assert!(r.starts_with("- You can inspect PI_*"), "{r}");
        assert_eq!(r.matches("PI_*").count(), 1, "{r}");
    }
}
