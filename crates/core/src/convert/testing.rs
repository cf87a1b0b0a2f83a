//! Entries built by hand, for the converters' tests.

use super::model::{Block, Body, Image, JsonText, Part, ToolCall, ToolResult};

/// The text `t`, held as text.
pub fn text(t: &str) -> Part {
    Part::Text(t.to_string())
}

/// `t` held as its JSON string.
pub fn json(t: &str) -> Part {
    Part::Json(JsonText::canonical(&serde_json::to_string(t).unwrap()).unwrap())
}

/// An image given by `url`.
pub fn img(url: &str) -> Part {
    Part::Image(Image::from_url(url))
}

/// The call `id` of the tool `name` with `input`.
pub fn call(id: &str, name: &str, input: serde_json::Value) -> Block {
    Block::Call(ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    })
}

/// The result of the call `id`.
pub fn result(id: &str, output: Vec<Part>, is_error: bool) -> Body {
    Body::ToolResult(ToolResult {
        call_id: id.into(),
        output,
        is_error,
    })
}
