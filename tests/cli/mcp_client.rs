//! `cctool mcp` driven by a real MCP client: the official Python SDK's stdio client
//! (`mcp_client.py`), in a virtual environment kept in the user's cache between runs
//! (`$XDG_CACHE_HOME/cctool-tests/mcp-venv`, made once with `pip install mcp`). Where Python,
//! its venv module or the package index cannot be had, the test says it skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::mcp::{Home, SHOP, bin};

/// The pip requirement: the SDK's major version whose client API the script uses.
const REQUIREMENT: &str = "mcp>=1.10,<3";

/// The cached virtual environment's Python with the SDK importable, made if missing; `None`
/// (with why) when it cannot be.
fn sdk_python() -> Result<PathBuf, String> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("no HOME for the cached virtual environment")?
        .join("cctool-tests");
    let venv = cache.join("mcp-venv");
    let python = venv.join("bin/python");
    let imports = |python: &Path| {
        Command::new(python)
            .args(["-c", "import mcp.client.stdio"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if imports(&python) {
        return Ok(python);
    }
    // Made aside and renamed into place: two runs at once never share a half-made one.
    std::fs::create_dir_all(&cache).map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let fresh = tempfile::tempdir_in(&cache).map_err(|e| e.to_string())?;
    let dir = fresh.path().join("venv");
    let run = |c: &mut Command, what: &str| -> Result<(), String> {
        let out = c.output().map_err(|e| format!("{what}: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(format!(
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            )),
        }
    };
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&dir),
        "python3 -m venv",
    )?;
    run(
        Command::new(dir.join("bin/pip")).args(["install", "--quiet", "--disable-pip-version-check", REQUIREMENT]),
        "pip install mcp",
    )?;
    let _ = std::fs::remove_dir_all(&venv);
    std::fs::rename(&dir, &venv).map_err(|e| e.to_string())?;
    match imports(&python) {
        true => Ok(python),
        false => Err("the installed SDK does not import".into()),
    }
}

#[test]
fn the_official_python_sdk_lists_searches_reads_and_reads_errors() {
    let python = match sdk_python() {
        Ok(p) => p,
        Err(why) => {
            crate::util::skip_notice(&format!("the MCP Python SDK cannot be installed ({why})"));
            return;
        }
    };
    let home = Home::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/mcp_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(bin())
        .arg(home.dir.path())
        .arg(home.dir.path().join("work"))
        .arg("checkout")
        .arg(&SHOP[..8])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["server"], "cctool");
    assert_eq!(
        got["tools"],
        serde_json::json!(["list_sessions", "search", "read_session", "get_summaries"])
    );
    let hits = got["hits"]["hits"].as_array().unwrap();
    assert!(hits.iter().any(|h| h["session_id"] == SHOP), "{hits:?}");
    let shop = home
        .dir
        .path()
        .join(format!(".claude/projects/-home-dev-shop/{SHOP}.jsonl"));
    let markdown = home
        .cmd(&bin())
        .args(["rebuild-chain", "--format", "markdown"])
        .arg(shop)
        .output()
        .unwrap();
    assert_eq!(got["markdown"].as_str().unwrap().as_bytes(), markdown.stdout);
    assert_eq!(got["bad"]["is_error"], true);
    assert!(
        got["bad"]["text"]
            .as_str()
            .unwrap()
            .contains("no session id starts with it")
    );
}
