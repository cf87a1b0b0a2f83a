//! Finding secrets in one string: the rules whose keywords the string holds, each match's
//! check, and the secrets inside base64 text (`echo … | base64`, a key file encoded in a tool
//! result).

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::{Check, Learned, Redactor};

/// Base64 runs shorter than this are words, hashes or ids, never an encoded secret's text.
const MIN_ENCODED: usize = 24;
/// Longer runs are files (images, archives), not an encoded secret.
const MAX_ENCODED: usize = 1 << 20;

const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

impl Redactor {
    /// The secrets in `s` as (start, end, label), in order. Rules run only when the string
    /// holds one of their keywords; where two matches overlap, the earlier rule's is kept.
    pub(super) fn spans(&self, s: &str) -> Vec<(usize, usize, usize)> {
        let mut wanted: Option<Vec<bool>> = None;
        for m in self.prefilter.find_overlapping_iter(s) {
            let w = wanted.get_or_insert_with(|| vec![false; self.rules.len()]);
            for &r in &self.keyword_rules[m.pattern().as_usize()] {
                w[r] = true;
            }
        }
        if wanted.is_none() && self.always.is_empty() {
            return Vec::new();
        }
        let mut wanted = wanted.unwrap_or_else(|| vec![false; self.rules.len()]);
        for &r in &self.always {
            wanted[r] = true;
        }
        let mut taken: Vec<(usize, usize, usize)> = Vec::new();
        for (rule, _) in self.rules.iter().zip(&wanted).filter(|(_, w)| **w) {
            for caps in rule.re.captures_iter(s) {
                let m = caps
                    .name("s")
                    .or_else(|| caps.name("s2"))
                    .or_else(|| caps.get(0))
                    .expect("group 0 always matches");
                if m.is_empty() || !passes(rule.check, m.as_str(), s, m.start()) {
                    continue;
                }
                if taken.iter().all(|&(a, b, _)| m.end() <= a || m.start() >= b) {
                    taken.push((m.start(), m.end(), rule.label));
                }
            }
        }
        taken.sort_unstable();
        taken
    }

    /// Finds the secrets of `s`, and those of the base64 text in it.
    pub(super) fn find_str(&self, s: &str, out: &mut Learned) {
        for (a, b, label) in self.spans(s) {
            out.push(label, &s[a..b]);
        }
        for (a, b) in base64_runs(s) {
            let run = &s[a..b];
            if let Some(text) = decoded_text(run) {
                let inner = self.spans(&text);
                if let Some(&(_, _, label)) = inner.first() {
                    out.push(label, run);
                    for (x, y, l) in inner {
                        out.push(l, &text[x..y]);
                    }
                }
            }
        }
    }
}

/// The bytes of the base64 alphabet but padding, as a table (the scan looks at every byte of
/// every string).
const B64_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
        c += 1;
    }
    t
};

/// The shortest run of the alphabet that can be a span on its own: with its two `=` of
/// padding it reaches [`MIN_ENCODED`]. A shorter one is a span only as the last line of a
/// wrapped run, found by looking just after the line before it.
const MIN_LINE: usize = MIN_ENCODED - 2;

/// The spans of base64 text in `s` long enough to hold an encoded secret: runs of the
/// alphabet with their padding, and lines wrapped at one width (`base64` wraps at 76) taken
/// as one run.
///
/// Every string of an export goes through this, and most of their words are runs of the
/// alphabet too short to matter: so the scan looks for runs of [`MIN_LINE`] bytes by testing
/// one byte in [`MIN_LINE`] (a byte outside the alphabet rules out every run across it), and
/// reads whole only the runs that can be long enough or that continue a wrapped one.
/// `tests::base64_runs_as_read_byte_by_byte` holds it to the plain reading.
pub(super) fn base64_runs(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    if b.len() < MIN_ENCODED {
        return Vec::new();
    }
    let is_b64 = |c: u8| B64_BYTES[c as usize];
    // The end of the run of the alphabet from `at`, with up to two `=` of padding.
    let line_end = |at: usize| {
        let mut i = at;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        let stop = i;
        while i < b.len() && i - stop < 2 && b[i] == b'=' {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let keep = |out: &mut Vec<(usize, usize)>, r: Run| {
        if (MIN_ENCODED..=MAX_ENCODED).contains(&(r.end - r.start)) {
            out.push((r.start, r.end));
        }
    };
    let mut current: Option<Run> = None;
    let mut i = 0;
    loop {
        // A wrapped run goes on when the next line starts right after a line break.
        if let Some(r) = current.as_mut().filter(|r| r.width >= 40 && r.last == r.width) {
            let gap = match &b[r.end..] {
                [b'\n', ..] => 1,
                [b'\r', b'\n', ..] => 2,
                _ => 0,
            };
            let start = r.end + gap;
            if gap > 0 && start < b.len() && is_b64(b[start]) {
                let end = line_end(start);
                if end - start <= r.width {
                    r.end = end;
                    r.last = end - start;
                } else if let Some(done) = current.replace(Run::line(start, end)) {
                    keep(&mut out, done);
                }
                i = end;
                continue;
            }
        }
        // The next run of at least MIN_LINE bytes of the alphabet.
        let mut probe = i + MIN_LINE - 1;
        while probe < b.len() && !is_b64(b[probe]) {
            probe += MIN_LINE;
        }
        if probe >= b.len() {
            break;
        }
        let mut start = probe;
        while start > 0 && is_b64(b[start - 1]) {
            start -= 1;
        }
        let end = line_end(probe);
        let run_end = end - b[start..end].iter().rev().take_while(|&&c| c == b'=').count();
        i = end;
        if run_end - start < MIN_LINE {
            continue;
        }
        // Only a run standing on its own: not the tail of a word, a path or a URL.
        let before = start.checked_sub(1).map(|p| b[p]);
        if matches!(before, Some(c) if c == b'_' || c == b'-' || c == b'.' || c == b'%') {
            continue;
        }
        if let Some(done) = current.replace(Run::line(start, end)) {
            keep(&mut out, done);
        }
    }
    if let Some(done) = current {
        keep(&mut out, done);
    }
    out
}

/// A run being read: its span, the width of its first line and the length of its last.
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    width: usize,
    last: usize,
}

impl Run {
    fn line(start: usize, end: usize) -> Run {
        Run {
            start,
            end,
            width: end - start,
            last: end - start,
        }
    }
}

/// The text `run` encodes, when it is base64 of text (not of an image or random bytes).
pub(super) fn decoded_text(run: &str) -> Option<String> {
    let compact: String = run.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    // A look at the start first: binary data is told from text without decoding all of it.
    let head = &compact[..compact.len().min(1024) / 4 * 4];
    if head.len() < compact.len() && !is_text(&B64.decode(head).ok()?) {
        return None;
    }
    let bytes = B64.decode(&compact).ok()?;
    is_text(&bytes).then(|| String::from_utf8(bytes).ok()).flatten()
}

/// UTF-8 made of printable characters and whitespace.
fn is_text(bytes: &[u8]) -> bool {
    let Ok(t) = std::str::from_utf8(bytes) else {
        // A look at a prefix may cut a character in two.
        return std::str::from_utf8(&bytes[..bytes.len().saturating_sub(3)]).is_ok_and(|t| is_text(t.as_bytes()));
    };
    !t.is_empty()
        && t.chars()
            .all(|c| !c.is_control() || c == '\n' || c == '\r' || c == '\t')
}

/// Whether a match passes its rule's check. `whole` and `at` locate it in its string.
pub(super) fn passes(check: Check, m: &str, whole: &str, at: usize) -> bool {
    match check {
        Check::None => true,
        Check::NotReference => !is_reference(m),
        Check::SecretValue => is_secret_value(m),
        Check::CliPassword => is_secret_value(m) && !m.bytes().all(|b| b.is_ascii_digit()),
        Check::Entropy => m.len() >= 20 && is_random(m),
        Check::GithubToken => {
            let glued = whole[..at]
                .bytes()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
            !glued || github_checksum_ok(m)
        }
        Check::BasicAuth => B64
            .decode(m)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|t| t.contains(':') && is_text(t.as_bytes())),
        Check::Email => {
            let local = m.split('@').next().unwrap_or("");
            !(local == "git" || m.eq_ignore_ascii_case("noreply@anthropic.com") || whole[..at].ends_with("://"))
        }
        Check::HomePath => {
            let name = m.rsplit(['/', '\\']).next().unwrap_or("");
            // A project folder's name (`-home-NAME`): the name is what follows the root.
            let name = name
                .rsplit_once("-home-")
                .or_else(|| name.rsplit_once("-Users-"))
                .map_or(name, |(_, n)| n);
            !matches!(
                name,
                "Shared" | "linuxbrew" | "runner" | "user" | "username" | "USER" | "me" | "you"
            ) && !name.starts_with('$')
        }
    }
}

/// A value in a secret's position: not a reference, not a placeholder, not code.
pub(super) fn is_secret_value(m: &str) -> bool {
    let lower = m.to_ascii_lowercase();
    !is_reference(m)
        && !m.contains('(')
        && !m.starts_with("[REDACTED")
        && !matches!(
            lower.as_str(),
            "none" | "null" | "nil" | "true" | "false" | "undefined" | "required" | "optional" | "string"
        )
        && !lower.starts_with("your")
        && !lower.chars().all(|c| c == 'x' || c == '*' || c == '.' || c == '-')
        && !m.starts_with("process.env")
        && !m.starts_with("os.environ")
}

fn is_reference(m: &str) -> bool {
    m.starts_with('$') || m.starts_with('%') || m.starts_with('<') || m.starts_with("{{") || m.starts_with("${")
}

/// GitHub's classic tokens end in a checksum: the CRC32 of the 30 random characters after
/// the prefix, in base62, six characters.
pub(super) fn github_checksum_ok(token: &str) -> bool {
    let Some(body) = token.get(4..) else {
        return false;
    };
    if !token.starts_with("gh") || body.len() < 36 || !body.is_ascii() {
        return false;
    }
    let want = crc32fast::hash(&body.as_bytes()[..30]);
    base62_6(want).as_bytes() == &body.as_bytes()[30..36]
}

/// `n` in base62 (`0-9A-Za-z`), left-padded with `0` to six characters.
pub(super) fn base62_6(mut n: u32) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Shannon entropy of at least 3.5 bits a character, with letters and digits both present:
/// what generated tokens have and words, paths and version strings do not.
pub(super) fn is_random(m: &str) -> bool {
    let has_digit = m.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = m.bytes().any(|b| b.is_ascii_alphabetic());
    if !has_digit || !has_alpha {
        return false;
    }
    let mut counts = [0u32; 256];
    for b in m.bytes() {
        counts[b as usize] += 1;
    }
    let n = m.len() as f64;
    let h: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum();
    h >= 3.5
}

/// A 64-bit FNV-1a hash: names an image in the table without keeping its bytes.
pub(super) fn fx(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
