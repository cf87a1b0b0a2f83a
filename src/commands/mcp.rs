//! `cctool mcp`: the read-only MCP server (`cctool_mcp`) over the user's stores, and
//! `--install AGENT`, its entry in an agent's MCP configuration, printed or added.

mod catalog;

use crate::ExitStatus;
use crate::agents::Hooks;
use crate::cli::{GlobalArgs, McpArgs};
use crate::hooks::install::{self, Edit, HooksError};
use crate::model::hooks::McpServer;

pub fn run(g: &GlobalArgs, a: &McpArgs) -> super::Result<ExitStatus> {
    if let Some(agent) = &a.install {
        return install(g, a, agent);
    }
    let redactor = match a.no_redact {
        true => None,
        false => {
            let rules = match super::export::default_rules_file() {
                Some(p) => crate::redact::read_rules_file(&p).map_err(super::error::Usage::Redact)?,
                None => Vec::new(),
            };
            let cfg = crate::redact::Config::from_env(rules, false);
            Some(crate::redact::Redactor::new(&cfg).map_err(super::error::Usage::Redact)?)
        }
    };
    // Progress bars and notes of the stores go to stderr, which the client shows as the
    // server's log: a bar redrawn there would only fill it.
    let mut quiet = g.clone();
    quiet.quiet = true;
    let stores = catalog::Stores { g: quiet };
    cctool_mcp::serve(Box::new(stores), redactor, env!("CARGO_PKG_VERSION")).map_err(std::io::Error::other)?;
    Ok(ExitStatus::Success)
}

/// What `mcp --install` did, as its `--json` record.
#[derive(serde::Serialize)]
pub struct McpInstall {
    agent: &'static str,
    config: String,
    /// `printed`, `added` or `unchanged` (the same entry is there).
    action: &'static str,
    command: String,
    args: Vec<String>,
    /// The copy of the configuration as it was, else null.
    backup: Option<String>,
}

fn install(g: &GlobalArgs, a: &McpArgs, name: &str) -> super::Result<ExitStatus> {
    let env = |v: &str| std::env::var_os(v).filter(|x| !x.is_empty());
    let (agent, hooks): (_, &dyn Hooks) = crate::agents::registry()
        .by_name(name)
        .and_then(|a| Some((a, a.hooks()?)))
        .ok_or_else(|| HooksError::NoHooks(name.to_string()))?;
    let path = hooks.mcp_config_path(&env).ok_or(HooksError::NoHome)?;
    let command = match &a.command {
        Some(c) => c.clone(),
        None => std::env::current_exe()
            .map_err(HooksError::NoExe)?
            .to_string_lossy()
            .into_owned(),
    };
    let mut args = vec!["mcp".to_string()];
    if a.no_redact {
        args.push("--no-redact".into());
    }
    let server = McpServer {
        name: "cctool".into(),
        command,
        args,
    };
    let mut record = McpInstall {
        agent: agent.about().format.name(),
        config: path.display().to_string(),
        action: "printed",
        command: server.command.clone(),
        args: server.args.clone(),
        backup: None,
    };
    let say = g.reporter();
    if !a.write {
        if g.json {
            return print_record(g, &record);
        }
        let mut out = crate::output::Out::new(g.color);
        out.text(&hooks.mcp_entry(&server))?;
        out.flush()?;
        say.note(&format!(
            "add this to {} (or run again with --write to add it, keeping a copy of the file as it was)",
            record.config
        ));
        return Ok(ExitStatus::Success);
    }
    let text = install::read_settings(&path)?;
    let settings_error = |cause| HooksError::Settings {
        path: path.clone(),
        cause,
    };
    record.action = "unchanged";
    if let Edit::Changed(content, _) = hooks.mcp_install(&text, &server).map_err(settings_error)? {
        record.action = "added";
        if let install::Written::Replaced(b) = install::write_settings_as(&path, &content, "cctool-mcp")? {
            record.backup = Some(b.display().to_string());
        }
    }
    if g.json {
        return print_record(g, &record);
    }
    let mut line = match record.action {
        "added" => format!(
            "{}: added the MCP server cctool ({} {})",
            record.config,
            record.command,
            record.args.join(" ")
        ),
        _ => format!("{}: the MCP server cctool is already there; not changed", record.config),
    };
    if let Some(b) = &record.backup {
        line.push_str(&format!(" (the file as it was: {b})"));
    }
    say.note(&line);
    Ok(ExitStatus::Success)
}

fn print_record(g: &GlobalArgs, record: &McpInstall) -> super::Result<ExitStatus> {
    let mut out = crate::output::Out::new(g.color);
    out.json(&super::record::Record::McpInstall(record))?;
    out.flush()?;
    Ok(ExitStatus::Success)
}
