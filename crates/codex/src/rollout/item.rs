//! One history item as the index holds it: where its JSON is, its `type` and `role` as codes,
//! what reconstruction needs to know of it as flags. A rollout holds one per line and every
//! `replacement_history` holds its own, so an item is kept small: the names Codex writes are
//! codes (no allocation), and what few items carry — a name Codex does not write, a prompt's
//! text — sits behind one pointer, the text shared by every item that holds the same.

use std::sync::Arc;

use rustc_hash::FxHashSet;

/// Where a history item's JSON is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemSrc {
    /// A byte range of the file, exactly as written.
    Raw {
        /// Where the JSON starts.
        offset: u64,
        /// Its length in bytes.
        len: u32,
        /// The line it is on.
        line: u64,
    },
    /// JSON made by the reconstruction itself (legacy compaction rebuilds).
    Synth(Box<str>),
}

/// The item `type`s Codex writes, by code (an index here).
const TYPES: &[&str] = &[
    "message",
    "agent_message",
    "reasoning",
    "local_shell_call",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "tool_search_call",
    "tool_search_output",
    "web_search_call",
    "image_generation_call",
    "compaction",
    "compaction_summary",
    "context_compaction",
    "additional_tools",
    "ghost_snapshot",
    "compaction_trigger",
    "mcp_tool_call",
    "mcp_tool_call_output",
];

/// The message `role`s Codex writes, by code (an index here, plus one).
const ROLES: &[&str] = &["user", "assistant", "developer", "system"];

/// The code of a name not in the table: the name is in [`Extra`].
const OTHER: u8 = u8::MAX;
/// The role code of an item without a role.
const NO_ROLE: u8 = 0;

fn code(table: &[&str], name: &str) -> Option<u8> {
    table.iter().position(|t| *t == name).and_then(|i| u8::try_from(i).ok())
}

/// What few items carry beyond their codes and flags.
#[derive(Clone, Debug, Default)]
struct Extra {
    /// A `type` not in [`TYPES`].
    ty: Option<Box<str>>,
    /// A `role` not in [`ROLES`].
    role: Option<Box<str>>,
    /// Text of a real user prompt.
    user_text: Option<Arc<str>>,
}

/// One ResponseItem with what reconstruction needs to know about it.
#[derive(Clone, Debug)]
pub struct Item {
    /// Where the item's JSON is.
    pub src: ItemSrc,
    ty: u8,
    role: u8,
    extra: Option<Box<Extra>>,
    /// Sent to the model (not `Other`, not a system message, not a trigger).
    pub api: bool,
    /// Opens a user turn: a real user prompt, a summary, an agent message.
    pub user_turn: bool,
    /// A developer message or a contextual user message (trimmed above a rollback cut).
    pub context: bool,
    /// A user message holding a local compaction summary.
    pub summary: bool,
    /// A remote compaction item (`compaction`, `compaction_summary`, `context_compaction`).
    pub remote_compaction: bool,
    /// Recorded from a line after the history's base (not taken from a `replacement_history` or
    /// rebuilt by a legacy compaction): Codex cuts such tool outputs to its budget.
    pub recorded: bool,
    /// An `inter_agent_communication` payload, which Codex records as an `agent_message`.
    pub inter_agent: bool,
}

impl Item {
    /// An item of `type` `ty` (and `role`) at `src`, every flag unset.
    pub fn new(src: ItemSrc, ty: &str, role: Option<&str>) -> Item {
        let mut extra = Extra::default();
        let ty = code(TYPES, ty).unwrap_or_else(|| {
            extra.ty = Some(ty.into());
            OTHER
        });
        let role = match role {
            None => NO_ROLE,
            Some(r) => code(ROLES, r).map_or_else(
                || {
                    extra.role = Some(r.into());
                    OTHER
                },
                |c| c + 1,
            ),
        };
        let extra = (extra.ty.is_some() || extra.role.is_some()).then(|| Box::new(extra));
        Item {
            src,
            ty,
            role,
            extra,
            api: false,
            user_turn: false,
            context: false,
            summary: false,
            remote_compaction: false,
            recorded: false,
            inter_agent: false,
        }
    }

    /// The item's `type`.
    pub fn ty(&self) -> &str {
        match self.ty {
            OTHER => self.extra.as_ref().and_then(|e| e.ty.as_deref()).unwrap_or(""),
            c => TYPES[c as usize],
        }
    }

    /// A message's `role`.
    pub fn role(&self) -> Option<&str> {
        match self.role {
            NO_ROLE => None,
            OTHER => self.extra.as_ref().and_then(|e| e.role.as_deref()),
            c => Some(ROLES[c as usize - 1]),
        }
    }

    /// Text of a real user prompt (not contextual, not a summary), for legacy rebuilds.
    pub fn user_text(&self) -> Option<&str> {
        self.extra.as_ref().and_then(|e| e.user_text.as_deref())
    }

    /// Sets the text of a real user prompt.
    pub fn set_user_text(&mut self, text: Arc<str>) {
        self.extra.get_or_insert_with(Box::default).user_text = Some(text);
    }

    /// Shares the prompt's text with an item of `texts` that holds the same, or adds it there:
    /// a compaction's replacement history repeats the prompts before it.
    pub(crate) fn share_text(&mut self, texts: &mut FxHashSet<Arc<str>>) {
        let Some(text) = self.extra.as_mut().and_then(|e| e.user_text.as_mut()) else {
            return;
        };
        match texts.get(&**text) {
            Some(held) => *text = held.clone(),
            None => {
                texts.insert(text.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> ItemSrc {
        ItemSrc::Raw {
            offset: 1,
            len: 2,
            line: 3,
        }
    }

    #[test]
    fn names_read_back_as_given() {
        for ty in TYPES.iter().copied().chain(["", "some_new_item", "Message"]) {
            for role in [None, Some("user"), Some("system"), Some(""), Some("critic")] {
                let item = Item::new(raw(), ty, role);
                assert_eq!((item.ty(), item.role()), (ty, role));
                assert_eq!(item.user_text(), None);
            }
        }
        let mut item = Item::new(raw(), "odd", Some("odd role"));
        item.set_user_text("hi".into());
        assert_eq!(
            (item.ty(), item.role(), item.user_text()),
            ("odd", Some("odd role"), Some("hi"))
        );
    }

    #[test]
    fn the_same_text_is_held_once() {
        let mut texts = FxHashSet::default();
        let mut items: Vec<Item> = (0..3)
            .map(|_| {
                let mut item = Item::new(raw(), "message", Some("user"));
                item.set_user_text(String::from("same prompt").into());
                item.share_text(&mut texts);
                item
            })
            .collect();
        let first = items[0].extra.as_ref().unwrap().user_text.clone().unwrap();
        for item in &mut items {
            let held = item.extra.as_ref().unwrap().user_text.as_ref().unwrap();
            assert!(Arc::ptr_eq(held, &first));
        }
        assert_eq!(texts.len(), 1);
    }

    /// A rollout holds one item per line, and a history a copy of each it resumes: six words,
    /// where names and texts as owned strings took more than twice that and an allocation each.
    #[test]
    fn an_item_is_small() {
        assert!(std::mem::size_of::<Item>() <= 48, "{}", std::mem::size_of::<Item>());
        let record = std::mem::size_of::<(u64, super::super::Record)>();
        assert!(record <= 64, "{record}");
    }
}
