//! What a view reports of the request's model and settings: the assumptions made, the
//! settings read, and the request fields the model is sent with.

use super::*;

/// The text cctool puts where the client writes its environment block into a system
/// message: that block describes the machine that resumes (working directory, platform,
/// tools, agents, skills, date), which a file does not tell.
pub const ENVIRONMENT_BLOCK: &str = "# Environment\n[written by the client when it sends: working directory, platform and OS, model name and knowledge cutoff, deferred tools, agent types, skills, date]";

/// Everything the answer assumed, for the `api_view` record.
#[derive(Serialize, Debug, Clone)]
pub struct Assumptions {
    /// The client release the answer emulates.
    pub client: &'static str,
    /// The time of the resume, as text.
    pub as_of: String,
    /// Whether that time was given (`--as-of`) rather than read from the clock.
    pub as_of_given: bool,
    /// The time zone's name.
    pub time_zone: String,
    /// The provider requests go to.
    pub provider: &'static str,
    /// `ANTHROPIC_BASE_URL`, when set.
    pub base_url: Option<String>,
    /// Where the base URL came from.
    pub base_url_from: Option<&'static str>,
    /// The settings files looked for, and what became of each.
    pub settings: Vec<SettingsRead>,
    /// The `model` setting in force, if any.
    pub settings_model: Option<String>,
    /// What set the model explicitly (`--model`, `ANTHROPIC_MODEL`…), if anything did.
    pub explicit: Option<String>,
    /// The model a resume falls back to when it does not restore the session's.
    pub default_model: String,
    /// What that default assumes about the login.
    pub default_model_assumes: &'static str,
    /// Why the thinking policy is what it is.
    pub thinking_policy_because: String,
}

/// One settings file, as the report shows it.
#[derive(Serialize, Debug, Clone)]
pub struct SettingsRead {
    /// `user`, `project`, `local`, `managed` or `given`.
    pub scope: &'static str,
    /// The file's path.
    pub path: String,
    /// `read`, `absent`, or why it was ignored.
    pub status: String,
}

impl RequestModel {
    /// What the answer assumed, given the configuration it was chosen under.
    pub fn assumptions(&self, cfg: &Config) -> Assumptions {
        Assumptions {
            client: CLIENT.version,
            as_of: cfg.now_text(),
            as_of_given: cfg.now_given,
            time_zone: cfg.tz_name.clone(),
            provider: self.provider.name(),
            base_url: cfg.base_url().map(str::to_string),
            base_url_from: cfg.base_url_from.filter(|_| cfg.base_url().is_some()),
            settings: cfg
                .settings_files
                .iter()
                .map(|f| SettingsRead {
                    scope: f.scope,
                    path: f.path.display().to_string(),
                    status: f.status.clone(),
                })
                .collect(),
            settings_model: cfg.settings_model.clone(),
            explicit: self.explicit_by.clone(),
            default_model: default_model(cfg, &CLIENT),
            default_model_assumes: DEFAULT_ASSUMPTION,
            thinking_policy_because: self.policy_reason.clone(),
        }
    }

    /// What a person reads before the messages: the model and why, the policy, the
    /// assumptions.
    pub fn statement(&self, cfg: &Config, body: bool) -> String {
        let mut out = Vec::new();
        let session = self.session_model.as_deref().unwrap_or("none");
        let why = match self.how {
            How::Restored => format!(
                "restored: the session's own model (line {})",
                self.session_line.unwrap_or(0)
            ),
            How::Explicit => format!("explicit: {}", self.explicit_by.as_deref().unwrap_or("configured")),
            How::ModeSetting => format!(
                "the setting {} overrides the session's model {session}",
                cfg.settings_model.as_deref().unwrap_or("?")
            ),
            _ => format!("{}; the session's model is {session}", self.choice()),
        };
        out.push(format!("model {} ({why})", self.model));
        if let Some(n) = &self.notice {
            out.push(format!("the client notes: {n}"));
        }
        if let (Some(d), Some(m)) = (self.session_retires, self.session_model.as_deref())
            && self.how == How::Restored
        {
            out.push(format!(
                "{m} is retired from {d} (local midnight): a resume from then on uses {}",
                configured(cfg, &CLIENT).0
            ));
        }
        out.push(format!(
            "thinking of other models: {} ({})",
            self.policy.name(),
            self.policy_reason
        ));
        if body {
            let f = self.fields;
            let thinking = match f.thinking {
                table::Thinking::Off => "off".to_string(),
                table::Thinking::Budget(n) => format!("enabled, budget {n}"),
                table::Thinking::Adaptive => "adaptive".to_string(),
            };
            out.push(format!(
                "max_tokens {}, thinking {thinking}, effort {}",
                f.max_tokens,
                f.effort.unwrap_or("none")
            ));
        }
        let a = self.assumptions(cfg);
        let settings: Vec<String> = a
            .settings
            .iter()
            .map(|s| format!("{} {} ({})", s.scope, s.path, s.status))
            .collect();
        out.push(format!(
            "assuming: {} {} ({}), provider {}, base URL {}, settings: {}; default model {} ({})",
            if a.as_of_given { "at" } else { "now," },
            a.as_of,
            a.time_zone,
            a.provider,
            a.base_url.as_deref().unwrap_or("api.anthropic.com (none set)"),
            if settings.is_empty() {
                "none".to_string()
            } else {
                settings.join(", ")
            },
            a.default_model,
            a.default_model_assumes
        ));
        out.join("\n")
    }

    /// The request body as the client would send it, without what only the machine knows
    /// (system prompt, tools, metadata): the model, `messages` (each given as the JSON of
    /// one message) with the system messages the model takes, and the model's fields, in the
    /// client's key order.
    pub fn body<'m>(&self, messages: impl Iterator<Item = &'m str>) -> String {
        let f = self.fields;
        let env = || {
            let text = match f.system_turns {
                table::SystemTurns::TrailingReminder => {
                    format!("<system-reminder>\n{ENVIRONMENT_BLOCK}\n</system-reminder>")
                }
                _ => ENVIRONMENT_BLOCK.to_string(),
            };
            json!({"role": "system", "content": [{"type": "text", "text": text}]}).to_string()
        };
        let mut msgs: Vec<String> = Vec::new();
        for (i, m) in messages.enumerate() {
            msgs.push(m.to_string());
            if i == 0 && f.system_turns == table::SystemTurns::EffortAndTrailing {
                msgs.push(
                    json!({"role": "system", "content": [], "output_config": {"effort": f.effort.unwrap_or("medium")}})
                        .to_string(),
                );
            }
        }
        if f.system_turns != table::SystemTurns::None {
            msgs.push(env());
        }
        let mut out = format!(
            "{{\"model\":{},\"messages\":[{}],\"max_tokens\":{}",
            Value::String(self.model.clone()),
            msgs.join(","),
            f.max_tokens
        );
        match f.thinking {
            table::Thinking::Off => {}
            table::Thinking::Budget(n) => out.push_str(&format!(
                ",\"thinking\":{{\"budget_tokens\":{n},\"type\":\"enabled\",\"display\":\"omitted\"}}"
            )),
            table::Thinking::Adaptive => out.push_str(",\"thinking\":{\"type\":\"adaptive\",\"display\":\"omitted\"}"),
        }
        if f.context_management {
            out.push_str(
                ",\"context_management\":{\"edits\":[{\"type\":\"clear_thinking_20251015\",\"keep\":\"all\"}]}",
            );
        }
        if let Some(e) = f.effort {
            out.push_str(&format!(
                ",\"output_config\":{{\"effort\":{}}}",
                Value::String(e.into())
            ));
        }
        out.push('}');
        out
    }
}
