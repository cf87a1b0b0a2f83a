//! Planning: how many sessions of which sizes, where, and for which project; then each one
//! generated.

use std::io;
use std::path::{Path, PathBuf};

use crate::claude::{Claude, ClaudeSession, project_slug};
use crate::codex::{Codex, CodexSession};
use crate::ids::{Uuid, parts};
use crate::rng::Rng;
use crate::text::{Pools, profile_size, word};

const USERS: &[&str] = &["alex", "sam", "kim", "jo", "dev"];
const DIRS: &[&str] = &["workspace", "src", "code", "projects", "work/repos"];

pub(crate) fn random_cwd(rng: &mut Rng) -> String {
    format!(
        "/Users/{}/{}/{}-{}",
        rng.pick(USERS),
        rng.pick(DIRS),
        word(rng),
        word(rng)
    )
}

/// 2025-10-01T00:00:00Z plus up to ~9 months.
pub(crate) fn random_start(rng: &mut Rng) -> i64 {
    1_759_276_800_000 + rng.below(270 * 86_400_000) as i64
}

pub(crate) fn sizes(rng: &mut Rng, total: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut sum = 0;
    while sum < total {
        let s = profile_size(rng).min(total - sum).max(1_000);
        sum += s;
        out.push(s);
    }
    out
}

pub(crate) fn plan_claude(rng: &mut Rng, out: &Path, total: u64) -> Vec<ClaudeSession> {
    let sizes = sizes(rng, total);
    let projects: Vec<String> = (0..sizes.len() / 12 + 3).map(|_| random_cwd(rng)).collect();
    sizes
        .into_iter()
        .map(|target| {
            let cwd = rng.pick(&projects).clone();
            let session = Uuid::v4(rng);
            let path = out
                .join("claude/projects")
                .join(project_slug(&cwd))
                .join(format!("{}.jsonl", session.as_str()));
            ClaudeSession {
                seed: rng.next_u64(),
                target,
                path,
                cwd,
                start_ms: random_start(rng),
                session,
                boundaries: None,
            }
        })
        .collect()
}

fn codex_path(root: &Path, start_ms: i64, id: &Uuid) -> PathBuf {
    let p = parts(start_ms);
    root.join(format!("{:04}", p.y))
        .join(format!("{:02}", p.mo))
        .join(format!("{:02}", p.d))
        .join(format!(
            "rollout-{:04}-{:02}-{:02}T{:02}-{:02}-{:02}-{}.jsonl",
            p.y,
            p.mo,
            p.d,
            p.h,
            p.mi,
            p.s,
            id.as_str()
        ))
}

pub(crate) fn plan_codex(rng: &mut Rng, out: &Path, total: u64) -> Vec<CodexSession> {
    let sizes = sizes(rng, total);
    let projects: Vec<String> = (0..sizes.len() / 12 + 3).map(|_| random_cwd(rng)).collect();
    sizes
        .into_iter()
        .map(|target| {
            let start_ms = random_start(rng);
            let id = Uuid::v7(rng, start_ms);
            CodexSession {
                seed: rng.next_u64(),
                target,
                path: codex_path(&out.join("codex/sessions"), start_ms, &id),
                cwd: rng.pick(&projects).clone(),
                start_ms,
                id,
            }
        })
        .collect()
}

pub(crate) fn gen_claude(p: &Pools, s: &ClaudeSession) -> io::Result<(u64, u64)> {
    let home = s.cwd.split('/').take(3).collect::<Vec<_>>().join("/");
    Claude::new(p, s, &home)?.run()
}

pub(crate) fn gen_codex(p: &Pools, s: &CodexSession) -> io::Result<(u64, u64)> {
    Codex::new(p, s)?.run(s)
}
