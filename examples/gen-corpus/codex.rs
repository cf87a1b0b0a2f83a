//! Codex rollouts: session_meta with its base instructions, turns with reasoning, function
//! calls and big outputs, local and remote compactions (`docs/codex.md#envelope-lines`).

use std::io::{self, Write};
use std::path::PathBuf;

use crate::ids::{Uuid, base62_id, push_ts};
use crate::line::{Sink, js, num, raw, uuid};
use crate::rng::Rng;
use crate::text::{Pools, b64, slice, word};

const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

#[derive(Clone)]
pub(crate) struct CodexSession {
    pub(crate) seed: u64,
    pub(crate) target: u64,
    pub(crate) path: PathBuf,
    pub(crate) cwd: String,
    pub(crate) start_ms: i64,
    pub(crate) id: Uuid,
}

pub(crate) struct Codex<'p> {
    p: &'p Pools,
    rng: Rng,
    sink: Sink,
    b: Vec<u8>,
    clock: i64,
    cwd: String,
    model: &'static str,
    /// Tool outputs as the pre-2025-11 JSON-in-a-string, or as plain text.
    json_outputs: bool,
    remote: bool,
    prompts: Vec<&'p str>,
    answers: Vec<&'p str>,
    seg_bytes: u64,
    compact_at: u64,
    target: u64,
    window: u64,
}

impl<'p> Codex<'p> {
    pub(crate) fn new(p: &'p Pools, s: &CodexSession) -> io::Result<Codex<'p>> {
        let mut rng = Rng::new(s.seed);
        let compact_at = rng.range(500_000, 2_000_000);
        Ok(Codex {
            p,
            model: rng.one(&["gpt-5.2-codex", "gpt-5.1-codex-max", "gpt-5-codex"]),
            json_outputs: rng.chance(0.3),
            remote: rng.chance(0.6),
            rng,
            sink: Sink::create(&s.path)?,
            b: Vec::with_capacity(1 << 20),
            clock: s.start_ms,
            cwd: s.cwd.clone(),
            prompts: Vec::new(),
            answers: Vec::new(),
            seg_bytes: 0,
            compact_at,
            target: s.target,
            window: 0,
        })
    }

    fn remaining(&self) -> u64 {
        self.target.saturating_sub(self.sink.bytes)
    }

    fn emit(&mut self) -> io::Result<()> {
        let before = self.sink.bytes;
        self.sink.emit(&mut self.b)?;
        self.seg_bytes += self.sink.bytes - before;
        Ok(())
    }

    /// `{"timestamp":…,"type":…,"payload":` (the caller closes with `}}`).
    fn open(&mut self, ty: &str) {
        self.clock += self.rng.range(5, 4_000) as i64;
        raw(&mut self.b, "{\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, ",\"type\":\"");
        raw(&mut self.b, ty);
        raw(&mut self.b, "\",\"payload\":");
    }

    fn close(&mut self) -> io::Result<()> {
        raw(&mut self.b, "}");
        self.emit()
    }

    pub(crate) fn run(mut self, s: &CodexSession) -> io::Result<(u64, u64)> {
        let p = self.p;
        self.open("session_meta");
        raw(&mut self.b, "{\"id\":");
        uuid(&mut self.b, &s.id);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, s.start_ms);
        raw(&mut self.b, ",\"cwd\":");
        js(&mut self.b, &self.cwd);
        raw(
            &mut self.b,
            ",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.104.0\",\"source\":\"cli\",\"model_provider\":\"openai\",\"base_instructions\":{\"text\":",
        );
        js(&mut self.b, &p.instructions);
        raw(&mut self.b, "},\"git\":{\"commit_hash\":\"");
        let _ = write!(
            self.b,
            "{:016x}{:016x}{:08x}",
            self.rng.next_u64(),
            self.rng.next_u64(),
            self.rng.below(1 << 32)
        );
        raw(
            &mut self.b,
            "\",\"branch\":\"main\",\"repository_url\":\"git@example.invalid:acme/app.git\"}}",
        );
        self.close()?;
        self.message("developer", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>")?;
        let env = format!(
            "<environment_context>\n  <cwd>{}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
            self.cwd
        );
        self.message("user", &env)?;
        while self.remaining() > 0 {
            if self.seg_bytes >= self.compact_at && self.rng.chance(0.5) {
                self.manual_compaction()?;
            } else {
                self.turn()?;
            }
        }
        self.sink.finish()
    }

    fn message(&mut self, role: &str, text: &str) -> io::Result<()> {
        self.open("response_item");
        raw(&mut self.b, "{\"type\":\"message\",\"role\":\"");
        raw(&mut self.b, role);
        raw(
            &mut self.b,
            if role == "assistant" {
                "\",\"content\":[{\"type\":\"output_text\",\"text\":"
            } else {
                "\",\"content\":[{\"type\":\"input_text\",\"text\":"
            },
        );
        js(&mut self.b, text);
        raw(&mut self.b, "}]}");
        self.close()
    }

    fn event(&mut self, body: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        self.open("event_msg");
        body(&mut self.b);
        self.close()
    }

    fn turn_context(&mut self, turn: &Uuid) -> io::Result<()> {
        self.open("turn_context");
        raw(&mut self.b, "{\"turn_id\":");
        uuid(&mut self.b, turn);
        raw(&mut self.b, ",\"cwd\":");
        js(&mut self.b, &self.cwd);
        raw(
            &mut self.b,
            ",\"approval_policy\":\"on-request\",\"sandbox_policy\":{\"type\":\"workspace-write\",\"writable_roots\":[],\"network_access\":false,\"exclude_tmpdir_env_var\":false,\"exclude_slash_tmp\":false},\"model\":",
        );
        js(&mut self.b, self.model);
        raw(&mut self.b, ",\"effort\":\"medium\",\"summary\":\"auto\"}");
        self.close()
    }

    fn task_started(&mut self, turn: &Uuid) -> io::Result<()> {
        self.event(|b| {
            raw(b, "{\"type\":\"task_started\",\"turn_id\":");
            uuid(b, turn);
            raw(
                b,
                ",\"model_context_window\":258400,\"collaboration_mode_kind\":\"default\"}",
            );
        })
    }

    fn task_complete(&mut self, turn: &Uuid, last: Option<&str>) -> io::Result<()> {
        self.event(|b| {
            raw(b, "{\"type\":\"task_complete\",\"turn_id\":");
            uuid(b, turn);
            raw(b, ",\"last_agent_message\":");
            match last {
                Some(t) => js(b, t),
                None => raw(b, "null"),
            }
            b.push(b'}');
        })
    }

    fn reasoning(&mut self) -> io::Result<()> {
        let p = self.p;
        let n = self.rng.log_uniform(40, 800) as usize;
        let summary = slice(&p.prose, &mut self.rng, n);
        let n = self.rng.log_uniform(600, 8_000) as usize;
        let enc = b64(p, &mut self.rng, n);
        self.open("response_item");
        raw(
            &mut self.b,
            "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":",
        );
        js(&mut self.b, summary);
        raw(&mut self.b, "}],\"content\":null,\"encrypted_content\":\"gAAAAA");
        raw(&mut self.b, enc);
        raw(&mut self.b, "\"}");
        self.close()?;
        if self.rng.chance(0.5) {
            self.event(|b| {
                raw(b, "{\"type\":\"agent_reasoning\",\"text\":");
                js(b, summary);
                b.push(b'}');
            })?;
        }
        Ok(())
    }

    fn token_count(&mut self) -> io::Result<()> {
        let (i, c, o) = (
            self.rng.range(10_000, 200_000),
            self.rng.range(0, 150_000),
            self.rng.range(10, 4_000),
        );
        self.event(|b| {
            let _ = write!(
                b,
                "{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":{c},\"output_tokens\":{o},\"reasoning_output_tokens\":{},\"total_tokens\":{}}},\"last_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":{c},\"output_tokens\":{o},\"reasoning_output_tokens\":0,\"total_tokens\":{}}},\"model_context_window\":258400}},\"rate_limits\":{{\"primary\":{{\"used_percent\":{}.0,\"window_minutes\":300,\"resets_at\":1769000000}},\"secondary\":null}}}}",
                o / 2,
                i + o,
                i + o,
                o % 100
            );
        })
    }

    fn tool_call(&mut self) -> io::Result<()> {
        let p = self.p;
        let call = base62_id(&mut self.rng, "call_", 24);
        let r = self.rng.unit();
        let size = if r < 0.6 {
            self.rng.log_uniform(60, 2_000)
        } else if r < 0.88 {
            self.rng.log_uniform(2_000, 12_000)
        } else {
            self.rng.log_uniform(12_000, 200_000)
        }
        .min(self.remaining() / 2)
        .max(40) as usize;
        let out = slice(&p.code, &mut self.rng, size);
        if self.rng.chance(0.15) {
            let patch = format!(
                "*** Begin Patch\n*** Update File: src/{}.rs\n@@\n-{}\n+{}\n*** End Patch\n",
                word(&mut self.rng),
                slice(&p.code, &mut self.rng, 200).replace('\n', "\n-"),
                slice(&p.code, &mut self.rng, 200).replace('\n', "\n+"),
            );
            self.open("response_item");
            raw(
                &mut self.b,
                "{\"type\":\"custom_tool_call\",\"status\":\"completed\",\"call_id\":",
            );
            js(&mut self.b, &call);
            raw(&mut self.b, ",\"name\":\"apply_patch\",\"input\":");
            js(&mut self.b, &patch);
            self.b.push(b'}');
            self.close()?;
            self.open("response_item");
            raw(&mut self.b, "{\"type\":\"custom_tool_call_output\",\"call_id\":");
            js(&mut self.b, &call);
            raw(&mut self.b, ",\"output\":");
            js(
                &mut self.b,
                "{\"output\":\"Success. Updated the following files:\\nM src/lib.rs\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}",
            );
            self.b.push(b'}');
            return self.close();
        }
        let args = format!(
            "{{\"command\":[\"bash\",\"-lc\",\"rg -n '{}' src | head -n {}\"],\"workdir\":\"{}\",\"timeout_ms\":120000}}",
            word(&mut self.rng),
            self.rng.range(10, 400),
            self.cwd
        );
        self.open("response_item");
        raw(
            &mut self.b,
            "{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":",
        );
        js(&mut self.b, &args);
        raw(&mut self.b, ",\"call_id\":");
        js(&mut self.b, &call);
        self.b.push(b'}');
        self.close()?;
        let secs = self.rng.range(1, 90_000) as f64 / 1000.0;
        let output = if self.json_outputs {
            // JSON in a JSON string: every quote and backslash escaped twice.
            let mut v = Vec::with_capacity(out.len() + 100);
            raw(&mut v, "{\"output\":");
            js(&mut v, out);
            let _ = write!(v, ",\"metadata\":{{\"exit_code\":0,\"duration_seconds\":{secs}}}}}");
            String::from_utf8(v).expect("serde_json writes UTF-8")
        } else {
            format!("Exit code: 0\nWall time: {secs} seconds\nOutput:\n{out}")
        };
        self.open("response_item");
        raw(&mut self.b, "{\"type\":\"function_call_output\",\"call_id\":");
        js(&mut self.b, &call);
        raw(&mut self.b, ",\"output\":");
        js(&mut self.b, &output);
        self.b.push(b'}');
        self.close()
    }

    fn turn(&mut self) -> io::Result<()> {
        let p = self.p;
        self.clock += self.rng.range(20_000, 900_000) as i64;
        let turn = Uuid::v7(&mut self.rng, self.clock);
        self.task_started(&turn)?;
        let n = if self.rng.chance(0.05) {
            self.rng.log_uniform(3_000, 40_000)
        } else {
            self.rng.log_uniform(15, 1_500)
        } as usize;
        let n = n.min(self.remaining() as usize + 15);
        let prompt = slice(&p.prose, &mut self.rng, n);
        self.prompts.push(prompt);
        self.message("user", prompt)?;
        self.event(|b| {
            raw(b, "{\"type\":\"user_message\",\"message\":");
            js(b, prompt);
            raw(b, ",\"images\":[],\"local_images\":[],\"text_elements\":[]}");
        })?;
        self.turn_context(&turn)?;
        let rounds = if self.rng.chance(0.2) {
            0
        } else {
            self.rng.log_uniform(1, 30)
        };
        for _ in 0..rounds {
            if self.remaining() == 0 {
                break;
            }
            self.reasoning()?;
            self.tool_call()?;
            if self.rng.chance(0.05) {
                self.tool_call()?;
            }
            self.token_count()?;
            if self.seg_bytes >= self.compact_at && self.remaining() > 0 && self.rng.chance(0.3) {
                self.compacted(true, &turn)?;
            }
        }
        self.reasoning()?;
        let n = self.rng.log_uniform(40, 3_000) as usize;
        let answer = slice(&p.prose, &mut self.rng, n);
        self.answers.push(answer);
        self.message("assistant", answer)?;
        self.event(|b| {
            raw(b, "{\"type\":\"agent_message\",\"message\":");
            js(b, answer);
            b.push(b'}');
        })?;
        self.token_count()?;
        self.task_complete(&turn, Some(answer))
    }

    fn manual_compaction(&mut self) -> io::Result<()> {
        self.clock += self.rng.range(20_000, 300_000) as i64;
        let turn = Uuid::v7(&mut self.rng, self.clock);
        self.task_started(&turn)?;
        self.compacted(false, &turn)?;
        self.task_complete(&turn, None)
    }

    /// A `compacted` record: local (summary text + replacement_history ending in the summary
    /// user message) or remote (empty message, history ending in an encrypted compaction item).
    fn compacted(&mut self, mid_turn: bool, turn: &Uuid) -> io::Result<()> {
        let p = self.p;
        let summary = if self.remote {
            None
        } else {
            // The summarizer's own output is recorded just before the compacted line.
            self.reasoning()?;
            let n = self.rng.range(1_500, 9_000) as usize;
            let s = slice(&p.prose, &mut self.rng, n);
            self.message("assistant", s)?;
            Some(format!("{SUMMARY_PREFIX}\n{s}"))
        };
        // The newest real user messages within ~20k tokens (local) or ~64k tokens (remote).
        let budget = if self.remote { 256_000 } else { 80_000 };
        let mut kept = Vec::new();
        let mut used = 0;
        for p in self.prompts.iter().rev() {
            if used + p.len() > budget || kept.len() >= 40 {
                break;
            }
            used += p.len();
            kept.push(*p);
        }
        kept.reverse();
        let answers: Vec<&str> = self.answers.iter().rev().take(3).copied().collect();
        self.open("compacted");
        raw(&mut self.b, "{\"message\":");
        js(&mut self.b, summary.as_deref().unwrap_or(""));
        raw(&mut self.b, ",\"replacement_history\":[");
        for (i, p) in kept.iter().enumerate() {
            if i > 0 {
                self.b.push(b',');
            }
            raw(
                &mut self.b,
                "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":",
            );
            js(&mut self.b, p);
            raw(&mut self.b, "}]}");
        }
        if !kept.is_empty() {
            self.b.push(b',');
        }
        match &summary {
            Some(s) => {
                raw(
                    &mut self.b,
                    "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":",
                );
                js(&mut self.b, s);
                raw(&mut self.b, "}]}");
            }
            None => {
                for a in answers.iter().rev() {
                    raw(
                        &mut self.b,
                        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":",
                    );
                    js(&mut self.b, a);
                    raw(&mut self.b, "}]},");
                }
                let n = self.rng.range(4_000, 40_000) as usize;
                raw(&mut self.b, "{\"type\":\"compaction\",\"encrypted_content\":\"gAAAAB");
                raw(&mut self.b, b64(p, &mut self.rng, n));
                raw(&mut self.b, "\"}");
            }
        }
        self.window += 1;
        raw(&mut self.b, "],\"window_number\":");
        num(&mut self.b, self.window);
        raw(&mut self.b, "}");
        self.close()?;
        if mid_turn {
            self.turn_context(turn)?;
        }
        self.event(|b| raw(b, "{\"type\":\"context_compacted\"}"))?;
        self.seg_bytes = 0;
        self.compact_at = self.rng.range(500_000, 2_000_000);
        Ok(())
    }
}
