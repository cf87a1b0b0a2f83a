//! The rows of the loaded chain that can reach the request, read back from the file with only
//! the fields the send-time rules need.

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Pipeline;
use super::attachments::{self, Context, Message, Rendered};
use super::blocks::{Block, Content, Role};
use super::regroup;
use super::rules::Rule;
use crate::chain::Kind;
use crate::io::json::{LBool, LString};

/// One row of the chain, as the pipeline sees it.
#[derive(Clone, Debug)]
pub(super) struct Row {
    pub role: Role,
    pub content: Content,
    pub msg_id: Option<String>,
    pub model: Option<String>,
    pub is_meta: bool,
    /// `isApiErrorMessage` (A4 drops it when the model is `<synthetic>`).
    pub api_error: bool,
    pub local_command: bool,
    /// `origin.kind` of a user row (`task-notification`, …) and its `subkind`.
    pub origin: Option<(String, Option<String>)>,
    /// An attachment row: what the client makes of it.
    pub attachment: Option<Attachment>,
    /// A user row the client delivers beside a reply (`turnCompanion`, a `sourceToolUseID`,
    /// or one of its notices): it does not fence a reply's rows (C15).
    pub delivered: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Attachment {
    pub ty: String,
    /// `None`: the client renders text here that this table does not reproduce.
    pub messages: Option<Vec<Message>>,
    pub line: u64,
    /// Sent as a system message to models that take them (C4), when its text is plain.
    pub to_system: bool,
}

impl Row {
    pub fn is_attachment(&self) -> bool {
        self.attachment.is_some()
    }

    /// A user row the client treats as a user message (not an attachment, not a local command).
    pub fn is_user(&self) -> bool {
        self.role == Role::User && !self.is_attachment() && !self.local_command
    }
}

/// The parts of a record the pipeline reads; everything else (tool results' structured
/// copies, usage, snapshots) is skipped unparsed. Fields of unexpected types are skipped
/// without being built: a name that holds an array of millions of elements must not become a
/// tree.
#[derive(Deserialize)]
struct RecPeek<'a> {
    #[serde(default)]
    content: LString,
    #[serde(default, rename = "isMeta")]
    is_meta: LBool,
    #[serde(default, rename = "isApiErrorMessage")]
    api_error: LBool,
    #[serde(default, rename = "isVirtual")]
    is_virtual: LBool,
    #[serde(default)]
    origin: Option<Value>,
    #[serde(default, rename = "toolUseResult")]
    tool_use_result: Option<IgnoredAny>,
    #[serde(default, rename = "isCompactSummary")]
    compact_summary: LBool,
    #[serde(default, rename = "isVisibleInTranscriptOnly")]
    transcript_only: LBool,
    #[serde(default, rename = "verifiedSlackHumanTurn")]
    verified_slack: LBool,
    #[serde(default, rename = "turnCompanion")]
    turn_companion: LBool,
    #[serde(default, rename = "sourceToolUseID")]
    source_tool_use: LString,
    #[serde(default, borrow)]
    message: Option<MsgPeek<'a>>,
}

#[derive(Deserialize)]
struct MsgPeek<'a> {
    #[serde(default)]
    id: LString,
    #[serde(default)]
    model: LString,
    #[serde(default, borrow)]
    content: RawContent<'a>,
}

/// The most content blocks the request view holds, in one record and in all: several hundred
/// times what real sessions send after their last compaction (a few hundred), and about
/// 100 MB held at most. A file over it is refused with an error rather than held at any cost
/// (five million blocks, ten bytes each in the file, took 2 GB).
pub const MAX_BLOCKS: usize = 100_000;

/// `message.content` with each block as written, borrowed from the row.
#[derive(Default)]
enum RawContent<'a> {
    Str(String),
    Blocks(Vec<&'a RawValue>),
    /// More than [`MAX_BLOCKS`] blocks: counted, not kept.
    TooMany(usize),
    #[default]
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawContent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Str(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<RawContent<'de>, A::Error> {
                let mut out = Vec::new();
                loop {
                    if out.len() == MAX_BLOCKS {
                        // The rest is counted for the message, not kept.
                        let mut n = out.len();
                        while a.next_element::<IgnoredAny>()?.is_some() {
                            n += 1;
                        }
                        return Ok(match n {
                            MAX_BLOCKS => RawContent::Blocks(out),
                            _ => RawContent::TooMany(n),
                        });
                    }
                    match a.next_element::<&'de RawValue>()? {
                        Some(b) => out.push(b),
                        None => return Ok(RawContent::Blocks(out)),
                    }
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<RawContent<'de>, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(RawContent::Other)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Other)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Other)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Other)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Other)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<RawContent<'de>, E> {
                Ok(RawContent::Other)
            }
        }
        d.deserialize_any(V)
    }
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// Whether the rows read so far end in the user's own prompt with no reply after it: a
/// background-task notification then arrived in the user's turn (`Ccr`).
#[derive(Default)]
pub(super) struct Turn {
    human: bool,
}

/// Item 1: the row of a chain record, or `None` for a record that never reaches the request;
/// `Err(n)` for a message of `n` content blocks, more than [`MAX_BLOCKS`].
pub(super) fn row_of(
    bytes: &[u8],
    kind: Kind,
    line: u64,
    turn: &mut Turn,
    p: &mut Pipeline,
) -> Result<Option<Row>, usize> {
    if kind == Kind::Attachment {
        return Ok(row_of_record(bytes, None, kind, line, turn, p));
    }
    // Each row is parsed once: the block count is checked on the record the row is made of.
    // Its blocks are borrowed from the text parsed (the row, or its repaired copy), so the
    // row is made before that text goes.
    let mut made = |rec: RecPeek<'_>| {
        if let RecPeek {
            message: Some(MsgPeek {
                content: RawContent::TooMany(n),
                ..
            }),
            ..
        } = &rec
            && matches!(kind, Kind::User | Kind::Assistant)
        {
            return Err(*n);
        }
        Ok(row_of_record(bytes, Some(rec), kind, line, turn, p))
    };
    if let Ok(rec) = serde_json::from_slice::<RecPeek<'_>>(bytes) {
        return made(rec);
    }
    match crate::io::json::repair_surrogates(bytes) {
        Some(fixed) => match serde_json::from_slice::<RecPeek<'_>>(&fixed) {
            Ok(rec) => made(rec),
            Err(_) => Ok(None),
        },
        None => Ok(None),
    }
}

/// `rec`: the record parsed, for every kind but attachments (which are read whole).
fn row_of_record(
    bytes: &[u8],
    rec: Option<RecPeek<'_>>,
    kind: Kind,
    line: u64,
    turn: &mut Turn,
    p: &mut Pipeline,
) -> Option<Row> {
    match kind {
        Kind::Attachment => attachment_row(bytes, line, turn),
        Kind::System => {
            let rec = rec?;
            p.fire(Rule::A2);
            Some(Row {
                local_command: true,
                ..base(Role::User, Content::Str(rec.content.0.unwrap_or_default()))
            })
        }
        Kind::User => user_row(rec?, turn, p),
        Kind::Assistant => {
            let rec = rec?;
            if rec.is_virtual.is_true() {
                p.fire(Rule::C10);
                return None;
            }
            turn.human = false;
            let msg = rec.message?;
            let content = match msg.content {
                RawContent::Str(s) => vec![Block::text_block(&s)],
                RawContent::Blocks(b) => b.into_iter().map(Block::from_raw).collect(),
                RawContent::Other | RawContent::TooMany(_) => return None,
            };
            Some(Row {
                msg_id: msg.id.0,
                model: msg.model.0,
                api_error: rec.api_error.is_true(),
                ..base(Role::Assistant, Content::Blocks(content))
            })
        }
    }
}

/// A row's fields other than its role and content, as most rows have them.
fn base(role: Role, content: Content) -> Row {
    Row {
        role,
        content,
        msg_id: None,
        model: None,
        is_meta: false,
        api_error: false,
        local_command: false,
        origin: None,
        attachment: None,
        delivered: false,
    }
}

/// An attachment's row: the messages it renders to, or that cctool does not emulate it.
fn attachment_row(bytes: &[u8], line: u64, turn: &Turn) -> Option<Row> {
    let record: Value = parse(bytes)?;
    let ty = record
        .get("attachment")
        .and_then(|a| a.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let ctx = Context {
        in_human_turn: turn.human,
    };
    let mut to_system = attachments::goes_to_system(&record);
    let messages = match attachments::render(&record, ctx) {
        Rendered::Messages(m) if m.is_empty() => return None,
        Rendered::Messages(m) => Some(m),
        Rendered::NotEmulated => {
            // Pictures, PDFs and notebooks are never plain text, so never a system message.
            to_system &= attachments::renders_plain_text(&record);
            None
        }
    };
    Some(Row {
        attachment: Some(Attachment {
            ty,
            messages,
            line,
            to_system,
        }),
        ..base(Role::User, Content::Blocks(Vec::new()))
    })
}

/// A user row; whether it ends the human's turn, and what marks it meta or delivered.
fn user_row(rec: RecPeek<'_>, turn: &mut Turn, p: &mut Pipeline) -> Option<Row> {
    if rec.is_virtual.is_true() {
        p.fire(Rule::C10);
        return None;
    }
    let content = match rec.message?.content {
        RawContent::Str(s) => Content::Str(s),
        RawContent::Blocks(b) if b.is_empty() => {
            p.fire(Rule::C10);
            return None;
        }
        RawContent::Blocks(b) => Content::Blocks(b.into_iter().map(Block::from_raw).collect()),
        RawContent::Other | RawContent::TooMany(_) => return None,
    };
    let tool_result = match &content {
        Content::Blocks(b) => b.iter().any(|x| x.ty == "tool_result"),
        Content::Str(_) => false,
    };
    if rec.tool_use_result.is_some() || tool_result || rec.compact_summary.is_true() {
        turn.human = false;
    } else if rec.transcript_only.is_true() {
        // Rows shown only in the transcript are stepped over.
    } else if rec.is_meta.is_true() {
        turn.human = false;
    } else {
        turn.human = rec.origin.as_ref().and_then(|o| o.get("kind")).and_then(Value::as_str) == Some("human")
            && !rec.verified_slack.is_true();
    }
    let origin = rec.origin.as_ref().and_then(|o| {
        let kind = o.get("kind")?.as_str()?.to_string();
        let sub = o.get("subkind").and_then(Value::as_str).map(str::to_string);
        Some((kind, sub))
    });
    let first_text = match &content {
        Content::Str(s) => Some(s.as_str()),
        Content::Blocks(b) => b.first().filter(|x| x.ty == "text").and_then(|x| x.text.as_deref()),
    };
    let notice = rec.is_meta.is_true() && first_text.is_some_and(regroup::is_notice);
    Some(Row {
        is_meta: rec.is_meta.is_true(),
        delivered: rec.turn_companion.is_true() || rec.source_tool_use.0.is_some() || notice,
        origin,
        ..base(Role::User, content)
    })
}
