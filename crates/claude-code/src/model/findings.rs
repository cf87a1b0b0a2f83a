//! Doctor's findings about the model a resume asks for: retired, retiring soon, or a
//! silent change of model that costs the session's thinking.

use super::*;

/// `doctor`: the session's model is retired, so a resume now sends another model.
pub const SESSION_MODEL_RETIRED: cctool_core::model::diag::Code = cctool_core::model::diag::Code::SessionModelRetired;
/// `doctor`: the session's model retires within [`RETIRING_WITHIN_DAYS`] days.
pub const SESSION_MODEL_RETIRING: cctool_core::model::diag::Code = cctool_core::model::diag::Code::SessionModelRetiring;
/// How far ahead `doctor` warns of a retirement.
pub const RETIRING_WITHIN_DAYS: i64 = 30;

/// What a resume under `rm` loses against the session's own model: the other request
/// fields, and the messages whose thinking the policy removes.
pub(super) fn loss(rm: &RequestModel, view: &crate::api::ApiView) -> String {
    let f = rm.fields;
    let thinking = match f.thinking {
        table::Thinking::Off => "no thinking".to_string(),
        table::Thinking::Budget(n) => format!("thinking budget {n}"),
        table::Thinking::Adaptive => "adaptive thinking".to_string(),
    };
    let stripped = view.fired.get("A5").copied().unwrap_or(0);
    let dropped = if stripped > 0 {
        format!(
            "the thinking of {stripped} assistant message{} is removed (thinking policy {}: {})",
            if stripped == 1 { "" } else { "s" },
            rm.policy.name(),
            rm.policy_reason
        )
    } else {
        format!(
            "no thinking is removed (thinking policy {}: {})",
            rm.policy.name(),
            rm.policy_reason
        )
    };
    format!(
        "{} instead (max_tokens {}, {thinking}{}); {dropped}",
        rm.model,
        f.max_tokens,
        f.effort.map(|e| format!(", effort {e}")).unwrap_or_default()
    )
}

/// `doctor`'s model findings for a transcript: a session model retired at the configured time
/// ([`SESSION_MODEL_RETIRED`], a warning: the resume changes model and may lose thinking), or
/// retiring within 30 days ([`SESSION_MODEL_RETIRING`], info).
pub fn doctor_findings(
    t: &Transcript,
    chain: &Chain,
    src: &Source,
    overrides: &crate::config::Overrides,
) -> std::io::Result<Vec<cctool_core::model::diag::Diagnostic>> {
    use cctool_core::model::diag::{Diagnostic, Severity};
    let cwd = session_cwd(t, chain, src)?;
    let cfg = Config::load(overrides, cwd.as_deref(), &|k| std::env::var(k).ok()).map_err(std::io::Error::other)?;
    let rm = choose(t, chain, src, &cfg)?;
    let (Some(model), Some(line)) = (rm.session_model.clone(), rm.session_line) else {
        return Ok(Vec::new());
    };
    let finding = |code: cctool_core::model::diag::Code, severity: Severity, message: String| Diagnostic {
        kind: "finding",
        ..Diagnostic::new(t.file.as_str(), Some(line), code, severity, message)
    };
    let mut out = Vec::new();
    if rm.how == How::Retired {
        let view = crate::api::api_view(t, chain, src, None, &rm)?;
        let since = match (rm.session_retires, rm.session_remapped) {
            (_, true) => "is a legacy model the client runs as the latest Opus".to_string(),
            (Some(d), false) => format!("is retired since {d}"),
            (None, false) => "is retired".to_string(),
        };
        out.push(finding(
            SESSION_MODEL_RETIRED,
            Severity::Warning,
            format!(
                "the session's model {model} {since} (Claude Code {}, at {}): a resume sends {}",
                CLIENT.version,
                cfg.now_text(),
                loss(&rm, &view)
            ),
        ));
    } else if rm.how == How::Restored
        && let Some(d) = rm.session_retires
        && let Some(days) = cfg.days_until(d)
        && (0..=RETIRING_WITHIN_DAYS).contains(&days)
    {
        let mut then = cfg.clone();
        then.now_ms = then
            .tz
            .to_ambiguous_timestamp(
                jiff::civil::Date::new(d.year, d.month, d.day)
                    .map_err(std::io::Error::other)?
                    .to_datetime(jiff::civil::Time::midnight()),
            )
            .compatible()
            .map_err(std::io::Error::other)?
            .as_millisecond()
            + 1;
        let later = choose(t, chain, src, &then)?;
        let view = crate::api::api_view(t, chain, src, None, &later)?;
        out.push(finding(
            SESSION_MODEL_RETIRING,
            Severity::Info,
            format!(
                "the session's model {model} retires on {d} (local midnight, in {days} day{}): a resume from then on sends {}",
                if days == 1 { "" } else { "s" },
                loss(&later, &view)
            ),
        ));
    }
    Ok(out)
}
