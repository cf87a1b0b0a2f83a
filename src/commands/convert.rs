//! `cctool convert --to FORMAT FILE`: arguments, where the conversion goes, the report, the
//! exit status. What is read and written is `crate::convert` and each agent's `convert.rs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ExitStatus;
use crate::cli::{ConvertArgs, ConvertTarget, GlobalArgs};
use crate::convert::incremental::{Plan, plan};
use crate::convert::model::Counts;
use crate::convert::{Tally, WriteOptions};
use crate::io::Input;
use crate::io::atomic::{write_new_file_by, write_stdout};
use crate::model::Format;
use crate::output::Out;
use crate::output::report::Reporter;
use crate::output::sanitize::escape_str;

/// The `--json` record of a conversion.
#[derive(Serialize, Default)]
struct Report {
    kind: &'static str,
    file: String,
    from: String,
    to: String,
    output: String,
    session_id: Option<String>,
    full: bool,
    /// `new`, `appended`, `up-to-date` or `replaced`.
    written: Option<&'static str>,
    lines_written: u64,
    carried: Option<Counts>,
    mapped: Option<BTreeMap<String, u64>>,
    dropped: Option<BTreeMap<String, u64>>,
    tokens: Option<u64>,
    /// Calls the source left unanswered, closed with an `aborted` result.
    closed: Option<u64>,
    /// The command that resumes the session placed with `--into-store`.
    resume: Option<String>,
    /// The thread Codex's own importer already made of the source (nothing written).
    imported_by_codex: Option<String>,
    /// With `--into-store` to Codex: what registering the rollout in Codex's thread index did
    /// (`added`, `updated`, `unchanged`, `no-database`), so that `codex resume` lists it.
    registered: Option<&'static str>,
    error: Option<String>,
}

fn target_format(t: ConvertTarget) -> Format {
    match t {
        ConvertTarget::ClaudeCode => Format::ClaudeCode,
        ConvertTarget::Codex => Format::Codex,
        ConvertTarget::Cctool => Format::CctoolSession,
    }
}

pub fn run(g: &GlobalArgs, a: &ConvertArgs) -> anyhow::Result<ExitStatus> {
    let mut r = Report {
        kind: "conversion",
        file: a.file.display().to_string(),
        to: match a.to {
            ConvertTarget::Cctool => "v5".into(),
            t => target_format(t).name().into(),
        },
        output: a
            .output
            .as_ref()
            .map_or_else(|| "-".into(), |p| p.display().to_string()),
        full: a.full,
        ..Report::default()
    };
    let mut say = Reporter::new(g);
    if let Err(e) = convert(g, a, &mut r) {
        r.error = Some(e);
        say.merge(ExitStatus::Error);
    }
    let mut out = Out::new(g.color);
    if g.json {
        out.json(&r)?;
    } else if let Some(e) = &r.error {
        say.fatal_for(&r.file, e);
    } else {
        if !g.quiet {
            eprint!("{}", escape_str(&describe(&r)));
        }
        // The command that resumes a placed session is what --into-store is run for: data.
        if let Some(c) = &r.resume {
            out.text(&format!("{}\n", escape_str(c)))?;
        }
    }
    Ok(say.status())
}

fn to_stdout(a: &ConvertArgs) -> Option<&Path> {
    a.output.as_deref().filter(|p| p.as_os_str() != "-")
}

fn convert(g: &GlobalArgs, a: &ConvertArgs, r: &mut Report) -> Result<(), String> {
    let input = super::file_input(&a.file).map_err(|e| e.to_string())?;
    let (src, format) = super::open_session(&input, g).map_err(|e| e.to_string())?;
    r.from = format.name().to_string();
    let out = to_stdout(a).map(Path::to_path_buf);
    if g.json && out.is_none() && !a.into_store {
        return Err("--json prints the report on standard output: write the conversion with -o OUT".into());
    }
    if let (Some(o), Input::Path(i)) = (&out, &input)
        && crate::io::paths::same_file(o, i)
    {
        return Err("the output would replace the input; choose another -o".into());
    }
    let to = target_format(a.to);
    if a.to == ConvertTarget::Cctool {
        if a.into_store {
            return Err("a cctool session has no agent store to go into: write it with -o OUT".into());
        }
        return to_cctool(&src, format, a, out.as_deref(), r);
    }
    let side = |f: Format| {
        crate::convert::side(f).ok_or_else(|| {
            format!(
                "convert reads and writes Claude Code transcripts and Codex rollouts; a {} is imported with --to cctool or migrated with cctool migrate",
                f.name()
            )
        })
    };
    let (from, into) = (side(format)?, side(to)?);
    let conv = (from.read)(&src, a.full).map_err(|e| format!("cannot read: {e}"))?;
    src.check().map_err(|e| format!("cannot read: {e}"))?;
    let session_id = crate::convert::target_session_id(&conv, to, a.full);
    let cwd = conv
        .cwd
        .clone()
        .unwrap_or_else(|| std::env::current_dir().map_or_else(|_| "/".into(), |d| d.display().to_string()));
    let opts = WriteOptions {
        session_id: session_id.clone(),
        cwd,
        // The source's model means something only to its own agent.
        model: a
            .model
            .clone()
            .or_else(|| (format == to).then(|| conv.model.clone()).flatten()),
        reasoning_as_text: a.reasoning_as_text,
    };
    let mut tally = Tally::default();
    let lines = (into.write)(&conv, &opts, &mut tally);
    r.session_id = Some(session_id);
    r.carried = Some(conv.counts(a.reasoning_as_text));
    r.mapped = Some(tally.mapped.clone());
    let mut dropped = conv.dropped.clone();
    for (k, n) in &tally.dropped {
        *dropped.entry(k.clone()).or_insert(0) += n;
    }
    r.dropped = Some(dropped);
    r.tokens = Some(tally.tokens);
    r.closed = Some(tally.closed);
    let out = match a.into_store {
        false => out,
        true => {
            let (path, resume, imported) = into_store(to, &lines, &opts, &input, a.force)?;
            r.resume = Some(resume);
            if let Some(thread) = imported {
                r.resume = Some(crate::agents::codex::store::resume_command(&thread));
                r.imported_by_codex = Some(thread);
                r.written = Some("imported-by-codex");
                return Ok(());
            }
            r.output = path.display().to_string();
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            Some(path)
        }
    };
    let Some(path) = out else {
        write_stdout(|w| write_lines(w, &lines)).map_err(|e| format!("cannot write standard output: {e}"))?;
        r.written = Some("new");
        r.lines_written = lines.len() as u64;
        return Ok(());
    };
    let existing = match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {
            Some(std::fs::read(&path).map_err(|e| format!("cannot read the existing {}: {e}", path.display()))?)
        }
        _ => None,
    };
    let (from_line, how) = match plan(existing.as_deref(), &lines, into.passable) {
        Plan::New => (0, "new"),
        Plan::UpToDate => {
            r.written = Some("up-to-date");
            return Ok(());
        }
        Plan::Append(j) => (j, "appended"),
        Plan::Differs(_) if a.force => (0, "replaced"),
        Plan::Differs(l) => {
            return Err(format!(
                "{} exists and is not an earlier conversion of this session (line {l} differs; was it resumed since?); choose another -o, or pass --force to replace it",
                path.display()
            ));
        }
    };
    let keep = if how == "appended" { existing.as_deref() } else { None };
    write_new_file_by(&path, true, |w| {
        if let Some(old) = keep {
            w.write_all(old)?;
        }
        write_lines(w, &lines[from_line..])
    })
    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    r.written = Some(how);
    r.lines_written = (lines.len() - from_line) as u64;
    if a.into_store && to == Format::Codex {
        register(&path, r);
    }
    Ok(())
}

/// Where the target agent finds the session, the command that resumes it, and the thread
/// Codex already imported the source into, if it did (then nothing is written unless
/// `force`).
fn into_store(
    to: Format,
    lines: &[Vec<u8>],
    o: &WriteOptions,
    input: &Input,
    force: bool,
) -> Result<(PathBuf, String, Option<String>), String> {
    use crate::agents::claude_code::store as claude_code;
    use crate::agents::codex::store as codex;
    match to {
        Format::ClaudeCode => {
            let dir = claude_code::config_dir()
                .ok_or("no Claude Code store: set CLAUDE_CONFIG_DIR or HOME, or write with -o OUT")?;
            Ok((
                claude_code::transcript_path(&dir, &o.cwd, &o.session_id),
                claude_code::resume_command(&o.session_id, &o.cwd),
                None,
            ))
        }
        _ => {
            let home = codex::codex_home().ok_or("no Codex store: set CODEX_HOME or HOME, or write with -o OUT")?;
            let imported = match input {
                Input::Path(p) if !force => codex::imported_by_codex(&home, p).map_err(|e| format!("{e:#}"))?,
                _ => None,
            };
            // The rollout's start is its first line's time (a derived, stable path).
            let started = lines
                .first()
                .and_then(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                .and_then(|v| v.get("timestamp").and_then(|t| t.as_str()).map(str::to_string))
                .and_then(|t| t.parse::<jiff::Timestamp>().ok())
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
            let path = codex::rollout_path(&home, &started, &o.session_id);
            Ok((path, codex::resume_command(&o.session_id), imported))
        }
    }
}

/// Registers a rollout placed in Codex's store in its thread index. The rollout is written and
/// resumes by id whatever happens here, so a failure is a warning: only the listing misses it.
fn register(path: &Path, r: &mut Report) {
    use crate::agents::codex::store;
    let Some(home) = store::codex_home() else { return };
    match store::register_rollout(&home, path) {
        Ok(done) => r.registered = Some(done.name()),
        Err(e) => eprintln!(
            "cctool: {}: written, but not registered in Codex's thread index ({}); `{}` resumes it, the picker will not list it",
            escape_str(&path.display().to_string()),
            escape_str(&format!("{e:#}")),
            escape_str(r.resume.as_deref().unwrap_or("codex resume"))
        ),
    }
}

fn write_lines(w: &mut dyn Write, lines: &[Vec<u8>]) -> std::io::Result<()> {
    for l in lines {
        w.write_all(l)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// `--to cctool`: the import `migrate` writes, effective unless `--full`.
fn to_cctool(
    src: &crate::io::Source,
    format: Format,
    a: &ConvertArgs,
    out: Option<&Path>,
    r: &mut Report,
) -> Result<(), String> {
    let Some(import) = crate::agents::agent(format).import() else {
        return Err("already a cctool session: cctool migrate brings it to v5".into());
    };
    let effective = !a.full;
    match out {
        None => {
            write_stdout(|w| import(src, effective, w)).map_err(|e| format!("cannot write standard output: {e}"))?
        }
        Some(p) => {
            if !a.force && crate::io::atomic::occupied(p) {
                return Err(format!(
                    "{} exists; choose another -o, or pass --force to replace it",
                    p.display()
                ));
            }
            write_new_file_by(p, a.force, |w| import(src, effective, w))
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?
        }
    }
    r.written = Some("new");
    Ok(())
}

/// The report on stderr.
fn describe(r: &Report) -> String {
    let mut s = match r.written {
        Some("up-to-date") => format!("cctool: {} is up to date with {}: nothing written\n", r.output, r.file),
        Some(_) if r.carried.is_none() => format!("cctool: {} → {}: imported as a v5 session\n", r.file, r.output),
        Some(how) => format!(
            "cctool: {} → {} ({}{}): {how}, {} lines\n",
            r.file,
            r.output,
            r.to,
            r.session_id
                .as_deref()
                .map(|s| format!(", session {s}"))
                .unwrap_or_default(),
            r.lines_written
        ),
        None => String::new(),
    };
    let list = |m: &BTreeMap<String, u64>| m.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ");
    if let Some(c) = &r.carried {
        s.push_str(&format!(
            "  carried: {} user texts, {} assistant texts, {} tool calls, {} tool results, {} images, {} compactions{}\n",
            c.user_texts,
            c.assistant_texts,
            c.tool_calls,
            c.tool_results,
            c.images,
            c.compactions,
            if c.reasoning_as_text > 0 {
                format!(", {} reasoning blocks as text", c.reasoning_as_text)
            } else {
                String::new()
            }
        ));
    }
    if let Some(m) = r.mapped.as_ref().filter(|m| !m.is_empty()) {
        s.push_str(&format!("  mapped: {}\n", list(m)));
    }
    if let Some(m) = r.dropped.as_ref().filter(|m| !m.is_empty()) {
        s.push_str(&format!("  left out: {}\n", list(m)));
    }
    if let Some(n) = r.closed.filter(|&n| n > 0) {
        s.push_str(&format!(
            "  closed: {n} calls the source left unanswered, with an aborted result\n"
        ));
    }
    if let Some(t) = r.tokens {
        s.push_str(&format!("  tokens the target receives on resume: ~{t}\n"));
    }
    if let Some(t) = &r.imported_by_codex {
        s.push_str(&format!(
            "cctool: {}: Codex already imported this transcript as thread {t}; nothing written (--force converts it anyway)\n",
            r.file
        ));
    }
    s
}
