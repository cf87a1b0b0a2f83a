//! How a resume is emulated, as the user chose it: the options `rebuild-chain` and the other
//! read commands hand to every agent, which each agent interprets in its own folder.

/// Which client's loading rules to follow (Claude Code's loader; other agents have one way of
/// loading, and say so when it is given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Loader {
    /// Claude Code 2.1.88: the load rules before the four changes of 2.1.332.
    #[value(name = "2.1.88")]
    V2_1_88,
    /// Claude Code 2.1.332, the current client.
    #[default]
    #[value(name = "2.1.332")]
    V2_1_332,
}

impl Loader {
    /// The client version, as `--loader` names it and the records print it.
    pub fn name(self) -> &'static str {
        match self {
            Loader::V2_1_88 => "2.1.88",
            Loader::V2_1_332 => "2.1.332",
        }
    }
}

/// Which replay semantics to use (Codex's history reconstruction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Replay {
    /// Current Codex: reverse-scan turn segments, rolled-back turns discarded whole.
    #[default]
    Current,
    /// Codex before 2026-02-27: forward replay, rollbacks cut the rebuilt history.
    Legacy,
}
