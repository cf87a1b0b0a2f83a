//! One API response of a Claude Code session: thinking, text and tool-use lines, the tool
//! results hanging off them, and the progress rows around them.

use std::io;

use super::{Claude, Tool, ToolCall};
use crate::ids::{Uuid, base62_id, push_ts};
use crate::line::{js, num, raw, uuid};
use crate::text::{b64, slice, word};

impl Claude<'_> {
    /// One API response: optional thinking and text lines, then tool calls and their results
    /// (or the final answer).
    pub(super) fn assistant_round(&mut self, last: bool) -> io::Result<()> {
        let p = self.p;
        let msg_id = base62_id(&mut self.rng, "msg_01", 22);
        let req_id = base62_id(&mut self.rng, "req_011C", 20);
        let usage = (
            self.rng.range(3, 12),
            self.rng.range(0, 4_000),
            self.rng.range(10_000, 160_000),
            self.rng.range(1, 2_000),
        );
        self.tick(1_500, 20_000);
        if self.rng.chance(0.7) {
            let n = self.rng.log_uniform(60, 6_000) as usize;
            let text = slice(&p.prose, &mut self.rng, n);
            let n = self.rng.range(200, 1_200) as usize;
            let sig = b64(p, &mut self.rng, n);
            self.assistant_line(&msg_id, &req_id, usage, |b| {
                raw(b, "{\"type\":\"thinking\",\"thinking\":");
                js(b, text);
                raw(b, ",\"signature\":\"");
                raw(b, sig);
                raw(b, "\"}");
            })?;
        }
        if last || self.rng.chance(0.3) {
            let n = self.rng.log_uniform(40, 4_000) as usize;
            let text = slice(&p.prose, &mut self.rng, n);
            self.assistant_line(&msg_id, &req_id, usage, |b| {
                raw(b, "{\"type\":\"text\",\"text\":");
                js(b, text);
                b.push(b'}');
            })?;
        }
        if last {
            return Ok(());
        }
        let n = if self.rng.chance(0.18) { self.rng.range(2, 4) } else { 1 };
        let mut calls = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let tool = self.rng.one(&[
                Tool::Bash,
                Tool::Bash,
                Tool::Read,
                Tool::Read,
                Tool::Edit,
                Tool::Grep,
                Tool::Write,
            ]);
            let id = base62_id(&mut self.rng, "toolu_01", 22);
            self.tick(50, 2_000);
            let line = self.tool_use_line(&msg_id, &req_id, usage, tool, &id)?;
            calls.push(ToolCall { line, id, tool });
        }
        // Results arrive in completion order; each hangs off its own tool_use line.
        for i in (1..calls.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            calls.swap(i, j);
        }
        for call in &calls {
            if self.progress && call.tool == Tool::Bash {
                self.bash_progress(call)?;
            }
            self.tool_result(call)?;
        }
        Ok(())
    }

    pub(super) fn assistant_line(
        &mut self,
        msg_id: &str,
        req_id: &str,
        usage: (u64, u64, u64, u64),
        block: impl FnOnce(&mut Vec<u8>),
    ) -> io::Result<Uuid> {
        let u = Uuid::v4(&mut self.rng);
        self.tick(100, 3_000);
        self.open(self.last);
        raw(&mut self.b, ",\"message\":{\"model\":");
        js(&mut self.b, self.model);
        raw(&mut self.b, ",\"id\":");
        js(&mut self.b, msg_id);
        raw(
            &mut self.b,
            ",\"type\":\"message\",\"role\":\"assistant\",\"content\":[",
        );
        block(&mut self.b);
        raw(
            &mut self.b,
            "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":",
        );
        num(&mut self.b, usage.0);
        raw(&mut self.b, ",\"cache_creation_input_tokens\":");
        num(&mut self.b, usage.1);
        raw(&mut self.b, ",\"cache_read_input_tokens\":");
        num(&mut self.b, usage.2);
        raw(&mut self.b, ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":");
        num(&mut self.b, usage.1);
        raw(&mut self.b, ",\"ephemeral_1h_input_tokens\":0},\"output_tokens\":");
        num(&mut self.b, usage.3);
        raw(&mut self.b, ",\"service_tier\":\"standard\"}},\"requestId\":");
        js(&mut self.b, req_id);
        raw(&mut self.b, ",\"type\":\"assistant\"");
        self.id_ts(&u);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()?;
        Ok(u)
    }

    pub(super) fn tool_use_line(
        &mut self,
        msg_id: &str,
        req_id: &str,
        usage: (u64, u64, u64, u64),
        tool: Tool,
        id: &str,
    ) -> io::Result<Uuid> {
        let p = self.p;
        let path = format!("{}/src/{}/{}.rs", "/repo", word(&mut self.rng), word(&mut self.rng));
        let (name, input) = match tool {
            Tool::Bash => {
                let cmd = format!(
                    "cargo test -p {} -- {} 2>&1 | tail -n {}",
                    word(&mut self.rng),
                    word(&mut self.rng),
                    self.rng.range(5, 200)
                );
                let mut v = Vec::new();
                raw(&mut v, "{\"command\":");
                js(&mut v, &cmd);
                raw(&mut v, ",\"description\":");
                js(&mut v, slice(&p.prose, &mut self.rng, 40));
                v.push(b'}');
                ("Bash", v)
            }
            Tool::Read => {
                let mut v = Vec::new();
                raw(&mut v, "{\"file_path\":");
                js(&mut v, &path);
                v.push(b'}');
                ("Read", v)
            }
            Tool::Edit | Tool::Write => {
                let mut v = Vec::new();
                raw(&mut v, "{\"file_path\":");
                js(&mut v, &path);
                let n = self.rng.log_uniform(40, 3_000) as usize;
                if tool == Tool::Edit {
                    raw(&mut v, ",\"old_string\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n));
                    raw(&mut v, ",\"new_string\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n));
                    v.push(b'}');
                    ("Edit", v)
                } else {
                    raw(&mut v, ",\"content\":");
                    js(&mut v, slice(&p.code, &mut self.rng, n * 3));
                    v.push(b'}');
                    ("Write", v)
                }
            }
            Tool::Grep => {
                let mut v = Vec::new();
                raw(&mut v, "{\"pattern\":");
                js(&mut v, &format!("fn {}_\\w+\\(", word(&mut self.rng)));
                raw(&mut v, ",\"path\":\"/repo\",\"output_mode\":\"content\",\"-n\":true}");
                ("Grep", v)
            }
        };
        self.assistant_line(msg_id, req_id, usage, |b| {
            raw(b, "{\"type\":\"tool_use\",\"id\":");
            js(b, id);
            raw(b, ",\"name\":");
            js(b, name);
            raw(b, ",\"input\":");
            b.extend_from_slice(&input);
            b.push(b'}');
        })
    }

    /// Size of one tool result: mostly small, a tenth of them 10–200 KB.
    pub(super) fn result_size(&mut self) -> usize {
        let r = self.rng.unit();
        let s = if r < 0.62 {
            self.rng.log_uniform(80, 2_000)
        } else if r < 0.88 {
            self.rng.log_uniform(2_000, 10_000)
        } else {
            self.rng.log_uniform(10_000, 200_000)
        };
        s.min(self.remaining() / 2).max(60) as usize
    }

    pub(super) fn bash_progress(&mut self, call: &ToolCall) -> io::Result<()> {
        let p = self.p;
        // Progress rows chain off the tool_use line; the result later hangs off the tool_use
        // line itself, so these form a side branch (as in 2.1.1x files).
        let mut parent = call.line;
        for k in 0..self.rng.range(0, 12) {
            let u = Uuid::v4(&mut self.rng);
            self.tick(500, 1_500);
            self.open(Some(parent));
            raw(
                &mut self.b,
                ",\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\",\"output\":",
            );
            let out = slice(&p.code, &mut self.rng, (k * 40) as usize);
            js(&mut self.b, out);
            raw(&mut self.b, ",\"fullOutput\":");
            js(&mut self.b, out);
            raw(&mut self.b, ",\"elapsedTimeSeconds\":");
            num(&mut self.b, k + 2);
            raw(&mut self.b, ",\"totalLines\":");
            num(&mut self.b, k * 3);
            raw(&mut self.b, "},\"toolUseID\":\"bash-progress-");
            num(&mut self.b, k);
            raw(&mut self.b, "\",\"parentToolUseID\":");
            js(&mut self.b, &call.id);
            self.id_ts(&u);
            self.b.push(b'}');
            self.emit()?;
            parent = u;
        }
        Ok(())
    }

    pub(super) fn tool_result(&mut self, call: &ToolCall) -> io::Result<()> {
        let p = self.p;
        let u = Uuid::v4(&mut self.rng);
        self.tick(200, 30_000);
        let size = self.result_size();
        let text = slice(&p.code, &mut self.rng, size);
        let is_error = self.rng.chance(0.04);
        self.open(Some(call.line));
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":",
        );
        js(&mut self.b, &call.id);
        raw(&mut self.b, ",\"type\":\"tool_result\",\"content\":");
        js(&mut self.b, text);
        raw(
            &mut self.b,
            if is_error {
                ",\"is_error\":true}]}"
            } else {
                ",\"is_error\":false}]}"
            },
        );
        self.id_ts(&u);
        raw(&mut self.b, ",\"toolUseResult\":");
        match call.tool {
            Tool::Bash => {
                raw(&mut self.b, "{\"stdout\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
            }
            Tool::Read => {
                let lines = text.matches('\n').count() as u64;
                raw(&mut self.b, "{\"type\":\"text\",\"file\":{\"filePath\":\"/repo/src/");
                raw(&mut self.b, word(&mut self.rng));
                raw(&mut self.b, ".rs\",\"content\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"numLines\":");
                num(&mut self.b, lines);
                raw(&mut self.b, ",\"startLine\":1,\"totalLines\":");
                num(&mut self.b, lines);
                raw(&mut self.b, "}}");
            }
            Tool::Edit | Tool::Write => {
                raw(&mut self.b, "{\"filePath\":\"/repo/src/lib.rs\",\"oldString\":");
                js(&mut self.b, slice(&p.code, &mut self.rng, 80));
                raw(&mut self.b, ",\"newString\":");
                js(&mut self.b, slice(&p.code, &mut self.rng, 90));
                raw(&mut self.b, ",\"originalFile\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"userModified\":false,\"replaceAll\":false}");
            }
            Tool::Grep => {
                raw(&mut self.b, "{\"mode\":\"content\",\"numFiles\":");
                num(&mut self.b, self.rng.range(1, 40));
                raw(&mut self.b, ",\"filenames\":[],\"content\":");
                js(&mut self.b, text);
                raw(&mut self.b, ",\"numLines\":");
                num(&mut self.b, text.matches('\n').count() as u64);
                self.b.push(b'}');
            }
        }
        raw(&mut self.b, ",\"sourceToolAssistantUUID\":");
        uuid(&mut self.b, &call.line);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()
    }

    pub(super) fn hook_progress(&mut self, event: &str, name: &str) -> io::Result<()> {
        let u = Uuid::v4(&mut self.rng);
        self.tick(5, 200);
        self.open(self.last);
        raw(
            &mut self.b,
            ",\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\",\"hookEvent\":",
        );
        js(&mut self.b, event);
        raw(&mut self.b, ",\"hookName\":");
        js(&mut self.b, name);
        raw(
            &mut self.b,
            ",\"command\":\"terminal-notifier -title \\\"Claude: $(basename $PWD)\\\" -message \\\"Done\\\"\"},\"parentToolUseID\":",
        );
        let id = Uuid::v4(&mut self.rng);
        uuid(&mut self.b, &id);
        raw(&mut self.b, ",\"toolUseID\":");
        uuid(&mut self.b, &id);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, ",\"uuid\":");
        uuid(&mut self.b, &u);
        self.b.push(b'}');
        self.last = Some(u);
        self.emit()
    }
}
