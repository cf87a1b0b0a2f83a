//! The normalised vocabulary shared by every format: diagnostics, timestamps, formats.

pub mod diag;
pub mod doc;
pub mod events;
pub mod findings;
pub mod hooks;
pub mod project;
pub mod resume;
pub mod retention;
pub mod rows;
pub mod session;
pub mod store;
pub mod time;

use serde::Serialize;

/// Estimated tokens of some bytes, as Codex and the spec count them: ceil(UTF-8 bytes / 4).
pub fn approx_tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// Estimated tokens of a JSON array of elements of these byte lengths (`[a,b,…]`): how the
/// history a Codex resume sends is counted, by `scan` and `compact` alike; 0 for no element.
pub fn json_array_tokens(lens: impl IntoIterator<Item = usize>) -> usize {
    let (n, bytes) = lens.into_iter().fold((0, 0), |(n, b), l| (n + 1, b + l));
    if n == 0 { 0 } else { approx_tokens(bytes + n + 1) }
}

/// Which agent's format a file is in: the name the agent's crate gives itself (`claude-code`,
/// `codex`, `cctool-session`), as records, messages and `--input-format` spell it.
///
/// An open id rather than an enum: each agent crate defines its own (`cctool_codex::ID`) and
/// the CLI's registry lists the agents, so adding an agent changes no other crate, and no code
/// outside an agent can `match` over every agent and fall back to one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AgentId {
    name: &'static str,
}

impl AgentId {
    /// The id named `name`: for an agent crate's own `ID`.
    pub const fn new(name: &'static str) -> AgentId {
        AgentId { name }
    }

    /// The kebab-case name records, messages and `--input-format` use.
    pub fn name(self) -> &'static str {
        self.name
    }
}

impl Serialize for AgentId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_a_quarter_of_the_bytes_rounded_up() {
        use super::approx_tokens;
        assert_eq!(approx_tokens(0), 0);
        assert_eq!(approx_tokens(1), 1);
        assert_eq!(approx_tokens(8), 2);
        assert_eq!(approx_tokens(9), 3);
        // `[]`, `["ab"]` (6 bytes), `["ab","c"]` (10 bytes).
        use super::json_array_tokens;
        assert_eq!(json_array_tokens([]), 0);
        assert_eq!(json_array_tokens([4]), 2);
        assert_eq!(json_array_tokens([4, 3]), 3);
    }
}
