//! What `rebuild-chain --api-view` prints of a pi session: the request's messages one JSON
//! object a line (the system prompt first), the whole body with `--body`, or the messages
//! rendered with `--format`.

use cctool_core::agents::view::{ApiViewSummary, ChainOptions, Report, print_chat_messages};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::output::Out;
use cctool_core::output::render::Render;

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
        print_chat_messages(&msgs, style.as_ref(), out)?;
    }
    let summary = ApiViewSummary {
        model: body["model"].as_str().map(str::to_string),
        assumptions: Some(serde_json::json!({
            "cwd": s.cwd(),
            "package_dir": package,
            "provider_api": "openai-completions",
        })),
        ..ApiViewSummary::of_messages(
            src.name(),
            crate::ID.name(),
            super::CLIENT,
            msgs.len(),
            whole.len(),
            a.prompt.is_some(),
        )
    };
    Ok((
        crate::answers::unread(src.name(), &s.unread, false),
        Report::ApiView(summary),
    ))
}
