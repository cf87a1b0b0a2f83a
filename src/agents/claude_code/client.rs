//! What one Claude Code release knows about models: its catalog, how it spells and
//! canonicalises model ids, its retirement dates, its aliases and defaults, and the request
//! fields each model is sent with (`docs/claude-code-model.md`).
//!
//! Everything a new client release may change about models is in the [`CLIENT`] table, so
//! that following the next release is one reviewed edit of this table; the functions below
//! only read it.

/// The providers the client can talk to, in the column order of its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    FirstParty,
    Bedrock,
    Vertex,
    Foundry,
    AnthropicAws,
    AnthropicGoogleCloud,
    Mantle,
    Gateway,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::FirstParty => "firstParty",
            Provider::Bedrock => "bedrock",
            Provider::Vertex => "vertex",
            Provider::Foundry => "foundry",
            Provider::AnthropicAws => "anthropicAws",
            Provider::AnthropicGoogleCloud => "anthropicGoogleCloud",
            Provider::Mantle => "mantle",
            Provider::Gateway => "gateway",
        }
    }

    /// Providers the client restores a session's model for (its `Bm()`): Anthropic's own API,
    /// Anthropic on AWS and Google Cloud, and a gateway.
    pub fn restores_session_model(self) -> bool {
        matches!(
            self,
            Provider::FirstParty | Provider::AnthropicAws | Provider::AnthropicGoogleCloud | Provider::Gateway
        )
    }

    fn column(self) -> usize {
        self as usize
    }
}

/// A calendar date of the retirement table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i16,
    pub month: i8,
    pub day: i8,
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

const fn d(year: i16, month: i8, day: i8) -> Option<Date> {
    Some(Date { year, month, day })
}

/// How a model thinks, as the request's `thinking` field says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thinking {
    /// No `thinking` field.
    Off,
    /// `{"budget_tokens":N,"type":"enabled","display":"omitted"}`.
    Budget(u32),
    /// `{"type":"adaptive","display":"omitted"}`.
    Adaptive,
}

/// The `role:"system"` messages the client puts inside `messages` for a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemTurns {
    /// None: the environment goes into a `<system-reminder>` of the last user message.
    None,
    /// One system message after the last message: the environment block.
    Trailing,
    /// The same, its text wrapped in `<system-reminder>`.
    TrailingReminder,
    /// An empty system message carrying `output_config` after the first message, and the
    /// trailing environment block.
    EffortAndTrailing,
}

/// The request fields that follow the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    pub max_tokens: u32,
    pub thinking: Thinking,
    /// `output_config.effort`.
    pub effort: Option<&'static str>,
    /// `context_management` with `clear_thinking_20251015`.
    pub context_management: bool,
    pub system_turns: SystemTurns,
}

/// One model of the catalog.
#[derive(Debug)]
pub struct Model {
    /// The canonical id (dated and undated spellings map to it).
    pub id: &'static str,
    pub family: &'static str,
    /// The id sent for each provider, in [`Provider`] order (`None`: not offered there).
    pub provider_ids: [Option<&'static str>; 8],
    pub fields: Fields,
}

/// A row of the retirement table.
#[derive(Debug)]
pub struct Retirement {
    pub id: &'static str,
    pub name: &'static str,
    /// From which local midnight the model is retired, per provider in [`Provider`] order.
    pub dates: [Option<Date>; 8],
}

/// What one client release knows about models.
#[derive(Debug)]
pub struct Client {
    pub version: &'static str,
    pub models: &'static [Model],
    /// Canonical ids the client can name but has no catalog entry for: never restored.
    pub named_only: &'static [&'static str],
    pub retirements: &'static [Retirement],
    /// Exact spellings remapped to the latest Opus unless `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP`.
    pub remap_spellings: &'static [&'static str],
    /// Family aliases (`opus`, `sonnet`, …): the default canonical id, and per-provider
    /// exceptions.
    pub aliases: &'static [Alias],
    /// The request fields of a model the catalog does not know (sent as configured).
    pub unknown_fields: Fields,
    /// Region prefixes of cross-region Bedrock ids (`eu.anthropic.claude-…`).
    pub bedrock_regions: &'static [&'static str],
}

#[derive(Debug)]
pub struct Alias {
    pub name: &'static str,
    pub default: &'static str,
    pub per_provider: &'static [(Provider, &'static str)],
    /// The environment variable that overrides it (`ANTHROPIC_DEFAULT_OPUS_MODEL`).
    pub env: &'static str,
}

const F_LEGACY_8K: Fields = Fields {
    max_tokens: 8192,
    thinking: Thinking::Off,
    effort: None,
    context_management: false,
    system_turns: SystemTurns::None,
};
const F_37: Fields = Fields {
    max_tokens: 32000,
    ..F_LEGACY_8K
};
const F_BUDGET: Fields = Fields {
    max_tokens: 32000,
    thinking: Thinking::Budget(31999),
    effort: None,
    context_management: true,
    system_turns: SystemTurns::None,
};
const F_ADAPTIVE_64K: Fields = Fields {
    max_tokens: 64000,
    thinking: Thinking::Adaptive,
    effort: Some("high"),
    context_management: true,
    system_turns: SystemTurns::None,
};
const F_TRAILING_64K: Fields = Fields {
    system_turns: SystemTurns::Trailing,
    ..F_ADAPTIVE_64K
};
const F_128K: Fields = Fields {
    max_tokens: 128000,
    thinking: Thinking::Adaptive,
    effort: Some("medium"),
    context_management: true,
    system_turns: SystemTurns::EffortAndTrailing,
};

/// Provider ids in [`Provider`] order: first party, Bedrock, Vertex, Foundry, Anthropic on
/// AWS, Anthropic on Google Cloud, Mantle, gateway.
macro_rules! ids {
    ($($x:expr),* $(,)?) => { [$($x),*] };
}

/// A model of 2026 and later: one id everywhere but Bedrock's cross-region `us.anthropic.` and
/// Mantle's `anthropic.` spellings; some are not offered on Mantle or through a gateway.
macro_rules! current {
    ($id:literal, $family:literal, mantle: $m:literal, gateway: $g:literal, $fields:expr) => {
        Model {
            id: $id,
            family: $family,
            provider_ids: [
                Some($id),
                Some(concat!("us.anthropic.", $id)),
                Some($id),
                Some($id),
                Some($id),
                Some($id),
                if $m { Some(concat!("anthropic.", $id)) } else { None },
                if $g { Some($id) } else { None },
            ],
            fields: $fields,
        }
    };
}

/// Claude Code 2.1.332: its baked-in model catalog, its retirement table (`MA`), its legacy
/// remap list and its aliases, read from the client's bundle; the request fields as the
/// client sent them for each model (`docs/claude-code-model.md` gives the evidence).
pub static CLIENT: Client = Client {
    version: "2.1.332",
    models: &[
        Model {
            id: "claude-3-5-haiku",
            family: "haiku",
            provider_ids: ids![
                Some("claude-3-5-haiku-20241022"),
                Some("us.anthropic.claude-3-5-haiku-20241022-v1:0"),
                Some("claude-3-5-haiku@20241022"),
                Some("claude-3-5-haiku"),
                Some("claude-3-5-haiku-20241022"),
                None,
                None,
                Some("claude-3-5-haiku-20241022"),
            ],
            fields: F_LEGACY_8K,
        },
        Model {
            id: "claude-haiku-4-5",
            family: "haiku",
            provider_ids: ids![
                Some("claude-haiku-4-5-20251001"),
                Some("us.anthropic.claude-haiku-4-5-20251001-v1:0"),
                Some("claude-haiku-4-5@20251001"),
                Some("claude-haiku-4-5"),
                Some("claude-haiku-4-5-20251001"),
                Some("claude-haiku-4-5-20251001"),
                Some("anthropic.claude-haiku-4-5"),
                Some("claude-haiku-4-5-20251001"),
            ],
            fields: F_BUDGET,
        },
        current!("claude-haiku-5-5", "haiku", mantle: true, gateway: false, F_128K),
        Model {
            id: "claude-3-5-sonnet",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-3-5-sonnet-20241022"),
                Some("us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
                Some("claude-3-5-sonnet-v2@20241022"),
                Some("claude-3-5-sonnet"),
                Some("claude-3-5-sonnet-20241022"),
                None,
                None,
                Some("claude-3-5-sonnet-20241022"),
            ],
            fields: F_LEGACY_8K,
        },
        Model {
            id: "claude-3-7-sonnet",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-3-7-sonnet-20250219"),
                Some("us.anthropic.claude-3-7-sonnet-20250219-v1:0"),
                Some("claude-3-7-sonnet@20250219"),
                Some("claude-3-7-sonnet"),
                Some("claude-3-7-sonnet-20250219"),
                None,
                None,
                Some("claude-3-7-sonnet-20250219"),
            ],
            fields: F_37,
        },
        Model {
            id: "claude-sonnet-4-0",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-sonnet-4-20250514"),
                Some("us.anthropic.claude-sonnet-4-20250514-v1:0"),
                Some("claude-sonnet-4@20250514"),
                Some("claude-sonnet-4"),
                Some("claude-sonnet-4-20250514"),
                None,
                None,
                Some("claude-sonnet-4-20250514"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-sonnet-4-5",
            family: "sonnet",
            provider_ids: ids![
                Some("claude-sonnet-4-5-20250929"),
                Some("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
                Some("claude-sonnet-4-5@20250929"),
                Some("claude-sonnet-4-5"),
                Some("claude-sonnet-4-5-20250929"),
                Some("claude-sonnet-4-5-20250929"),
                None,
                Some("claude-sonnet-4-5-20250929"),
            ],
            fields: F_BUDGET,
        },
        current!("claude-sonnet-4-6", "sonnet", mantle: false, gateway: true, Fields {
            max_tokens: 32000,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-sonnet-5", "sonnet", mantle: true, gateway: true, Fields {
            system_turns: SystemTurns::TrailingReminder,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-sonnet-5-5", "sonnet", mantle: true, gateway: true, F_128K),
        Model {
            id: "claude-opus-4-0",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-20250514"),
                Some("us.anthropic.claude-opus-4-20250514-v1:0"),
                Some("claude-opus-4@20250514"),
                Some("claude-opus-4"),
                Some("claude-opus-4-20250514"),
                None,
                None,
                Some("claude-opus-4-20250514"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-opus-4-1",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-1-20250805"),
                Some("us.anthropic.claude-opus-4-1-20250805-v1:0"),
                Some("claude-opus-4-1@20250805"),
                Some("claude-opus-4-1"),
                Some("claude-opus-4-1-20250805"),
                None,
                None,
                Some("claude-opus-4-1-20250805"),
            ],
            fields: F_BUDGET,
        },
        Model {
            id: "claude-opus-4-5",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-5-20251101"),
                Some("us.anthropic.claude-opus-4-5-20251101-v1:0"),
                Some("claude-opus-4-5@20251101"),
                Some("claude-opus-4-5"),
                Some("claude-opus-4-5-20251101"),
                Some("claude-opus-4-5-20251101"),
                None,
                Some("claude-opus-4-5-20251101"),
            ],
            fields: Fields {
                effort: Some("high"),
                ..F_BUDGET
            },
        },
        Model {
            id: "claude-opus-4-6",
            family: "opus",
            provider_ids: ids![
                Some("claude-opus-4-6"),
                Some("us.anthropic.claude-opus-4-6-v1"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                Some("claude-opus-4-6"),
                None,
                Some("claude-opus-4-6"),
            ],
            fields: F_ADAPTIVE_64K,
        },
        current!("claude-opus-4-7", "opus", mantle: true, gateway: true, Fields {
            effort: Some("xhigh"),
            ..F_ADAPTIVE_64K
        }),
        current!("claude-opus-4-8", "opus", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-opus-5", "opus", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-opus-5-5", "opus", mantle: true, gateway: true, F_128K),
        current!("claude-fable-5", "fable", mantle: true, gateway: true, F_TRAILING_64K),
        current!("claude-fable-5-1", "fable", mantle: true, gateway: true, Fields {
            system_turns: SystemTurns::EffortAndTrailing,
            ..F_ADAPTIVE_64K
        }),
        current!("claude-fable-5-2", "fable", mantle: true, gateway: true, F_128K),
        Model {
            id: "claude-mythos-5",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5"), None, None, None, None, None, None, None],
            fields: F_TRAILING_64K,
        },
        Model {
            id: "claude-mythos-5-1",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5-1"), None, None, None, None, None, None, None],
            fields: F_TRAILING_64K,
        },
        Model {
            id: "claude-mythos-5-2",
            family: "mythos",
            provider_ids: ids![Some("claude-mythos-5-2"), None, None, None, None, None, None, None],
            fields: F_128K,
        },
    ],
    named_only: &["claude-3-opus", "claude-3-sonnet", "claude-3-haiku"],
    retirements: &[
        Retirement {
            id: "claude-opus-4-5",
            name: "Claude Opus 4.5",
            dates: [
                d(2027, 1, 22),
                None,
                d(2027, 1, 22),
                d(2027, 1, 22),
                d(2027, 1, 22),
                d(2027, 1, 22),
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-opus-4-1",
            name: "Claude Opus 4.1",
            dates: [None, None, None, d(2026, 8, 5), None, None, None, None],
        },
        Retirement {
            id: "claude-opus-4-0",
            name: "Claude Opus 4",
            dates: [
                d(2026, 6, 15),
                d(2026, 5, 31),
                d(2026, 9, 14),
                d(2026, 6, 15),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-sonnet-4-5",
            name: "Claude Sonnet 4.5",
            dates: [
                d(2026, 11, 30),
                None,
                d(2026, 11, 30),
                d(2026, 11, 30),
                d(2026, 11, 30),
                d(2026, 11, 30),
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-sonnet-4-0",
            name: "Claude Sonnet 4",
            dates: [
                d(2026, 6, 15),
                d(2026, 10, 14),
                d(2026, 9, 14),
                d(2026, 6, 15),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-opus",
            name: "Claude 3 Opus",
            dates: [
                d(2026, 1, 5),
                d(2026, 1, 15),
                d(2026, 1, 5),
                d(2026, 1, 5),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-7-sonnet",
            name: "Claude 3.7 Sonnet",
            dates: [
                d(2026, 2, 19),
                d(2026, 4, 28),
                d(2026, 5, 11),
                d(2026, 2, 19),
                None,
                None,
                None,
                None,
            ],
        },
        Retirement {
            id: "claude-3-5-sonnet",
            name: "Claude 3.5 Sonnet",
            dates: [d(2025, 10, 28), None, None, None, None, None, None, None],
        },
        Retirement {
            id: "claude-3-5-haiku",
            name: "Claude 3.5 Haiku",
            dates: [d(2026, 2, 19), None, None, None, None, None, None, None],
        },
    ],
    remap_spellings: &[
        "claude-opus-4-20250514",
        "claude-opus-4-1-20250805",
        "claude-opus-4-0",
        "claude-opus-4-1",
    ],
    aliases: &[
        Alias {
            name: "opus",
            default: "claude-opus-5-5",
            per_provider: &[(Provider::Gateway, "claude-opus-4-7")],
            env: "ANTHROPIC_DEFAULT_OPUS_MODEL",
        },
        Alias {
            name: "sonnet",
            default: "claude-sonnet-5-5",
            per_provider: &[
                (Provider::Bedrock, "claude-sonnet-4-5"),
                (Provider::Mantle, "claude-sonnet-5"),
                (Provider::AnthropicAws, "claude-sonnet-4-6"),
                (Provider::Gateway, "claude-sonnet-4-6"),
            ],
            env: "ANTHROPIC_DEFAULT_SONNET_MODEL",
        },
        Alias {
            name: "haiku",
            default: "claude-haiku-5-5",
            per_provider: &[
                (Provider::Bedrock, "claude-haiku-4-5"),
                (Provider::Vertex, "claude-haiku-4-5"),
                (Provider::Foundry, "claude-haiku-4-5"),
                (Provider::Mantle, "claude-haiku-4-5"),
                (Provider::AnthropicAws, "claude-haiku-4-5"),
                (Provider::AnthropicGoogleCloud, "claude-haiku-4-5"),
                (Provider::Gateway, "claude-haiku-4-5"),
            ],
            env: "ANTHROPIC_DEFAULT_HAIKU_MODEL",
        },
        Alias {
            name: "fable",
            default: "claude-fable-5-2",
            per_provider: &[(Provider::Gateway, "claude-fable-5")],
            env: "ANTHROPIC_DEFAULT_FABLE_MODEL",
        },
    ],
    unknown_fields: Fields {
        max_tokens: 32000,
        system_turns: SystemTurns::Trailing,
        ..F_ADAPTIVE_64K
    },
    bedrock_regions: &["us", "eu", "apac", "jp", "au", "us-gov", "global"],
};

/// A model id taken apart as the client parses it (`dc`): `claude-<family>-<major>[-<minor>]`
/// or the older `claude-<major>[-<minor>]-<family>`, then an optional date or version trailer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub family: String,
    pub major: u32,
    pub minor: Option<u32>,
    pub legacy_order: bool,
    /// The matched `claude-…` part.
    pub base: String,
    /// What follows the base when it is not a plain date/version suffix.
    pub trailer: Option<String>,
}

impl Parsed {
    fn same_version(&self, o: &Parsed) -> bool {
        self.family == o.family
            && self.legacy_order == o.legacy_order
            && self.major == o.major
            && self.minor.unwrap_or(0) == o.minor.unwrap_or(0)
    }
}

/// `-[1m]`/`[2m]` context suffixes, which never change the model.
pub fn strip_context_suffix(id: &str) -> &str {
    for s in ["[1m]", "[2m]", "[1M]", "[2M]"] {
        if let Some(x) = id.strip_suffix(s) {
            return x;
        }
    }
    id
}

/// One or two ASCII digits not followed by a third, at the start of `s`.
fn small_number(s: &str) -> Option<(u32, usize)> {
    let b = s.as_bytes();
    let n = b.iter().take(3).take_while(|c| c.is_ascii_digit()).count();
    match n {
        1 | 2 => s[..n].parse().ok().map(|v| (v, n)),
        _ => {
            // Three or more digits: the regex backtracks to 1 or 2 digits, which are then
            // followed by a digit and fail too.
            None
        }
    }
}

fn letters(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_lowercase).count()
}

/// The regexes of the client's `c()`.
fn parse_base(r: &str) -> Option<Parsed> {
    let rest = r.strip_prefix("claude-")?;
    // claude-<family>-<major>[-<minor>]
    let fl = letters(rest);
    if fl > 0
        && let Some(after) = rest[fl..].strip_prefix('-')
        && let Some((major, ml)) = small_number(after)
    {
        let mut used = 7 + fl + 1 + ml;
        let mut minor = None;
        if let Some(m) = after[ml..].strip_prefix('-')
            && let Some((v, l)) = small_number(m)
        {
            minor = Some(v);
            used += 1 + l;
        }
        return Some(Parsed {
            family: rest[..fl].to_string(),
            major,
            minor,
            legacy_order: false,
            base: r[..used].to_string(),
            trailer: None,
        });
    }
    // claude-<major>[-<minor>]-<family>
    let (major, ml) = small_number(rest)?;
    let after = &rest[ml..];
    let try_family = |s: &str| -> Option<usize> {
        let t = s.strip_prefix('-')?;
        let n = letters(t);
        (n > 0).then_some(n)
    };
    if let Some(m) = after.strip_prefix('-')
        && let Some((minor, l)) = small_number(m)
        && let Some(n) = try_family(&m[l..])
    {
        let used = 7 + ml + 1 + l + 1 + n;
        return Some(Parsed {
            family: m[l + 1..l + 1 + n].to_string(),
            major,
            minor: Some(minor),
            legacy_order: true,
            base: r[..used].to_string(),
            trailer: None,
        });
    }
    let n = try_family(after)?;
    Some(Parsed {
        family: after[1..1 + n].to_string(),
        major,
        minor: None,
        legacy_order: true,
        base: r[..7 + ml + 1 + n].to_string(),
        trailer: None,
    })
}

fn digits(s: &str, n: usize) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() >= n && b[..n].iter().all(u8::is_ascii_digit)).then(|| &s[n..])
}

fn digits_range(s: &str, min: usize, max: usize) -> Vec<&str> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    (min..=n).rev().map(|k| &s[k..]).collect()
}

/// `^(?:-fast|-latest)?(?:-v\d{1,3}@\d{8}|[-@]\d{8})?(?:-v\d{1,3}(?::\d{1,3})?)?$`: a suffix
/// that only dates or versions a model.
fn plain_suffix(s: &str) -> bool {
    let mut heads = vec![s];
    for p in ["-fast", "-latest"] {
        if let Some(r) = s.strip_prefix(p) {
            heads.push(r);
        }
    }
    heads.iter().any(|h| {
        let mut mids = vec![*h];
        if let Some(r) = h.strip_prefix("-v") {
            for r in digits_range(r, 1, 3) {
                if let Some(r) = r.strip_prefix('@').and_then(|r| digits(r, 8)) {
                    mids.push(r);
                }
            }
        }
        if let Some(r) = h.strip_prefix(['-', '@']).and_then(|r| digits(r, 8)) {
            mids.push(r);
        }
        mids.iter().any(|m| {
            if m.is_empty() {
                return true;
            }
            let Some(r) = m.strip_prefix("-v") else { return false };
            digits_range(r, 1, 3).into_iter().any(|r| {
                r.is_empty()
                    || r.strip_prefix(':')
                        .is_some_and(|x| digits_range(x, 1, 3).into_iter().any(str::is_empty))
            })
        })
    })
}

/// The client's `dc`: a model id taken apart, or `None` when it is not a Claude model id.
pub fn parse(id: &str, client: &Client) -> Option<Parsed> {
    let r = id.trim().to_ascii_lowercase();
    if r.is_empty() || r.chars().any(char::is_whitespace) {
        return None;
    }
    let mut r = strip_context_suffix(&r).to_string();
    if let Some(i) = r.rfind('/') {
        r = r[i + 1..].to_string();
    }
    if let Some(i) = r.find("anthropic.claude-") {
        let prefix = &r[..i];
        let ok = prefix.is_empty()
            || prefix
                .strip_suffix('.')
                .is_some_and(|p| client.bedrock_regions.contains(&p));
        if !ok {
            return None;
        }
        r = r[i + "anthropic.".len()..].to_string();
    }
    let mut p = parse_base(&r)?;
    let rest = &r[p.base.len()..];
    if !rest.is_empty() && !rest.starts_with(['-', '@']) {
        return None;
    }
    if !plain_suffix(rest) {
        p.trailer = Some(rest.to_string());
    }
    Some(p)
}

/// `claude-opus-4.5` spelled with a dot, as `claude-opus-4-5`.
fn dots_to_dashes(e: &str) -> String {
    let mut out = String::with_capacity(e.len());
    let b = e.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            // Preceded by `claude-[word-]N` or `claude-[word-]NN`.
            let head = &e[..i];
            let nd = head.bytes().rev().take_while(u8::is_ascii_digit).count();
            if (1..=2).contains(&nd) {
                let before = &head[..head.len() - nd];
                let ok = before.ends_with("claude-")
                    || before
                        .strip_suffix('-')
                        .and_then(|x| x.rsplit_once("claude-"))
                        .is_some_and(|(_, w)| !w.is_empty() && w.bytes().all(|c| c.is_ascii_lowercase()));
                if ok {
                    out.push('-');
                    i += 1;
                    continue;
                }
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// `e` contains `n`, and when `n` ends in a digit, not as the start of a longer number.
fn contains_id(e: &str, n: &str) -> bool {
    let digit_end = n.len() >= 2 && {
        let b = n.as_bytes();
        b[b.len() - 1].is_ascii_digit() && matches!(b[b.len() - 2], b'-' | b'_')
    };
    let mut from = 0;
    while let Some(i) = e[from..].find(n) {
        let at = from + i;
        let after = &e[at + n.len()..];
        if !(digit_end && after.len() >= 3 && after.as_bytes()[..3].iter().all(u8::is_ascii_digit)) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `claude-opus-4` not followed by `-N` (a single digit), as the client's fallback regex.
fn opus_or_sonnet_4_bare(e: &str, stem: &str) -> bool {
    let mut from = 0;
    while let Some(i) = e[from..].find(stem) {
        let at = from + i + stem.len();
        let after = &e.as_bytes()[at..];
        let versioned = after.len() >= 2
            && after[0] == b'-'
            && after[1].is_ascii_digit()
            && !(after.len() >= 3 && after[2].is_ascii_digit());
        if !versioned {
            return true;
        }
        from = from + i + 1;
    }
    false
}

fn strip_date(e: &str) -> String {
    let b = e.as_bytes();
    if b.len() > 9 && b[b.len() - 9] == b'-' && b[b.len() - 8..].iter().all(u8::is_ascii_digit) {
        e[..e.len() - 9].to_string()
    } else {
        e.to_string()
    }
}

/// The canonical id of a model spelling (the client's `St(…, {identity: true})`):
/// `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`, `claude-opus-4-20250514` →
/// `claude-opus-4-0`, `us.anthropic.claude-haiku-4-5-20251001-v1:0` → `claude-haiku-4-5`.
pub fn canonical(id: &str, client: &Client) -> String {
    let e = dots_to_dashes(&strip_context_suffix(id.trim()).to_ascii_lowercase());
    let by_provider_id = |x: &str| {
        client
            .models
            .iter()
            .find(|m| m.provider_ids.iter().flatten().any(|p| p.eq_ignore_ascii_case(x)))
            .map(|m| m.id.to_string())
    };
    if let Some(c) = by_provider_id(&e) {
        return c;
    }
    for g in client.bedrock_regions {
        if *g != "us"
            && let Some(rest) = e.strip_prefix(&format!("{g}.anthropic."))
        {
            if let Some(c) = by_provider_id(&format!("us.anthropic.{rest}")) {
                return c;
            }
            break;
        }
    }
    if let Some(p) = parse(&e, client)
        && p.trailer.is_none()
    {
        let known = client
            .models
            .iter()
            .map(|m| m.id)
            .chain(client.named_only.iter().copied());
        for k in known {
            if let Some(kp) = parse(k, client)
                && kp.trailer.is_none()
                && kp.same_version(&p)
            {
                return k.to_string();
            }
        }
        return strip_date(&p.base);
    }
    const BY_NAME: &[(&str, bool)] = &[
        ("claude-fable-5-2", true),
        ("claude-fable-5-1", false),
        ("claude-fable-5", false),
        ("claude-mythos-5-2", true),
        ("claude-mythos-5-1", false),
        ("claude-mythos-5", false),
        ("claude-opus-5-5", false),
        ("claude-opus-5", false),
        ("claude-opus-4-8", false),
        ("claude-opus-4-7", false),
        ("claude-opus-4-6", false),
        ("claude-opus-4-5", false),
        ("claude-opus-4-1", false),
    ];
    for &(n, whole) in BY_NAME {
        if if whole { contains_id(&e, n) } else { e.contains(n) } {
            return n.to_string();
        }
    }
    if opus_or_sonnet_4_bare(&e, "claude-opus-4") {
        return "claude-opus-4-0".into();
    }
    for n in [
        "claude-sonnet-5-5",
        "claude-sonnet-5",
        "claude-sonnet-4-6",
        "claude-sonnet-4-5",
    ] {
        if e.contains(n) {
            return n.into();
        }
    }
    if opus_or_sonnet_4_bare(&e, "claude-sonnet-4") {
        return "claude-sonnet-4-0".into();
    }
    for n in [
        "claude-haiku-5-5",
        "claude-haiku-4-5",
        "claude-3-7-sonnet",
        "claude-3-5-sonnet",
        "claude-3-5-haiku",
        "claude-3-opus",
        "claude-3-sonnet",
        "claude-3-haiku",
    ] {
        if e.contains(n) {
            return n.into();
        }
    }
    strip_date(&e)
}

/// Two spellings of one model (`claude-opus-4-5` and `claude-opus-4-5-20251101`).
pub fn same_model(a: &str, b: &str, client: &Client) -> bool {
    a == b || canonical(a, client) == canonical(b, client)
}

/// The catalog entry of a spelling, if the client knows the model.
pub fn model<'c>(id: &str, client: &'c Client) -> Option<&'c Model> {
    let c = canonical(id, client);
    client.models.iter().find(|m| m.id == c)
}

/// The request fields the client sends with `id`.
pub fn fields(id: &str, client: &Client) -> Fields {
    model(id, client).map_or(client.unknown_fields, |m| m.fields)
}

/// The retirement row of a spelling.
pub fn retirement<'c>(id: &str, client: &'c Client) -> Option<&'c Retirement> {
    let c = canonical(id, client);
    client.retirements.iter().find(|r| r.id == c)
}

/// The family rank the client compares for the `upgrade` thinking policy.
pub fn family_rank(family: &str) -> Option<u8> {
    match family {
        "haiku" => Some(0),
        "sonnet" => Some(1),
        "opus" => Some(2),
        "fable" | "mythos" => Some(3),
        _ => None,
    }
}

/// The alias a family name or a provider's alias maps to, for `provider`.
pub fn alias<'c>(name: &str, client: &'c Client) -> Option<&'c Alias> {
    client.aliases.iter().find(|a| a.name == name)
}

impl Alias {
    pub fn for_provider(&self, p: Provider) -> &'static str {
        self.per_provider
            .iter()
            .find(|(q, _)| *q == p)
            .map_or(self.default, |(_, id)| id)
    }
}

impl Model {
    /// The id sent for this model through `p`.
    pub fn provider_id(&self, p: Provider) -> &'static str {
        self.provider_ids[p.column()]
            .or(self.provider_ids[0])
            .unwrap_or(self.id)
    }
}

impl Retirement {
    pub fn date(&self, p: Provider) -> Option<Date> {
        self.dates[p.column()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_ids_as_the_client_spells_them() {
        let c = |s: &str| canonical(s, &CLIENT);
        assert_eq!(c("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
        assert_eq!(c("claude-opus-4-20250514"), "claude-opus-4-0");
        assert_eq!(c("claude-opus-4-1-20250805"), "claude-opus-4-1");
        assert_eq!(c("claude-opus-4-5-20251101"), "claude-opus-4-5");
        assert_eq!(c("claude-sonnet-4-20250514"), "claude-sonnet-4-0");
        assert_eq!(c("claude-3-5-sonnet-20241022"), "claude-3-5-sonnet");
        assert_eq!(c("claude-3-5-sonnet-latest"), "claude-3-5-sonnet");
        assert_eq!(c("claude-3-opus-20240229"), "claude-3-opus");
        assert_eq!(c("claude-3-haiku-20240307"), "claude-3-haiku");
        assert_eq!(c("us.anthropic.claude-haiku-4-5-20251001-v1:0"), "claude-haiku-4-5");
        assert_eq!(c("eu.anthropic.claude-sonnet-4-5-20250929-v1:0"), "claude-sonnet-4-5");
        assert_eq!(c("claude-sonnet-4-5@20250929"), "claude-sonnet-4-5");
        assert_eq!(c("claude-opus-4.6"), "claude-opus-4-6");
        assert_eq!(c("claude-opus-4-6[1m]"), "claude-opus-4-6");
        assert_eq!(c("Claude-Opus-5-5"), "claude-opus-5-5");
        assert_eq!(c("claude-opus-4-9"), "claude-opus-4-9");
        assert_eq!(c("claude-2.1"), "claude-2-1");
        assert_eq!(c("gpt-5"), "gpt-5");
    }

    #[test]
    fn parsed_ids_keep_their_trailer() {
        let p = parse("claude-opus-4-5-thinking", &CLIENT).unwrap();
        assert_eq!(p.trailer.as_deref(), Some("-thinking"));
        assert_eq!(canonical("claude-opus-4-5-thinking", &CLIENT), "claude-opus-4-5");
        assert!(
            parse("claude-sonnet-4-5-20250929-v1:0", &CLIENT)
                .unwrap()
                .trailer
                .is_none()
        );
        assert!(parse("xx.anthropic.claude-sonnet-4-5", &CLIENT).is_none());
        assert!(parse("claude-opus4", &CLIENT).is_none());
    }

    #[test]
    fn every_catalog_spelling_is_its_own_model() {
        for m in CLIENT.models {
            for id in m.provider_ids.iter().flatten() {
                assert_eq!(canonical(id, &CLIENT), m.id, "{id}");
            }
            assert_eq!(canonical(m.id, &CLIENT), m.id);
        }
    }
}
