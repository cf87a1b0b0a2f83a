//! What `rebuild-chain --api-view` prints of a pi session: the request's messages one JSON
//! object a line (the system prompt first), the whole body with `--body`, or the messages
//! rendered with `--format`.

use cctool_core::agents::view::{ApiViewSummary, ChainOptions, Report, chat_record};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
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
                    let mut block = render::record_block(st, &chat_record(m), None);
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
