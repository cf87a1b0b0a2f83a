//! Generates sessions of both agents heavy with images, for `cctool slim`'s tests and bench.
//!
//! ```text
//! cargo run --release --example gen-payloads -- OUT [--compactions N] [--image-kib K]
//!     [--images I] [--codex-mib M] [--seed SEED]
//! ```
//!
//! Writes `OUT/claude.jsonl` (Claude Code 2.1.332) and `OUT/codex.jsonl` (Codex 0.171): in
//! each of N+1 rounds the user pastes an image (from a pool of I, so they repeat) and the
//! agent reads another one from disk; N compactions separate the rounds. Claude Code keeps
//! the read image twice (the tool result and its `toolUseResult`); Codex keeps the pasted one
//! in the message and its `user_message` event, and every compaction's `replacement_history`
//! copies the images of the user messages it keeps — the growth `slim` repairs
//! (`docs/slim.md`). With `--codex-mib M` only the rollout is written, with as many rounds
//! as it takes to reach M MiB (the bench). Images are real PNG files (stored deflate) of
//! about K KiB; the same seed always gives the same bytes.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::json;

#[path = "shared/rng.rs"]
mod rng;
use rng::Rng;

/// A PNG of `w`×`h` RGB pixels of noise, its IDAT a stored (uncompressed) zlib stream.
fn png(rng: &mut Rng, w: u32, h: u32) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((w * 3 + 1) * h) as usize);
    for _ in 0..h {
        // Each row: filter type 0 (none), then its pixels.
        raw.extend(std::iter::once(0).chain((0..w * 3).map(|_| rng.next_u64() as u8)));
    }
    let mut z = vec![0x78, 0x01];
    let mut chunks = raw.chunks(65_535).peekable();
    while let Some(c) = chunks.next() {
        z.push(u8::from(chunks.peek().is_none()));
        let n = c.len() as u16;
        z.extend_from_slice(&n.to_le_bytes());
        z.extend_from_slice(&(!n).to_le_bytes());
        z.extend_from_slice(c);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |ty: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut h = crc32fast::Hasher::new();
        h.update(ty);
        h.update(data);
        out.extend_from_slice(ty);
        out.extend_from_slice(data);
        out.extend_from_slice(&h.finalize().to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &z);
    chunk(b"IEND", &[]);
    out
}

struct Image {
    b64: String,
    size: usize,
    side: u32,
}

fn images(rng: &mut Rng, n: usize, kib: u32) -> Vec<Image> {
    let side = ((f64::from(kib) * 1024.0 / 3.0).sqrt() as u32).max(8);
    (0..n)
        .map(|_| {
            let p = png(rng, side, side);
            Image {
                b64: BASE64.encode(&p),
                size: p.len(),
                side,
            }
        })
        .collect()
}

fn ts(i: u64) -> String {
    let (m, s) = (i / 60 % 60, i % 60);
    format!("2026-11-20T{:02}:{m:02}:{s:02}.000Z", 9 + i / 3600 % 12)
}

fn uuid(i: u64) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

const SESSION: &str = "5e551000-0000-4000-8000-00000000c1a0";

/// The Claude Code transcript.
fn claude(path: &Path, imgs: &[Image], compactions: usize) -> std::io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    let mut n = 0u64;
    let mut parent: Option<String> = None;
    let mut row =
        |w: &mut BufWriter<File>, parent: &mut Option<String>, mut v: serde_json::Value| -> std::io::Result<()> {
            n += 1;
            let id = uuid(n);
            let o = v.as_object_mut().expect("an object");
            if !o.contains_key("parentUuid") {
                o.insert("parentUuid".into(), json!(parent));
            }
            o.insert("isSidechain".into(), json!(false));
            o.insert("userType".into(), json!("external"));
            o.insert("cwd".into(), json!("/home/dev/app"));
            o.insert("sessionId".into(), json!(SESSION));
            o.insert("version".into(), json!("2.1.332"));
            o.insert("gitBranch".into(), json!("main"));
            o.insert("uuid".into(), json!(id));
            o.insert("timestamp".into(), json!(ts(n)));
            *parent = Some(id);
            serde_json::to_writer(&mut *w, &v)?;
            w.write_all(b"\n")
        };
    let assistant = |text: serde_json::Value, id: usize| {
        json!({"type": "assistant", "message": {"id": format!("msg_{id:04}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [text], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}}})
    };
    for round in 0..=compactions {
        let pasted = &imgs[round % imgs.len()];
        let read = &imgs[(round + 1) % imgs.len()];
        row(
            &mut w,
            &mut parent,
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": pasted.b64}},
            {"type": "text", "text": format!("Round {round}: what is wrong in this screenshot?")}]},
            "imagePasteIds": [round + 1]}),
        )?;
        row(
            &mut w,
            &mut parent,
            assistant(
                json!({"type": "text", "text": format!("The layout overflows (round {round}). Let me look at the mockup.")}),
                round * 3,
            ),
        )?;
        let call = format!("toolu_{round:04}");
        row(
            &mut w,
            &mut parent,
            assistant(
                json!({"type": "tool_use", "id": call, "name": "Read",
            "input": {"file_path": format!("/home/dev/app/mockup-{round}.png")}}),
                round * 3 + 1,
            ),
        )?;
        row(
            &mut w,
            &mut parent,
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": read.b64}}]}]},
            "toolUseResult": {"type": "image", "file": {"base64": read.b64, "type": "image/png", "originalSize": read.size,
                "dimensions": {"originalWidth": read.side, "originalHeight": read.side, "displayWidth": read.side, "displayHeight": read.side}}}}),
        )?;
        row(
            &mut w,
            &mut parent,
            assistant(
                json!({"type": "text", "text": format!("Fixed the overflow of round {round}.")}),
                round * 3 + 2,
            ),
        )?;
        if round < compactions {
            let logical = parent.clone();
            row(
                &mut w,
                &mut parent,
                json!({"parentUuid": null, "logicalParentUuid": logical, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false, "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 150_000}}),
            )?;
            row(
                &mut w,
                &mut parent,
                json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
                "message": {"role": "user", "content": format!("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nRounds 0 to {round}: layout overflows fixed.")}}),
            )?;
        }
    }
    w.flush()
}

const PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

/// The Codex rollout: rounds until `rounds` are written, or until `min_bytes` are.
fn codex(path: &Path, imgs: &[Image], rounds: usize, min_bytes: u64) -> std::io::Result<u64> {
    let mut w = BufWriter::new(File::create(path)?);
    let mut n = 0u64;
    let bytes = std::cell::Cell::new(0u64);
    let mut line = |w: &mut BufWriter<File>, ty: &str, payload: serde_json::Value| -> std::io::Result<()> {
        n += 1;
        let v = json!({"timestamp": ts(n), "type": ty, "payload": payload});
        let s = serde_json::to_string(&v)?;
        bytes.set(bytes.get() + s.len() as u64 + 1);
        w.write_all(s.as_bytes())?;
        w.write_all(b"\n")
    };
    line(
        &mut w,
        "session_meta",
        json!({"id": "019b0000-0000-7000-8000-00000000c1a0", "timestamp": ts(0),
        "cwd": "/work/app", "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli",
        "model_provider": "ollama", "base_instructions": {"text": "<base instructions>"}}),
    )?;
    line(
        &mut w,
        "response_item",
        json!({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>/work/app</cwd>\n  <shell>bash</shell>\n</environment_context>"}]}),
    )?;
    // The real user messages so far; a compaction keeps the newest of them.
    let mut users: Vec<serde_json::Value> = Vec::new();
    let mut round = 0usize;
    loop {
        let img = &imgs[round % imgs.len()];
        let url = format!("data:image/png;base64,{}", img.b64);
        let turn = format!("t{round}");
        let prompt = format!("Round {round}: the button is cut off here, fix it.");
        line(
            &mut w,
            "event_msg",
            json!({"type": "task_started", "turn_id": turn, "model_context_window": 258_400}),
        )?;
        let user = json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": prompt}, {"type": "input_image", "image_url": url}]});
        line(&mut w, "response_item", user.clone())?;
        users.push(user);
        line(
            &mut w,
            "event_msg",
            json!({"type": "user_message", "message": prompt, "images": [url],
            "local_images": [], "text_elements": []}),
        )?;
        line(
            &mut w,
            "turn_context",
            json!({"turn_id": turn, "cwd": "/work/app", "approval_policy": "on-request",
            "model": "gpt-oss:20b", "summary": "auto"}),
        )?;
        let call = format!("call_{round:04}");
        let seen = &imgs[(round + 1) % imgs.len()];
        line(
            &mut w,
            "response_item",
            json!({"type": "function_call", "name": "view_image",
            "arguments": format!("{{\"path\":\"/work/app/shot-{round}.png\"}}"), "call_id": call}),
        )?;
        line(
            &mut w,
            "response_item",
            json!({"type": "function_call_output", "call_id": call, "output": [
            {"type": "input_image", "image_url": format!("data:image/png;base64,{}", seen.b64)}]}),
        )?;
        let reply = format!("Round {round}: the button fits now.");
        line(
            &mut w,
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]}),
        )?;
        line(
            &mut w,
            "event_msg",
            json!({"type": "task_complete", "turn_id": turn, "last_agent_message": reply}),
        )?;
        round += 1;
        let done = if min_bytes > 0 {
            bytes.get() >= min_bytes
        } else {
            round > rounds
        };
        if done {
            break;
        }
        let turn = format!("c{round}");
        let summary = format!("{PREFIX}\nRounds 0 to {}: buttons fixed.", round - 1);
        line(
            &mut w,
            "event_msg",
            json!({"type": "task_started", "turn_id": turn, "model_context_window": 258_400}),
        )?;
        let mut history: Vec<serde_json::Value> = users.iter().rev().take(8).rev().cloned().collect();
        history.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]}));
        line(
            &mut w,
            "compacted",
            json!({"message": summary, "replacement_history": history}),
        )?;
        line(&mut w, "event_msg", json!({"type": "context_compacted"}))?;
        line(
            &mut w,
            "event_msg",
            json!({"type": "task_complete", "turn_id": turn, "last_agent_message": null}),
        )?;
    }
    w.flush()?;
    Ok(bytes.get())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out: Option<PathBuf> = None;
    let (mut compactions, mut kib, mut pool, mut codex_mib, mut seed) = (3usize, 24u32, 3usize, 0u64, 7u64);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = || it.next().and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--compactions" => compactions = num().unwrap_or(3) as usize,
            "--image-kib" => kib = num().unwrap_or(24) as u32,
            "--images" => pool = num().unwrap_or(3).max(1) as usize,
            "--codex-mib" => codex_mib = num().unwrap_or(0),
            "--seed" => seed = num().unwrap_or(7),
            s if !s.starts_with('-') && out.is_none() => out = Some(PathBuf::from(s)),
            s => {
                eprintln!("gen-payloads: unknown argument {s}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out else {
        eprintln!(
            "usage: gen-payloads OUT [--compactions N] [--image-kib K] [--images I] [--codex-mib M] [--seed SEED]"
        );
        return ExitCode::from(2);
    };
    let mut rng = Rng::new(seed);
    let imgs = images(&mut rng, pool, kib);
    let run = || -> std::io::Result<()> {
        fs::create_dir_all(&out)?;
        if codex_mib > 0 {
            let n = codex(&out.join("codex.jsonl"), &imgs, 0, codex_mib << 20)?;
            eprintln!("gen-payloads: {} ({n} bytes)", out.join("codex.jsonl").display());
            return Ok(());
        }
        claude(&out.join("claude.jsonl"), &imgs, compactions)?;
        codex(&out.join("codex.jsonl"), &imgs, compactions, 0)?;
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-payloads: {e}");
            ExitCode::FAILURE
        }
    }
}
