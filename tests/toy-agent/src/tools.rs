//! The toy agent's one tool in neutral terms: `shell`, a command line.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{Call, Command, Context, Input, Kind, Vocabulary, Written, rest};

/// The toy agent's tools.
#[derive(Debug)]
pub struct ToyTools;

impl Vocabulary for ToyTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let command = input.get("command").and_then(Value::as_str);
        match (name, command, rest(input, &["command"])) {
            ("shell", Some(c), Some(extra)) => Call {
                name: name.to_string(),
                kind: Kind::Shell(Command::Line(c.to_string())),
                extra,
                file: None,
            },
            _ => Call::other(name, input),
        }
    }

    fn from_neutral(&self, call: &Call, _: Context) -> Option<Written> {
        let Kind::Shell(c) = &call.kind else { return None };
        let mut m = Map::from_iter([("command".to_string(), json!(c.line()))]);
        m.extend(call.extra.clone());
        Some(Written {
            name: "shell".into(),
            input: Input::Json(Value::Object(m)),
            lost: None,
        })
    }
}
