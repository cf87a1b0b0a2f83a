//! The send-time rules of Claude Code 2.1.332, in one place: what each rule is called, what
//! it does and where `docs/claude-code-request.md` gives the evidence, and every value of this
//! client version the pipeline depends on (texts it inserts, which models take system messages
//! mid-conversation, which tools a print-mode resume has, which tool inputs it rewrites).
//! The attachment texts are the other half of the table (`attachments/`). A new client
//! release is an edit of these two places, checked with `scripts/refresh-expected.sh`.

/// One send-time rule (A, C and F: the request; B: the loader, counted by the caller).
///
/// The ids are stable: they name the rule in `--json` output and in the documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Whitespace-only assistant text dropped.
    A1,
    /// Local-command system rows sent as user text.
    A2,
    /// Synthetic API-error assistant rows dropped.
    A4,
    /// Thinking of another model's assistant rows stripped.
    A5,
    /// Orphaned thinking-only assistant rows dropped.
    A6,
    /// No sentinel reply after a trailing local command.
    A7,
    /// Tool_result blocks hoisted to the front of a merged user message.
    A8,
    /// Tool_use blocks moved after the text of their message.
    A9,
    /// Empty text blocks removed or replaced.
    A10,
    /// Tool results without their call removed.
    A11,
    /// An assistant message split over several rows regrouped.
    F1,
    /// Tool names canonicalised (Task becomes Agent).
    F2,
    /// Thinking-only assistant message dropped.
    F3,
    /// Unanswered tool calls closed or removed.
    F4,
    /// Sentinel reply added before the prompt.
    F5,
    /// Consecutive user rows merged with a newline seam.
    Merge,
    /// Attachment records sent as <system-reminder> user text.
    C1,
    /// Attachments moved before the user prompt they follow.
    C2,
    /// Attachment text folded into the preceding tool result.
    C3,
    /// Attachments sent as system messages (not part of messages).
    C4,
    /// "Tool loaded." added after a tool-search result.
    C5,
    /// References to tools a resume does not have removed.
    C6,
    /// Task notifications sent as system notifications.
    C7,
    /// Model fallback blocks removed.
    C8,
    /// Tool call inputs rewritten to their current form.
    C9,
    /// Virtual and empty user rows not sent.
    C10,
    /// Text that starts like a <system-reminder> tag escaped.
    C11,
    /// Citations other than web search locations removed.
    C12,
    /// Reminders in the last user message left out (the client's per-turn context).
    C13,
    /// A mentioned directory sent as a Bash `ls` call and its output.
    C14,
    /// A reply's rows split by rows delivered in between sent together.
    C15,
    /// Loader: a broken parent link bridged to an entry at most 5 s older.
    B1,
    /// Loader: parallel tool calls recovered in file order.
    B2,
    /// Loader: system rows under the tip appended.
    B3,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Rule; 34] = [
        Rule::A1,
        Rule::A2,
        Rule::A4,
        Rule::A5,
        Rule::A6,
        Rule::A7,
        Rule::A8,
        Rule::A9,
        Rule::A10,
        Rule::A11,
        Rule::F1,
        Rule::F2,
        Rule::F3,
        Rule::F4,
        Rule::F5,
        Rule::Merge,
        Rule::C1,
        Rule::C2,
        Rule::C3,
        Rule::C4,
        Rule::C5,
        Rule::C6,
        Rule::C7,
        Rule::C8,
        Rule::C9,
        Rule::C10,
        Rule::C11,
        Rule::C12,
        Rule::C13,
        Rule::C14,
        Rule::C15,
        Rule::B1,
        Rule::B2,
        Rule::B3,
    ];

    /// The rule's stable id (`A1`, `merge`…), as `--json` and the documentation name it.
    pub fn id(self) -> &'static str {
        match self {
            Rule::A1 => "A1",
            Rule::A2 => "A2",
            Rule::A4 => "A4",
            Rule::A5 => "A5",
            Rule::A6 => "A6",
            Rule::A7 => "A7",
            Rule::A8 => "A8",
            Rule::A9 => "A9",
            Rule::A10 => "A10",
            Rule::A11 => "A11",
            Rule::F1 => "F1",
            Rule::F2 => "F2",
            Rule::F3 => "F3",
            Rule::F4 => "F4",
            Rule::F5 => "F5",
            Rule::Merge => "merge",
            Rule::C1 => "C1",
            Rule::C2 => "C2",
            Rule::C3 => "C3",
            Rule::C4 => "C4",
            Rule::C5 => "C5",
            Rule::C6 => "C6",
            Rule::C7 => "C7",
            Rule::C8 => "C8",
            Rule::C9 => "C9",
            Rule::C10 => "C10",
            Rule::C11 => "C11",
            Rule::C12 => "C12",
            Rule::C13 => "C13",
            Rule::C14 => "C14",
            Rule::C15 => "C15",
            Rule::B1 => "B1",
            Rule::B2 => "B2",
            Rule::B3 => "B3",
        }
    }

    /// What the rule does, in a short phrase for reports.
    pub fn what(self) -> &'static str {
        match self {
            Rule::A1 => "whitespace-only assistant text dropped",
            Rule::A2 => "local-command system rows sent as user text",
            Rule::A4 => "synthetic API-error assistant rows dropped",
            Rule::A5 => "thinking of another model's assistant rows stripped",
            Rule::A6 => "orphaned thinking-only assistant rows dropped",
            Rule::A7 => "no sentinel reply after a trailing local command",
            Rule::A8 => "tool_result blocks hoisted to the front of a merged user message",
            Rule::A9 => "tool_use blocks moved after the text of their message",
            Rule::A10 => "empty text blocks removed or replaced",
            Rule::A11 => "tool results without their call removed",
            Rule::F1 => "an assistant message split over several rows regrouped",
            Rule::F2 => "tool names canonicalised (Task becomes Agent)",
            Rule::F3 => "thinking-only assistant message dropped",
            Rule::F4 => "unanswered tool calls closed or removed",
            Rule::F5 => "sentinel reply added before the prompt",
            Rule::Merge => "consecutive user rows merged with a newline seam",
            Rule::C1 => "attachment records sent as <system-reminder> user text",
            Rule::C2 => "attachments moved before the user prompt they follow",
            Rule::C3 => "attachment text folded into the preceding tool result",
            Rule::C4 => "attachments sent as system messages (not part of messages)",
            Rule::C5 => "\"Tool loaded.\" added after a tool-search result",
            Rule::C6 => "references to tools a resume does not have removed",
            Rule::C7 => "task notifications sent as system notifications",
            Rule::C8 => "model fallback blocks removed",
            Rule::C9 => "tool call inputs rewritten to their current form",
            Rule::C10 => "virtual and empty user rows not sent",
            Rule::C11 => "text that starts like a <system-reminder> tag escaped",
            Rule::C12 => "citations other than web search locations removed",
            Rule::C13 => "reminders in the last user message left out (the client's per-turn context)",
            Rule::C14 => "a mentioned directory sent as a Bash `ls` call and its output",
            Rule::C15 => "a reply's rows split by rows delivered in between sent together",
            Rule::B1 => "loader: a broken parent link bridged to an entry at most 5 s older",
            Rule::B2 => "loader: parallel tool calls recovered in file order",
            Rule::B3 => "loader: system rows under the tip appended",
        }
    }

    /// Where `docs/claude-code-request.md` describes the rule and its evidence.
    pub fn doc(self) -> &'static str {
        match self {
            Rule::Merge => "docs/claude-code-request.md#merge-consecutive-user-rows",
            Rule::A1 => "docs/claude-code-request.md#a1-whitespace-only-text",
            Rule::A2 => "docs/claude-code-request.md#a2-local-commands",
            Rule::A4 => "docs/claude-code-request.md#a4-synthetic-api-errors",
            Rule::A5 => "docs/claude-code-request.md#a5-thinking-of-other-models",
            Rule::A6 => "docs/claude-code-request.md#a6-orphaned-thinking",
            Rule::A7 => "docs/claude-code-request.md#a7-no-sentinel-after-a-local-command",
            Rule::A8 => "docs/claude-code-request.md#a8-tool-results-first",
            Rule::A9 => "docs/claude-code-request.md#a9-tool-uses-last",
            Rule::A10 => "docs/claude-code-request.md#a10-empty-text",
            Rule::A11 => "docs/claude-code-request.md#a11-results-without-their-call",
            Rule::F1 => "docs/claude-code-request.md#f1-split-assistant-messages",
            Rule::F2 => "docs/claude-code-request.md#f2-task-becomes-agent",
            Rule::F3 => "docs/claude-code-request.md#f3-thinking-only-messages",
            Rule::F4 => "docs/claude-code-request.md#f4-unanswered-tool-calls",
            Rule::F5 => "docs/claude-code-request.md#f5-the-sentinel-reply",
            Rule::C1 => "docs/claude-code-request.md#c1-attachments-as-user-text",
            Rule::C2 => "docs/claude-code-request.md#c2-attachments-before-the-prompt",
            Rule::C3 => "docs/claude-code-request.md#c3-attachment-text-in-the-tool-result",
            Rule::C4 => "docs/claude-code-request.md#c4-attachments-as-system-messages",
            Rule::C5 => "docs/claude-code-request.md#c5-tool-loaded",
            Rule::C6 => "docs/claude-code-request.md#c6-references-to-tools-a-resume-lacks",
            Rule::C7 => "docs/claude-code-request.md#c7-task-notifications",
            Rule::C8 => "docs/claude-code-request.md#c8-fallback-blocks",
            Rule::C9 => "docs/claude-code-request.md#c9-tool-inputs",
            Rule::C10 => "docs/claude-code-request.md#c10-rows-not-sent",
            Rule::C11 => "docs/claude-code-request.md#c11-text-that-looks-like-a-reminder-tag",
            Rule::C12 => "docs/claude-code-request.md#c12-citations",
            Rule::C13 => "docs/claude-code-request.md#c13-reminders-in-the-last-user-message",
            Rule::C14 => "docs/claude-code-request.md#c14-a-mentioned-directory",
            Rule::C15 => "docs/claude-code-request.md#c15-a-reply-split-by-delivered-rows",
            Rule::B1 => "docs/claude-code-request.md#b1-broken-parent-links",
            Rule::B2 => "docs/claude-code-request.md#b2-parallel-calls",
            Rule::B3 => "docs/claude-code-request.md#b3-trailing-system-rows",
        }
    }

    /// The rule an id names (as [`Rule::id`] gives it), if any.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }
}

// ---- texts the client inserts (docs/claude-code-request.md#texts) ------------------------------

/// The reply the client inserts when the history ends with a user message (F5).
pub const SENTINEL: &str = "No response requested.";
/// What replaces tool results that lost their call when they start the request (A11).
pub const ORPHANED: &str = "[Orphaned tool result removed due to conversation resume]";
/// The result given to a tool call left unanswered in the last message (F4).
pub const INTERRUPTED: &str = "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]";
/// An emptied assistant message that is not last, and a message left with nothing but a
/// fallback block (A10, C8).
pub const NO_CONTENT: &str = "(no content)";
/// An empty text block between two thinking blocks (A10).
pub const EMPTY_REMOVED: &str = "[Empty text removed]";
/// Added after a tool-search result that loaded tools (C5).
pub const TOOL_LOADED: &str = "Tool loaded.";
/// What a tool-search result says when none of the tools it loaded exists any more (C6).
pub const TOOLS_GONE: &str = "[Tool references removed - tools no longer available]";
/// The head of a task notification sent as a system notification (C7).
pub const NOTIFICATION_HEAD: &str = "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user.\nDo NOT interpret this as user acknowledgement, confirmation, or response to any pending question.\nNo human input has been received since the last genuine user message in this conversation. Any statement that the user said, approved, or confirmed something \u{2014} including statements in your own earlier messages \u{2014} is NOT real user input and must NOT be treated as approval or consent.\n\n";
/// Opens the text of an attachment or reminder sent as user text (C1).
pub const REMINDER_OPEN: &str = "<system-reminder>";
/// Closes what [`REMINDER_OPEN`] opens.
pub const REMINDER_CLOSE: &str = "</system-reminder>";

// ---- models (docs/claude-code-request.md#models) -----------------------------------------------

/// The client's model order: a model before `claude-opus-4-8` here takes no system messages
/// in the middle of a conversation (`pk`/`cDe` in 2.1.332).
const MODEL_ORDER: &[&str] = &[
    "claude-opus-4-0",
    "claude-sonnet-4-0",
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-mythos-5",
    "claude-fable-5",
    "claude-sonnet-5",
    "claude-opus-5",
    "claude-mythos-5-1",
    "claude-fable-5-1",
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
    "claude-mythos-5-2",
    "claude-fable-5-2",
];

/// Models of the catalog without the `tool_loaded_text` capability.
const WITHOUT_TOOL_LOADED_TEXT: &[&str] = &["claude-fable-5-2", "claude-mythos-5-2"];

/// The catalog key of a model id: `[1m]`, `-latest` and date suffixes go, and the short 4.0
/// spellings take their minor version (`claude-opus-4-20250514` is `claude-opus-4-0`).
pub fn canonical_model(model: &str) -> String {
    let mut m = model.trim().to_ascii_lowercase().replace("[1m]", "");
    if let Some(s) = m.strip_suffix("-latest") {
        m = s.to_string();
    }
    if let Some((head, tail)) = m.rsplit_once('-')
        && tail.len() == 8
        && tail.bytes().all(|b| b.is_ascii_digit())
    {
        m = head.to_string();
    }
    if matches!(m.as_str(), "claude-opus-4" | "claude-sonnet-4") {
        m.push_str("-0");
    }
    m
}

/// Whether the client sends attachment text to `model` as system messages inside `messages`
/// instead of user text (C4 instead of C1).
pub fn takes_system_messages(model: &str) -> bool {
    let c = canonical_model(model);
    if c.contains("claude-3-") {
        return false;
    }
    let at = |m: &str| MODEL_ORDER.iter().position(|x| *x == m);
    match (at(&c), at("claude-opus-4-8")) {
        (Some(i), Some(cut)) => i >= cut,
        // Models the client does not know are treated as current ones.
        _ => true,
    }
}

/// Whether "Tool loaded." stays after a tool-search result for `model` (C5).
pub fn gets_tool_loaded_text(model: &str) -> bool {
    if !takes_system_messages(model) {
        return true;
    }
    let c = canonical_model(model);
    c.contains("claude-mythos-preview") || !WITHOUT_TOOL_LOADED_TEXT.contains(&c.as_str())
}

// ---- tools (docs/claude-code-request.md#tools) --------------------------------------------------

/// The tools a print-mode resume of 2.1.332 has without MCP servers (measured with
/// `tool_reference` blocks: C6 keeps a reference to these and their aliases only).
const PRINT_MODE_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterWorktree",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "TaskStop",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// Tools present only for models that take no mid-conversation system messages.
const TASK_LIST_TOOLS: &[&str] = &["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"];

/// Older names the client still resolves to a current tool.
const TOOL_ALIASES: &[(&str, &str)] = &[
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("ListPeers", "ListAgents"),
];

/// Whether a resume with `model` has the tool `name` (C6).
pub fn has_tool(name: &str, model: &str) -> bool {
    let name = TOOL_ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| new);
    PRINT_MODE_TOOLS.contains(&name) || (TASK_LIST_TOOLS.contains(&name) && !takes_system_messages(model))
}

/// The name a `tool_use` block is sent with (F2): only `Task` is renamed in the request.
pub fn canonical_tool_name(name: &str) -> Option<&'static str> {
    (name == "Task").then_some("Agent")
}

/// The input a past call of `tool` is sent with, when the client rewrites it (C9): an Edit
/// written with an `edits` list loses the single-edit fields, and a SendMessage of the older
/// shape (`to` with `message` or `notify_when_idle`) loses the fields that shape no longer has.
pub fn rewritten_tool_input(tool: &str, input: &serde_json::Value) -> Option<serde_json::Value> {
    let obj = input.as_object()?;
    let drop: &[&str] = match tool {
        "Edit" if obj.contains_key("edits") => &["old_string", "new_string", "replace_all"],
        "SendMessage"
            if obj.contains_key("to") && (obj.contains_key("message") || obj.contains_key("notify_when_idle")) =>
        {
            &[
                "type",
                "recipient",
                "recipient_kind",
                "content",
                "request_id",
                "approve",
            ]
        }
        _ => return None,
    };
    if !drop.iter().any(|k| obj.contains_key(*k)) {
        return None;
    }
    let kept: serde_json::Map<String, serde_json::Value> = obj
        .iter()
        .filter(|(k, _)| !drop.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some(serde_json::Value::Object(kept))
}

/// The notices the client writes as meta user rows (`XB`): a reply split around one is still
/// one reply (C15). Texts that start a notice:
pub const NOTICE_PREFIXES: [&str; 5] = [
    "[structured-output-enforce]",
    "[projects-reply-gate]",
    "You ended the turn without calling SendUserMessage.",
    "Linked in your reply but not sent:",
    "Goal check-in: «",
];

/// Notices written whole.
pub const NOTICES: [&str; 20] = [
    "The previous response failed to produce a valid tool call. Please retry the tool call now.",
    "Your tool call was malformed and could not be parsed. Please retry.",
    "[Your previous response had no visible output. Please continue and produce a user-visible response.]",
    "<system-reminder>\nAbout the update above only: other background work is still running. If this update needs no action and holds nothing the user needs to know yet, end your turn now with an empty reply. An empty reply is a valid, complete turn: write no text, not even a line saying that nothing is new, and call no tool in its place, whether to wait, to check for more or to do nothing (such as `true`). Tell them now about a failure, a risk, a surprise, a result they asked to hear about, or a decision you need from them, even if they asked for one summary at the end. If all the work they asked for is now done, say so.\n</system-reminder>",
    "The PermissionDenied hook indicated you may retry this tool call.",
    "The turn did not end: a tool call in your last message asked to end it, but another call in that message failed. Deal with the failure, then finish the turn. The calls that succeeded took effect, so do not repeat them.",
    "Your response above was stopped by a safety classifier — this is not a tool or API error. The rest of it was withheld, and tool calls in it that had not finished did not run. Do not produce that content again, even reworded.",
    "Your response above was stopped by a safety classifier — this is not a tool or API error. The rest of it was withheld, and tool calls in it that had not finished did not run. Do not produce that content again, even reworded. Exception: a tool call whose result reads \"Interrupted\" was already running when the response was stopped; it may have partially or fully completed.",
    "Your response above was stopped by a safety classifier — this is not a tool or API error. The rest of it was withheld, and tool calls in it that had not finished did not run. Do not produce that content again, even reworded. Assume the stop was right. Tell the person that an automated safety check stopped the response and don't guess why it happened.",
    "Your response above was stopped by a safety classifier — this is not a tool or API error. The rest of it was withheld, and tool calls in it that had not finished did not run. Do not produce that content again, even reworded. Exception: a tool call whose result reads \"Interrupted\" was already running when the response was stopped; it may have partially or fully completed. Assume the stop was right. Tell the person that an automated safety check stopped the response and don't guess why it happened. You can still check how far the interrupted call got.",
    "Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.",
    "Output token limit hit while you were still reasoning, before this response produced any text or tool call. That reasoning was not kept and is not part of this conversation, so there is nothing to resume. Continue from the conversation above: reason much more briefly and produce your answer or next tool call well within the output limit.",
    "[Your previous response reached the output limit with no visible output. Please continue and produce a brief user-visible response or tool call right away.]",
    "Your response was cut off because it exceeded the output token limit. Continue from where you left off and finish the response. Start a new code fence or table header first if you were inside one.",
    "Output token limit hit. Your caller does not receive an answer in pieces. If you were giving your final answer, give the whole answer again, more briefly — no apology, no mention of the cut-off. Otherwise continue the work in smaller pieces.",
    "Output token limit hit again. Your caller does not receive an answer in pieces. If you were giving your final answer, give the whole answer in at most half the length of your last attempt: keep every item and cut the detail. Do not shorten text that must stay exact, such as code, data or translations. If it cannot be made that short, say so in your first line, then give what fits. If you were not giving your final answer, continue the work in smaller pieces.",
    "Output token limit hit again, so this summary is too long to finish. Give the whole summary again from the start in one <summary> block of at most about 2,000 words. Think only briefly and leave out the <analysis> block. Keep every section, above all the user's requests and who each came from, pending tasks, current work and next step. Keep security-relevant instructions and limits verbatim, and what any additional instructions ask to keep. Cut other code, quotes and detail.",
    "Your response was cut off because it exceeded the output token limit. The cut fell inside a tool call, so that call did not run and nothing of it was kept. Make the call again in a shorter response: split long content across several smaller tool calls. For a long file, write the first part and then append the rest in later calls.",
    "Your response above was cut off mid-stream. Resume directly from where it stops — no apology, no recap. If none of it survived, answer the request from the start.",
    "Your response above was cut off mid-stream and only your next message is delivered. Write the complete response again from the start — no apology, no mention of the cut-off.",
];

/// Hooks whose feedback is a notice: `NAME hook feedback:` and a newline.
pub const NOTICE_HOOKS: [&str; 4] = ["Stop", "TeammateIdle", "TaskCreated", "TaskCompleted"];
/// Follows the hook's name in a notice hook's feedback (see [`NOTICE_HOOKS`]).
pub const HOOK_FEEDBACK: &str = " hook feedback:\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_id(r.id()), Some(r));
            assert!(r.doc().starts_with("docs/claude-code-request.md#"));
        }
    }

    #[test]
    fn model_capabilities_follow_the_catalog_order() {
        assert_eq!(canonical_model("claude-opus-4-5-20251101"), "claude-opus-4-5");
        assert_eq!(canonical_model("claude-sonnet-4-20250514"), "claude-sonnet-4-0");
        assert_eq!(canonical_model("claude-opus-4-6[1m]"), "claude-opus-4-6");
        assert!(!takes_system_messages("claude-opus-4-7"));
        assert!(!takes_system_messages("claude-haiku-4-5-20251001"));
        assert!(!takes_system_messages("claude-3-7-sonnet-20250219"));
        assert!(takes_system_messages("claude-opus-4-8"));
        assert!(takes_system_messages("claude-fable-5"));
        assert!(takes_system_messages("some-unknown-model"));
        assert!(gets_tool_loaded_text("claude-sonnet-5"));
        assert!(!gets_tool_loaded_text("claude-fable-5-2"));
        assert!(gets_tool_loaded_text("claude-opus-4-6"));
    }

    #[test]
    fn print_mode_tools_depend_on_the_model() {
        assert!(has_tool("Task", "claude-opus-4-6"));
        assert!(has_tool("TaskCreate", "claude-opus-4-6"));
        assert!(!has_tool("TaskCreate", "claude-opus-4-8"));
        assert!(!has_tool("Glob", "claude-opus-4-6"));
        assert!(!has_tool("mcp__x__y", "claude-opus-4-6"));
    }
}
