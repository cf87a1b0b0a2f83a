//! The optional external summarizer of `cctool compact --summarizer 'CMD'`: the prompt it is
//! given, running it safely, and reading its answer back into a [`Recap`].
//!
//! The summarizer only writes the five prose fields. Files read and modified always come from
//! the tool calls themselves (a model asked to remember paths paraphrases them), so the
//! caller fills them from [`Recap::extract`].

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::recap::{Recap, call_args, content_text};
use crate::model::events::{Part, Record};

/// Tool results above this size are replaced by a size marker in the prompt.
pub const ELIDE_ABOVE: usize = 2000;

const INSTRUCTIONS: &str = "\
Summarize the conversation above for the coding agent that will continue it. Answer with these \
five fields, in this layout, and nothing else:

Goal: <what the session is trying to do, one line>
Constraints:
- <a rule the user set>
Progress:
- <what was done>
Key Decisions:
- <a choice that was made, and why>
Next Steps:
- <what remains to do>

Write (none) for a field with nothing in it. Quote file paths, commands, identifiers, numbers and \
error messages exactly as they appear; never paraphrase them. Do not invent missing content: an \
elided tool result is unknown, so say nothing about what it contained. If an earlier summary is \
given, update it: keep its literals, move finished work into Progress, drop blockers that were \
resolved. Do not list the files read or modified; they are tracked separately.
";

/// The prompt for the summarizer: the earlier recap if any, the span as role-prefixed turns
/// with tool calls and (possibly elided) results, then the instructions.
pub fn prompt(span: &[Record], earlier: Option<&Recap>) -> String {
    let mut p = Prompt::default();
    for r in span {
        p.push(r);
    }
    p.finish(earlier)
}

/// [`prompt`] built one record at a time, for spans streamed from disk.
#[derive(Default)]
pub(crate) struct Prompt {
    conversation: String,
}

impl Prompt {
    /// Adds a record of the session model to the conversation the prompt shows.
    pub fn push(&mut self, r: &Record) {
        render_record(&mut self.conversation, r);
    }

    /// The prompt, with `earlier` (a recap the span continues) ahead of the conversation.
    pub fn finish(self, earlier: Option<&Recap>) -> String {
        let mut out = String::new();
        if let Some(r) = earlier.filter(|r| !r.is_empty()) {
            out.push_str("Earlier summary of the conversation before this part:\n\n");
            out.push_str(&r.render());
            out.push('\n');
        }
        out.push_str("Conversation:\n\n");
        out.push_str(&self.conversation);
        out.push('\n');
        out.push_str(INSTRUCTIONS);
        out
    }
}

/// The turns of one record: who speaks (the model for a call written under no role,
/// `system` for what the client wrote for the model or about the session), each part in the
/// order written, a result as the tool's turn.
fn render_record(out: &mut String, r: &Record) {
    let role = match r.role.as_deref() {
        Some("user") if r.flags.meta == Some(true) => "system",
        Some(role) => role,
        None if r.calls().next().is_some() => "assistant",
        None => "system",
    };
    for part in &r.parts {
        match part {
            Part::Text(text) => turn(out, role, text),
            // A notice without text (a turn's duration, a hook's summary) says nothing here.
            Part::Notice(text) if text.is_empty() => {}
            Part::Notice(text) => turn(out, role, text),
            // Reasoning is the agent's scratch work: dropped first by tier 1, not a fact of the session.
            Part::Reasoning { .. } => {}
            Part::Call(c) => {
                let args = elide_args(&call_args(c.input.as_ref()));
                let shown = serde_json::to_string(&args).unwrap_or_default();
                let (name, id) = (c.name.as_deref().unwrap_or(""), c.id.as_deref().unwrap_or(""));
                turn(out, role, &format!("[tool call {name} (id {id})] {shown}"));
            }
            Part::Outcome(o) => {
                let text = content_text(o.output.as_ref().unwrap_or(&Value::Null));
                let id = o.call_id.as_deref().unwrap_or("?");
                let body = if text.len() > ELIDE_ABOVE {
                    format!("[tool result elided: {} bytes]", text.len())
                } else {
                    text
                };
                turn(out, "tool", &format!("[result of {id}] {body}"));
            }
            Part::Image(_) => turn(out, role, "[image]"),
            Part::Redacted => turn(out, role, "[redacted reasoning]"),
            Part::Attachment(_) => turn(out, role, "[attachment]"),
            Part::Other { kind, .. } => turn(out, role, &format!("[{kind}]")),
        }
    }
}

fn turn(out: &mut String, role: &str, text: &str) {
    out.push_str(role);
    out.push_str(": ");
    out.push_str(text.trim_end());
    out.push_str("\n\n");
}

/// Tool-call arguments with file bodies (long strings) replaced by their size: the prompt
/// carries what was done, not the content written.
fn elide_args(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > ELIDE_ABOVE => Value::String(format!("[elided: {} bytes]", s.len())),
        Value::Array(a) => Value::Array(a.iter().map(elide_args).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), elide_args(x))).collect()),
        other => other.clone(),
    }
}

/// Why the summarizer's answer was not used (the recap is then extractive, and the report
/// says why). `stderr` is the tail of what the command printed there, with its separator.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SummarizerError {
    #[error("cannot start summarizer `{cmd}`: {cause}")]
    Start { cmd: String, cause: std::io::Error },
    #[error("summarizer `{cmd}`: cannot wait for it: {cause}")]
    Wait { cmd: String, cause: std::io::Error },
    #[error("summarizer `{cmd}` timed out after {}", seconds(*.timeout))]
    TimedOut { cmd: String, timeout: Duration },
    #[error("summarizer `{cmd}` timed out after {}: its output was still open after it exited", seconds(*.timeout))]
    OutputOpen { cmd: String, timeout: Duration },
    /// It exited with a failure status or was killed (`how` says which).
    #[error("summarizer `{cmd}` {how}{stderr}")]
    Failed { cmd: String, how: String, stderr: String },
    #[error("summarizer `{cmd}` printed output that is not UTF-8 (at byte {at})")]
    NotUtf8 { cmd: String, at: usize },
    #[error("summarizer `{cmd}` printed nothing{stderr}")]
    Empty { cmd: String, stderr: String },
}

/// Runs `sh -c CMD` with `prompt` on its standard input and returns its standard output.
///
/// Errors, each with its reason: the command cannot start, exits with a failure or a signal,
/// outlives `timeout` (it is then killed and reaped), prints nothing, or prints non-UTF-8.
pub(crate) fn run(cmd: &str, prompt: &str, timeout: Duration) -> Result<String, SummarizerError> {
    let c = || cmd.to_string();
    let deadline = Instant::now() + timeout;
    let mut command = Command::new("sh");
    // Its own process group, so that a timeout stops the whole pipeline the command started,
    // not only the shell.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|cause| SummarizerError::Start { cmd: c(), cause })?;

    // Each pipe has its own thread: a command that never reads its input, or fills stderr
    // while we write, must not block us. The threads are not joined: if the command leaves a
    // background process holding a pipe open, they end when it does, without holding us up.
    if let Some(mut stdin) = child.stdin.take() {
        let input = prompt.as_bytes().to_vec();
        std::thread::spawn(move || {
            // A command that exits without reading closes the pipe: not our error.
            let _ = stdin.write_all(&input);
        });
    }
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());

    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(cause) => {
                kill(&mut child);
                return Err(SummarizerError::Wait { cmd: c(), cause });
            }
        }
        let now = Instant::now();
        if now >= deadline {
            kill(&mut child);
            return Err(SummarizerError::TimedOut { cmd: c(), timeout });
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(10)));
    };

    // The pipes reach end of file just after the exit; a command that ended right at the
    // deadline still gets its output read.
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let err_text = stderr
        .recv_timeout(left.min(Duration::from_millis(200)))
        .unwrap_or_default();
    if !status.success() {
        return Err(SummarizerError::Failed {
            cmd: c(),
            how: describe(status),
            stderr: stderr_tail(&err_text),
        });
    }
    let out = match stdout.recv_timeout(left) {
        Ok(out) => out,
        Err(_) => {
            return Err(SummarizerError::OutputOpen { cmd: c(), timeout });
        }
    };
    let text = String::from_utf8(out).map_err(|e| SummarizerError::NotUtf8 {
        cmd: c(),
        at: e.utf8_error().valid_up_to(),
    })?;
    if text.trim().is_empty() {
        return Err(SummarizerError::Empty {
            cmd: c(),
            stderr: stderr_tail(&err_text),
        });
    }
    Ok(text)
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
    } else {
        let _ = tx.send(Vec::new());
    }
    rx
}

fn kill(child: &mut std::process::Child) {
    // The group id is the child's pid (process_group(0)); kill(1) signals the group without
    // unsafe code of ours.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    // Reaping it is what keeps it from staying a zombie.
    let _ = child.wait();
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        (None, None) => "failed".to_string(),
    }
}

/// The end of what the command said on stderr, which usually holds the reason it failed.
fn stderr_tail(err: &[u8]) -> String {
    let text = String::from_utf8_lossy(err);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let mut start = text.len().saturating_sub(500);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!(": {}", text[start..].trim_start())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Goal,
    Constraints,
    Progress,
    KeyDecisions,
    NextSteps,
}

/// Reads a summarizer's answer leniently: the five labels in any case, bare or with markdown
/// (`**Goal:**`, `## Goal`), items inline or as `- `, `* `, `1. ` lines. Files are never taken
/// from it. `None` when no field is found at all.
pub fn parse_fields(stdout: &str) -> Option<Recap> {
    let mut r = Recap::default();
    let mut goal_lines: Vec<String> = Vec::new();
    let mut current: Option<Field> = None;
    let mut found = false;
    let mut in_fence = false;
    for raw in stdout.lines() {
        let line = raw.trim();
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if line.eq_ignore_ascii_case("[File Tracking]") {
            // Everything after belongs to the files, which are not the summarizer's to give.
            break;
        }
        if line.is_empty() || line.eq_ignore_ascii_case("[Summary]") {
            continue;
        }
        if let Some((field, rest)) = label(line) {
            found = true;
            current = Some(field);
            if !rest.is_empty() && !is_none(rest) {
                push(&mut r, &mut goal_lines, field, rest);
            }
            continue;
        }
        if is_files_line(line) {
            current = None;
            continue;
        }
        let Some(field) = current else { continue };
        let item = super::recap::strip_marker(line);
        if !is_none(item) {
            push(&mut r, &mut goal_lines, field, item);
        }
    }
    if !found {
        return None;
    }
    r.goal = goal_lines.join(" ");
    Some(r.normalized())
}

fn push(r: &mut Recap, goal: &mut Vec<String>, field: Field, item: &str) {
    let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
    if item.is_empty() {
        return;
    }
    let list = match field {
        Field::Goal => {
            goal.push(item);
            return;
        }
        Field::Constraints => &mut r.constraints,
        Field::Progress => &mut r.progress,
        Field::KeyDecisions => &mut r.key_decisions,
        Field::NextSteps => &mut r.next_steps,
    };
    list.push(item);
}

fn is_none(s: &str) -> bool {
    let s = s.trim().trim_matches(['*', '_', '.']).trim();
    ["(none)", "none", "n/a", "-", "nothing", "(nothing)"]
        .iter()
        .any(|n| s.eq_ignore_ascii_case(n))
}

fn is_files_line(line: &str) -> bool {
    let l = line.trim_start_matches(['#', '*', '_', ' ']).to_ascii_lowercase();
    ["read:", "modified:", "files read", "files modified"]
        .iter()
        .any(|p| l.starts_with(p))
}

/// The field a line opens and the inline text after its label, if it is a label line.
fn label(line: &str) -> Option<(Field, &str)> {
    const LABELS: [(&str, Field); 9] = [
        ("key decisions", Field::KeyDecisions),
        ("key decision", Field::KeyDecisions),
        ("next steps", Field::NextSteps),
        ("next step", Field::NextSteps),
        ("constraints", Field::Constraints),
        ("constraint", Field::Constraints),
        ("progress", Field::Progress),
        ("goals", Field::Goal),
        ("goal", Field::Goal),
    ];
    let heading = line.starts_with('#');
    let s = line.trim_start_matches('#').trim_start();
    let emphasised = s.starts_with(['*', '_']);
    let s = s.trim_start_matches(['*', '_']);
    let (field, rest) = LABELS.iter().find_map(|(name, field)| {
        let head = s.get(..name.len())?;
        head.eq_ignore_ascii_case(name).then(|| (*field, &s[name.len()..]))
    })?;
    let rest = rest.trim_start_matches(['*', '_']);
    if let Some(after) = rest.strip_prefix(':') {
        return Some((field, after.trim_start_matches(['*', '_']).trim()));
    }
    // Without a colon only a heading (`## Goal`, `**Goal**`) standing alone is a label.
    ((heading || emphasised) && rest.trim().is_empty()).then_some((field, ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::compact::recap::testing::{call, calls, result, user};

    #[test]
    fn prompt_elides_large_results_and_keeps_small_ones() {
        let big = "x".repeat(48213);
        let span = [
            user("Fix the parser"),
            calls(vec![call("c1", "Read", json!({"file_path": "src/parse.rs"}))]),
            result("c1", json!(big)),
            result("c2", json!([{"type": "text", "text": "small output"}])),
        ];
        let earlier = Recap {
            goal: "\"Start\"".into(),
            ..Recap::default()
        };
        let p = prompt(&span, Some(&earlier));
        assert!(p.contains("[tool result elided: 48213 bytes]"));
        assert!(!p.contains(&big[..3000]));
        assert!(p.contains("small output"));
        assert!(p.contains("user: Fix the parser"));
        assert!(p.contains("src/parse.rs"));
        assert!(p.contains("Goal: \"Start\""));
        assert!(p.contains("Do not invent missing content"));
        for f in ["Goal:", "Constraints:", "Progress:", "Key Decisions:", "Next Steps:"] {
            assert!(p.contains(f), "{f}");
        }
    }

    #[test]
    fn run_passes_the_prompt_and_returns_stdout() {
        let out = run("cat >/dev/null; echo Goal: x", "a prompt", Duration::from_secs(10)).expect("runs");
        assert_eq!(out, "Goal: x\n");
        let echoed = run("cat", "hello\nworld", Duration::from_secs(10)).expect("runs");
        assert_eq!(echoed, "hello\nworld");
    }

    #[test]
    fn run_reports_failures() {
        let e = run("echo oops >&2; exit 3", "p", Duration::from_secs(10)).unwrap_err();
        assert!(
            matches!(&e, SummarizerError::Failed { how, stderr, .. } if how.contains("status 3") && stderr.contains("oops")),
            "{e}"
        );
        assert!(
            e.to_string().contains("status 3") && e.to_string().contains("oops"),
            "{e}"
        );
        let e = run("cat >/dev/null", "p", Duration::from_secs(10)).unwrap_err();
        assert!(matches!(e, SummarizerError::Empty { .. }), "{e}");
        assert!(e.to_string().contains("printed nothing"), "{e}");
        let e = run("printf '\\377\\376'", "p", Duration::from_secs(10)).unwrap_err();
        assert!(matches!(e, SummarizerError::NotUtf8 { at: 0, .. }), "{e}");
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let e = run("kill -9 $$", "p", Duration::from_secs(10)).unwrap_err();
        assert!(
            matches!(&e, SummarizerError::Failed { how, .. } if how.contains("signal 9")),
            "{e}"
        );
    }

    #[test]
    fn run_kills_a_command_that_takes_too_long() {
        let start = Instant::now();
        let e = run("sleep 5", "p", Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, SummarizerError::TimedOut { .. }), "{e}");
        assert!(e.to_string().contains("timed out"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    }

    #[test]
    fn run_does_not_deadlock_on_a_command_that_ignores_stdin() {
        let big = "p".repeat(4 << 20);
        let start = Instant::now();
        let out = run("echo Goal: done", &big, Duration::from_secs(10)).expect("runs");
        assert_eq!(out.trim(), "Goal: done");
        assert!(start.elapsed() < Duration::from_secs(5));
        // Large output and large stderr while the prompt is still being written.
        let out = run(
            "head -c 1000000 /dev/zero | tr '\\0' a; head -c 200000 /dev/zero >&2",
            &big,
            Duration::from_secs(10),
        )
        .expect("runs");
        assert_eq!(out.len(), 1_000_000);
    }

    #[test]
    fn parse_fields_reads_plain_and_markdown_answers() {
        let plain = "Here is the summary:\n\nGoal: Fix `src/a.rs`\nConstraints: (none)\nProgress:\n- Ran `cargo test` (exit 0)\n- Modified `src/a.rs`\nKey Decisions: Use a trait\nNext Steps:\n1. Run clippy\n2. Commit\n";
        let r = parse_fields(plain).expect("fields");
        assert_eq!(r.goal, "Fix `src/a.rs`");
        assert!(r.constraints.is_empty());
        assert_eq!(r.progress, ["Ran `cargo test` (exit 0)", "Modified `src/a.rs`"]);
        assert_eq!(r.key_decisions, ["Use a trait"]);
        assert_eq!(r.next_steps, ["Run clippy", "Commit"]);

        let md = "## Goal\nShip it\n\n**Constraints:**\n* keep API\n\n**Key decisions**: none\n### NEXT STEPS\n- test\n\n[File Tracking]\nRead: a.rs\n";
        let r = parse_fields(md).expect("fields");
        assert_eq!(r.goal, "Ship it");
        assert_eq!(r.constraints, ["keep API"]);
        assert!(r.key_decisions.is_empty());
        assert_eq!(r.next_steps, ["test"]);
        assert_eq!(r.files, Default::default());

        let only_progress = "progress: did a thing";
        assert_eq!(
            parse_fields(only_progress).map(|r| r.progress),
            Some(vec!["did a thing".to_string()])
        );
        assert_eq!(parse_fields("I could not summarize this."), None);
        assert_eq!(parse_fields(""), None);
        assert_eq!(parse_fields("Goalkeeper: x\nProgressive rock"), None);
    }

    #[test]
    fn parse_fields_takes_rendered_recaps() {
        let r = Recap {
            goal: "\"Refactor\"".into(),
            constraints: vec!["\"never touch B\"".into(), "\"keep tests\"".into()],
            progress: vec!["Modified `src/a.rs`".into()],
            key_decisions: vec![],
            next_steps: vec!["Pending: docs".into()],
            files: Default::default(),
        };
        assert_eq!(parse_fields(&r.render()), Some(r));
    }
}
