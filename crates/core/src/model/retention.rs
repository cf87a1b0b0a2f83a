//! What an agent's retention sweep (it deletes its own sessions once they are old enough) and
//! its prompt history say: the vocabulary `doctor`'s warning and `restore --from-history`
//! share with the agents that sweep their stores ([`crate::agents::Retention`]).

use serde::Serialize;

/// The effective retention setting and the settings file that sets it.
#[derive(Debug, Clone, Serialize)]
pub struct Setting {
    /// How many days a session is kept after it was last written.
    pub days: u64,
    /// The settings file it is read from.
    pub source: String,
}

/// What the next sweep does, for the sentence the agent words ([`crate::agents::Retention::warning`]).
#[derive(Debug, Clone, Copy)]
pub struct Sweep<'a> {
    /// The days in force: the setting's, else the agent's default.
    pub days: u64,
    /// The setting, when a settings file sets it.
    pub setting: Option<&'a Setting>,
    /// The sessions in the store.
    pub sessions: usize,
    /// The sessions the sweep deletes.
    pub at_risk: usize,
    /// Those of them the archive holds with every byte they have now.
    pub backed_up: usize,
}

/// One prompt of an agent's prompt history.
#[derive(Debug, Clone, Serialize)]
pub struct Prompt {
    /// When it was typed (ISO-8601 UTC), when the entry says.
    pub timestamp: Option<String>,
    /// The prompt as the history shows it (its `display`).
    pub text: String,
}

/// What the prompt history holds of one session whose transcript is gone: a partial record.
#[derive(Debug, Clone, Serialize)]
pub struct FromHistory {
    /// Always true: only the user's prompts survive, not the answers or the tools.
    pub partial: bool,
    /// The session's id; none for entries written before the agent recorded it, which are
    /// grouped by project.
    pub session_id: Option<String>,
    /// The project folder the entries name.
    pub project: Option<String>,
    /// The time of its first prompt (ISO-8601 UTC).
    pub first_timestamp: Option<String>,
    /// The time of its last prompt (ISO-8601 UTC).
    pub last_timestamp: Option<String>,
    /// The history file the prompts are read from.
    pub history_file: String,
    /// Its prompts, oldest first.
    pub prompts: Vec<Prompt>,
}
