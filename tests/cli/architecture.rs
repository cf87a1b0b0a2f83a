//! The crate graph is the architecture (`ARCHITECTURE.md`), and these tests hold it.
//!
//! Every workspace crate says what it is in `[package.metadata.cctool] role`: `core`,
//! `agent`, `feature` or `cli`. The compiler already refuses a call across a missing edge;
//! what is checked here is that nobody adds the edge: core depends on no cctool crate, an
//! agent only on core, a feature on core and other features — never on an agent — and only the
//! CLI (which holds the registry) on agents. And since a crate can still branch on which agent
//! it is looking at without depending on it, a second test reads the sources: outside the
//! agent crates and the registry, nothing matches on an agent's id or compares an agent's name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::root;

/// Each workspace crate: its role and the workspace crates it depends on (any kind of
/// dependency but dev: a test may use what the code may not).
fn crates() -> BTreeMap<String, (String, PathBuf, Vec<String>)> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
            "--locked",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut crates = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let role = p["metadata"]["cctool"]["role"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no [package.metadata.cctool] role"))
            .to_string();
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .map(|d| d["name"].as_str().unwrap().to_string())
            .filter(|d| members.contains(&d.as_str()))
            .collect();
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
        crates.insert(name, (role, manifest.parent().unwrap().to_path_buf(), deps));
    }
    crates
}

/// Which roles a crate of `role` may depend on.
fn allowed(role: &str) -> &'static [&'static str] {
    match role {
        "core" => &[],
        "agent" => &["core"],
        "feature" => &["core", "feature"],
        "cli" => &["core", "agent", "feature"],
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let crates = crates();
    let roles: Vec<&str> = crates.values().map(|(r, _, _)| r.as_str()).collect();
    for role in ["core", "agent", "cli"] {
        assert!(roles.contains(&role), "no crate has the role {role}: {crates:?}");
    }
    let mut wrong = Vec::new();
    for (name, (role, _, deps)) in &crates {
        for d in deps {
            let to = &crates[d].0;
            if !allowed(role).contains(&to.as_str()) {
                wrong.push(format!("{name} ({role}) depends on {d} ({to})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "edges the architecture forbids:\n{}",
        wrong.join("\n")
    );
}

/// The names of the agents, as each agent crate's `ID` (`AgentId::new("codex")`) spells them.
fn agent_names() -> Vec<String> {
    crates()
        .into_values()
        .filter(|(role, _, _)| role == "agent")
        .filter_map(|(_, dir, _)| {
            let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
            let at = lib.find("AgentId::new(\"")? + "AgentId::new(\"".len();
            Some(lib[at..at + lib[at..].find('"')?].to_string())
        })
        .collect()
}

/// The lines of `text` that branch on an agent: a path to an agent crate's `ID`, or one of
/// the agents' `names` compared or matched as a string. Comments are not code.
fn dispatch_lines(text: &str, names: &[String]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let id = code
            .match_indices("::ID")
            .any(|(at, _)| !code[at + 4..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
        let named = names.iter().any(|name| {
            let quoted = format!("\"{name}\"");
            code.contains(&format!("== {quoted}"))
                || code.contains(&format!("{quoted} =="))
                || code.contains(&format!("!= {quoted}"))
                || code.contains(&format!("{quoted} =>"))
                || code.contains(&format!("{quoted} |"))
        });
        if id || named {
            found.push((i + 1, line.trim().to_string()));
        }
    }
    found
}

#[test]
fn the_dispatch_finder_sees_a_match_on_an_agent() {
    let names = vec!["claude-code".to_string()];
    let code = "match f {\n    claude_code::ID => 1,\n}\nif agent == \"claude-code\" {}\nlet s = \"claude-code\"; // \"claude-code\" =>\nlet t = x::IDENT;\n";
    let lines: Vec<usize> = dispatch_lines(code, &names).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, vec![2, 4]);
}

/// Where agents may be named outside their crates: the registry (`src/agents/`, with its
/// tests across agents), where each agent is registered once.
const REGISTRY: &[&str] = &["src/agents/"];

#[test]
fn nothing_outside_the_agents_and_the_registry_branches_on_an_agent() {
    let names = agent_names();
    assert!(names.len() >= 3, "{names:?}");
    let root = root();
    let mut dirs: Vec<PathBuf> = crates()
        .into_values()
        .filter(|(role, _, _)| role != "agent")
        .map(|(_, dir, _)| dir)
        .collect();
    dirs.sort();
    let mut wrong = Vec::new();
    for dir in dirs {
        for e in walkdir::WalkDir::new(dir.join("src"))
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap_or(path);
            if REGISTRY.iter().any(|r| rel.starts_with(Path::new(r))) {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap();
            for (line, code) in dispatch_lines(&text, &names) {
                wrong.push(format!("{}:{line}: {code}", rel.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} places branch on an agent outside the agent crates and the registry:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
