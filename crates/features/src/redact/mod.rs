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
//! same way. One Aho-Corasick pass over each string finds the keywords of the rules
//! (`ghp_`, `key`, `://`, …); only the rules whose keywords it holds run.
//!
//! An export is redacted in two passes: the first finds the secrets of every file
//! ([`Redactor::learn_value`], `detect.rs`), the second replaces each of them wherever it
//! occurs, in strings, keys and numbers (`walk.rs`, `known.rs`): a token the rules recognise
//! in one place (after `HF_TOKEN=`) is replaced where they cannot (the sentence before it).

mod detect;
mod known;
mod rules;
mod walk;

use std::sync::atomic::{AtomicBool, Ordering};

use aho_corasick::AhoCorasick;
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

/// What a rule's match must also satisfy before it is replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    None,
    /// Not a reference to a secret kept elsewhere (`$TOKEN`, `${{ secrets.X }}`, `<token>`).
    NotReference,
    /// A value in a secret's position: not a reference, not a placeholder, not code.
    SecretValue,
    /// [`Check::SecretValue`], and not a number (`-u 1000:1000` is a user and group id).
    CliPassword,
    /// Long and random enough to be a generated secret.
    Entropy,
    /// At a word's start, or glued to other text with its CRC32 checksum right.
    GithubToken,
    /// Base64 of `user:password`.
    BasicAuth,
    Email,
    HomePath,
}

struct Rule {
    /// Index into [`Redactor::labels`]: rules of one name share their numbers.
    label: usize,
    re: Regex,
    check: Check,
}

/// One rule's line in the report: how often it matched and how many different secrets.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleCount {
    pub(crate) rule: String,
    pub(crate) count: u64,
    pub(crate) distinct: u32,
}

/// The `--json` record of a redaction: never the secrets, only the counts.
#[derive(Serialize, Debug)]
pub struct Report {
    pub(crate) rules: Vec<RuleCount>,
    pub(crate) total: u64,
}

impl Report {
    /// The report as one line for people: each rule's count, or that nothing matched.
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

/// Keys whose values every format uses for what a record is and when it was written, never
/// a secret of the user's; each agent adds the keys it writes to resume a session
/// (`About::structural_keys`: a resume follows `parentUuid`, pairs tool calls by id, sends
/// `signature` and `encrypted_content` back).
const COMMON_STRUCTURAL_KEYS: &[&str] = &["id", "timestamp", "type", "role", "model", "version"];

/// The keys redaction leaves as written: the common ones and every registered agent's.
fn structural_keys() -> Vec<&'static str> {
    let agents = crate::agents::registry::installed().agents();
    let mut keys: Vec<&'static str> = COMMON_STRUCTURAL_KEYS.to_vec();
    keys.extend(agents.iter().flat_map(|a| a.about().structural_keys.iter().copied()));
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The options a redactor is made from, besides the built-in rules.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The user's home folder (`$HOME`): replaced wherever it appears.
    pub(crate) home: Option<String>,
    /// The user's login name: replaced as a whole word.
    pub(crate) user: Option<String>,
    /// More rules, `NAME=REGEX` or a bare `REGEX` (named `custom`).
    pub(crate) extra: Vec<String>,
    /// Keep images (by default a redacted export replaces each with a placeholder: a
    /// screenshot can show what no rule can read).
    pub(crate) keep_images: bool,
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
    /// The keywords of every rule (any case), and per keyword the rules it stands for.
    prefilter: AhoCorasick,
    keyword_rules: Vec<Vec<usize>>,
    /// Rules without keywords (the user's): they run on every string.
    always: Vec<usize>,
    /// Keys that name a secret (`api_key`, `password`): their values are redacted whole.
    secret_key: Regex,
    keep_images: bool,
    image_rule: usize,
    document_rule: usize,
    key_rule: usize,
    known: known::Known,
    /// Every file of the export has been learned: records are only replaced in.
    sealed: AtomicBool,
    /// Keys whose values are never redacted ([`structural_keys`]), sorted.
    structural: Vec<&'static str>,
}

/// Why a redactor could not be built: a rules file that cannot be read, a rule that is not a
/// valid pattern. The causes are said in the sentence, not exposed as `source()`.
#[derive(Debug, thiserror::Error)]
pub enum BadRule {
    /// The rules file cannot be read.
    #[error("{}: cannot read the redaction rules: {cause}", .path.display())]
    Unreadable {
        /// The rules file.
        path: std::path::PathBuf,
        /// Why it cannot be read.
        cause: std::io::Error,
    },
    /// A line of the rules file is not a valid regular expression.
    #[error("{}:{line}: rule {name} is not a valid regular expression: {cause}", .path.display())]
    InFile {
        /// The rules file.
        path: std::path::PathBuf,
        /// The rule's line, from 1.
        line: usize,
        /// The rule's name, as the file gives it.
        name: String,
        /// What the pattern's compiler said.
        cause: regex::Error,
    },
    /// A rule (the user's, from `--redact-rule` or a rules file) is not a valid regular
    /// expression.
    #[error("redaction rule {name} is not a valid regular expression: {cause}")]
    Pattern {
        /// The rule's name, as the user gave it.
        name: String,
        /// What the pattern's compiler said.
        cause: regex::Error,
    },
    /// The rules' keywords are too many for one prefilter.
    #[error("the redaction rules' keywords cannot be combined: {0}")]
    Keywords(aho_corasick::BuildError),
}

/// A rule given as `NAME=REGEX` (NAME of letters, digits and `-`) or as a bare `REGEX`.
pub(crate) fn parse_rule(spec: &str) -> (String, String) {
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
    let text = std::fs::read_to_string(path).map_err(|cause| BadRule::Unreadable {
        path: path.to_path_buf(),
        cause,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (name, re) = parse_rule(t);
        Regex::new(&re).map_err(|cause| BadRule::InFile {
            path: path.to_path_buf(),
            line: i + 1,
            name,
            cause,
        })?;
        out.push(t.to_string());
    }
    Ok(out)
}

/// Secrets found by a search, not numbered yet: [`Redactor::commit`] numbers them in order, so
/// that parts of a file searched in parallel number their secrets as one search in file order
/// would.
#[derive(Default)]
pub(crate) struct Learned {
    /// Each secret with its rule, and whether it is searched for in text (an image's key is
    /// only numbered).
    list: Vec<(usize, String, bool)>,
    seen: std::collections::HashSet<String>,
}

impl Learned {
    fn push(&mut self, label: usize, secret: &str) {
        self.add(label, secret, true);
    }

    /// An image or a document, numbered in order with the secrets but never searched for.
    fn push_unsearched(&mut self, label: usize, key: &str) {
        self.add(label, key, false);
    }

    fn add(&mut self, label: usize, secret: &str, searched: bool) {
        if !self.seen.contains(secret) {
            self.seen.insert(secret.to_string());
            self.list.push((label, secret.to_string(), searched));
        }
    }
}

/// A rule before it is compiled: name, pattern, check, keywords (none: it runs on every string).
type Spec = (String, String, Check, Vec<String>);

impl Redactor {
    /// The built-in rules and those of `cfg`, compiled; a rule that does not compile is
    /// refused with its name rather than left out.
    pub fn new(cfg: &Config) -> Result<Redactor, BadRule> {
        let mut specs: Vec<Spec> = rules::BUILTIN
            .iter()
            .map(|b| {
                // ASCII word boundaries: a Unicode `\b` stops the fast engines at the first
                // non-ASCII character of a transcript.
                let pattern = b.pattern.replace(r"\b", r"(?-u:\b)");
                let keywords = b.keywords.iter().map(|k| k.to_string()).collect();
                (b.name.to_string(), pattern, b.check, keywords)
            })
            .collect();
        if let Some(home) = &cfg.home {
            // The home folder as written, wherever it is (also outside /home and /Users), as
            // a path prefix: `/home/al` must not take the start of `/home/alice`.
            let home = home.trim_end_matches(['/', '\\']);
            if home.len() > 1 && home != "/root" {
                let pattern = format!(r"{}(?:(?-u:\b)|$)", regex::escape(home));
                specs.insert(
                    specs.len() - 1,
                    ("home-path".into(), pattern, Check::None, vec![home.to_string()]),
                );
            }
        }
        if let Some(user) = &cfg.user
            && user.chars().count() >= 3
            && !COMMON_USERS.contains(&user.to_ascii_lowercase().as_str())
        {
            specs.push((
                "user-name".into(),
                format!(r"(?i)(?:^|(?-u:\b)){}(?:(?-u:\b)|$)", regex::escape(user)),
                Check::None,
                vec![user.clone()],
            ));
        }
        for spec in &cfg.extra {
            let (name, re) = parse_rule(spec);
            // Rules of the user come first: what they name is what they want to see.
            specs.insert(0, (name, re, Check::None, Vec::new()));
        }
        let mut rules = Vec::with_capacity(specs.len());
        let mut labels: Vec<String> = Vec::new();
        let mut keywords: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, (name, pattern, check, words)) in specs.into_iter().enumerate() {
            let re = match Regex::new(&pattern) {
                Ok(re) => re,
                Err(cause) => return Err(BadRule::Pattern { name, cause }),
            };
            let label = match labels.iter().position(|l| *l == name) {
                Some(l) => l,
                None => {
                    labels.push(name);
                    labels.len() - 1
                }
            };
            rules.push(Rule { label, re, check });
            if words.is_empty() {
                always.push(i);
            }
            for w in words {
                let w = w.to_ascii_lowercase();
                match keywords.iter().position(|k| *k == w) {
                    Some(k) => keyword_rules[k].push(i),
                    None => {
                        keywords.push(w);
                        keyword_rules.push(vec![i]);
                    }
                }
            }
        }
        let prefilter = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&keywords)
            .map_err(BadRule::Keywords)?;
        let key_rule = labels.iter().position(|l| l == "secret-assignment").unwrap_or(0);
        labels.push("image".into());
        labels.push("document".into());
        Ok(Redactor {
            rules,
            image_rule: labels.len() - 2,
            document_rule: labels.len() - 1,
            known: known::Known::new(labels),
            prefilter,
            keyword_rules,
            always,
            secret_key: Regex::new(
                r"^(?i)[A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|pwd|credentials?|private_key_id)$",
            )
            .expect("fixed pattern"),
            keep_images: cfg.keep_images,
            key_rule,
            sealed: AtomicBool::new(false),
            structural: structural_keys(),
        })
    }

    /// The counts so far, rule by rule in rule order; rules that never matched are left out.
    pub fn report(&self) -> Report {
        let rules: Vec<RuleCount> = self
            .known
            .counts()
            .into_iter()
            .map(|(rule, count, distinct)| RuleCount { rule, count, distinct })
            .collect();
        Report {
            total: rules.iter().map(|r| r.count).sum(),
            rules,
        }
    }

    /// Says that every record of the export has been learned ([`Redactor::learn_value`]):
    /// from now on records are only replaced in, not searched again.
    pub fn seal(&self) {
        self.sealed.store(true, Ordering::Release);
    }

    /// Numbers the secrets of a search, in the order found.
    pub(crate) fn commit(&self, found: Learned) {
        for (label, secret, searched) in found.list {
            let got = self.known.learn(label, &secret, searched);
            if !searched {
                // An image or document found is counted among the distinct, as when the
                // search numbered it itself.
                self.known.count_seen(got);
            }
        }
    }

    /// Finds the secrets of every string, key and secret-named value of `v`, so that every
    /// other occurrence of each is replaced too.
    pub(crate) fn learn_value(&self, v: &Value) {
        let mut found = Learned::default();
        self.find_value(v, &mut found);
        self.commit(found);
    }

    fn learn_str(&self, s: &str) {
        let mut found = Learned::default();
        self.find_str(s, &mut found);
        self.commit(found);
    }

    /// Whether every record has been learned (records are then only replaced in, and may be
    /// in parallel).
    pub(crate) fn is_sealed(&self) -> bool {
        self.sealed.load(Ordering::Acquire)
    }

    /// `s` with every secret replaced (those found in it and those found before), or `None`
    /// when it holds none.
    pub(crate) fn redact_str(&self, s: &str) -> Option<String> {
        self.learn_str(s);
        self.known.replace(s)
    }

    /// Redacts every string and key of `v` in place, and says whether anything changed.
    pub(crate) fn redact_value(&self, v: &mut Value) -> bool {
        if !self.sealed.load(Ordering::Acquire) {
            self.learn_value(v);
        }
        self.replace_value(v)
    }

    /// `text` with every secret replaced, those found in it and those found before (the
    /// same secret keeps its placeholder), or `None` when it holds none: for a text handed
    /// out that is not a record (the MCP server's answers).
    pub fn redact_text(&self, text: &str) -> Option<String> {
        self.redact_str(text)
    }

    /// Learns the secrets of a text that is not a record (a file's name).
    pub(crate) fn learn_text(&self, s: &str) {
        self.learn_str(s);
    }

    /// Learns the secrets of one JSON Lines record, or of a line that is not JSON as text.
    #[cfg(test)]
    pub(crate) fn learn_line(&self, line: &[u8]) {
        let mut found = Learned::default();
        self.find_line(line, &mut found);
        self.commit(found);
    }

    /// Finds the secrets of one JSON Lines record, or of a line that is not JSON as text.
    pub(crate) fn find_line(&self, line: &[u8], out: &mut Learned) {
        match parse_line(line) {
            Some(v) => self.find_value(&v, out),
            None => self.find_str(&String::from_utf8_lossy(line), out),
        }
    }

    /// One JSON Lines record redacted: the bytes as written when nothing matched, else the
    /// record written again. A line that is not JSON is redacted as text.
    pub(crate) fn redact_line<'a>(&self, line: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        use std::borrow::Cow;
        match parse_line(line) {
            Some(mut v) => {
                if self.redact_value(&mut v) {
                    Cow::Owned(crate::io::json::to_json(&v).into_bytes())
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

/// A line as JSON, lone surrogates repaired, a container past the caps kept as its text;
/// `None` when it is not JSON.
fn parse_line(line: &[u8]) -> Option<Value> {
    // A line nested deeper than serde_json reads is redacted as text, as it always was.
    crate::io::json::serde_reads(line)
        .then(|| crate::io::json::parse_kept(line))
        .flatten()
}

#[cfg(test)]
mod tests;
