//! Model ids as the client reads them: parsed into family, version and trailer, and
//! canonicalised to the id its catalog knows.

use super::*;

/// A model id taken apart as the client parses it (`dc`): `claude-<family>-<major>[-<minor>]`
/// or the older `claude-<major>[-<minor>]-<family>`, then an optional date or version trailer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The family (`opus`, `sonnet`, `haiku`…).
    pub family: String,
    /// The major version.
    pub major: u32,
    /// The minor version, when the id has one.
    pub minor: Option<u32>,
    /// Written in the older order, the family last (`claude-3-5-sonnet`).
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
pub(super) fn small_number(s: &str) -> Option<(u32, usize)> {
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

pub(super) fn letters(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_lowercase).count()
}

/// The regexes of the client's `c()`.
pub(super) fn parse_base(r: &str) -> Option<Parsed> {
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

pub(super) fn digits(s: &str, n: usize) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() >= n && b[..n].iter().all(u8::is_ascii_digit)).then(|| &s[n..])
}

pub(super) fn digits_range(s: &str, min: usize, max: usize) -> Vec<&str> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    (min..=n).rev().map(|k| &s[k..]).collect()
}

/// `^(?:-fast|-latest)?(?:-v\d{1,3}@\d{8}|[-@]\d{8})?(?:-v\d{1,3}(?::\d{1,3})?)?$`: a suffix
/// that only dates or versions a model.
pub(super) fn plain_suffix(s: &str) -> bool {
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
pub(super) fn dots_to_dashes(e: &str) -> String {
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
pub(super) fn contains_id(e: &str, n: &str) -> bool {
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
pub(super) fn opus_or_sonnet_4_bare(e: &str, stem: &str) -> bool {
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

pub(super) fn strip_date(e: &str) -> String {
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
