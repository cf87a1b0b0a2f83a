//! `search`: the messages of a session whose decoded text matches, for every agent alike. A
//! file is read through the session model (`cctool_core::model::events`), in the view a
//! scope asks (what a resume loads, or the whole history with what compactions replaced), so
//! whatever an agent's reader emits is searched and nothing of the metadata around it (ids,
//! paths, the working directory) ever is. A [`Prefilter`] on the raw bytes rules out the
//! lines that cannot match before they are decoded.

pub mod index;
mod matcher;
mod prefilter;
mod snippet;

use std::borrow::Cow;

use serde_json::Value;

pub use matcher::{BadPattern, Case, Matcher, Query};
pub use prefilter::Prefilter;
pub use snippet::{Snippet, one_line};

use crate::io::Source;
use crate::model::AgentId;
use crate::model::events::{Ask, Event, MadeText, Mark, Part, Reading, Record, View};
use crate::model::session::SessionRecord;

/// Which history a search reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Scope {
    /// What a resume loads.
    Effective,
    /// Every record of the file: what compactions replaced, and what a rewind or a broken
    /// link left off the chain a resume loads.
    #[default]
    Full,
}

/// Who a hit's text is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Role {
    /// The user's messages.
    User,
    /// The model's messages (and, with `--thinking`, its reasoning).
    Assistant,
    /// Tool calls' inputs and outputs (with `--tools`).
    Tool,
    /// Compaction summaries.
    Summary,
}

impl Role {
    /// Its name, as records and the terminal write it.
    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Summary => "summary",
        }
    }
}

/// Which text of a message a hit is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A text of the message.
    Text,
    /// A compaction's summary.
    Summary,
    /// The model's reasoning.
    Thinking,
    /// A string of a tool call's input.
    ToolInput,
    /// A tool's output.
    ToolOutput,
}

impl Field {
    /// Its name, as records write it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Summary => "summary",
            Field::Thinking => "thinking",
            Field::ToolInput => "tool_input",
            Field::ToolOutput => "tool_output",
        }
    }
}

/// What a search reads of each file, beyond its patterns.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which history.
    pub scope: Scope,
    /// Search the model's reasoning too.
    pub thinking: bool,
    /// Search tool calls' inputs and outputs too.
    pub tools: bool,
    /// Only texts of these roles (all when empty).
    pub roles: Vec<Role>,
    /// Only messages written at or after this time (milliseconds since the epoch).
    pub since_ms: Option<i64>,
    /// Only messages written before this time.
    pub until_ms: Option<i64>,
    /// Keep a brief of every message searched, for showing messages around a hit.
    pub keep_messages: bool,
    /// Rule out lines by their raw bytes first, and a file whose bytes hold no needle of a
    /// pattern (off only to prove it changes nothing).
    pub prefilter: bool,
    /// Only whether the file has a hit is asked (`-l`): with the prefilter, every line after
    /// the first hit is ruled out, and the hits stop there.
    pub first_hit: bool,
}

/// One text of a message that matched.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The message's place among the messages searched in the file, from 0.
    pub message: usize,
    /// The line the message was written at, from 1; `None` for what has no line of its own.
    pub line: Option<u64>,
    /// The message's own id, in formats that give one (`rebuild-chain --tip` takes it).
    pub message_id: Option<String>,
    /// When it was written, as written.
    pub time: Option<String>,
    /// When it was written, in milliseconds since the epoch.
    pub ms: Option<i64>,
    /// Who it is from.
    pub role: Role,
    /// Which text.
    pub field: Field,
    /// Whether a resume loads it (else only the full history holds it).
    pub effective: bool,
    /// Every match, as byte ranges of the decoded text.
    pub matches: Vec<(usize, usize)>,
    /// The decoded text around the first match.
    pub snippet: Snippet,
}

/// A message as shown around a hit.
#[derive(Clone, Debug)]
pub struct Brief {
    /// Who it is from.
    pub role: Role,
    /// When it was written, in milliseconds since the epoch.
    pub ms: Option<i64>,
    /// The start of its first text.
    pub text: String,
}

/// What a search found in one file.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// The hits, in the order of the stream.
    pub hits: Vec<Hit>,
    /// Every message searched, with [`Options::keep_messages`].
    pub messages: Vec<Brief>,
}

/// Searches one file of the agent `format`.
pub fn search(
    src: &Source,
    format: AgentId,
    m: &Matcher,
    pre: Option<&Prefilter>,
    opts: &Options,
) -> crate::error::Result<Found> {
    Ok(search_listed(src, format, m, pre, opts, false)?.0)
}

/// Searches one file of the agent `format` and, with `listed` and a hit, reads what names the
/// session (the agent's `listing`), from the reading of the search where the agent can.
pub fn search_listed(
    src: &Source,
    format: AgentId,
    m: &Matcher,
    pre: Option<&Prefilter>,
    opts: &Options,
    listed: bool,
) -> crate::error::Result<(Found, Option<SessionRecord>)> {
    // What a reader hands on is read through `parse`, where lines are ruled out. A whole
    // file is ruled out on its bytes only when its agent lists the text its reader may make
    // that the file does not hold as such (Codex's marker of what a resume truncates, in a
    // history it rebuilds) and no pattern can match it. Messages around a hit are shown from
    // every message: then nothing is ruled out.
    let lines = pre.filter(|_| opts.prefilter && !opts.keep_messages);
    let view = match opts.scope {
        Scope::Effective => View::Loaded,
        Scope::Full => View::Records,
    };
    let agent = crate::agents::agent(format);
    if let (Some(p), MadeText::Only(made)) = (lines, agent.made_text(view))
        && !p.file_may_match(src, m, made)?
    {
        return Ok((Found::default(), None));
    }
    // Once a file has a hit and no more are asked, nothing after it needs decoding.
    let done = std::cell::Cell::new(false);
    let parse = |bytes: &[u8]| match lines {
        Some(_) if done.get() => None,
        Some(p) if !p.candidate(bytes) => None,
        _ => crate::model::rows::parse(bytes),
    };
    let ask = Ask {
        view,
        reading: Reading::With(&parse),
        native: false,
    };
    let mut state = State {
        m,
        opts,
        found: Found::default(),
        count: 0,
    };
    let hit = std::cell::Cell::new(false);
    let named = || listed && hit.get();
    let (_, session) = agent.events_listed(
        src,
        ask,
        &mut |e| {
            if done.get() {
                return;
            }
            match e {
                Event::Record(r) => {
                    let effective = r.loaded || opts.scope == Scope::Effective;
                    let pieces = pieces(&r, opts);
                    state.message(&r, effective, &pieces);
                }
                Event::Mark(Mark::Compaction(c)) => state.summary(c),
                Event::Mark(_) => {}
            }
            hit.set(!state.found.hits.is_empty());
            done.set(lines.is_some() && opts.first_hit && hit.get());
        },
        &named,
    )?;
    Ok((state.found, session))
}

/// A search of one file under way.
struct State<'a> {
    m: &'a Matcher,
    opts: &'a Options,
    found: Found,
    /// Messages searched so far.
    count: usize,
}

impl State<'_> {
    /// Searches the summary a compaction's mark holds, in formats that write it with the
    /// compaction. Outside `--scope effective` it counts as not loaded: what a resume loads
    /// of it is the message it becomes in the loaded history. Whether a mark is the last
    /// compaction cannot be told from the marks a prefilter lets through, and a hit must not
    /// depend on the prefilter.
    fn summary(&mut self, c: crate::model::events::Compaction) {
        let Some(text) = c.summary else { return };
        let r = Record {
            ms: c.time.as_deref().and_then(crate::model::time::parse_ms),
            time: c.time,
            ..Record::default()
        };
        let effective = self.opts.scope == Scope::Effective;
        self.message(&r, effective, &[(Role::Summary, Field::Summary, Cow::Owned(text))]);
    }

    fn role_allowed(&self, role: Role) -> bool {
        self.opts.roles.is_empty() || self.opts.roles.contains(&role)
    }

    /// Searches one message's texts: a hit for each text that matches, when every pattern
    /// matches one of them.
    fn message(&mut self, r: &Record, effective: bool, pieces: &[(Role, Field, Cow<'_, str>)]) {
        let pieces: Vec<_> = pieces.iter().filter(|(role, ..)| self.role_allowed(*role)).collect();
        if pieces.is_empty() || !self.in_time(r.ms) {
            return;
        }
        let index = self.count;
        self.count += 1;
        if self.opts.keep_messages {
            let (role, _, text) = pieces[0];
            self.found.messages.push(Brief {
                role: *role,
                ms: r.ms,
                text: snippet::head(text, 400),
            });
        }
        let bits = pieces.iter().fold(0, |acc, (_, _, t)| acc | self.m.which(t));
        if bits != self.m.all_bits() {
            return;
        }
        for (role, field, text) in pieces {
            let matches = self.m.find_all(text);
            let Some(&first) = matches.first() else { continue };
            self.found.hits.push(Hit {
                message: index,
                line: r.at.map(|at| at.line),
                message_id: r.id.clone(),
                time: r.time.clone(),
                ms: r.ms,
                role: *role,
                field: *field,
                effective,
                snippet: Snippet::around(text, first),
                matches,
            });
        }
    }

    fn in_time(&self, ms: Option<i64>) -> bool {
        match (self.opts.since_ms, self.opts.until_ms) {
            (None, None) => true,
            (since, until) => ms.is_some_and(|ms| since.is_none_or(|s| ms >= s) && until.is_none_or(|u| ms < u)),
        }
    }
}

/// The texts of a record a search reads, as the options ask: its texts when it is the user's
/// or the model's message or a compaction summary, its reasoning, its tool calls' inputs and
/// outputs. Notices, attachments and the records a transcript does not show are not read.
pub(crate) fn pieces<'r>(r: &'r Record, opts: &Options) -> Vec<(Role, Field, Cow<'r, str>)> {
    let said = if r.flags.compact_summary == Some(true) {
        Some((Role::Summary, Field::Summary))
    } else {
        match r.speaker.as_deref() {
            Some("user") => Some((Role::User, Field::Text)),
            Some("assistant") => Some((Role::Assistant, Field::Text)),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for p in &r.parts {
        match p {
            Part::Text(t) => out.extend(said.map(|(role, field)| (role, field, Cow::Borrowed(t.as_str())))),
            Part::Reasoning { text, .. } if opts.thinking => {
                out.push((Role::Assistant, Field::Thinking, Cow::Borrowed(text.as_str())));
            }
            Part::Call(c) if opts.tools => {
                let mut strings = Vec::new();
                if let Some(input) = &c.input {
                    leaves(input, &[], true, &mut strings);
                }
                out.extend(strings.into_iter().map(|s| (Role::Tool, Field::ToolInput, s)));
            }
            Part::Outcome(o) if opts.tools => {
                let mut strings = Vec::new();
                if let Some(output) = &o.output {
                    leaves(output, BLOCK_METADATA, false, &mut strings);
                }
                out.extend(strings.into_iter().map(|s| (Role::Tool, Field::ToolOutput, s)));
            }
            _ => {}
        }
    }
    out
}

/// The keys of a tool output's blocks that say what a block is rather than what the tool
/// said: its type, ids, an image's media type and its base64 data.
const BLOCK_METADATA: &[&str] = &["type", "id", "tool_use_id", "media_type", "data", "signature"];

/// The strings of a tool call's input or a tool's output: each value's but those under the
/// keys `skip`, and with `nested` (an input), inside a string of JSON text (the arguments
/// some formats write as text), each of its values'. An output's text is searched as the
/// tool wrote it, JSON or not.
fn leaves<'v>(v: &'v Value, skip: &[&str], nested: bool, out: &mut Vec<Cow<'v, str>>) {
    match v {
        Value::String(s) if nested && crate::io::json::serde_reads(s.as_bytes()) => {
            match crate::io::json::parse_kept_text(s) {
                Some(inner @ (Value::Object(_) | Value::Array(_))) => {
                    let mut owned = Vec::new();
                    leaves(&inner, skip, nested, &mut owned);
                    out.extend(owned.into_iter().map(|c| Cow::Owned(c.into_owned())));
                }
                _ => out.push(Cow::Borrowed(s)),
            }
        }
        Value::String(s) => out.push(Cow::Borrowed(s)),
        Value::Array(items) => items.iter().for_each(|i| leaves(i, skip, nested, out)),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .for_each(|(_, i)| leaves(i, skip, nested, out)),
        _ => {}
    }
}
