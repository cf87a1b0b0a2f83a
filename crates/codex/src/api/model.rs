//! The model a resumed Codex session asks: its truncation budget and what image detail it takes.

/// How much of a tool output Codex keeps when it records it: a byte or a token budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A budget in bytes.
    Bytes(usize),
    /// A budget in tokens.
    Tokens(usize),
}

impl Budget {
    pub(super) fn with(self, n: usize) -> Budget {
        match self {
            Budget::Bytes(_) => Budget::Bytes(n),
            Budget::Tokens(_) => Budget::Tokens(n),
        }
    }

    pub(super) fn amount(self) -> usize {
        match self {
            Budget::Bytes(n) | Budget::Tokens(n) => n,
        }
    }

    pub(super) fn cost(self, text: &str) -> usize {
        match self {
            Budget::Bytes(_) => text.len(),
            Budget::Tokens(_) => crate::model::approx_tokens(text.len()),
        }
    }
}

/// Models of the catalog Codex 0.171 ships, and whether each is served through Responses Lite.
/// Each keeps 10,000 tokens of a tool output and can take images at `original` detail.
pub(super) const CATALOG: &[(&str, bool)] = &[
    ("gpt-6.2-sol", true),
    ("gpt-6.2-astra", true),
    ("gpt-6-astra", true),
    ("gpt-6.1-sol", true),
    ("gpt-6.1-terra", true),
    ("gpt-6-sol", true),
    ("gpt-6-luna", true),
    ("gpt-5.6-sol", true),
    ("gpt-5.6-terra", true),
    ("gpt-5.6-luna", true),
    ("gpt-daybreak-blue-latest", true),
    ("gpt-daybreak-red-latest", true),
    ("gpt-5.5", false),
    ("codex-auto-review", true),
];

/// What the send-time rules need to know of the model a resume runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// The model asked for (the rollout's last, or the caller's).
    pub slug: Option<String>,
    /// The catalog entry it resolves to; `None` means Codex's fallback metadata.
    pub entry: Option<&'static str>,
    /// The recording budget, already multiplied by 1.2 as Codex does.
    pub budget: Budget,
    /// The model takes `detail: "original"` for images (it is in the catalog).
    pub original_detail: bool,
    /// Requests go through Responses Lite, which takes no image `detail`.
    pub responses_lite: bool,
}

impl ModelInfo {
    /// Codex's lookup: the longest catalog slug the name starts with; else, for a name like
    /// `provider/model`, the same on the part after the slash; else the fallback metadata
    /// (10,000 bytes, no `original` detail).
    pub fn for_slug(slug: Option<&str>) -> ModelInfo {
        let entry = slug.and_then(|s| {
            longest_prefix(s).or_else(|| {
                let (ns, rest) = s.split_once('/')?;
                let simple = !ns.is_empty()
                    && ns.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    && !rest.contains('/');
                if simple { longest_prefix(rest) } else { None }
            })
        });
        // Codex records with its policy times 1.2 (room for serialisation).
        let budget = if entry.is_some() {
            Budget::Tokens(12_000)
        } else {
            Budget::Bytes(12_000)
        };
        ModelInfo {
            slug: slug.map(str::to_string),
            entry: entry.map(|(name, _)| name),
            budget,
            original_detail: entry.is_some(),
            responses_lite: entry.is_some_and(|(_, lite)| lite),
        }
    }
}

pub(super) fn longest_prefix(s: &str) -> Option<(&'static str, bool)> {
    CATALOG
        .iter()
        .copied()
        .filter(|(c, _)| s.starts_with(c))
        .max_by_key(|(c, _)| c.len())
}
