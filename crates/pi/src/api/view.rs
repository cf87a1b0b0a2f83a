//! What `rebuild-chain --api-view` prints of a pi session: the request's messages one JSON
//! object a line (the system prompt first), the whole body with `--body`, or the messages
//! rendered with `--format`.

use serde_json::Value;

use cctool_core::agents::view::{ApiViewSummary, ChainOptions, Report};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::events::{Call, Outcome, Part, Record};
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};

/// Prints the request pi sends after resuming `src` and returns the closing record.
pub(crate) fn api_view(
    src: &Source,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let s = crate::answers::read(src)?;
    let t = crate::tree::Tree::of(&s);
    // The folder pi names in its prompt's documentation paths, which it takes from there too.
    let package = std::env::var("PI_PACKAGE_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| super::DEFAULT_PACKAGE_DIR.to_string());
    let body = super::body(&s, &t, a.prompt.as_deref(), &package).map_err(cctool_core::error::Error::agent)?;
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let whole = cctool_core::io::json::to_json(&body);
    if a.body && style.is_none() {
        out.record(whole.as_bytes())?;
    } else {
        for (i, m) in msgs.iter().enumerate() {
            match &style {
                None => out.record(cctool_core::io::json::to_json(m).as_bytes())?,
                Some(st) => {
                    let mut block = render::record_block(st, &record(m), None);
                    block.id = Some(format!("#{}", i + 1));
                    out.text(&render::render(st, &block))?;
                }
            }
        }
    }
    let summary = ApiViewSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        sent_by: Some(super::CLIENT),
        client: super::CLIENT,
        loader: None,
        model: body["model"].as_str().map(str::to_string),
        model_choice: None,
        model_entry: None,
        session_model: None,
        session_model_retires: None,
        notice: None,
        thinking_policy: None,
        messages: msgs.len(),
        tokens: cctool_core::model::approx_tokens(whole.len()),
        prompt: a.prompt.is_some(),
        rules: Vec::new(),
        assumptions: Some(serde_json::json!({
            "cwd": s.cwd(),
            "package_dir": package,
            "provider_api": "openai-completions",
        })),
        refused: None,
    };
    Ok((crate::answers::unread(src.name(), &s, false), Report::ApiView(summary)))
}

/// One message of the request as the session model's record, for people.
fn record(m: &Value) -> Record {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let role = s(m.get("role")).unwrap_or_default();
    let mut parts = Vec::new();
    if role == "tool" {
        parts.push(Part::Outcome(Outcome {
            call_id: s(m.get("tool_call_id")),
            is_error: None,
            output: m.get("content").cloned(),
        }));
    } else {
        match m.get("content") {
            Some(Value::String(t)) => parts.push(Part::Text(t.clone())),
            Some(Value::Array(b)) => parts.extend(b.iter().filter_map(|x| s(x.get("text"))).map(Part::Text)),
            _ => {}
        }
    }
    for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let f = c.get("function");
        parts.push(Part::Call(Call {
            id: s(c.get("id")),
            name: s(f.and_then(|f| f.get("name"))),
            kind: "function".into(),
            input: f.and_then(|f| f.get("arguments")).cloned(),
        }));
    }
    Record {
        role: Some(role.clone()),
        speaker: Some(role),
        parts,
        ..Record::default()
    }
}
