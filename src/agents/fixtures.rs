//! The project's fixtures read by each agent's converter, for the tests of conversion across agents: through
//! the registry, since a test of one agent's writer writes every agent's conversations.

use super::{agent, claude_code};
use crate::io::Source;
use crate::model::AgentId;

/// Every fixture `convert` reads (a Claude Code transcript or Codex rollout), with its format.
pub fn fixture_sources() -> Vec<(Source, AgentId)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            let src = Source::from_bytes(&e.path().display().to_string(), bytes);
            let format = super::detect::detect(&src).ok()?;
            agent(format).converter().is_some().then_some((src, format))
        })
        .collect()
}

/// The lines written from texts held as JSON strings are those written from the same
/// texts held as text, by both writers: on the conversations of every transcript of the
/// fixtures, as the typed read gives them, and on entries of every shape.
#[test]
fn json_texts_write_the_lines_of_plain_texts() {
    use crate::convert::model::{self, Body, Entry};
    use crate::convert::testing::{call, img, json, result, text};
    let claude_code = agent(claude_code::ID).converter().unwrap();
    let mut convs: Vec<Vec<Entry>> = Vec::new();
    for (src, format) in fixture_sources() {
        if format != claude_code::ID {
            continue;
        }
        for full in [false, true] {
            let mut entries = Vec::new();
            let read = claude_code.read(&src, full, false, &mut |m| {
                if let model::Msg::Entry(e) = m {
                    entries.push(e);
                }
                Ok(())
            });
            if read.is_ok() {
                convs.push(entries);
            }
        }
    }
    let img = img("data:image/png;base64,AAA=");
    let result = |id: &str, output: Vec<model::Part>| result(id, output, false);
    let odd = [
        Body::User(vec![json("a \"q\"\n\u{1}é😀"), img.clone(), text("b\t"), json("c")]),
        Body::User(vec![json("")]),
        Body::User(vec![img.clone(), json("\\ \u{7f}\u{2028}")]),
        Body::Assistant(vec![call(
            "c5",
            "Edit",
            serde_json::json!({"file_path": "/a", "old_string": "x", "new_string": "y"}),
        )]),
        result("c1", vec![json("out\r\n")]),
        result("c2", vec![json("a"), text("\u{8}"), json("\u{c}c")]),
        result("c3", vec![json("a"), img.clone(), json("b")]),
        result("c5", vec![json("x"), img, json("y\u{1f}")]),
        result("c5", vec![json("p\"atch")]),
    ];
    convs.push(
        odd.into_iter()
            .enumerate()
            .map(|(k, body)| Entry {
                key: format!("k{k}"),
                timestamp: Some(format!("2026-01-01T00:00:0{k}.000Z")),
                body,
            })
            .collect(),
    );
    let (mut compared, mut held) = (0, 0);
    // Each writer reads the calls through another agent's tools, as a conversion does.
    let converting: Vec<&'static dyn crate::agents::Agent> = super::all().filter(|a| a.converter().is_some()).collect();
    assert!(converting.len() >= 2, "{} agents convert", converting.len());
    let writers: Vec<(
        crate::convert::MakeWriter,
        &'static dyn crate::convert::tools::Vocabulary,
    )> = converting
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let from = converting[(i + 1) % converting.len()];
            (
                a.converter().unwrap().writer(),
                from.tools().expect("an agent with tools"),
            )
        })
        .collect();
    for ((make, tools), entries) in writers.iter().flat_map(|m| convs.iter().map(move |c| (m, c))) {
        let o = crate::convert::WriteOptions {
            session_id: "s".into(),
            cwd: "/w".into(),
            model: None,
            reasoning_as_text: false,
            tools: *tools,
        };
        let first = entries.iter().find_map(|e| e.timestamp.clone());
        let mut both = [Vec::new(), Vec::new()];
        for (k, out) in both.iter_mut().enumerate() {
            let mut w = make(&o, first.as_deref(), Default::default(), out);
            for e in entries {
                match k {
                    0 => w.entry(e, out),
                    _ => w.entry(&e.clone().into_plain(), out),
                }
            }
            w.finish(out);
        }
        held += entries.iter().filter(|e| e.body.json_texts() > 0).count();
        let [json_lines, plain_lines] = both;
        for (a, b) in json_lines.iter().zip(&plain_lines) {
            assert_eq!(String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        }
        assert_eq!(json_lines.len(), plain_lines.len());
        compared += json_lines.len();
    }
    assert!(
        held > 400 && compared > 4_500,
        "{held} entries with JSON texts, {compared} lines"
    );
}
