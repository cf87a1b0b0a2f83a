//! The session model every reading feature consumes: each agent streams the records of a
//! session file once, as typed [`Event`]s in terms no agent owns (where a record was written,
//! whether a resume loads it, who speaks, its texts, tool calls and results, its usage), and
//! the features (`scan --rows`'s messages and tool-calls tables, `export`'s documents) are
//! written once against that stream instead of once per agent.
//!
//! What only one agent knows stays in its crate: which records a resume loads (Claude Code's
//! chain, Codex's replayed history), which block or item types call a tool, and how a format
//! that changed over the years wrote a tool's output. The reader settles those and hands on
//! the answer.

use serde_json::Value;

/// Where a record was written in its file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct At {
    /// Its physical line, from 1.
    pub line: u64,
    /// The byte offset of its first byte.
    pub offset: u64,
}

/// Where a record comes from, when it is not a line of the file as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Origin {
    /// A record of the file.
    #[default]
    Record,
    /// An item a resume loads from a compaction's replacement history (Codex): it is written
    /// inside another record, not as a line of its own.
    ReplacementHistory,
    /// An item a resume rebuilds from records that hold no item (Codex's legacy rollouts).
    Rebuilt,
    /// A line the reader takes as no record of the session, handed on only when all the
    /// file holds is asked ([`Record::unread`]).
    Unread,
    /// A record of the file off the history a resume follows (another branch, a sidechain, a
    /// part a broken link cut off), handed on among the history only when all the file
    /// holds is asked.
    OffChain,
}

impl Origin {
    /// Its name, as the tables write it.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Record => "record",
            Origin::ReplacementHistory => "replacement-history",
            Origin::Rebuilt => "rebuilt",
            Origin::Unread => "unread",
            Origin::OffChain => "off-chain",
        }
    }
}

/// Which records a reader streams, in which order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Every record of the file in the order of the file, then the items a resume loads from
    /// elsewhere, each flagged loaded or not (`scan --rows`).
    Records,
    /// As [`View::Records`], for what tool calls need: a reader may leave out, unread, the
    /// records that hold no tool call and no result.
    Calls,
    /// What a resume loads, in the order it sends it (`export`).
    Loaded,
    /// What a resume loads and the earlier history its compactions replaced, in order, each
    /// compaction and the start of what a resume loads marked (`export --full`).
    History,
}

/// Whether a reader hands on text its file does not hold as written (an agent's answer to
/// `search`, which skips a file whose bytes hold no needle of a pattern only when the pattern
/// cannot match what the reader makes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MadeText {
    /// It may make any text: every file is read. The safe answer.
    Maybe,
    /// It makes only these texts (none: everything it hands on is the file's, as written),
    /// each alone or joined to the file's text on either side; an ASCII digit in one stands
    /// for any number. The rest of what it hands on is the file's text, written again at most.
    Only(&'static [&'static str]),
}

/// What a reader is asked.
#[derive(Clone, Copy)]
pub struct Ask<'a> {
    /// Which records.
    pub view: View,
    /// How a record's bytes are read as JSON.
    pub reading: Reading<'a>,
    /// Whether the reader hands on all the file holds, for a feature that keeps what it does
    /// not read (the v5 import): each record with the JSON it was read as
    /// ([`Record::native`]), and, in the views of every record, each line the reader could
    /// not take as a record as a record of its own ([`Origin::Unread`], of no kind and no
    /// speaker). A reader whose history follows links hands on there the records off it
    /// ([`Origin::OffChain`]). The other features leave it off, which keeps their records
    /// lean.
    pub native: bool,
}

/// How a reader reads each record's bytes as JSON.
#[derive(Clone, Copy)]
pub enum Reading<'a> {
    /// As written ([`crate::model::rows::parse`]). A reader may make the records from its own
    /// typed reading instead, where its crate has a test that they equal the ones made from
    /// this reading.
    AsWritten,
    /// As the feature decides (`export` redacts each record as it is read; `search` leaves
    /// out what cannot match; `convert` reads it whole); `None` leaves the record out.
    With(&'a dyn Fn(&[u8]) -> Option<Value>),
    /// Not read: each record says only where it is, one a record of the view, in order, for a
    /// feature that takes from the stream which records and in which order and reads each from
    /// the agent's own reading (`convert`). A reader need not read the bytes at all
    /// ([`Ask::reads`]); one that does reads each as `null`.
    Place,
}

impl Ask<'_> {
    /// Every record of the file, read as written ([`crate::model::rows::parse`]).
    pub fn records() -> Ask<'static> {
        Ask {
            view: View::Records,
            reading: Reading::AsWritten,
            native: false,
        }
    }

    /// A record's bytes read as asked; `None` leaves the record out.
    pub fn parse(&self, bytes: &[u8]) -> Option<Value> {
        match self.reading {
            Reading::AsWritten => crate::model::rows::parse(bytes),
            Reading::With(f) => f(bytes),
            Reading::Place => Some(Value::Null),
        }
    }

    /// Whether records are read at all: asked for their place only ([`Reading::Place`]), a
    /// reader hands each on unread, as `null`.
    pub fn reads(&self) -> bool {
        !matches!(self.reading, Reading::Place)
    }

    /// Whether records are read as written, so that a reader may make them from its own
    /// typed reading ([`Reading::AsWritten`]).
    pub fn as_written(&self) -> bool {
        matches!(self.reading, Reading::AsWritten)
    }
}

/// Tokens a model response reports, as the agent recorded them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens sent without a cache.
    pub input: Option<i64>,
    /// Output tokens.
    pub output: Option<i64>,
    /// Input tokens read from the prompt cache.
    pub cache_read: Option<i64>,
    /// Input tokens written to the prompt cache.
    pub cache_creation: Option<i64>,
}

/// Flags a format sets on a record; `None` where the format has no such flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// Written by a side conversation (Claude Code's `isSidechain`).
    pub sidechain: Option<bool>,
    /// Written for the model, not by the user (Claude Code's `isMeta`).
    pub meta: Option<bool>,
    /// Holds or stands for a compaction's summary.
    pub compact_summary: Option<bool>,
}

/// A tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Its id, which its result names.
    pub id: Option<String>,
    /// The tool called, as its agent names it.
    pub name: Option<String>,
    /// The type of the block or item that holds it (`tool_use`, `function_call`, …).
    pub kind: String,
    /// Its input, as written: an object, or a string of JSON text.
    pub input: Option<Value>,
}

/// A tool's answer to a call.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The id of the call it answers; `None` when the record names none.
    pub call_id: Option<String>,
    /// Whether the tool failed, where the format says.
    pub is_error: Option<bool>,
    /// What it returned: text, or blocks as written.
    pub output: Option<Value>,
}

/// A piece of a record, in the order it was written.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Text of the message.
    Text(String),
    /// The model's reasoning: the reasoning itself, or (`summary`) a summary of it written
    /// for people, which the client shows as text (Codex's reasoning `summary`).
    Reasoning {
        /// The text.
        text: String,
        /// Whether it is a summary written to be shown.
        summary: bool,
    },
    /// A tool call.
    Call(Call),
    /// A tool result.
    Outcome(Outcome),
    /// An image.
    Image(crate::model::doc::Image),
    /// Reasoning the provider keeps encrypted (Claude's `redacted_thinking`).
    Redacted,
    /// Text the client wrote about the session rather than a message of it (Claude Code's
    /// `system` records).
    Notice(String),
    /// What the client attached for the model (a file, a hook's output), as written.
    Attachment(Value),
    /// A block or item of a type cctool does not read: its type, and what it holds as written
    /// (its texts taken out as parts of their own) where the reader keeps it.
    Other {
        /// Its type.
        kind: String,
        /// The rest of it as written.
        value: Option<Value>,
    },
}

/// A place in the stream that is no record: where a compaction happened, where earlier
/// history or what a resume loads starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A compaction.
    Compaction(Compaction),
    /// The earlier history a compaction replaced starts here; a resume does not load it.
    Earlier,
    /// What a resume loads starts here (after earlier history).
    Loaded,
    /// What a resume loads starts from the compaction written at this line.
    ResumedFrom(u64),
}

/// A compaction, as the file records it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compaction {
    /// When it happened, as written.
    pub time: Option<String>,
    /// What started it and the tokens before it, in formats that record them (each may
    /// still be missing from a record).
    pub measured: Option<Measured>,
    /// Its summary, when the mark holds it.
    pub summary: Option<String>,
    /// Whether the summary is encrypted by the provider (a remote compaction).
    pub encrypted: bool,
    /// The length of the encrypted summary as written, in bytes, where the reader has it.
    pub encrypted_bytes: Option<u64>,
}

/// What a compaction records of itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// What started it (`auto`, `manual`).
    pub trigger: Option<String>,
    /// The tokens of the context before it, as written.
    pub pre_tokens: Option<Value>,
}

/// What a reader streams: records, and the marks between them.
// Nearly every event is a record, handed to the sink once and never stored as an event:
// boxing it would allocate once a record to save the size of the rare mark.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A record.
    Record(Record),
    /// A mark.
    Mark(Mark),
}

/// One record of a session, as every reading feature sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// Where it was written; `None` for an item that has no line of its own.
    pub at: Option<At>,
    /// Where it comes from.
    pub origin: Origin,
    /// Whether a resume loads it.
    pub loaded: bool,
    /// When it was written, as written.
    pub time: Option<String>,
    /// When it was written, in milliseconds since the epoch, where cctool reads the time.
    pub ms: Option<i64>,
    /// The session id in force where it was written.
    pub session_id: Option<String>,
    /// The version of the client that wrote it.
    pub client_version: Option<String>,
    /// The model in force.
    pub model: Option<String>,
    /// The record's own id, in formats that link records.
    pub id: Option<String>,
    /// The id of the record it follows, in formats that link records.
    pub parent: Option<String>,
    /// The record's type, as the format names it (`user`, `response_item`'s `message`, …).
    pub kind: String,
    /// Who speaks (`user`, `assistant`, `tool`, …), where the record says.
    pub role: Option<String>,
    /// Who speaks as a transcript shows it (`user`, `assistant (meta)`, `compaction
    /// summary`, `system/local_command`, `tool`, …); `None` for a record a transcript does
    /// not show (bookkeeping, or a compaction that is shown as its [`Mark`]).
    pub speaker: Option<String>,
    /// The format's flags.
    pub flags: Flags,
    /// What it holds, in order.
    pub parts: Vec<Part>,
    /// The tokens it reports.
    pub usage: Usage,
    /// Its size as written, in bytes, where it has one.
    pub bytes: Option<u64>,
    /// The JSON it was read as, where the reader was asked for it ([`Ask::native`]); `null`
    /// for a line that is not JSON.
    pub native: Option<Value>,
    /// Why the reader hands it on where it does, when that is neither the file's order nor
    /// the chain's (a broken link, a run off the chain), where it was asked for all the file
    /// holds.
    pub note: Option<String>,
}

impl Record {
    /// A line the reader takes as no record of the session (not JSON, or of no type it
    /// reads), as it hands it on when asked for all the file holds ([`Ask::native`]): where
    /// it is and what it holds, nothing read of it.
    pub fn unread(at: At, raw: &[u8], ask: &Ask<'_>) -> Record {
        Record::kept(at, Some(raw.len() as u64), ask.parse(raw).unwrap_or(Value::Null))
    }

    /// [`Record::unread`] of a line read already as `native`, `bytes` long where it is a
    /// line of its own.
    pub fn kept(at: At, bytes: Option<u64>, native: Value) -> Record {
        Record {
            at: Some(at),
            origin: Origin::Unread,
            bytes,
            native: Some(native),
            ..Record::default()
        }
    }

    /// The record's text as people read it: its texts, notices and reasoning summaries, one a
    /// line.
    pub fn text(&self) -> String {
        let mut texts = self.parts.iter().filter_map(|p| match p {
            Part::Text(t) | Part::Notice(t) | Part::Reasoning { text: t, summary: true } => Some(t.as_str()),
            _ => None,
        });
        let mut out = String::from(texts.next().unwrap_or(""));
        for t in texts {
            out.push('\n');
            out.push_str(t);
        }
        out
    }

    /// The tool calls it holds.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.parts.iter().filter_map(|p| match p {
            Part::Call(c) => Some(c),
            _ => None,
        })
    }

    /// The tool results it holds.
    pub fn outcomes(&self) -> impl Iterator<Item = &Outcome> {
        self.parts.iter().filter_map(|p| match p {
            Part::Outcome(o) => Some(o),
            _ => None,
        })
    }
}

/// The lines a reader takes as no record of the session, handed on as records of their own
/// ([`Record::unread`]) at their place among its records, in file order: only where every
/// record is asked with all the file holds ([`Ask::native`] in [`View::Records`]).
pub struct UnreadLines<'a, 'b> {
    ask: Ask<'a>,
    lines: std::iter::Peekable<std::vec::IntoIter<(At, &'b [u8])>>,
}

impl<'a, 'b> UnreadLines<'a, 'b> {
    /// The lines `lines` (each its line, its byte offset and its bytes, in any order) as `ask`
    /// wants them.
    pub fn new(ask: Ask<'a>, lines: impl IntoIterator<Item = (u64, u64, &'b [u8])>) -> Self {
        let mut lines: Vec<_> = match ask.native && ask.view == View::Records {
            true => lines
                .into_iter()
                .map(|(line, offset, raw)| (At { line, offset }, raw))
                .collect(),
            false => Vec::new(),
        };
        lines.sort_by_key(|(at, _)| at.line);
        UnreadLines {
            ask,
            lines: lines.into_iter().peekable(),
        }
    }

    /// Hands on the lines before line `line` (`through`: and `line` itself).
    pub fn before(&mut self, line: u64, through: bool, sink: Sink<'_>) {
        while let Some((at, raw)) = self
            .lines
            .next_if(|(at, _)| at.line < line || (through && at.line == line))
        {
            sink(Event::Record(Record::unread(at, raw, &self.ask)));
        }
    }

    /// Hands on the lines left.
    pub fn rest(&mut self, sink: Sink<'_>) {
        self.before(u64::MAX, true, sink);
    }
}

/// What a reader says of the whole file once its events are streamed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    /// The earliest time the file holds, in milliseconds since the epoch (records that are
    /// not streamed count too).
    pub first_ms: Option<i64>,
}

/// Where a reader's events go, in order.
pub type Sink<'a> = &'a mut dyn FnMut(Event);

impl From<Record> for Event {
    fn from(r: Record) -> Event {
        Event::Record(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_texts_and_reasoning_summaries_one_a_line() {
        let e = Record {
            parts: vec![
                Part::Reasoning {
                    text: "hidden".into(),
                    summary: false,
                },
                Part::Text("a".into()),
                Part::Call(Call {
                    id: None,
                    name: None,
                    kind: "tool_use".into(),
                    input: None,
                }),
                Part::Reasoning {
                    text: "b".into(),
                    summary: true,
                },
                Part::Text(String::new()),
            ],
            ..Record::default()
        };
        assert_eq!(e.text(), "a\nb\n");
        assert_eq!(Record::default().text(), "");
        assert_eq!(e.calls().count(), 1);
        assert_eq!(e.outcomes().count(), 0);
    }

    #[test]
    fn unread_lines_come_only_when_all_is_asked_and_at_their_place() {
        let lines = || vec![(5, 50, &b"x"[..]), (2, 20, &b"{}"[..])];
        let native = Ask {
            native: true,
            reading: Reading::With(&|b| Some(serde_json::from_slice(b).unwrap_or(Value::Null))),
            ..Ask::records()
        };
        let mut got = Vec::new();
        let mut u = UnreadLines::new(native, lines());
        u.before(2, false, &mut |e| got.push(e));
        assert!(got.is_empty(), "line 2 is not before line 2");
        u.before(2, true, &mut |e| got.push(e));
        u.rest(&mut |e| got.push(e));
        let records: Vec<_> = got
            .into_iter()
            .map(|e| match e {
                Event::Record(r) => (r.at.unwrap().line, r.native.unwrap()),
                Event::Mark(_) => panic!("a mark"),
            })
            .collect();
        assert_eq!(records, [(2, serde_json::json!({})), (5, Value::Null)]);
        for ask in [
            Ask::records(),
            Ask {
                view: View::Loaded,
                ..native
            },
        ] {
            let mut u = UnreadLines::new(ask, lines());
            u.rest(&mut |_| panic!("handed on unasked"));
        }
    }
}
