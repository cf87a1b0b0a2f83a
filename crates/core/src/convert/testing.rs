//! Entries built by hand, for the converters' tests.

use super::model::{Block, Body, Conversation, Image, JsonText, Part, ToolCall, ToolResult};

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

/// The conversation of every fixture (`fixtures/**/*.jsonl`) that one of `readers` reads whole
/// (`--full`) with at least one entry, the first such reader's: the conversations a writer's
/// tests write, for an agent crate that cannot ask the registry which agent wrote a file.
pub fn fixture_conversations(readers: &[&dyn crate::agents::Converter]) -> Vec<Conversation> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut paths: Vec<_> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.into_path())
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(p).ok()?;
            let src = crate::io::Source::from_bytes(&p.display().to_string(), bytes);
            readers.iter().find_map(|r| {
                crate::convert::model::collect(|sink| r.read(&src, true, false, sink))
                    .ok()
                    .filter(|c| !c.entries.is_empty())
            })
        })
        .collect()
}
