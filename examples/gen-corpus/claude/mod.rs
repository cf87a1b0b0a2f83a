//! Claude Code transcripts: the parentUuid chain, assistant messages one content block per
//! line, parallel tool calls, progress rows, file-history snapshots and compactions
//! (`docs/claude-code.md#records`).

mod assistant;
mod compaction;

use std::io::{self, Write};
use std::path::PathBuf;

use crate::ids::{Uuid, base62_id, push_ts};
use crate::line::{Sink, js, num, raw, uuid};
use crate::rng::Rng;
use crate::text::{Pools, b64, slice, word};

const CLAUDE_VERSIONS_PROGRESS: &[&str] = &["2.1.14", "2.1.17", "2.1.29", "2.1.42"];
const CLAUDE_VERSIONS_OTHER: &[&str] = &["2.0.76", "2.1.7", "2.1.88", "2.1.119"];
const CLAUDE_MODELS: &[&str] = &[
    "claude-opus-4-5-20251101",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5-20251001",
];
const SLUG_WORDS: &[&str] = &[
    "delegated",
    "sauteeing",
    "moon",
    "joyful",
    "wandering",
    "plum",
    "structured",
    "popping",
    "tome",
];

#[derive(Clone)]
pub(crate) struct ClaudeSession {
    pub(crate) seed: u64,
    pub(crate) target: u64,
    pub(crate) path: PathBuf,
    pub(crate) cwd: String,
    pub(crate) start_ms: i64,
    pub(crate) session: Uuid,
    /// Short turns each followed by a compaction, this many (`--boundaries`); None for the
    /// realistic shape.
    pub(crate) boundaries: Option<u64>,
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Bash,
    Read,
    Edit,
    Grep,
    Write,
}

struct ToolCall {
    line: Uuid,
    id: String,
    tool: Tool,
}

pub(crate) struct Claude<'p> {
    p: &'p Pools,
    rng: Rng,
    sink: Sink,
    b: Vec<u8>,
    /// `,"isSidechain":false,…,"gitBranch":"…"[,"slug":"…"]`: the fixed part after parentUuid.
    head_rest: Vec<u8>,
    session: Uuid,
    clock: i64,
    /// The chain cursor: the message the next one is parented on.
    last: Option<Uuid>,
    /// Which messages started the current turn (the head of a preserved segment).
    turn_head: Option<Uuid>,
    progress: bool,
    snapshots: bool,
    segments: f64,
    model: &'static str,
    tracked: Vec<(String, u32)>,
    seg_bytes: u64,
    compact_at: u64,
    target: u64,
    transcript_path: String,
    boundaries: Option<u64>,
}

impl<'p> Claude<'p> {
    pub(crate) fn new(p: &'p Pools, s: &ClaudeSession, home: &str) -> io::Result<Claude<'p>> {
        let mut rng = Rng::new(s.seed);
        let progress = rng.chance(0.35);
        let version = if progress {
            rng.one(CLAUDE_VERSIONS_PROGRESS)
        } else {
            rng.one(CLAUDE_VERSIONS_OTHER)
        };
        let segments = if version == "2.1.88" || version == "2.1.119" {
            0.5
        } else {
            0.0
        };
        let mut head_rest = Vec::with_capacity(256);
        raw(
            &mut head_rest,
            ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":",
        );
        js(&mut head_rest, &s.cwd);
        raw(&mut head_rest, ",\"sessionId\":");
        uuid(&mut head_rest, &s.session);
        raw(&mut head_rest, ",\"version\":");
        js(&mut head_rest, version);
        raw(&mut head_rest, ",\"gitBranch\":");
        let branch = format!("{}/{}-{}", word(&mut rng), word(&mut rng), rng.range(1, 400));
        js(&mut head_rest, if rng.chance(0.3) { "main" } else { &branch });
        if version != "2.0.76" {
            raw(&mut head_rest, ",\"slug\":");
            let slug = format!(
                "{}-{}-{}",
                rng.pick(SLUG_WORDS),
                rng.pick(SLUG_WORDS),
                rng.pick(SLUG_WORDS)
            );
            js(&mut head_rest, &slug);
        }
        let compact_at = rng.range(600_000, 2_500_000);
        let transcript_path = format!(
            "{home}/.claude/projects/{}/{}.jsonl",
            project_slug(&s.cwd),
            s.session.as_str()
        );
        Ok(Claude {
            p,
            model: rng.one(CLAUDE_MODELS),
            rng,
            sink: Sink::create(&s.path)?,
            b: Vec::with_capacity(1 << 20),
            head_rest,
            session: s.session,
            clock: s.start_ms,
            last: None,
            turn_head: None,
            progress,
            snapshots: version != "2.0.76" || s.seed.is_multiple_of(2),
            segments,
            tracked: Vec::new(),
            seg_bytes: 0,
            compact_at,
            target: s.target,
            transcript_path,
            boundaries: s.boundaries,
        })
    }

    fn remaining(&self) -> u64 {
        self.target.saturating_sub(self.sink.bytes)
    }

    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.clock += self.rng.range(lo, hi) as i64;
        self.clock
    }

    fn emit(&mut self) -> io::Result<()> {
        let before = self.sink.bytes;
        self.sink.emit(&mut self.b)?;
        self.seg_bytes += self.sink.bytes - before;
        Ok(())
    }

    /// `{"parentUuid":…` and the session's fixed envelope fields.
    fn open(&mut self, parent: Option<Uuid>) {
        raw(&mut self.b, "{\"parentUuid\":");
        match parent {
            Some(p) => uuid(&mut self.b, &p),
            None => raw(&mut self.b, "null"),
        }
        self.b.extend_from_slice(&self.head_rest);
    }

    /// `,"uuid":…,"timestamp":…`.
    fn id_ts(&mut self, u: &Uuid) {
        raw(&mut self.b, ",\"uuid\":");
        uuid(&mut self.b, u);
        raw(&mut self.b, ",\"timestamp\":");
        push_ts(&mut self.b, self.clock);
    }

    pub(crate) fn run(mut self) -> io::Result<(u64, u64)> {
        if let Some(n) = self.boundaries {
            for _ in 0..n {
                self.short_turn()?;
                self.compaction()?;
            }
            return self.sink.finish();
        }
        if self.progress {
            // The first row of many 2.1.1x sessions: a SessionStart hook, parentUuid null.
            self.hook_progress("SessionStart", "SessionStart:startup")?;
        }
        while self.remaining() > 0 {
            self.turn()?;
            if self.seg_bytes >= self.compact_at && self.remaining() > 0 {
                self.compaction()?;
            }
        }
        self.sink.finish()
    }

    /// A prompt and a one-line answer (`--boundaries`).
    fn short_turn(&mut self) -> io::Result<()> {
        let p = self.p;
        self.tick(20_000, 900_000);
        let n = self.rng.range(20, 200) as usize;
        let prompt = slice(&p.prose, &mut self.rng, n);
        self.plain_user(prompt, false)?;
        self.turn_head = self.last;
        let msg_id = base62_id(&mut self.rng, "msg_01", 22);
        let req_id = base62_id(&mut self.rng, "req_011C", 20);
        let n = self.rng.range(20, 200) as usize;
        let text = slice(&p.prose, &mut self.rng, n);
        self.assistant_line(&msg_id, &req_id, (3, 0, 10_000, 40), |b| {
            raw(b, "{\"type\":\"text\",\"text\":");
            js(b, text);
            b.push(b'}');
        })?;
        Ok(())
    }

    fn turn(&mut self) -> io::Result<()> {
        let user = Uuid::v4(&mut self.rng);
        self.tick(20_000, 900_000);
        if self.snapshots && self.rng.chance(0.6) {
            self.file_snapshot(&user)?;
        }
        self.user_prompt(&user)?;
        self.turn_head = Some(user);
        let rounds = if self.rng.chance(0.2) {
            1
        } else {
            self.rng.log_uniform(2, 30)
        };
        for r in 0..rounds {
            let last = r + 1 == rounds || self.remaining() == 0;
            self.assistant_round(last)?;
            if last {
                break;
            }
        }
        self.end_of_turn()
    }

    fn file_snapshot(&mut self, msg: &Uuid) -> io::Result<()> {
        if self.tracked.len() < 40 && self.rng.chance(0.5) {
            let path = format!(
                "src/{}/{}_{}.rs",
                word(&mut self.rng),
                word(&mut self.rng),
                self.tracked.len()
            );
            self.tracked.push((path, 1));
        }
        raw(&mut self.b, "{\"type\":\"file-history-snapshot\",\"messageId\":");
        uuid(&mut self.b, msg);
        raw(&mut self.b, ",\"snapshot\":{\"messageId\":");
        uuid(&mut self.b, msg);
        raw(&mut self.b, ",\"trackedFileBackups\":{");
        for i in 0..self.tracked.len() {
            if self.rng.chance(0.2) {
                self.tracked[i].1 += 1;
            }
            if i > 0 {
                self.b.push(b',');
            }
            let (path, version) = (&self.tracked[i].0, self.tracked[i].1);
            js(&mut self.b, path);
            raw(&mut self.b, ":{\"backupFileName\":\"");
            let _ = write!(self.b, "{:016x}@v{version}", self.rng.next_u64());
            raw(&mut self.b, "\",\"version\":");
            num(&mut self.b, u64::from(version));
            raw(&mut self.b, ",\"backupTime\":");
            push_ts(&mut self.b, self.clock - self.rng.range(0, 3_600_000) as i64);
            self.b.push(b'}');
        }
        raw(&mut self.b, "},\"timestamp\":");
        push_ts(&mut self.b, self.clock);
        raw(&mut self.b, "},\"isSnapshotUpdate\":false}");
        self.emit()
    }

    fn user_prompt(&mut self, user: &Uuid) -> io::Result<()> {
        let p = self.p;
        self.open(self.last);
        raw(
            &mut self.b,
            ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":",
        );
        let len = if self.rng.chance(0.05) {
            self.rng.log_uniform(3_000, 60_000) as usize
        } else {
            self.rng.log_uniform(15, 1_500) as usize
        };
        let pool = if len > 3_000 { &p.code } else { &p.prose };
        let len = len.min(self.remaining() as usize + 15);
        let text = slice(pool, &mut self.rng, len);
        if self.rng.chance(0.02) {
            // A pasted screenshot.
            let size = self.rng.log_uniform(20_000, 400_000).min(self.remaining() + 100) as usize;
            raw(
                &mut self.b,
                "[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"",
            );
            raw(&mut self.b, b64(p, &mut self.rng, size));
            raw(&mut self.b, "\"}},{\"type\":\"text\",\"text\":");
            js(&mut self.b, text);
            raw(&mut self.b, "}]");
        } else {
            js(&mut self.b, text);
        }
        self.b.push(b'}');
        self.id_ts(user);
        raw(
            &mut self.b,
            ",\"thinkingMetadata\":{\"level\":\"high\",\"disabled\":false,\"triggers\":[]},\"todos\":[]}",
        );
        self.last = Some(*user);
        self.emit()
    }
}

/// Claude Code's project directory name: every non-alphanumeric character becomes `-`.
pub(crate) fn project_slug(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
