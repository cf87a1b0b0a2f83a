//! Tool calls in no agent's terms: the hub every agent's tools map through
//! (`docs/convert.md#tools`).
//!
//! Each agent reads its own tools into a neutral [`Call`] and writes one back as its own
//! ([`Vocabulary`], in the agent's folder), so a call of one agent becomes another's as
//! `to.from_neutral(from.to_neutral(call))` ([`translate`]): one mapping per agent, not one
//! per pair. A target maps a call only when reading it back gives the same call; what its
//! tool has no words for is counted ([`Written::lost`]). A call the target cannot express at
//! all keeps its own name and input. Keys the kind has no word for (`description`, `workdir`,
//! `yield_time_ms`) go across as they are ([`Call::extra`]).

use std::collections::HashSet;
use std::fmt::Debug;

use serde_json::{Map, Value, json};

/// A tool call in no agent's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The tool's name in its own agent: the report names a mapping and a loss by it.
    pub name: String,
    /// What the call does, with what.
    pub kind: Kind,
    /// The tool's keys that [`Call::kind`] has no word for, as written: they go across as
    /// they are.
    pub extra: Map<String, Value>,
    /// The file the tool reads or writes, when it names one, even when its arguments fit no
    /// kind: a later write to it replaces a file that exists ([`Files`]).
    pub file: Option<String>,
}

impl Call {
    /// A call whose arguments fit no kind: its name and input kept verbatim.
    pub fn other(name: &str, input: &Value) -> Call {
        Call {
            name: name.to_string(),
            kind: Kind::Other(input.clone()),
            extra: Map::new(),
            file: None,
        }
    }

    /// Whether `other` says what this call says: the same kind and keys (a call of no kind,
    /// also the same tool). The names of mapped tools differ by design.
    pub fn says_the_same(&self, other: &Call) -> bool {
        self.kind == other.kind
            && self.extra == other.extra
            && (!matches!(self.kind, Kind::Other(_)) || self.name == other.name)
    }
}

/// What a call does, with its typed arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Runs a command.
    Shell(Command),
    /// Reads a file.
    Read(Read),
    /// Writes a whole file.
    Write {
        /// The file written.
        path: String,
        /// Its whole text.
        content: String,
    },
    /// Replaces text in a file, hunk after hunk.
    Edit {
        /// The file edited.
        path: String,
        /// The replacements, in order.
        edits: Vec<Hunk>,
    },
    /// Searches file contents (`names`: file names) for a pattern.
    Search {
        /// What is searched for.
        pattern: String,
        /// Where, when given.
        path: Option<String>,
        /// Whether file names are searched rather than their contents.
        names: bool,
    },
    /// Fetches a page or searches the web.
    Web(Web),
    /// Hands a prompt to a subagent.
    Task {
        /// What the subagent is asked.
        prompt: String,
    },
    /// Anything else: the input as written.
    Other(Value),
}

/// A command as a shell line or as the words of a process.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A line a shell runs.
    Line(String),
    /// A program and its arguments.
    Argv(Vec<String>),
}

impl Command {
    /// The line a shell runs: a `sh -c` script as it is, other words quoted as the shell
    /// reads them back.
    pub fn line(&self) -> String {
        match self {
            Command::Line(l) => l.clone(),
            Command::Argv(argv) => match argv.as_slice() {
                [sh, flag, script] if is_shell(sh) && matches!(flag.as_str(), "-c" | "-lc") => script.clone(),
                _ => argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "),
            },
        }
    }
}

fn is_shell(s: &str) -> bool {
    matches!(s.rsplit('/').next(), Some("bash" | "sh" | "zsh" | "dash"))
}

/// A read of a file: from line `offset`, `limit` lines, each when given.
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    /// The file read.
    pub path: String,
    /// The first line read (1 is the first), when given.
    pub offset: Option<u64>,
    /// How many lines, when given.
    pub limit: Option<u64>,
}

/// One replacement of an edit.
#[derive(Clone, Debug, PartialEq)]
pub struct Hunk {
    /// The text replaced.
    pub old: String,
    /// The text it is replaced with.
    pub new: String,
    /// Whether every occurrence is replaced, as the tool wrote it (a flag some tools lack).
    pub replace_all: Option<Value>,
}

/// A web call.
#[derive(Clone, Debug, PartialEq)]
pub enum Web {
    /// Fetches a page.
    Fetch {
        /// The page's address.
        url: String,
    },
    /// Searches the web.
    Search {
        /// What is searched for.
        query: String,
    },
}

/// A call's input as its agent writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Arguments as a JSON object.
    Json(Value),
    /// Free-form text (Codex's custom tools).
    Text(String),
}

impl Input {
    /// The input as a conversation holds it: free-form text under `input`.
    pub fn into_value(self) -> Value {
        match self {
            Input::Json(v) => v,
            Input::Text(t) => json!({ "input": t }),
        }
    }
}

/// A neutral call in an agent's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The agent's tool.
    pub name: String,
    /// Its input as the agent writes it.
    pub input: Input,
    /// What of the call the tool cannot say, for the report's left-out count.
    pub lost: Option<String>,
}

/// What a target knows when it writes a call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    /// The file the call writes is one the conversation has read or written before.
    pub exists: bool,
}

/// One agent's tools, read into and written from neutral calls, and the words it writes
/// around them in a conversation that a compaction's recap reads.
pub trait Vocabulary: Sync + Debug {
    /// The call in neutral terms: a kind when its arguments fit one, else
    /// [`Kind::Other`].
    fn to_neutral(&self, name: &str, input: &Value) -> Call;

    /// The call in this agent's terms, or `None` when it has no tool that says it.
    // The pair is named for the neutral call it reads and writes; `self` is the vocabulary.
    #[allow(clippy::wrong_self_convention)]
    fn from_neutral(&self, call: &Call, ctx: Context) -> Option<Written>;

    /// The call as a compaction's recap reads it (`docs/compaction.md#the-recap`): by
    /// default, what its neutral kind says of files and commands. An agent whose calls the
    /// recap reads with arguments that fit no kind (a read whose other keys are odd still
    /// read its file) answers for itself.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        Gist::of(self.to_neutral(name, input).kind)
    }

    /// The exit status of a finished command call `name` whose result (`text`, not an error)
    /// states none: for an agent that reports a success by the output alone. `None`: unknown.
    fn unstated_exit(&self, name: &str, text: &str) -> Option<i64> {
        let _ = (name, text);
        None
    }

    /// The files a patch in this agent's own patch format adds, updates, deletes or moves
    /// to, wherever in `input` it stands: any agent's shell can run the program that
    /// applies it. None by default.
    fn patched(&self, input: &Value) -> Vec<String> {
        let _ = input;
        Vec::new()
    }

    /// The exit status a tool result's `text` states in this agent's words (a status line:
    /// [`exit_on_line`]). `None`: it states none this agent writes.
    fn stated_exit(&self, text: &str) -> Option<i64> {
        let _ = text;
        None
    }

    /// Whether a tool result's `text` says in this agent's words that the call failed
    /// before it ran, beside an error flag or an exit status. No by default.
    fn stated_failure(&self, text: &str) -> bool {
        let _ = text;
        false
    }

    /// Whether a user message's `text` is one this agent writes into the conversation itself
    /// (its context, reminders, notices), not the user's words: a recap quotes none of it.
    /// No by default.
    fn injected(&self, text: &str) -> bool {
        let _ = text;
        false
    }
}

/// The exit status stated at the start of a line of `text` after one of `heads` (lower
/// case; `:`, `=` and spaces may follow): the first such line's. Only line starts count, so a
/// program's own output mentioning an exit code further on is not taken for the status.
pub fn exit_on_line(text: &str, heads: &[&str]) -> Option<i64> {
    text.lines().find_map(|line| {
        let lower = line.trim_start().to_ascii_lowercase();
        let rest = heads.iter().find_map(|h| lower.strip_prefix(h))?;
        let rest = rest.trim_start_matches([':', ' ', '=']);
        let digits_end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        rest[..digits_end].parse().ok()
    })
}

/// Whether `text`, its leading whitespace aside, starts with one of `prefixes`.
pub fn starts_with_any(text: &str, prefixes: &[&str]) -> bool {
    let t = text.trim_start();
    prefixes.iter().any(|p| t.starts_with(p))
}

/// A call as a compaction's recap reads it: the file it read or changed, the command it ran,
/// or the todo list it set ([`Vocabulary::gist`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Gist {
    /// Reads a file, named when the arguments name it.
    Read(Option<String>),
    /// Writes or edits a file, named when the arguments name it.
    Modify(Option<String>),
    /// Runs a command.
    Shell(Command),
    /// Sets the todo list (or plan): its entries, when they can be read.
    Todo(Option<Vec<Todo>>),
    /// None of these.
    Other,
}

impl Gist {
    /// What a neutral kind says of files and commands.
    pub fn of(kind: Kind) -> Gist {
        match kind {
            Kind::Read(r) => Gist::Read(Some(r.path)),
            Kind::Search { path, .. } => Gist::Read(path),
            Kind::Write { path, .. } | Kind::Edit { path, .. } => Gist::Modify(Some(path)),
            Kind::Shell(c) => Gist::Shell(c),
            Kind::Web(_) | Kind::Task { .. } | Kind::Other(_) => Gist::Other,
        }
    }
}

/// One entry of a todo list or a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Todo {
    /// `pending`, `in_progress`, `completed`, or what the agent wrote.
    pub status: String,
    /// What is to be done.
    pub text: String,
}

/// The command of a shell call's arguments, read leniently: `command` or `cmd`, under
/// `action` (Codex's `local_shell_call`) or at the top, as one line or as words (those that
/// are not strings left out). `None` when there is none, or no words.
pub fn command_in(input: &Value) -> Option<Command> {
    let action = input.get("action").unwrap_or(input);
    let v = ["command", "cmd"]
        .iter()
        .find_map(|k| action.get(*k).or_else(|| input.get(*k)))?;
    match v {
        Value::String(s) => Some(Command::Line(s.clone())),
        Value::Array(a) => {
            let argv: Vec<String> = a.iter().filter_map(Value::as_str).map(str::to_string).collect();
            (!argv.is_empty()).then_some(Command::Argv(argv))
        }
        _ => None,
    }
}

/// The tools of an agent with none of its own (a cctool session keeps the names its calls
/// were written with): every call is of no kind, and none is written as one of its own. A
/// recap reads the v5 spec's neutral names with it ([`Vocabulary::gist`]).
#[derive(Debug)]
pub struct Verbatim;

impl Vocabulary for Verbatim {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        Call::other(name, input)
    }

    fn from_neutral(&self, _: &Call, _: Context) -> Option<Written> {
        None
    }

    /// The harness-neutral names of the v5 spec (its own example is `read_file {path}`),
    /// which no agent's tools answer for.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        const READ: [&str; 4] = ["read_file", "view_file", "open_file", "read"];
        const WRITE: [&str; 6] = [
            "write_file",
            "edit_file",
            "create_file",
            "str_replace",
            "replace_in_file",
            "write",
        ];
        let arg = |k: &str| input.get(k).and_then(Value::as_str);
        let path = || {
            arg("path")
                .or_else(|| arg("file_path"))
                .or_else(|| arg("filename"))
                .map(str::to_string)
        };
        if READ.contains(&name) {
            Gist::Read(path())
        } else if WRITE.contains(&name) {
            Gist::Modify(path())
        } else if name == "bash" {
            command_in(input).map_or(Gist::Other, Gist::Shell)
        } else {
            Gist::Other
        }
    }

    /// A plain `Exit status N` line, as programs print it (`go run`), which no agent's
    /// wording answers for.
    fn stated_exit(&self, text: &str) -> Option<i64> {
        exit_on_line(text, &["exit status"])
    }
}

/// The mapping a call took, for the report: `Bash → exec_command`.
pub type Mapped = Option<String>;

fn label(from: &str, to: &str) -> Mapped {
    (from != to).then(|| format!("{from} → {to}"))
}

/// A call of one agent in another's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Translated {
    /// The target's tool, or the call's own name when the target has none that says it.
    pub name: String,
    /// Its input as the target writes it.
    pub input: Input,
    /// The mapping the call took, when it took one.
    pub mapped: Mapped,
    /// What of the call the target's tool cannot say, for the report's left-out count.
    pub lost: Option<String>,
}

/// The call `name(input)` of `from`'s tools in `to`'s: mapped when `to` has a tool that says
/// it, else under its own name, its input made an object. `files`: the files the
/// conversation's calls have touched so far, for a target whose writes depend on them.
pub fn translate(
    from: &dyn Vocabulary,
    to: &dyn Vocabulary,
    name: &str,
    input: &Value,
    files: Option<&mut Files>,
) -> Translated {
    let call = from.to_neutral(name, input);
    let exists = match (files, &call.file) {
        (Some(files), Some(path)) => !files.0.insert(path.clone()),
        _ => false,
    };
    if let Some(w) = to.from_neutral(&call, Context { exists }) {
        return Translated {
            mapped: label(name, &w.name),
            name: w.name,
            input: w.input,
            lost: w.lost,
        };
    }
    let input = match call.kind {
        // The input as written, copied once already.
        Kind::Other(v) if v.is_object() => v,
        _ if input.is_object() => input.clone(),
        _ => json!({ "input": input }),
    };
    Translated {
        name: name.to_string(),
        input: Input::Json(input),
        mapped: None,
        lost: None,
    }
}

/// The files a conversation's calls have read or written so far: a write to one of them
/// replaces a file that exists, which a patch says as a deletion and an addition.
#[derive(Debug, Default)]
pub struct Files(HashSet<String>);

/// `input` without `keys`, or `None` when it is not an object.
pub fn rest(input: &Value, keys: &[&str]) -> Option<Map<String, Value>> {
    let mut m = input.as_object()?.clone();
    for k in keys {
        m.shift_remove(*k);
    }
    Some(m)
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
pub fn unquote(s: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        for s in ["plain/path.rs", "a b", "it's", "", "'", "a'b'c"] {
            assert_eq!(unquote(&quote(s)).as_deref(), Some(s), "{s:?}");
        }
    }

    #[test]
    fn a_call_no_target_says_keeps_its_name_its_input_made_an_object() {
        let t = translate(&Verbatim, &Verbatim, "mcp__x__y", &json!("s"), None);
        assert_eq!(
            (t.name.as_str(), t.input, t.mapped),
            ("mcp__x__y", Input::Json(json!({"input": "s"})), None)
        );
    }
}
