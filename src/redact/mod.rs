//! Redaction: secrets and personal data replaced by stable placeholders.
//!
//! A [`Redactor`] holds the rules (built-in token formats, the user's home and name, rules
//! from the command line and the config file) and one table of what it replaced, shared by
//! every file of an export: the same secret gets the same placeholder everywhere
//! (`[REDACTED:github-token#3]`), and the report counts matches per rule without ever holding
//! them in its output.
//!
//! Text is matched as the agent saw it: JSON strings are decoded first (a key split across
//! `\u` escapes is whole again), redacted, and encoded again, so the record stays valid JSON;
//! a string that is itself a JSON document (Codex tool arguments) is opened and redacted the
//! same way. One [`RegexSet`] pass tells which rules can match a string; only those run.

mod rules;

use std::collections::HashMap;
use std::sync::Mutex;

use regex::{Regex, RegexSet};
use serde::Serialize;
use serde_json::Value;

/// What a rule's match must also satisfy before it is replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    None,
    /// Not a reference to a secret kept elsewhere (`$TOKEN`, `${{ secrets.X }}`, `<token>`).
    NotReference,
    /// A value in a secret's position: not a reference, not a placeholder, not code.
    SecretValue,
    /// Long and random enough to be a generated secret.
    Entropy,
    Email,
    HomePath,
}

struct Rule {
    /// Index into [`Redactor::labels`]: rules of one name share their numbers.
    label: usize,
    re: Regex,
    check: Check,
}

/// Where a redaction's numbers and counts are kept for the whole export.
#[derive(Default)]
struct Table {
    /// (label, secret) → number; numbers count per label from 1, in the order secrets are met.
    numbers: HashMap<(usize, String), u32>,
    distinct: Vec<u32>,
    count: Vec<u64>,
}

/// One rule's line in the report: how often it matched and how many different secrets.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct RuleCount {
    pub rule: String,
    pub count: u64,
    pub distinct: u32,
}

/// The `--json` record of a redaction: never the secrets, only the counts.
#[derive(Serialize, Debug)]
pub struct Report {
    pub rules: Vec<RuleCount>,
    pub total: u64,
}

impl Report {
    pub fn text(&self) -> String {
        if self.rules.is_empty() {
            return "redacted: nothing matched".to_string();
        }
        let parts: Vec<String> = self
            .rules
            .iter()
            .map(|r| format!("{} x{} ({} distinct)", r.rule, r.count, r.distinct))
            .collect();
        format!("redacted {} matches: {}", self.total, parts.join(", "))
    }
}

/// Keys whose values are identifiers, signatures or encrypted blobs the agent itself wrote:
/// never secrets of the user's, and changing them would break the file (a resume follows
/// `parentUuid`, pairs tool calls by id, sends `signature` and `encrypted_content` back).
const STRUCTURAL_KEYS: &[&str] = &[
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "leafUuid",
    "sessionId",
    "session_id",
    "id",
    "tool_use_id",
    "toolUseID",
    "sourceToolUseID",
    "call_id",
    "requestId",
    "messageId",
    "promptId",
    "agentId",
    "signature",
    "encrypted_content",
    "timestamp",
    "type",
    "role",
    "model",
    "version",
    "cli_version",
];

/// The options a redactor is made from, besides the built-in rules.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The user's home folder (`$HOME`): replaced wherever it appears.
    pub home: Option<String>,
    /// The user's login name: replaced as a whole word.
    pub user: Option<String>,
    /// More rules, `NAME=REGEX` or a bare `REGEX` (named `custom`).
    pub extra: Vec<String>,
    /// Keep images (by default a redacted export replaces each with a placeholder: a
    /// screenshot can show what no rule can read).
    pub keep_images: bool,
}

/// Login names too common to be personal, and too common as words to replace.
const COMMON_USERS: &[&str] = &[
    "root", "user", "admin", "runner", "ubuntu", "debian", "node", "vscode", "ec2-user", "nobody", "build", "test",
    "dev", "app",
];

impl Config {
    /// Home and user name from the environment (`HOME`, `USER`, `LOGNAME`).
    pub fn from_env(extra: Vec<String>, keep_images: bool) -> Config {
        let home = std::env::var("HOME").ok().filter(|h| h.len() > 1);
        let user = std::env::var("USER")
            .ok()
            .or_else(|| std::env::var("LOGNAME").ok())
            .filter(|u| !u.is_empty());
        Config {
            home,
            user,
            extra,
            keep_images,
        }
    }
}

/// The rules and the shared table of one export.
pub struct Redactor {
    rules: Vec<Rule>,
    /// The rules' names, each once, in rule order; the last is `image`.
    labels: Vec<String>,
    set: RegexSet,
    /// Keys that name a secret (`api_key`, `password`): their string values are redacted whole.
    secret_key: Regex,
    keep_images: bool,
    image_rule: usize,
    key_rule: usize,
    table: Mutex<Table>,
}

/// Why a redactor could not be built: a rule that is not a valid pattern.
#[derive(Debug)]
pub struct BadRule(pub String);

impl std::fmt::Display for BadRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A rule given as `NAME=REGEX` (NAME of letters, digits and `-`) or as a bare `REGEX`.
pub fn parse_rule(spec: &str) -> (String, String) {
    if let Some((name, re)) = spec.split_once('=')
        && !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return (name.to_string(), re.to_string());
    }
    ("custom".to_string(), spec.to_string())
}

/// Reads a rules file: one `NAME=REGEX` (or bare `REGEX`) per line; blank lines and lines
/// starting with `#` are skipped. Errors name the file and the line.
pub fn read_rules_file(path: &std::path::Path) -> Result<Vec<String>, BadRule> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadRule(format!("{}: cannot read the redaction rules: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (name, re) = parse_rule(t);
        Regex::new(&re).map_err(|e| {
            BadRule(format!(
                "{}:{}: rule {name} is not a valid regular expression: {e}",
                path.display(),
                i + 1
            ))
        })?;
        out.push(t.to_string());
    }
    Ok(out)
}

impl Redactor {
    pub fn new(cfg: &Config) -> Result<Redactor, BadRule> {
        let mut specs: Vec<(String, String, Check)> = rules::BUILTIN
            .iter()
            .map(|b| (b.name.to_string(), b.pattern.to_string(), b.check))
            .collect();
        if let Some(home) = &cfg.home {
            // The home folder as written, wherever it is (also outside /home and /Users), as
            // a path prefix: `/home/al` must not take the start of `/home/alice`.
            let home = home.trim_end_matches(['/', '\\']);
            if home.len() > 1 && home != "/root" {
                specs.insert(
                    specs.len() - 1,
                    (
                        "home-path".into(),
                        format!(r"{}(?:\b|$)", regex::escape(home)),
                        Check::None,
                    ),
                );
            }
        }
        if let Some(user) = &cfg.user
            && user.chars().count() >= 3
            && !COMMON_USERS.contains(&user.to_ascii_lowercase().as_str())
        {
            specs.push((
                "user-name".into(),
                format!(r"(?i)(?:^|\b){}(?:\b|$)", regex::escape(user)),
                Check::None,
            ));
        }
        for spec in &cfg.extra {
            let (name, re) = parse_rule(spec);
            // Rules of the user come first: what they name is what they want to see.
            specs.insert(0, (name, re, Check::None));
        }
        let mut rules = Vec::with_capacity(specs.len());
        let mut labels: Vec<String> = Vec::new();
        for (name, pattern, check) in specs {
            let re = Regex::new(&pattern)
                .map_err(|e| BadRule(format!("redaction rule {name} is not a valid regular expression: {e}")))?;
            let label = match labels.iter().position(|l| *l == name) {
                Some(l) => l,
                None => {
                    labels.push(name);
                    labels.len() - 1
                }
            };
            rules.push(Rule { label, re, check });
        }
        let set = RegexSet::new(rules.iter().map(|r| r.re.as_str()))
            .map_err(|e| BadRule(format!("the redaction rules cannot be combined: {e}")))?;
        let key_rule = labels.iter().position(|l| l == "secret-assignment").unwrap_or(0);
        labels.push("image".into());
        let image_rule = labels.len() - 1;
        let table = Table {
            numbers: HashMap::new(),
            distinct: vec![0; labels.len()],
            count: vec![0; labels.len()],
        };
        Ok(Redactor {
            rules,
            labels,
            set,
            secret_key: Regex::new(r"^(?i)[A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|pwd|credentials?)$")
                .expect("fixed pattern"),
            keep_images: cfg.keep_images,
            image_rule,
            key_rule,
            table: Mutex::new(table),
        })
    }

    /// The placeholder of `secret` under label `i`, counting the match.
    fn placeholder(&self, i: usize, secret: &str) -> String {
        let mut t = self.table.lock().unwrap_or_else(|p| p.into_inner());
        t.count[i] += 1;
        let next = t.distinct[i] + 1;
        let n = *t.numbers.entry((i, secret.to_string())).or_insert(next);
        if n == next {
            t.distinct[i] = next;
        }
        format!("[REDACTED:{}#{n}]", self.labels[i])
    }

    /// The counts so far, rule by rule in rule order; rules that never matched are left out.
    pub fn report(&self) -> Report {
        let t = self.table.lock().unwrap_or_else(|p| p.into_inner());
        let rules: Vec<RuleCount> = (0..self.labels.len())
            .filter(|&i| t.count[i] > 0)
            .map(|i| RuleCount {
                rule: self.labels[i].clone(),
                count: t.count[i],
                distinct: t.distinct[i],
            })
            .collect();
        Report {
            total: rules.iter().map(|r| r.count).sum(),
            rules,
        }
    }

    /// `s` with every match replaced, or `None` when nothing matched.
    pub fn redact_str(&self, s: &str) -> Option<String> {
        let matched = self.set.matches(s);
        if !matched.matched_any() {
            return None;
        }
        // Spans taken in rule order; a span overlapping one already taken is dropped.
        let mut taken: Vec<(usize, usize, usize)> = Vec::new();
        for i in matched.iter() {
            let rule = &self.rules[i];
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
        if taken.is_empty() {
            return None;
        }
        taken.sort_unstable();
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        for (a, b, i) in taken {
            out.push_str(&s[at..a]);
            out.push_str(&self.placeholder(i, &s[a..b]));
            at = b;
        }
        out.push_str(&s[at..]);
        Some(out)
    }

    /// Redacts every string of `v` in place (object keys excepted; see `docs/export.md`), and
    /// says whether anything changed.
    pub fn redact_value(&self, v: &mut Value) -> bool {
        match v {
            Value::String(s) => match self.redact_string(s) {
                Some(new) => {
                    *s = new;
                    true
                }
                None => false,
            },
            Value::Array(items) => {
                let mut changed = false;
                for i in items {
                    changed |= self.redact_value(i);
                }
                changed
            }
            Value::Object(map) => {
                if !self.keep_images
                    && let Some(text) = self.image_placeholder(map)
                {
                    *v = text;
                    return true;
                }
                let mut changed = false;
                for (k, item) in map.iter_mut() {
                    if STRUCTURAL_KEYS.contains(&k.as_str()) {
                        continue;
                    }
                    if let Value::String(s) = item
                        && self.secret_key.is_match(k)
                        && passes(Check::SecretValue, s, s, 0)
                        && !s.starts_with("[REDACTED:")
                        && s.len() >= 6
                    {
                        *s = self.placeholder(self.key_rule, s);
                        changed = true;
                        continue;
                    }
                    changed |= self.redact_value(item);
                }
                changed
            }
            _ => false,
        }
    }

    /// A string, opened first when it holds a JSON object or array (Codex writes tool
    /// arguments as JSON text): its strings are redacted, and it is written back compact.
    fn redact_string(&self, s: &str) -> Option<String> {
        let t = s.trim();
        let bracketed = (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
        if bracketed
            && let Ok(mut inner) = serde_json::from_str::<Value>(t)
            && (inner.is_object() || inner.is_array())
        {
            return self
                .redact_value(&mut inner)
                .then(|| serde_json::to_string(&inner).unwrap_or_default());
        }
        self.redact_str(s)
    }

    /// The text block that replaces an image block (Anthropic `image`, OpenAI `input_image`),
    /// or `None` when `map` is not one.
    fn image_placeholder(&self, map: &serde_json::Map<String, Value>) -> Option<Value> {
        let ty = map.get("type")?.as_str()?;
        let (data, text_type) = match ty {
            "image" => (
                map.get("source").and_then(|s| s.get("data").or_else(|| s.get("url")))?,
                "text",
            ),
            "input_image" => (map.get("image_url")?, "input_text"),
            _ => return None,
        };
        let data = data.as_str().unwrap_or_default();
        let key = format!("{:016x}:{}", fx(data.as_bytes()), data.len());
        let mut out = serde_json::Map::new();
        out.insert("type".into(), Value::from(text_type));
        out.insert("text".into(), Value::from(self.placeholder(self.image_rule, &key)));
        Some(Value::Object(out))
    }

    /// One JSON Lines record redacted: the bytes as written when nothing matched, else the
    /// record written again. A line that is not JSON is redacted as text.
    pub fn redact_line<'a>(&self, line: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        use std::borrow::Cow;
        let parsed = serde_json::from_slice::<Value>(line)
            .ok()
            .or_else(|| crate::io::json::repair_surrogates(line).and_then(|b| serde_json::from_slice(&b).ok()));
        match parsed {
            Some(mut v) => {
                if self.redact_value(&mut v) {
                    Cow::Owned(serde_json::to_vec(&v).unwrap_or_default())
                } else {
                    Cow::Borrowed(line)
                }
            }
            None => {
                let text = String::from_utf8_lossy(line);
                match self.redact_str(&text) {
                    Some(t) => Cow::Owned(t.into_bytes()),
                    None => Cow::Borrowed(line),
                }
            }
        }
    }
}

/// A 64-bit FNV-1a hash: names an image in the table without keeping its bytes.
fn fx(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether a match passes its rule's check. `whole` and `at` locate it in its string.
fn passes(check: Check, m: &str, whole: &str, at: usize) -> bool {
    match check {
        Check::None => true,
        Check::NotReference => !is_reference(m),
        Check::SecretValue => {
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
        Check::Entropy => m.len() >= 20 && is_random(m),
        Check::Email => {
            let local = m.split('@').next().unwrap_or("");
            !(local == "git" || m.eq_ignore_ascii_case("noreply@anthropic.com") || whole[..at].ends_with("://"))
        }
        Check::HomePath => {
            let name = m.rsplit(['/', '\\']).next().unwrap_or("");
            !matches!(
                name,
                "Shared" | "linuxbrew" | "runner" | "user" | "username" | "USER" | "me" | "you"
            ) && !name.starts_with('$')
        }
    }
}

fn is_reference(m: &str) -> bool {
    m.starts_with('$') || m.starts_with('%') || m.starts_with('<') || m.starts_with("{{") || m.starts_with("${")
}

/// Shannon entropy of at least 3.5 bits a character, with letters and digits both present:
/// what generated tokens have and words, paths and version strings do not.
fn is_random(m: &str) -> bool {
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

#[cfg(test)]
mod tests;
