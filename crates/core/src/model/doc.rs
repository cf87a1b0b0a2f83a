//! What an export's document is made of, as agents read it from their files: messages of
//! parts (text, thinking, tool calls and results, images) and section marks, and the kit
//! their readers share. Rendering the document (Markdown, HTML) is `export`'s.

use serde_json::Value;

use crate::io::Source;

/// An image kept in the export (never when redacting, unless `--keep-images`).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// MIME type as written (`image/png`).
    pub media_type: String,
    /// Base64 data, or a URL as written (only `data:` URLs are shown).
    pub data: String,
}

impl Image {
    /// A `data:` URL of the image, when it is one that can be shown without fetching anything:
    /// its media type and its base64 text checked character by character, whether they came
    /// as a block's fields or as a data URL (Codex `input_image`).
    pub fn data_url(&self) -> Option<String> {
        let (media_type, data) = match self.data.strip_prefix("data:") {
            Some(url) => url.split_once(";base64,")?,
            None => (self.media_type.as_str(), self.data.as_str()),
        };
        let ok_type = media_type.strip_prefix("image/").is_some_and(|sub| {
            !sub.is_empty()
                && sub
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        });
        let ok_data = !data.is_empty()
            && data
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
        (ok_type && ok_data).then(|| format!("data:{media_type};base64,{data}"))
    }
}

/// A piece of a message.
#[derive(Clone, Debug)]
pub enum Part {
    /// Text of the message.
    Text(String),
    /// The model's reasoning.
    Thinking(String),
    /// A call of a tool.
    ToolCall {
        /// The tool called.
        name: String,
        /// The call's id, which its result names.
        id: String,
        /// The arguments as text.
        input: String,
    },
    /// What a tool returned.
    ToolResult {
        /// The id of the call it answers.
        id: String,
        /// Whether the tool reported an error.
        error: bool,
        /// The output's text, images taken out.
        text: String,
        /// The images the output held.
        images: Vec<Image>,
    },
    /// An image of the message itself.
    Image(Image),
    /// Something cctool says about the message (`[redacted thinking]`, an unknown block).
    Note(String),
}

/// One message of the conversation.
#[derive(Clone, Debug)]
pub struct Msg {
    /// Who speaks, as the format names it (`user`, `assistant`, …).
    pub role: String,
    /// The physical line of the file it came from.
    pub line: Option<u64>,
    /// Local time, as people read it.
    pub time: Option<String>,
    /// Its pieces, in order.
    pub parts: Vec<Part>,
}

/// What a document holds, in order.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A message.
    Msg(Msg),
    /// A section mark: a compaction (with its summary, when the file has it in the mark) or
    /// the start of what a resume loads.
    Mark {
        /// The section's heading.
        title: String,
        /// The compaction's summary, when the mark holds it.
        summary: Option<String>,
    },
}

/// Why a session could not be exported; each names the file where one is known.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The file could not be read.
    #[error("{file}: cannot read: {cause}")]
    Read {
        /// The file, as the user named it.
        file: String,
        /// What reading it failed with.
        cause: std::io::Error,
    },
    /// The file is not what its format requires: the error of what read it (the JSON
    /// parser, an agent's loader) says where.
    #[error("{file}: {cause}")]
    Invalid {
        /// The file, as the user named it.
        file: String,
        /// What the reader said.
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The document could not be written out.
    #[error("cannot write: {0}")]
    Write(std::io::Error),
    /// A cctool session file whose messages cannot be read, as its agent says it.
    #[error(transparent)]
    Session(Box<dyn std::error::Error + Send + Sync>),
}

/// A read of `src` that failed.
pub fn cannot_read(src: &Source, cause: std::io::Error) -> ExportError {
    ExportError::Read {
        file: src.name().to_string(),
        cause,
    }
}

/// A timestamp as written (RFC 3339) in the local time zone (`TZ` honoured), or as written
/// when it cannot be read.
pub fn local_time(ts: &str) -> String {
    match ts.parse::<jiff::Timestamp>() {
        Ok(t) => t
            .to_zoned_datetime(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S %Z")
            .to_string(),
        Err(_) => ts.to_string(),
    }
}

/// The string at `k` of an object.
pub fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// Text of tool output: a string, or the text of a list of blocks (images taken out).
pub fn output_text(v: &Value, images: &mut Vec<Image>) -> String {
    match v {
        Value::String(t) => t.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| {
                if let Some(img) = image_of(i) {
                    images.push(img);
                    return None;
                }
                Some(match s(i, "text") {
                    Some(t) => t.to_string(),
                    None => crate::io::json::to_json(i),
                })
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => crate::io::json::to_json(other),
    }
}

/// An Anthropic `image` block or an OpenAI `input_image` item.
pub fn image_of(b: &Value) -> Option<Image> {
    match s(b, "type")? {
        "image" => {
            let src = b.get("source")?;
            Some(Image {
                media_type: s(src, "media_type").unwrap_or("image/png").to_string(),
                data: s(src, "data").or_else(|| s(src, "url"))?.to_string(),
            })
        }
        "input_image" => Some(Image {
            media_type: String::new(),
            data: s(b, "image_url")?.to_string(),
        }),
        _ => None,
    }
}

/// A tool input as people read it: pretty JSON.
pub fn pretty(v: &Value) -> String {
    crate::io::json::to_json_pretty(v)
}

#[cfg(test)]
mod image_tests {
    use super::Image;

    fn url(media_type: &str, data: &str) -> Option<String> {
        Image {
            media_type: media_type.into(),
            data: data.into(),
        }
        .data_url()
    }

    #[test]
    fn data_urls_are_checked_like_block_fields() {
        assert_eq!(
            url("", "data:image/png;base64,iVBORw0K").as_deref(),
            Some("data:image/png;base64,iVBORw0K")
        );
        assert_eq!(
            url("image/png", "iVBORw0K").as_deref(),
            Some("data:image/png;base64,iVBORw0K")
        );
        for bad in [
            "data:image/png;base64,iVBO\"><script>alert(1)</script>",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "data:image/png\" onerror=\"x;base64,iVBORw0K",
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/;base64,iVBORw0K",
            "data:image/png;base64,",
        ] {
            assert_eq!(url("", bad), None, "{bad}");
        }
        assert_eq!(url("text/html", "PHNjcmlwdD4="), None);
    }
}
