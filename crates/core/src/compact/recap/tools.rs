//! The tool calls of a span as the recap reads them: which read or modify a file, which run a
//! command, which set the todo list, the files a patch touches, the exit status a result
//! states and the text an agent injects. No agent's tools or wording are named here: each is
//! read through the agents' vocabularies ([`Vocabulary::gist`], [`Vocabulary::stated_exit`],
//! [`Vocabulary::injected`]).

use super::*;
use crate::agents::registry::{self, Registry};
use crate::convert::tools::{Gist, Verbatim, Vocabulary};
use crate::model::AgentId;

/// The vocabularies the recap reads a span's tool calls with, in the order they are asked: the
/// tools of the agent that wrote the session, when known, then every registered agent's in
/// the registry's order, then the v5 spec's neutral names ([`Verbatim`]). A call is read by
/// the first that knows it: a session converted from another agent keeps the calls its own
/// tools cannot say under the other agent's names (`docs/convert.md#tools`).
#[derive(Clone, Debug)]
pub struct Tools(Vec<&'static dyn Vocabulary>);

impl Tools {
    /// The vocabularies of the installed registry, `source`'s first.
    pub fn of(source: Option<AgentId>) -> Tools {
        Tools::in_registry(registry::installed(), source)
    }

    /// The vocabularies of `registry`, `source`'s first.
    pub fn in_registry(registry: Registry, source: Option<AgentId>) -> Tools {
        let first = source.and_then(|id| registry.find(id));
        let rest = registry.all().filter(|a| source != Some(a.about().format));
        let mut v: Vec<&'static dyn Vocabulary> = first.into_iter().chain(rest).filter_map(|a| a.tools()).collect();
        v.push(&Verbatim);
        Tools(v)
    }

    /// These vocabularies, asked in this order, then the v5 spec's neutral names.
    pub fn new(vocabularies: &[&'static dyn Vocabulary]) -> Tools {
        let mut v = vocabularies.to_vec();
        v.push(&Verbatim);
        Tools(v)
    }

    /// The call as the first vocabulary that knows it reads it, with that vocabulary.
    fn gist(&self, name: &str, args: &Value) -> (Gist, &'static dyn Vocabulary) {
        for &v in &self.0 {
            let g = v.gist(name, args);
            if g != Gist::Other {
                return (g, v);
            }
        }
        (Gist::Other, &Verbatim)
    }

    /// The files the patches in `args` touch, in every vocabulary's patch format.
    fn patched(&self, args: &Value) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in &self.0 {
            for p in v.patched(args) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The exit status a tool result's text states, as the first vocabulary that reads one
    /// in it reads it.
    pub(super) fn stated_exit(&self, text: &str) -> Option<i64> {
        self.0.iter().find_map(|v| v.stated_exit(text))
    }

    /// Whether any vocabulary reads a tool result's text as saying the call failed.
    pub(super) fn stated_failure(&self, text: &str) -> bool {
        self.0.iter().any(|v| v.stated_failure(text))
    }

    /// Whether any agent says a user message's text is its own, not the user's.
    pub(super) fn injected(&self, text: &str) -> bool {
        self.0.iter().any(|v| v.injected(text))
    }
}

impl Default for Tools {
    fn default() -> Tools {
        Tools::of(None)
    }
}

pub(super) fn tool_call(
    tools: &Tools,
    name: &str,
    args: &Value,
    outcome: Option<&Outcome>,
    files: &mut Files,
    progress: &mut Vec<Step>,
    todos: &mut Option<Vec<(String, String)>>,
) {
    // Arguments that were not valid JSON arrive as `{"_raw": text}`; a string may still hold JSON.
    let raw = args.get("_raw").filter(|r| r.is_string());
    let args = call_args(Some(raw.unwrap_or(args)));
    let args = args.as_ref();
    let failed = outcome.is_some_and(|o| o.failed);

    let (gist, vocabulary) = tools.gist(name, args);
    let command = match gist {
        Gist::Read(p) => {
            if let (Some(p), false) = (p, failed) {
                files.read(&p);
            }
            return;
        }
        Gist::Modify(p) => {
            if let (Some(p), false) = (p, failed)
                && files.modified(&p)
            {
                progress.push(Step::Modified(p.trim().to_string()));
            }
            return;
        }
        Gist::Todo(list) => {
            if let Some(list) = list {
                *todos = Some(list.into_iter().map(|t| (t.status, t.text)).collect());
            }
            return;
        }
        Gist::Shell(c) => Command::of(c),
        Gist::Other => None,
    };
    if let Some(cmd) = &command {
        if !failed {
            for p in cmd.reads() {
                files.read(&p);
            }
        }
        let status = match outcome {
            Some(o) => o
                .exit
                .or_else(|| (!o.failed).then(|| vocabulary.unstated_exit(name, &o.text)).flatten()),
            None => None,
        };
        let status = status.map_or_else(|| "?".to_string(), |c| c.to_string());
        progress.push(Step::Command(format!("Ran `{}` (exit {status})", cmd.display())));
    }
    if !failed {
        for p in tools.patched(args) {
            if files.modified(&p) {
                progress.push(Step::Modified(p));
            }
        }
    }
}
