//! `rebuild-chain`: its arguments and its help.

use super::*;

/// How rebuild-chain prints the conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ChainFormat {
    /// One record per line, as the agent wrote it (for Codex, the history item).
    #[default]
    Jsonl,
    /// Readable text.
    Text,
    /// Markdown.
    Markdown,
}

/// The extra help of `rebuild-chain`: its diagnostic codes come from their one definition.
pub(super) fn rebuild_chain_help() -> String {
    format!(
        "DIAGNOSTICS\n\
On stderr (or, with --json, as {{\"kind\":\"diagnostic\",\"file\",\"line\",\"code\",\"severity\",\"message\"}} \
records on stdout after the chain), then a summary. Codes (severity):\n{}\n\
With --json, the last record is {{\"kind\":\"chain\",\"file\",\"format\",\"loader\",\"replay\",\
\"messages\",\"end\",\"tip\",\"root\",\"unreachable\",\"duplicate_uuids\",\"bad_lines\",\
\"recovered\",\"appended\",\"pruned\",\"bridged\",\"earlier_parts\"}}; end is one of root, \
boundary, dangling:<uuid>, cycle, empty. Each field keeps one type in every record; the fields a \
format does not have are null (loader and the Claude Code counts for Codex, replay for Claude Code). \
\n\n\
API VIEW\n\
With --api-view the request depends on how Claude Code would be configured at the resume: the \
model it sends to is the session's own (the last assistant entry's inPlaceOfModel or model) \
unless the client's table says that model is unknown, not allowed or retired at that time (from \
local midnight of the date; TZ is honoured), when the model setting or the default is used; \
--model, ANTHROPIC_MODEL, ANTHROPIC_DEFAULT_*_MODEL or a provider other than Anthropic's disable \
the restore. Thinking of other models is removed behind a base URL that is not \
api.anthropic.com and kept otherwise (the client's default, which a server flag can change). \
By default the user's own settings files (user, project, local, managed), ANTHROPIC_* and \
CLAUDE_CODE_* variables, TZ and the current time are read; the options under Resume \
configuration give each instead. With --json the last record is {{\"kind\":\"api_view\",\"file\",\
\"format\",\"client\",\"loader\",\"model\",\"model_choice\",\"model_entry\",\"session_model\",\
\"session_model_retires\",\"notice\",\"thinking_policy\",\"messages\",\"tokens\",\"prompt\",\"rules\",\
\"assumptions\",\"refused\"}} for every agent, null where the agent has no such field (e.g. Codex: \
loader, model_choice, the session model, thinking_policy and assumptions; Claude Code: \
model_entry and refused); messages is the length of the request's messages or input array; \
model_choice is restored, explicit, setting, or retired|unknown|not allowed|no session model → \
settings|default.\n\n\
EXAMPLES\n  \
cctool rebuild-chain ~/.claude/projects/-home-me-app/SESSION.jsonl | jq -r .uuid\n  \
cctool rebuild-chain --api-view --json --as-of 2027-01-22 SESSION.jsonl | tail -1 | jq '{{model, model_choice}}'\n  \
cctool rebuild-chain --api-view --body --prompt continue SESSION.jsonl | jq '{{model, max_tokens, thinking}}'\n  \
cctool rebuild-chain --format text SESSION.jsonl | less -R\n  \
cctool rebuild-chain --full --format markdown SESSION.jsonl > history.md\n  \
cctool rebuild-chain ~/.codex/sessions/2026/03/01/rollout-….jsonl | jq -c '{{type, role}}'\n  \
cctool rebuild-chain --api-view --prompt 'go on' --json rollout-….jsonl | tail -1 | jq .rules",
        crate::model::diag::codes_help(|r| r.chain)
    )
}

/// The first paragraph of `rebuild-chain`'s long help; each agent's follows
/// ([`crate::cli::command`]).
pub(crate) const REBUILD_CHAIN_LEAD: &str =
    "Print the conversation exactly as the agent would load it on resume, root first.";

/// The exact conversation the agent would load when this session is resumed.
#[derive(Args, Debug)]
#[command(
    long_about = REBUILD_CHAIN_LEAD,
    after_long_help = rebuild_chain_help()
)]
pub struct RebuildChainArgs {
    /// The session file (`-` reads standard input), ARCHIVE/SESSION-ID for a session kept in
    /// a backup archive, or the id of a session in your stores (or a prefix only it has).
    pub file: PathBuf,

    /// Claude Code loading rules to follow [default: 2.1.332].
    #[arg(long, value_enum)]
    pub loader: Option<Loader>,

    /// Walk from this message uuid (or a prefix only it has) instead of the loader's tip
    /// (Claude Code).
    #[arg(long, value_name = "UUID")]
    pub tip: Option<String>,

    /// Follow compactions back through the earlier history (via logicalParentUuid where it
    /// resolves, file order where it does not), marking each boundary (Claude Code).
    #[arg(long)]
    pub full: bool,

    /// Codex replay semantics.
    #[arg(long, value_enum, default_value_t = Replay::Current)]
    pub replay: Replay,

    /// Print what the agent sends to the model on resume instead of the records: for Claude
    /// Code 2.1.332 one {"role","content"} message per line, from the last compact boundary;
    /// for Codex 0.171 one `input` item per line, as Codex writes it, with its send-time rules
    /// applied; for pi 1.6.0 one Chat Completions message per line, its system prompt first.
    #[arg(long)]
    pub api_view: bool,

    /// With --api-view: the prompt of the resumed turn (Claude Code: adds the sentinel reply when
    /// the client would, and the prompt, merged or separate as the client does; Codex: the
    /// prompt as the last user message; pi: the prompt as the last user message).
    #[arg(long, value_name = "TEXT", requires = "api_view")]
    pub prompt: Option<String>,

    /// With --api-view: print the whole request body as one JSON object (model, messages with
    /// the system messages newer models take, max_tokens, thinking, context_management,
    /// output_config) instead of one message per line.
    #[arg(long, requires = "api_view")]
    pub body: bool,

    #[command(flatten)]
    pub resume: ResumeArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ChainFormat::Jsonl)]
    pub format: ChainFormat,

    /// With --format text or markdown: show tool input, tool output and thinking whole
    /// (by default each is cut after 600 bytes, with a note saying how much was left out).
    #[arg(long)]
    pub full_output: bool,
}

impl RebuildChainArgs {
    /// What the agents are asked: the flags as domain options.
    pub fn options(&self) -> crate::agents::view::ChainOptions {
        crate::agents::view::ChainOptions {
            loader: self.loader,
            tip: self.tip.clone(),
            full: self.full,
            replay: self.replay,
            api_view: self.api_view,
            prompt: self.prompt.clone(),
            body: self.body,
            resume: self.resume.overrides(),
        }
    }
}
