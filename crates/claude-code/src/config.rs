//! The user's configuration as Claude Code reads it when it resumes a session: its settings
//! files, the environment, the time and the time zone (`docs/claude-code-model.md`).
//!
//! By default cctool reads the user's own configuration, as the client would on this machine
//! now; every part can be given explicitly instead ([`Overrides`]), and every part used is
//! listed in [`Config::assumptions`] so that the output says what it assumed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use serde_json::Value;

use super::client::{Date, Provider};

/// The environment variables the model rule, the provider and the thinking policy read.
pub const ENV_VARS: &[&str] = &[
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_MODEL",
    "ANTHROPIC_DEFAULT_FABLE_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_USE_ANTHROPIC_AWS",
    "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD",
    "CLAUDE_CODE_USE_MANTLE",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP",
    "CLAUDE_CODE_RUSTLING_PIXEL",
    "_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL",
];

pub use cctool_core::model::resume::{Overrides, ThinkingPolicy};

/// A thinking policy as the client reads a value: `all` and `none` as such, anything else
/// as `upgrade`.
fn read_policy(v: &str) -> ThinkingPolicy {
    match v {
        "all" => ThinkingPolicy::All,
        "none" => ThinkingPolicy::None,
        _ => ThinkingPolicy::Upgrade,
    }
}

/// One settings file and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsFile {
    /// `user`, `project`, `local`, `managed` or `given`.
    pub scope: &'static str,
    /// The file's path.
    pub path: PathBuf,
    /// `read`, `absent`, or why it was ignored.
    pub status: String,
}

/// The configuration a resume would run with.
#[derive(Clone, Debug)]
pub struct Config {
    /// The time of the resume, in milliseconds since the epoch.
    pub now_ms: i64,
    /// Whether the time was given (`--as-of`) rather than read from the clock.
    pub now_given: bool,
    /// The time zone of the resume, for local dates (retirements).
    pub tz: TimeZone,
    /// The time zone's name as the user set it (`TZ`) or as the system names it.
    pub tz_name: String,
    /// The environment after the settings files' `env` maps (which the client applies over
    /// the process environment), restricted to [`ENV_VARS`].
    pub env: BTreeMap<String, String>,
    /// Where `ANTHROPIC_BASE_URL` came from, when set.
    pub base_url_from: Option<&'static str>,
    /// `--model`, as given.
    pub cli_model: Option<String>,
    /// The `model` setting of the highest-precedence settings file that has one.
    pub settings_model: Option<String>,
    /// The `availableModels` setting.
    pub available_models: Option<Vec<String>>,
    /// The settings files looked for, in the order read, and what became of each.
    pub settings_files: Vec<SettingsFile>,
    /// The thinking policy given on the command line, which overrides the configured one.
    pub forced_policy: Option<ThinkingPolicy>,
}

fn truthy(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")
}

/// Why the configuration a resume would use cannot be read: an option given on the command
/// line that is not usable. (Settings files found in their usual places that cannot be read
/// are noted in the report, as the client ignores them.)
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--as-of` that is neither a date nor a time.
    #[error(
        "--as-of {given}: not a date or time; give e.g. 2027-01-22, 2027-01-22T09:30 (local) or 2027-01-22T09:30:00Z"
    )]
    AsOf {
        /// The value given.
        given: String,
    },
    /// A local time that does not exist in the time zone (skipped by a clock change).
    #[error("--as-of {given}: {cause}")]
    AsOfLocal {
        /// The value given.
        given: String,
        /// Why the time zone rejects it.
        cause: jiff::Error,
    },
    /// `--settings FILE` that is not a JSON settings object (`status` says what it is).
    #[error("{}: {status}; give a JSON settings object (or an empty file for none)", .path.display())]
    Settings {
        /// The file given.
        path: PathBuf,
        /// What the file is instead: the status the settings report gives every file
        /// ([`SettingsFile::status`], text of its JSON record), so a String.
        status: String,
    },
}

impl Config {
    /// Reads the configuration: the settings files for a session whose working directory was
    /// `cwd`, and the variables `env` gives (the process environment in the CLI).
    pub fn load(
        o: &Overrides,
        cwd: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let tz_env = env("TZ");
        let (tz, tz_name) = time_zone(tz_env.as_deref());
        let (now_ms, now_given) = match &o.as_of {
            Some(s) => (parse_as_of(s, &tz)?, true),
            None => (Timestamp::now().as_millisecond(), false),
        };
        let mut vars: BTreeMap<String, String> = ENV_VARS
            .iter()
            .filter_map(|k| env(k).map(|v| (k.to_string(), v)))
            .collect();
        let mut files = Vec::new();
        let mut merged = serde_json::Map::new();
        let layers: Vec<(&'static str, PathBuf)> = match &o.settings {
            Some(p) => vec![("given", p.clone())],
            None => settings_paths(cwd, env),
        };
        for (scope, path) in layers {
            let (status, doc) = read_settings(&path);
            if scope == "given" && status != "read" {
                return Err(ConfigError::Settings { path, status });
            }
            files.push(SettingsFile { scope, path, status });
            if let Some(Value::Object(m)) = doc {
                for (k, v) in m {
                    if k == "env"
                        && let (Some(Value::Object(old)), Value::Object(new)) = (merged.get_mut("env"), &v)
                    {
                        for (ek, ev) in new {
                            old.insert(ek.clone(), ev.clone());
                        }
                        continue;
                    }
                    merged.insert(k, v);
                }
            }
        }
        let mut base_url_from = vars.contains_key("ANTHROPIC_BASE_URL").then_some("environment");
        if let Some(Value::Object(e)) = merged.get("env") {
            for (k, v) in e {
                if !ENV_VARS.contains(&k.as_str()) {
                    continue;
                }
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                if k == "ANTHROPIC_BASE_URL" {
                    base_url_from = Some("settings env");
                }
                vars.insert(k.clone(), text);
            }
        }
        if let Some(u) = &o.base_url {
            vars.insert("ANTHROPIC_BASE_URL".into(), u.clone());
            base_url_from = Some("--base-url");
        }
        let settings_model = merged
            .get("model")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let available_models = merged.get("availableModels").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_ascii_lowercase())
                .collect()
        });
        Ok(Config {
            now_ms,
            now_given,
            tz,
            tz_name,
            env: vars,
            base_url_from,
            cli_model: o.model.clone(),
            settings_model,
            available_models,
            settings_files: files,
            forced_policy: o.thinking_policy,
        })
    }

    /// The value of environment variable `k` as the resume sees it; `None` when unset or empty.
    pub fn var(&self, k: &str) -> Option<&str> {
        self.env.get(k).map(String::as_str).filter(|v| !v.is_empty())
    }

    fn flag(&self, k: &str) -> bool {
        self.var(k).is_some_and(truthy)
    }

    /// The provider, from the `CLAUDE_CODE_USE_*` variables in the client's order.
    pub fn provider(&self) -> Provider {
        const ORDER: &[(&str, Provider)] = &[
            ("CLAUDE_CODE_USE_BEDROCK", Provider::Bedrock),
            ("CLAUDE_CODE_USE_FOUNDRY", Provider::Foundry),
            ("CLAUDE_CODE_USE_ANTHROPIC_AWS", Provider::AnthropicAws),
            ("CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD", Provider::AnthropicGoogleCloud),
            ("CLAUDE_CODE_USE_MANTLE", Provider::Mantle),
            ("CLAUDE_CODE_USE_VERTEX", Provider::Vertex),
        ];
        ORDER
            .iter()
            .find(|(k, _)| self.flag(k))
            .map_or(Provider::FirstParty, |(_, p)| *p)
    }

    /// `ANTHROPIC_BASE_URL` as the client would use it.
    pub fn base_url(&self) -> Option<&str> {
        self.var("ANTHROPIC_BASE_URL")
    }

    /// Whether requests go to Anthropic's own API (no base URL, or one whose host is
    /// `api.anthropic.com`), or the client is told to behave as if they did.
    pub fn anthropic_base_url(&self) -> bool {
        self.flag("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL") || self.base_url().is_none_or(is_anthropic_url)
    }

    /// The thinking policy and why: `none` unless the requests go to Anthropic's own API,
    /// then `CLAUDE_CODE_RUSTLING_PIXEL`, else the built-in default `all`.
    pub fn thinking_policy(&self) -> (ThinkingPolicy, String) {
        if let Some(p) = self.forced_policy {
            return (p, "given (--thinking-policy)".into());
        }
        if self.provider() != Provider::FirstParty {
            return (
                ThinkingPolicy::None,
                format!("provider {} is not Anthropic's own API", self.provider().name()),
            );
        }
        if !self.anthropic_base_url() {
            return (
                ThinkingPolicy::None,
                format!(
                    "base URL {} is not Anthropic's own API",
                    self.base_url().unwrap_or_default()
                ),
            );
        }
        if let Some(v) = self.var("CLAUDE_CODE_RUSTLING_PIXEL") {
            return (read_policy(v), format!("CLAUDE_CODE_RUSTLING_PIXEL={v}"));
        }
        (
            ThinkingPolicy::All,
            "the client's built-in default for Anthropic's own API (a server flag can change it)".into(),
        )
    }

    /// The resume time as RFC 3339 in UTC.
    pub fn now_text(&self) -> String {
        Timestamp::from_millisecond(self.now_ms).map_or_else(|_| self.now_ms.to_string(), |t| t.to_string())
    }

    /// Whether `date` (a local calendar day) has begun before now, as the client decides it:
    /// against UTC midnight when now is at least a day away from it, else against local
    /// midnight in the time zone.
    pub fn is_past(&self, date: Date) -> bool {
        let Ok(day) = jiff::civil::Date::new(date.year, date.month, date.day) else {
            return false;
        };
        let utc = day
            .to_datetime(jiff::civil::Time::midnight())
            .to_zoned_datetime(TimeZone::UTC)
            .map(|z| z.timestamp().as_millisecond());
        let Ok(utc) = utc else { return false };
        let cut = if (self.now_ms - utc).abs() >= 86_400_000 {
            utc
        } else {
            self.tz
                .to_ambiguous_timestamp(day.to_datetime(jiff::civil::Time::midnight()))
                .compatible()
                .map_or(utc, Timestamp::as_millisecond)
        };
        cut < self.now_ms
    }

    /// Days from now to the local midnight that starts `date` (negative when past).
    pub fn days_until(&self, date: Date) -> Option<i64> {
        let day = jiff::civil::Date::new(date.year, date.month, date.day).ok()?;
        let at = self
            .tz
            .to_ambiguous_timestamp(day.to_datetime(jiff::civil::Time::midnight()))
            .compatible()
            .ok()?
            .as_millisecond();
        let left = at - self.now_ms;
        Some(left.div_euclid(86_400_000) + i64::from(left.rem_euclid(86_400_000) != 0))
    }
}

/// `https://api.anthropic.com`, or any URL whose host is `api.anthropic.com`.
pub fn is_anthropic_url(u: &str) -> bool {
    if u == "https://api.anthropic.com" {
        return true;
    }
    let Some((scheme, rest)) = u.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("").to_ascii_lowercase();
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "https" => Some("443"),
        "http" => Some("80"),
        _ => None,
    };
    let host = match host_port.rsplit_once(':') {
        Some((h, p)) if Some(p) == default_port => h.to_string(),
        _ => host_port,
    };
    host == "api.anthropic.com"
}

/// The time zone the client would use: `TZ` (an IANA name, a file, or a POSIX rule), else the
/// system's; an unusable `TZ` falls back to UTC.
fn time_zone(tz: Option<&str>) -> (TimeZone, String) {
    match tz {
        Some(v) => {
            let name = v.strip_prefix(':').unwrap_or(v);
            let z = if name.starts_with('/') {
                std::fs::read(name).ok().and_then(|b| TimeZone::tzif(name, &b).ok())
            } else {
                TimeZone::get(name).ok().or_else(|| TimeZone::posix(name).ok())
            };
            match z {
                Some(z) => (z, name.to_string()),
                None => (TimeZone::UTC, format!("{name} (not a time zone; UTC used)")),
            }
        }
        None => {
            let z = TimeZone::system();
            let name = z.iana_name().unwrap_or("system local time").to_string();
            (z, name)
        }
    }
}

/// `--as-of`: an RFC 3339 time (`2026-11-29T12:00:00Z`, with an offset), a local date and
/// time (`2026-11-29T12:00`), or a date alone (local noon that day).
pub fn parse_as_of(s: &str, tz: &TimeZone) -> Result<i64, ConfigError> {
    let s = s.trim();
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(t.as_millisecond());
    }
    let noon = jiff::civil::Time::new(12, 0, 0, 0).unwrap_or_default();
    let local = match s.parse::<jiff::civil::Date>() {
        Ok(d) if s.len() == 10 => Some(d.to_datetime(noon)),
        _ => s.parse::<DateTime>().ok(),
    };
    let Some(dt) = local else {
        return Err(ConfigError::AsOf { given: s.to_string() });
    };
    tz.to_ambiguous_timestamp(dt)
        .compatible()
        .map(Timestamp::as_millisecond)
        .map_err(|cause| ConfigError::AsOfLocal {
            given: s.to_string(),
            cause,
        })
}

/// The settings files the client reads, lowest precedence first: user (`CLAUDE_CONFIG_DIR`
/// or `~/.claude`), project (`<cwd>/.claude/settings.json`), local (`settings.local.json`
/// in the repository's top folder, or the working directory), managed.
fn settings_paths(cwd: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    let home = env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let config_dir = env("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".claude")));
    if let Some(dir) = config_dir {
        out.push(("user", dir.join("settings.json")));
    }
    if let Some(cwd) = cwd {
        out.push(("project", cwd.join(".claude").join("settings.json")));
        let local_root = local_settings_root(cwd, home.as_deref());
        out.push(("local", local_root.join(".claude").join("settings.local.json")));
    }
    out.push(("managed", PathBuf::from("/etc/claude-code/managed-settings.json")));
    out
}

/// Where the client keeps local settings: the top folder of the git work tree holding `cwd`
/// when that is not the home folder and belongs to the user running it, else `cwd`.
fn local_settings_root(cwd: &Path, home: Option<&Path>) -> PathBuf {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            if d == cwd || Some(d) == home || !owned_by_me(d) {
                return cwd.to_path_buf();
            }
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    cwd.to_path_buf()
}

/// Whether the effective user of this process owns `p` (the owner of `/proc/self`).
fn owned_by_me(p: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(p), std::fs::metadata("/proc/self")) {
            (Ok(a), Ok(me)) => a.uid() == me.uid(),
            _ => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = p;
        false
    }
}

/// A settings file's status and content. The client ignores a file it cannot parse (and
/// says so); an empty file holds no settings.
fn read_settings(path: &Path) -> (String, Option<Value>) {
    match std::fs::read(path) {
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => ("read".into(), Some(Value::Object(Default::default()))),
        Ok(b) => match serde_json::from_slice::<Value>(&b) {
            Ok(v @ Value::Object(_)) => ("read".into(), Some(v)),
            Ok(_) => ("not a JSON object, ignored".into(), None),
            Err(e) => (format!("invalid JSON ({e}), ignored"), None),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ("absent".into(), None),
        Err(e) => (format!("unreadable ({e}), ignored"), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(as_of: &str, tz: &str) -> Config {
        let env = |k: &str| (k == "TZ").then(|| tz.to_string());
        Config::load(
            &Overrides {
                as_of: Some(as_of.into()),
                settings: Some(PathBuf::from("/dev/null")),
                ..Overrides::default()
            },
            None,
            &env,
        )
        .unwrap()
    }

    const NOV30: Date = Date {
        year: 2026,
        month: 11,
        day: 30,
    };

    #[test]
    fn a_day_begins_at_local_midnight() {
        assert!(!cfg("2026-11-29T23:59:59Z", "UTC").is_past(NOV30));
        assert!(
            !cfg("2026-11-30T00:00:00Z", "UTC").is_past(NOV30),
            "not before midnight itself"
        );
        assert!(cfg("2026-11-30T00:00:00.001Z", "UTC").is_past(NOV30));
        let la = "PST8PDT,M3.2.0,M11.1.0";
        assert!(!cfg("2026-11-30T07:59:59Z", la).is_past(NOV30));
        assert!(cfg("2026-11-30T08:00:01Z", la).is_past(NOV30));
        assert!(!cfg("2026-11-29T14:59:59Z", "JST-9").is_past(NOV30));
        assert!(cfg("2026-11-29T15:00:01Z", "JST-9").is_past(NOV30));
        // Far from the date, UTC midnight decides, which agrees with every local midnight.
        assert!(cfg("2026-12-05T00:00:00Z", la).is_past(NOV30));
        assert!(!cfg("2026-11-25T00:00:00Z", "JST-9").is_past(NOV30));
    }

    #[test]
    fn as_of_reads_instants_local_times_and_dates() {
        let la = TimeZone::posix("PST8PDT,M3.2.0,M11.1.0").unwrap();
        let ms = |s: &str| parse_as_of(s, &la).unwrap();
        assert_eq!(ms("2026-11-30T08:00:00Z"), ms("2026-11-30T00:00:00"));
        assert_eq!(ms("2026-11-30"), ms("2026-11-30T20:00:00Z"));
        assert_eq!(ms("2026-11-30T00:00:00-08:00"), ms("2026-11-30T08:00:00Z"));
        assert!(parse_as_of("yesterday", &la).is_err());
    }

    #[test]
    fn anthropic_urls() {
        assert!(is_anthropic_url("https://api.anthropic.com"));
        assert!(is_anthropic_url("https://api.anthropic.com/"));
        assert!(is_anthropic_url("https://API.anthropic.com:443/v1"));
        assert!(!is_anthropic_url("https://api.anthropic.com:8443"));
        assert!(!is_anthropic_url("http://127.0.0.1:9"));
        assert!(!is_anthropic_url("https://proxy.example.com/api.anthropic.com"));
        assert!(!is_anthropic_url("api.anthropic.com"));
    }

    #[test]
    fn days_until_counts_started_days() {
        let c = cfg("2026-11-29T12:00:00Z", "UTC");
        assert_eq!(c.days_until(NOV30), Some(1));
        let c = cfg("2026-10-31T00:00:00Z", "UTC");
        assert_eq!(c.days_until(NOV30), Some(30));
    }
}
