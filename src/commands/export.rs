//! `cctool export FILE...`: arguments, where each export goes, the report, the exit status.
//! What is exported and how is `crate::export`; what is redacted, `crate::redact`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Error;
use super::error::{Refusal, Usage};
use crate::ExitStatus;
use crate::cli::{ExportArgs, ExportFormat, GlobalArgs};
use crate::error::Error as CoreError;
use crate::export::{self, ExportError, Scope, Summary, html, markdown, records};
use crate::io::Input;
use crate::io::atomic::{Output, write_new_file_by, write_stdout};
use crate::model::AgentId;
use crate::output::Out;
use crate::output::progress::file_bar;
use crate::output::report::Reporter;
use crate::redact::{self, Redactor};

/// The `--json` record of one exported input.
#[derive(Serialize)]
pub struct Exported {
    file: String,
    output: String,
    format: &'static str,
    messages: Option<usize>,
}

fn format_name(f: ExportFormat) -> &'static str {
    match f {
        ExportFormat::Markdown => "markdown",
        ExportFormat::Html => "html",
        ExportFormat::Jsonl => "jsonl",
        ExportFormat::Native => "native",
    }
}

/// The rules file read when `--redact-config` is not given, if there is one.
pub(super) fn default_rules_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("cctool").join("redact-rules")).filter(|p| p.is_file())
}

fn redactor(a: &ExportArgs) -> Result<Option<Redactor>, Usage> {
    if !(a.share || a.redact) || a.no_redact {
        return Ok(None);
    }
    let mut rules = match a.redact_config.clone().or_else(default_rules_file) {
        Some(p) => redact::read_rules_file(&p).map_err(Usage::Redact)?,
        None => Vec::new(),
    };
    rules.extend(a.redact_rules.iter().cloned());
    let cfg = redact::Config::from_env(rules, a.keep_images);
    Redactor::new(&cfg).map(Some).map_err(Usage::Redact)
}

/// Where one input's export goes.
#[derive(Clone, Debug)]
enum Dest {
    Stdout,
    File(PathBuf),
}

impl Dest {
    fn shown(&self) -> String {
        match self {
            Dest::Stdout => "-".into(),
            Dest::File(p) => p.display().to_string(),
        }
    }
}

/// The file name of an input's export inside a folder: its stem and the format's extension
/// (native keeps the name), made unique among `taken`.
fn name_in_folder(input: &Input, f: ExportFormat, taken: &mut HashMap<String, usize>) -> String {
    let file_name = match input {
        Input::Path(p) => p.file_name().map(|n| n.to_string_lossy().into_owned()),
        Input::Archived(s) => s.name.rsplit('/').next().map(str::to_string),
        Input::Member(m) => Some(format!("{}.json", m.id)),
        Input::Stdin => None,
    }
    .unwrap_or_else(|| "stdin.jsonl".into());
    let plain = file_name.strip_suffix(".zst").unwrap_or(&file_name).to_string();
    let stem = Path::new(&plain)
        .file_stem()
        .map_or_else(|| plain.clone(), |s| s.to_string_lossy().into_owned());
    let (stem, ext) = match f {
        ExportFormat::Markdown => (stem, "md".to_string()),
        ExportFormat::Html => (stem, "html".to_string()),
        ExportFormat::Jsonl => (stem, "jsonl".to_string()),
        ExportFormat::Native => (
            stem,
            Path::new(&plain)
                .extension()
                .map_or_else(|| "jsonl".into(), |e| e.to_string_lossy().into_owned()),
        ),
    };
    let n = taken.entry(format!("{stem}.{ext}")).or_insert(0);
    *n += 1;
    if *n == 1 {
        format!("{stem}.{ext}")
    } else {
        format!("{stem}-{n}.{ext}")
    }
}

/// Whether two paths name the same file (an output must never be one of the inputs).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Writes the folder's index page; false when one already there was refused (without
/// `--force`, as the session pages are: it is someone's page, an earlier export's listing other
/// sessions).
fn write_index(dir: &Path, a: &ExportArgs, index: &[(String, Summary)], say: &Reporter) -> Result<bool, Usage> {
    let (name, page) = match a.format {
        ExportFormat::Html => ("index.html", html::index(index)),
        _ => ("index.md", markdown::index(index)),
    };
    let path = dir.join(name);
    match crate::io::atomic::write_new_file(&path, page.as_bytes(), a.force) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            say.alert(&format!(
                "{}: exists; not overwritten (--force replaces it)",
                path.display()
            ));
            Ok(false)
        }
        Err(cause) => Err(Usage::IndexUnwritable { path, cause }),
    }
}

/// One input's own bar, on a terminal, for a file large enough to need it (many inputs have
/// the bar counting files).
fn input_bar(src: &crate::io::Source, inputs: usize, quiet: bool) -> indicatif::ProgressBar {
    if inputs == 1 {
        file_bar(src.name(), src.len(), quiet)
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// The first pass of a redacted export: the secrets of every input, then the redactor sealed.
/// Standard input can be read once: then nothing is learned here, and each input's secrets
/// are learned just before its export (false is returned).
fn learn_all(
    inputs: &[Input],
    named: &std::collections::HashSet<Input>,
    g: &GlobalArgs,
    scope: Scope,
    r: &Redactor,
) -> bool {
    if inputs.contains(&Input::Stdin) {
        return false;
    }
    // Outcomes are those of the export, which reads the same files again.
    super::each_session(inputs, named, g, "finding secrets", |src, format| {
        let bar = input_bar(src, inputs.len(), g.quiet);
        let learned = export::learn(src, format, scope, r, &bar);
        bar.finish_and_clear();
        learned
    });
    r.seal();
    true
}

/// A writer's error as the write's own: a failed write keeps its kind (a closed pipe is told
/// from a full disk), anything else is carried whole.
fn write_error(e: ExportError) -> std::io::Error {
    match e {
        ExportError::Write(cause) => cause,
        e => std::io::Error::other(e),
    }
}

pub fn run(g: &GlobalArgs, a: &ExportArgs) -> super::Result<ExitStatus> {
    let redactor = redactor(a)?;
    let outputs: Vec<PathBuf> = a.output.iter().cloned().collect();
    let (expanded, named) = super::batch_inputs_writing(&a.files, &a.list, g, &outputs)?;
    let inputs = exported_inputs(&expanded.inputs, &named, a);
    let say = g.reporter();
    say.diagnostics(&expanded.problems, 20);
    if inputs.is_empty() {
        return Err(Usage::NothingToExport.into());
    }
    let folder = output_folder(g, a, inputs.len())?;
    let dests = destinations(&inputs, folder.as_deref(), a)?;
    let scope = Scope {
        full: a.full,
        subagents: !a.no_subagents,
    };
    let learn_first = match &redactor {
        Some(r) => learn_all(&inputs, &named, g, scope, r),
        None => false,
    };
    let job = Job {
        g,
        a,
        scope,
        redactor: redactor.as_ref(),
        learn_first,
        inputs: inputs.len(),
        by_name: dests.iter().map(|(i, d)| (i.display_name(), d)).collect(),
    };
    let outcomes = super::each_session(&inputs, &named, g, "exporting", |src, format| {
        export_one(&job, src, format)
    });
    report(&job, &inputs, &outcomes, folder.as_deref(), &say)
}

/// The inputs exported: a subagent's transcript found in a folder is inlined into its
/// session's document, not exported on its own.
fn exported_inputs(found: &[Input], named: &std::collections::HashSet<Input>, a: &ExportArgs) -> Vec<Input> {
    let inline_subagents = !a.no_subagents && matches!(a.format, ExportFormat::Markdown | ExportFormat::Html);
    // A sub-session found in a folder is left out only where its session is exported with it
    // inside: one whose session is not among the inputs, or a file only named like one (a Codex
    // rollout called `agent-….jsonl`), is exported on its own.
    let registry = crate::agents::registry();
    let inlined: std::collections::HashSet<PathBuf> = if inline_subagents {
        found
            .iter()
            .filter_map(|i| match i {
                Input::Path(p) if !registry.is_sub_session_path(p) => Some(p),
                _ => None,
            })
            .flat_map(|p| registry.all().flat_map(move |agent| agent.sub_sessions(p, false)))
            .collect()
    } else {
        std::collections::HashSet::new()
    };
    found
        .iter()
        .filter(|i| named.contains(*i) || !matches!(i, Input::Path(p) if inlined.contains(p)))
        .cloned()
        .collect()
}

/// The folder the exports go into (`-o DIR`, required for more than one input), created;
/// `None` when the one export goes to a file or to standard output.
fn output_folder(g: &GlobalArgs, a: &ExportArgs, inputs: usize) -> Result<Option<PathBuf>, Usage> {
    let folder = match &a.output {
        Some(o) if o.as_os_str() != "-" && (inputs > 1 || o.is_dir()) => Some(o.clone()),
        _ => None,
    };
    if inputs > 1 && folder.is_none() {
        return Err(Usage::ExportNeedsFolder { count: inputs });
    }
    let to_stdout = folder.is_none() && a.output.as_ref().is_none_or(|o| o.as_os_str() == "-");
    if to_stdout && g.json {
        return Err(Usage::ExportJsonOnStdout);
    }
    if let Some(dir) = &folder {
        std::fs::create_dir_all(dir).map_err(|cause| Usage::FolderUnmade {
            dir: dir.clone(),
            cause,
        })?;
    }
    Ok(folder)
}

/// Where each input's export goes; refused when one would replace an input.
fn destinations(inputs: &[Input], folder: Option<&Path>, a: &ExportArgs) -> Result<HashMap<Input, Dest>, Usage> {
    let mut taken = HashMap::new();
    let dests: HashMap<Input, Dest> = inputs
        .iter()
        .map(|i| {
            let d = match (folder, &a.output) {
                (Some(dir), _) => Dest::File(dir.join(name_in_folder(i, a.format, &mut taken))),
                (None, Some(o)) if o.as_os_str() != "-" => Dest::File(o.clone()),
                _ => Dest::Stdout,
            };
            (i.clone(), d)
        })
        .collect();
    for d in dests.values() {
        if let Dest::File(out) = d
            && let Some(input) = inputs.iter().find(|i| matches!(i, Input::Path(p) if same_file(p, out)))
        {
            return Err(Usage::ExportReplacesInput {
                input: input.display_name(),
            });
        }
    }
    Ok(dests)
}

/// What every input's export shares.
struct Job<'a> {
    g: &'a GlobalArgs,
    a: &'a ExportArgs,
    scope: Scope,
    redactor: Option<&'a Redactor>,
    /// Whether every input's secrets were learned before the first export ([`learn_all`]).
    learn_first: bool,
    /// How many inputs are exported.
    inputs: usize,
    /// Where each input's export goes, by the input's name.
    by_name: HashMap<String, &'a Dest>,
}

/// Exports one input to its destination: where it went, and the index page's summary of a
/// document.
fn export_one(job: &Job<'_>, src: &crate::io::Source, format: AgentId) -> Result<(Dest, Option<Summary>), Error> {
    let a = job.a;
    let dest = job.by_name.get(src.name()).copied().cloned().unwrap_or(Dest::Stdout);
    let r = job.redactor;
    if let Some(r) = r.filter(|_| !job.learn_first) {
        export::learn(src, format, job.scope, r, &indicatif::ProgressBar::hidden()).map_err(Error::Export)?;
    }
    let bar = input_bar(src, job.inputs, job.g.quiet);
    let mut summary = None;
    let write = |w: &mut Output| -> std::io::Result<()> {
        let made = match a.format {
            ExportFormat::Markdown | ExportFormat::Html => {
                let doc = export::load(src, format, job.scope, r).map_err(std::io::Error::other)?;
                let text = if a.format == ExportFormat::Html {
                    html::render(&doc, r.is_some())
                } else {
                    markdown::render(&doc, r.is_some())
                };
                w.write_all(text.as_bytes())?;
                Some(doc.summary())
            }
            ExportFormat::Jsonl => {
                records::write_jsonl(src, format, a.full, r, w).map_err(write_error)?;
                None
            }
            ExportFormat::Native => {
                records::write_native(src, r, &bar, w).map_err(write_error)?;
                None
            }
        };
        summary = made;
        // Nothing made from a file that changed while it was read is renamed into place.
        src.settle()
    };
    let written = match &dest {
        // A reader that closed the pipe wanted no more: not an error (`export F | head`).
        Dest::Stdout => match write_stdout(write) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            w => w,
        },
        Dest::File(p) => write_new_file_by(p, a.force, write),
    };
    bar.finish_and_clear();
    written.map_err(|cause| match &dest {
        Dest::File(p) if cause.kind() == std::io::ErrorKind::AlreadyExists => {
            Error::from(Refusal::ExportExists { path: p.clone() })
        }
        Dest::File(p) if cause.kind() != std::io::ErrorKind::Other => {
            CoreError::Write { path: p.clone(), cause }.into()
        }
        Dest::Stdout if cause.kind() != std::io::ErrorKind::Other => CoreError::Stdout(cause).into(),
        _ => CoreError::Io(cause).into(),
    })?;
    Ok((dest, summary))
}

/// Tells what became of each input (records with `--json`), writes the folder's index page
/// and the redaction report: the exit status.
fn report(
    job: &Job<'_>,
    inputs: &[Input],
    outcomes: &[super::FileOutcome<(Dest, Option<Summary>)>],
    folder: Option<&Path>,
    say: &Reporter,
) -> super::Result<ExitStatus> {
    let (g, a) = (job.g, job.a);
    let mut out = Out::new(g.color);
    let mut errors = 0usize;
    let mut done = 0usize;
    let mut index: Vec<(String, Summary)> = Vec::new();
    for (input, o) in inputs.iter().zip(outcomes) {
        match o {
            super::FileOutcome::Done((dest, summary)) => {
                done += 1;
                if g.json {
                    out.json(&super::record::Record::Export(&Exported {
                        file: input.display_name(),
                        output: dest.shown(),
                        format: format_name(a.format),
                        messages: summary.as_ref().map(|s| s.messages),
                    }))?;
                }
                if let (Some(s), Dest::File(p)) = (summary, dest) {
                    let name = p
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    index.push((name, s.clone()));
                }
            }
            other => {
                let mut skipped = 0;
                if let Some(d) = other.problem_counted(input, &mut errors, &mut skipped) {
                    if g.json {
                        out.json(&super::record::Record::diagnostic(&d))?;
                    } else {
                        say.diagnostic(&d);
                    }
                }
            }
        }
    }
    if let Some(dir) = folder
        && !index.is_empty()
        && !write_index(dir, a, &index, say)?
    {
        errors += 1;
    }
    if let Some(r) = job.redactor {
        let report = r.report();
        if g.json {
            out.json(&super::record::Record::Redaction(&report))?;
        } else {
            say.note(&report.text());
        }
    }
    out.flush()?;
    if !g.json
        && let Some(dir) = folder
    {
        say.note(&format!(
            "exported {done} of {} sessions to {}",
            inputs.len(),
            dir.display()
        ));
    }
    Ok(match (errors, done) {
        (0, _) => ExitStatus::Success,
        (_, 0) => ExitStatus::Error,
        _ => ExitStatus::Negative,
    })
}
