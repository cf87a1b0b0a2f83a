//! Diagnostics: one problem, with the file, the line and a stable code.
//!
//! Commands collect them instead of printing as they go, so the same finding can be shown
//! as text on stderr or as a `{"kind":"diagnostic",…}` record with `--json`.
//!
//! Every code is a variant of [`Code`], defined once below with its id, its meaning and the
//! severities it can have. `doctor --help`, the man pages and the user guide's list (docs/guide/survey.md) are built or
//! checked from [`Code::ALL`], so a new code cannot go undocumented.

use std::fmt;

use serde::Serialize;

/// How serious a diagnostic is, by its effect on what a resume loads, in increasing order
/// (`--min-severity` compares them): `Info`, nothing changes on resume; `Warning`, something is
/// damaged but nothing is lost; `Error`, the agent loses or misreads something on resume.
///
/// The variants are described here and not on themselves: clap would print a variant's doc
/// comment in `--help`.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    /// The lowercase name text output, `--json` records and `--min-severity` use.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which commands report a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported {
    /// `doctor` reports it (as a finding, or for the inputs it could not check).
    pub doctor: bool,
    /// `rebuild-chain` reports it on stderr or as a `--json` diagnostic.
    pub chain: bool,
}

const DOCTOR: Reported = Reported {
    doctor: true,
    chain: false,
};
const CHAIN: Reported = Reported {
    doctor: false,
    chain: true,
};
const BOTH: Reported = Reported {
    doctor: true,
    chain: true,
};

macro_rules! codes {
    ($($variant:ident = $id:literal, [$($sev:ident)|+], $reported:ident, $meaning:literal;)+) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(#[doc = $meaning] $variant,)+
        }

        impl Code {
            /// Every code, in the order the documentation lists them.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)+];

            /// The id written in output and accepted by `--code`.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Code::$variant => $id,)+
                }
            }

            /// What the code means for the user, in one sentence.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(Code::$variant => $meaning,)+
                }
            }

            /// The severities this code can have, the default first. A code whose effect
            /// depends on where the problem is (on the chain a resume loads or off it) has
            /// more than one.
            pub const fn severities(self) -> &'static [Severity] {
                match self {
                    $(Code::$variant => &[$(Severity::$sev),+],)+
                }
            }

            /// Which commands report it.
            pub const fn reported(self) -> Reported {
                match self {
                    $(Code::$variant => $reported,)+
                }
            }
        }
    };
}

codes! {
    // Lines that cannot be read.
    TruncatedLastLine = "truncated-last-line", [Warning], BOTH,
        "the last line is incomplete: still being written, or a crash mid-append; it is ignored";
    UnterminatedLastLine = "unterminated-last-line", [Info], BOTH,
        "the file does not end with a newline, but its last record is complete";
    TwoRecordsOnOneLine = "two-records-on-one-line", [Error], BOTH,
        "a record lost its newline: the agent cannot parse the line and loses both records";
    InvalidJson = "invalid-json", [Error], BOTH,
        "a line that is not JSON: the agent skips it";
    InvalidUtf8 = "invalid-utf8", [Error], BOTH,
        "a line that is not UTF-8: the agent skips it";
    TooDeep = "too-deep", [Error], BOTH,
        "a record nested deeper than 128 levels: skipped";
    NotAnObject = "not-an-object", [Error], BOTH,
        "a JSON line that is not an object: the agent skips it";
    LoneSurrogate = "lone-surrogate", [Info], BOTH,
        "a lone UTF-16 surrogate escape: the text around it was cut mid-character; read as U+FFFD, as the agents do";
    UnknownRecordType = "unknown-record-type", [Info], BOTH,
        "a record type no loader knows: not part of the conversation";
    // Claude Code transcripts.
    MissingUuid = "missing-uuid", [Warning], BOTH,
        "a message without a uuid: it cannot be linked and is ignored";
    DanglingParent = "dangling-parent", [Error | Info], BOTH,
        "a parentUuid that names nothing in the file: an error when the resumed chain stops there and loses messages written before it; info when nothing is lost (off the resumed chain, bridged by Claude Code, or where the chain starts)";
    Cycle = "cycle", [Error | Info], BOTH,
        "parent links that loop: an error when the resumed chain stops there and loses messages written before it; info when nothing is lost";
    DuplicateUuid = "duplicate-uuid", [Warning], BOTH,
        "a uuid written twice: the later content is used at the first position";
    GapBridged = "gap-bridged", [Info], CHAIN,
        "a broken or cyclic parent link bridged to an entry at most 5 s older, as Claude Code 2.1.332 does";
    NoConversation = "no-conversation", [Info], BOTH,
        "no user or assistant message to resume from";
    SubagentTranscript = "subagent-transcript", [Info], CHAIN,
        "the file holds only a subagent's (sidechain) conversation: that conversation is the chain";
    PreservedSegmentBroken = "preserved-segment-broken", [Warning], BOTH,
        "the last boundary's preserved segment cannot be walked: Claude Code neither relinks nor prunes";
    StalePreservedSegment = "stale-preserved-segment", [Info], BOTH,
        "a preserved segment made stale by a later boundary: not relinked, earlier history pruned";
    BoundaryWithoutSummary = "boundary-without-summary", [Warning], DOCTOR,
        "a compact boundary with no summary message: the agent resumes with no account of what came before";
    LogicalParentUnresolved = "logical-parent-unresolved", [Info], DOCTOR,
        "a boundary's logicalParentUuid names nothing in the file (informational only)";
    ToolCallWithoutResult = "tool-call-without-result", [Warning], DOCTOR,
        "a tool call never answered (interrupted, or the session ended during the call)";
    ToolResultWithoutCall = "tool-result-without-call", [Warning], DOCTOR,
        "a tool result whose call is not in the file";
    ChainMissesLastBoundary = "chain-misses-last-boundary", [Error], BOTH,
        "the resumed chain does not reach the last compact boundary: its summary is not loaded";
    // Codex rollouts.
    RollbackCrossesCheckpoint = "rollback-crosses-checkpoint", [Warning], DOCTOR,
        "a rollback crosses a compaction: current Codex and Codex before 2026-02-27 resume different histories";
    ReplayDiffers = "replay-differs", [Warning], CHAIN,
        "the current and the pre-2026-02-27 Codex replay give different histories";
    UnusableCompacted = "unusable-compacted", [Error], BOTH,
        "a compacted record Codex cannot read: it skips the line";
    BadRollback = "bad-rollback", [Warning], BOTH,
        "a rollback without a usable turn count: Codex skips it";
    RolledBack = "rolled-back", [Info], BOTH,
        "turns rolled back: a resume discards them";
    ApiViewNotEmulated = "api-view-not-emulated", [Warning], CHAIN,
        "an attachment whose text Claude Code sends and cctool does not reproduce: the request shown leaves it out";
    UnreadableItem = "unreadable-item", [Warning], BOTH,
        "a history item Codex cannot read into its own types: Codex skips the line";
    ImageNotReproduced = "image-not-reproduced", [Warning], CHAIN,
        "an image Codex resizes or converts before sending: the api view shows it as written";
    PreEnvelopeFormat = "pre-envelope-format", [Warning], BOTH,
        "written by a 2025 Codex that current Codex cannot resume; read by forward replay";
    // Session trees whose compaction keeps entries by id (pi).
    FirstKeptOffBranch = "first-kept-off-branch", [Warning], BOTH,
        "a compaction's first kept entry is not on the resumed branch before it: the resume sends the summary and what follows the compaction, none of the entries it meant to keep";
    MissingCwd = "missing-cwd", [Error], DOCTOR,
        "the folder the session ran in, where its resume runs, does not exist here: the agent refuses to resume it";
    // Copilot CLI sessions.
    NulPadding = "nul-padding", [Error], BOTH,
        "Copilot CLI: NUL bytes in events.jsonl, left by a crash where a write never landed: the client cannot parse the line";
    NegativeTokensRemoved = "negative-tokens-removed", [Error], DOCTOR,
        "Copilot CLI: a compaction that records a negative tokensRemoved, which makes the client's resume fail";
    SessionTooLarge = "session-too-large", [Error], DOCTOR,
        "Copilot CLI: an events.jsonl over 512 MiB, which the client cannot resume";
    // Gemini CLI chats.
    StubTwin = "stub-twin", [Error | Warning], DOCTOR,
        "Gemini CLI: two chat files share a session's short id and one holds no conversation (a stub a resume in a later minute wrote): the client's next listing or new session deletes the full transcript (error on it; warning on the stub)";
    // Sessions kept as rows of a database (opencode).
    OrphanRow = "orphan-row", [Warning], DOCTOR,
        "opencode: a message whose session, or a part whose message, the database does not hold: no resume loads it, and it takes space";
    UnknownSchema = "unknown-schema", [Info], DOCTOR,
        "opencode: a database migrated by a release newer than any cctool was checked against: read by table and column name";
    MigratedSession = "migrated-session", [Info], DOCTOR,
        "opencode: sessions of the older per-file storage that the database beside it holds too: the client loads the database's, and cctool reads them from there";
    UnreadableRow = "unreadable-row", [Warning], BOTH,
        "opencode: a row of the database whose data is not a JSON object: the client cannot load it, cctool leaves it out";
    CompactionLoop = "compaction-loop", [Warning], DOCTOR,
        "opencode: compactions one after another with no prompt between them: the client kept compacting (the model kept reporting overflow)";
    LargestPart = "largest-part", [Info], DOCTOR,
        "opencode: the session's largest part, which takes the most of the database's space";
    // Qwen Code sessions.
    MixedSessions = "mixed-sessions", [Error], DOCTOR,
        "Qwen Code: records of more than one session in one file: the client refuses to load it";
    PromptLostToCompaction = "prompt-lost-to-compaction", [Warning], DOCTOR,
        "Qwen Code: a prompt written just before a compaction the client started, which the compacted history does not hold: a resume does not send it";
    // cctool session files.
    InvalidSession = "invalid-session", [Error], DOCTOR,
        "cctool session: not a valid session document";
    // The model a resume sends.
    SessionModelRetired = "session-model-retired", [Warning], DOCTOR,
        "Claude Code: the session's model is retired at the resume time: a resume sends another model, and may drop thinking";
    SessionModelRetiring = "session-model-retiring", [Info], DOCTOR,
        "Claude Code: the session's model retires within 30 days (the date is given)";
    // Payloads (`cctool slim`, docs/slim.md).
    RequestTooLarge = "request-too-large", [Error], DOCTOR,
        "Claude Code: the messages a resume sends are over the API's 32 MB request limit, so the session cannot be resumed; cctool slim --images all replaces the images in them with text (cctool compact, the text)";
    SubagentTooLarge = "subagent-too-large", [Warning], DOCTOR,
        "Claude Code: a subagent transcript over 5 MiB, which Claude Code skips on resume; cctool slim takes its duplicated payloads out";
    // Inputs.
    NotASession = "not-a-session", [Info], DOCTOR,
        "a file found in a folder that is not a session (sidecars, indexes): skipped";
    Unreadable = "unreadable", [Error], DOCTOR,
        "a file that cannot be read, or is not a session although named";
    UnreadablePath = "unreadable-path", [Error | Warning], DOCTOR,
        "a named path that cannot be read (error), or a folder inside a walk that cannot be listed (warning)";
    SymlinkLoop = "symlink-loop", [Info], DOCTOR,
        "a symbolic link back to a folder above it (a loop): not followed, or with --follow a folder reached twice, walked once";
    SymlinkNotFollowed = "symlink-not-followed", [Info], DOCTOR,
        "a symbolic link out of the named folder: not followed (--follow reads it)";
}

impl Code {
    /// The code with this id.
    pub fn from_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The default severity.
    pub const fn severity(self) -> Severity {
        self.severities()[0]
    }

    /// The severities as documentation writes them: `error|info`.
    pub fn severities_text(self) -> String {
        self.severities().iter().map(|s| s.name()).collect::<Vec<_>>().join("|")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.id() == *other
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.id() == other
    }
}

/// The `CODES` section of a command's help: each code and its severities on one line, its
/// meaning on the lines below, indented. Help is re-wrapped to the terminal's width and the
/// man page is filled by roff; a line per code with its text below survives both, where
/// columns side by side would wrap out of alignment.
pub fn codes_help(pick: impl Fn(Reported) -> bool) -> String {
    let mut s = String::new();
    for c in Code::ALL.iter().filter(|c| pick(c.reported())) {
        s.push_str(&format!(
            "  {} ({})\n      {}\n",
            c.id(),
            c.severities_text(),
            c.meaning()
        ));
    }
    s
}

/// One problem with an input, or one `doctor` finding: where (file and line), what (a
/// stable [`Code`] and a sentence) and how serious.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Its role, which makes its record's kind: `diagnostic` (a problem with an input) or
    /// `finding` (what `doctor` judges); see `commands::record`.
    #[serde(skip)]
    pub kind: &'static str,
    /// The input as every message names it ([`crate::io::Input::display_name`]).
    pub file: String,
    /// 1-based physical line; `None` when the problem is the file's as a whole.
    pub line: Option<u64>,
    /// What kind of problem: the stable id users filter on.
    pub code: Code,
    /// One of the severities `code` is documented with ([`Code::severities`]).
    pub severity: Severity,
    /// One sentence for people, without the file, line or code (the renderers add them).
    pub message: String,
}

impl Diagnostic {
    /// A problem with an input (kind `diagnostic`); debug builds check that `severity` is one
    /// `code` is documented with.
    pub fn new(
        file: impl Into<String>,
        line: Option<u64>,
        code: Code,
        severity: Severity,
        message: impl Into<String>,
    ) -> Diagnostic {
        debug_assert!(
            code.severities().contains(&severity),
            "{code} documented as {}, reported as {severity}",
            code.severities_text()
        );
        Diagnostic {
            kind: "diagnostic",
            file: file.into(),
            line,
            code,
            severity,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(
                f,
                "{}:{}: {}: {} [{}]",
                self.file, l, self.severity, self.message, self.code
            ),
            None => write!(f, "{}: {}: {} [{}]", self.file, self.severity, self.message, self.code),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_lowercase_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &c in Code::ALL {
            assert!(seen.insert(c.id()), "{c} twice");
            assert!(
                c.id()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-' || b.is_ascii_digit())
            );
            assert_eq!(Code::from_id(c.id()), Some(c));
            assert!(!c.meaning().is_empty() && !c.severities().is_empty());
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.id()));
        }
    }

    #[test]
    fn help_lists_every_doctor_code_once() {
        let help = codes_help(|r| r.doctor);
        for &c in Code::ALL {
            let head = format!("  {} (", c.id());
            assert_eq!(help.matches(&head).count(), usize::from(c.reported().doctor), "{c}");
        }
    }
}
