//! The `input` Codex 0.171 sends after resuming a rollout: the send-time rules applied to the
//! history that [`super::history`] rebuilds.
//!
//! Codex does not send its history as written. It reads every item into its own types and
//! writes them out again (X2); it cuts the tool outputs it records after the base of the
//! history to the model's budget (X3–X5); when it resumes it checks the images and audio of
//! every item (X6, X7, X11); and each request closes tool calls that have no output and drops
//! outputs that have no call (X8, X9). `docs/codex-request.md` states each rule with the
//! evidence and the fixture of `fixtures/codex/api/` that shows it; [`RULES`] is the table for
//! Codex 0.171, in report order.
//!
//! Left out, as the comparison with the real client leaves them out: the base instructions and
//! tool list Codex puts first, the context messages it adds before a new prompt (permissions,
//! skills, environment, AGENTS.md; they describe the machine, the date and the configuration,
//! not the session), and the `internal_chat_message_metadata_passthrough` of each item.

use std::collections::{BTreeMap, HashSet};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::history::History;
use crate::agents::codex::items::{self as w, CallKind, Detail, OutPart, Output, Part, Wire};
use crate::agents::codex::rollout::{Era, ItemSrc, Record, Rollout};
use crate::io::Source;

/// The client version whose behaviour this module reproduces.
pub const CLIENT: &str = "0.171";

/// The send-time rules of Codex 0.171, in report order, with what each does.
pub const RULES: &[(&str, &str)] = &[
    ("X1", "items Codex cannot read into its types skipped with their line"),
    (
        "X2",
        "items sent in Codex's own form: unknown fields left out, absent optional fields sent as null, ids that are not prefix_suffix dropped, compaction_summary sent as compaction, unknown kinds sent as {\"type\":\"other\"}",
    ),
    (
        "X3",
        "tool outputs recorded after the history's base cut to the model's budget, head and tail around Codex's marker",
    ),
    (
        "X4",
        "text parts of list tool outputs past the budget omitted ([omitted N text items ...])",
    ),
    ("X5", "empty text parts of list tool outputs dropped"),
    (
        "X6",
        "images checked: remote URLs, detail low and unreadable data replaced by a note, data URLs written with the image's own type, detail original sent as high to models that cannot take it",
    ),
    ("X7", "audio replaced by a note (no model takes audio)"),
    (
        "X8",
        "tool calls without an output closed by an \"aborted\" output right after the call",
    ),
    ("X9", "tool outputs without their call removed"),
    (
        "X10",
        "messages from other agents (inter_agent_communication) sent as agent_message",
    ),
    (
        "X11",
        "images the client resizes or converts kept as written (cctool does not re-encode images)",
    ),
    ("X12", "image detail left out for models served through Responses Lite"),
];

/// Rules with counts, in report order, with what each does.
pub fn rules_of(fired: &BTreeMap<&'static str, usize>) -> Vec<serde_json::Value> {
    RULES
        .iter()
        .filter_map(|(id, what)| {
            fired
                .get(id)
                .map(|n| serde_json::json!({"rule": id, "count": n, "what": what}))
        })
        .collect()
}

// ---- the model -----------------------------------------------------------------------------

/// How much of a tool output Codex keeps when it records it: a byte or a token budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Bytes(usize),
    Tokens(usize),
}

impl Budget {
    fn with(self, n: usize) -> Budget {
        match self {
            Budget::Bytes(_) => Budget::Bytes(n),
            Budget::Tokens(_) => Budget::Tokens(n),
        }
    }

    fn amount(self) -> usize {
        match self {
            Budget::Bytes(n) | Budget::Tokens(n) => n,
        }
    }

    fn cost(self, text: &str) -> usize {
        match self {
            Budget::Bytes(_) => text.len(),
            Budget::Tokens(_) => crate::model::approx_tokens(text.len()),
        }
    }
}

/// Models of the catalog Codex 0.171 ships, and whether each is served through Responses Lite.
/// Each keeps 10,000 tokens of a tool output and can take images at `original` detail.
const CATALOG: &[(&str, bool)] = &[
    ("gpt-6.2-sol", true),
    ("gpt-6.2-astra", true),
    ("gpt-6-astra", true),
    ("gpt-6.1-sol", true),
    ("gpt-6.1-terra", true),
    ("gpt-6-sol", true),
    ("gpt-6-luna", true),
    ("gpt-5.6-sol", true),
    ("gpt-5.6-terra", true),
    ("gpt-5.6-luna", true),
    ("gpt-daybreak-blue-latest", true),
    ("gpt-daybreak-red-latest", true),
    ("gpt-5.5", false),
    ("codex-auto-review", true),
];

/// What the send-time rules need to know of the model a resume runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// The model asked for (the rollout's last, or the caller's).
    pub slug: Option<String>,
    /// The catalog entry it resolves to; `None` means Codex's fallback metadata.
    pub entry: Option<&'static str>,
    /// The recording budget, already multiplied by 1.2 as Codex does.
    pub budget: Budget,
    pub original_detail: bool,
    /// Requests go through Responses Lite, which takes no image `detail`.
    pub responses_lite: bool,
}

impl ModelInfo {
    /// Codex's lookup: the longest catalog slug the name starts with; else, for a name like
    /// `provider/model`, the same on the part after the slash; else the fallback metadata
    /// (10,000 bytes, no `original` detail).
    pub fn for_slug(slug: Option<&str>) -> ModelInfo {
        let entry = slug.and_then(|s| {
            longest_prefix(s).or_else(|| {
                let (ns, rest) = s.split_once('/')?;
                let simple = !ns.is_empty()
                    && ns.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    && !rest.contains('/');
                if simple { longest_prefix(rest) } else { None }
            })
        });
        // Codex records with its policy times 1.2 (room for serialisation).
        let budget = if entry.is_some() {
            Budget::Tokens(12_000)
        } else {
            Budget::Bytes(12_000)
        };
        ModelInfo {
            slug: slug.map(str::to_string),
            entry: entry.map(|(name, _)| name),
            budget,
            original_detail: entry.is_some(),
            responses_lite: entry.is_some_and(|(_, lite)| lite),
        }
    }
}

fn longest_prefix(s: &str) -> Option<(&'static str, bool)> {
    CATALOG
        .iter()
        .copied()
        .filter(|(c, _)| s.starts_with(c))
        .max_by_key(|(c, _)| c.len())
}

// ---- truncation ----------------------------------------------------------------------------

/// Codex's middle cut: the first and last halves of `max_bytes` (on character boundaries)
/// around `…N chars truncated…` or `…N tokens truncated…`. Unchanged when it fits.
fn cut_middle(s: &str, max_bytes: usize, tokens: bool) -> String {
    let (head, marker, tail) = cut_middle_parts(s, max_bytes, tokens);
    format!("{head}{marker}{tail}")
}

/// [`cut_middle`] as its three pieces: head, marker (empty when nothing is cut) and tail.
pub fn cut_middle_parts(s: &str, max_bytes: usize, tokens: bool) -> (&str, String, &str) {
    if s.is_empty() {
        return ("", String::new(), "");
    }
    if max_bytes == 0 {
        let removed = if tokens {
            crate::model::approx_tokens(s.len())
        } else {
            s.chars().count()
        };
        return ("", marker(tokens, removed), "");
    }
    if s.len() <= max_bytes {
        return (s, String::new(), "");
    }
    let left = max_bytes / 2;
    let tail_target = s.len() - (max_bytes - left);
    let mut prefix_end = 0;
    let mut suffix_start = s.len();
    let mut removed_chars = 0;
    let mut in_suffix = false;
    for (i, c) in s.char_indices() {
        let end = i + c.len_utf8();
        if end <= left {
            prefix_end = end;
        } else if i >= tail_target {
            if !in_suffix {
                suffix_start = i;
                in_suffix = true;
            }
        } else {
            removed_chars += 1;
        }
    }
    let suffix_start = suffix_start.max(prefix_end);
    let removed = if tokens {
        crate::model::approx_tokens(s.len() - max_bytes)
    } else {
        removed_chars
    };
    (&s[..prefix_end], marker(tokens, removed), &s[suffix_start..])
}

fn marker(tokens: bool, n: usize) -> String {
    if tokens {
        format!("…{n} tokens truncated…")
    } else {
        format!("…{n} chars truncated…")
    }
}

/// `text` cut to `budget`, as Codex cuts a tool output it records.
pub fn truncate_text(text: &str, budget: Budget) -> String {
    match budget {
        Budget::Bytes(n) => cut_middle(text, n, false),
        Budget::Tokens(n) => truncate_tokens(text, n),
    }
}

/// Keeps the head and tail of `text` within `tokens` (4 bytes each) around Codex's
/// `…N tokens truncated…` marker; unchanged when it fits.
pub fn truncate_tokens(text: &str, tokens: usize) -> String {
    if text.is_empty() || (tokens > 0 && text.len() <= tokens * 4) {
        return text.to_string();
    }
    cut_middle(text, tokens.saturating_mul(4), true)
}

/// What recording did to one list output.
#[derive(Default)]
struct ListCut {
    cut: bool,
    omitted: usize,
    empty: usize,
}

/// A list output as Codex records it: empty text parts dropped, text parts kept while the
/// budget lasts, the first that does not fit cut, the rest omitted and counted at the end.
fn truncate_parts(parts: Vec<OutPart>, budget: Budget) -> (Vec<OutPart>, ListCut) {
    let mut out = Vec::with_capacity(parts.len());
    let mut remaining = budget.amount();
    let mut r = ListCut::default();
    let mut omitted_audio = 0;
    for p in parts {
        match p {
            OutPart::InputText { text } if text.is_empty() => r.empty += 1,
            OutPart::InputText { text } => {
                if remaining == 0 {
                    r.omitted += 1;
                    continue;
                }
                let cost = budget.cost(&text);
                if cost <= remaining {
                    remaining -= cost;
                    out.push(OutPart::InputText { text });
                } else {
                    let snippet = truncate_text(&text, budget.with(remaining));
                    if snippet.is_empty() {
                        r.omitted += 1;
                    } else {
                        r.cut = true;
                        out.push(OutPart::InputText { text: snippet });
                    }
                    remaining = 0;
                }
            }
            OutPart::InputAudio { audio_url } => {
                // Codex estimates audio from its decoded duration when it can; cctool uses its
                // fallback, the size of the URL.
                let tokens = crate::model::approx_tokens(audio_url.len());
                let cost = match budget {
                    Budget::Bytes(_) => tokens * 4,
                    Budget::Tokens(_) => tokens,
                };
                if cost <= remaining {
                    remaining -= cost;
                    out.push(OutPart::InputAudio { audio_url });
                } else {
                    omitted_audio += 1;
                }
            }
            other => out.push(other),
        }
    }
    if r.omitted > 0 {
        out.push(OutPart::InputText {
            text: format!("[omitted {} text items ...]", r.omitted),
        });
    }
    if omitted_audio > 0 {
        r.omitted += omitted_audio;
        out.push(OutPart::InputText {
            text: format!("[omitted {omitted_audio} audio items ...]"),
        });
    }
    (out, r)
}

/// Recording: a tool output cut to the budget (X3–X5).
fn record(item: &mut Wire, budget: Budget, fired: &mut BTreeMap<&'static str, usize>) {
    let output = match item {
        Wire::FunctionCallOutput { output, .. } | Wire::CustomToolCallOutput { output, .. } => output,
        _ => return,
    };
    match std::mem::replace(output, Output::Text(String::new())) {
        Output::Text(t) => {
            let cut = truncate_text(&t, budget);
            if cut != t {
                bump(fired, "X3");
            }
            *output = Output::Text(cut);
        }
        Output::Parts(parts) => {
            let (parts, r) = truncate_parts(parts, budget);
            if r.cut {
                bump(fired, "X3");
            }
            if r.omitted > 0 {
                bump(fired, "X4");
            }
            if r.empty > 0 {
                bump(fired, "X5");
            }
            *output = Output::Parts(parts);
        }
    }
}

fn bump(fired: &mut BTreeMap<&'static str, usize>, rule: &'static str) {
    *fired.entry(rule).or_default() += 1;
}

// ---- images and audio ----------------------------------------------------------------------

const IMAGE_UNREADABLE: &str = "image content omitted because it could not be processed";
const IMAGE_LOW_DETAIL: &str =
    "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'";
const IMAGE_REMOTE: &str = "image content omitted because remote image URLs are not supported";
const AUDIO_UNREADABLE: &str = "audio content omitted because it could not be processed";
const AUDIO_TOO_LARGE: &str =
    "audio content omitted because it exceeded the supported size limit; use a smaller audio file";
const AUDIO_FORMAT: &str = "audio content omitted because its format is not supported; use wav, mp3, m4a, webm, or ogg";
const AUDIO_UNSUPPORTED: &str = "audio content omitted because you do not support audio input";
const MAX_AUDIO_BYTES: usize = 50 * 1024 * 1024;

/// Image limits: at most this width or height, and this many 32-pixel patches.
const HIGH_DETAIL_LIMITS: (u32, u64) = (2048, 2_500);
const ORIGINAL_DETAIL_LIMITS: (u32, u64) = (6000, 10_000);

/// What resuming does to one image.
enum ImageFix {
    Keep,
    /// Sent as this URL (and detail).
    Rewrite(String, Option<Detail>),
    /// Replaced by this text.
    Note(&'static str),
    /// Codex resizes or converts it; cctool keeps it as written.
    NotReproduced,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ImageKind {
    Png,
    Jpeg,
    Webp,
    Gif,
}

fn prepare_image(url: &str, detail: Option<Detail>, model: &ModelInfo) -> ImageFix {
    let scheme = url.split_once(':').map(|(s, _)| s);
    if scheme.is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https")) {
        return ImageFix::Note(IMAGE_REMOTE);
    }
    if !url.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:")) {
        return ImageFix::Keep;
    }
    let (detail, limits) = match detail {
        Some(Detail::Low) => return ImageFix::Note(IMAGE_LOW_DETAIL),
        Some(Detail::Original) if model.original_detail => (Some(Detail::Original), ORIGINAL_DETAIL_LIMITS),
        Some(Detail::Original) => (Some(Detail::High), HIGH_DETAIL_LIMITS),
        d => (d, HIGH_DETAIL_LIMITS),
    };
    let Some((meta, payload)) = url[5..].split_once(',') else {
        return ImageFix::Note(IMAGE_UNREADABLE);
    };
    if !meta.split(';').any(|p| p.eq_ignore_ascii_case("base64")) {
        return ImageFix::Note(IMAGE_UNREADABLE);
    }
    let Ok(bytes) = BASE64.decode(payload) else {
        return ImageFix::Note(IMAGE_UNREADABLE);
    };
    let Some((kind, width, height)) = image_header(&bytes) else {
        return ImageFix::Note(IMAGE_UNREADABLE);
    };
    let (max_dim, max_patches) = limits;
    let (width, height) = (width.max(1), height.max(1));
    let patches = u64::from(width.div_ceil(32)) * u64::from(height.div_ceil(32));
    if kind == ImageKind::Gif || width > max_dim || height > max_dim || patches > max_patches {
        return ImageFix::NotReproduced;
    }
    let mime = match kind {
        ImageKind::Png => "image/png",
        ImageKind::Jpeg => "image/jpeg",
        ImageKind::Webp => "image/webp",
        ImageKind::Gif => unreachable!("converted above"),
    };
    ImageFix::Rewrite(format!("data:{mime};base64,{}", BASE64.encode(&bytes)), detail)
}

/// The kind and size of an image from its header; `None` when it is not an image Codex can
/// read. PNG files are checked chunk by chunk, checksums included.
fn image_header(b: &[u8]) -> Option<(ImageKind, u32, u32)> {
    let u32be = |i: usize| b.get(i..i + 4).map(|x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]));
    let u16le = |i: usize| b.get(i..i + 2).map(|x| u32::from(u16::from_le_bytes([x[0], x[1]])));
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        let (mut at, mut seen_data, mut size) = (8usize, false, None);
        loop {
            let len = u32be(at)? as usize;
            let kind = b.get(at + 4..at + 8)?;
            let body_end = (at + 8).checked_add(len)?;
            let data = b.get(at + 8..body_end)?;
            let crc = u32be(body_end)?;
            let mut h = crc32fast::Hasher::new();
            h.update(kind);
            h.update(data);
            if h.finalize() != crc {
                return None;
            }
            match kind {
                b"IHDR" if at == 8 && len == 13 => size = Some((u32be(at + 8)?, u32be(at + 12)?)),
                _ if at == 8 => return None,
                b"IDAT" => seen_data = true,
                b"IEND" => break,
                _ => {}
            }
            at = body_end + 4;
        }
        let (w, h) = size?;
        return (seen_data && w > 0 && h > 0).then_some((ImageKind::Png, w, h));
    }
    if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        let mut at = 2;
        loop {
            while b.get(at) == Some(&0xFF) && b.get(at + 1) == Some(&0xFF) {
                at += 1;
            }
            if *b.get(at)? != 0xFF {
                return None;
            }
            let m = *b.get(at + 1)?;
            if m == 0x01 || (0xD0..=0xD7).contains(&m) {
                at += 2;
                continue;
            }
            if m == 0xD9 || m == 0xDA {
                return None; // no frame header before the data
            }
            let len = u32::from(u16::from_be_bytes([*b.get(at + 2)?, *b.get(at + 3)?])) as usize;
            if matches!(m, 0xC0..=0xCF) && !matches!(m, 0xC4 | 0xC8 | 0xCC) {
                let h = u32::from(u16::from_be_bytes([*b.get(at + 5)?, *b.get(at + 6)?]));
                let w = u32::from(u16::from_be_bytes([*b.get(at + 7)?, *b.get(at + 8)?]));
                return (w > 0 && h > 0).then_some((ImageKind::Jpeg, w, h));
            }
            at += 2 + len;
        }
    }
    if b.get(..4) == Some(b"RIFF") && b.get(8..12) == Some(b"WEBP") {
        let chunk = b.get(12..16)?;
        let (w, h) = match chunk {
            b"VP8 " => {
                if b.get(23..26)? != [0x9d, 0x01, 0x2a] {
                    return None;
                }
                (u16le(26)? & 0x3fff, u16le(28)? & 0x3fff)
            }
            b"VP8L" => {
                let x = b.get(21..25)?;
                if *b.get(20)? != 0x2f {
                    return None;
                }
                let bits = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                (1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff))
            }
            b"VP8X" => {
                let x = b.get(24..30)?;
                (
                    1 + (u32::from(x[0]) | u32::from(x[1]) << 8 | u32::from(x[2]) << 16),
                    1 + (u32::from(x[3]) | u32::from(x[4]) << 8 | u32::from(x[5]) << 16),
                )
            }
            _ => return None,
        };
        return Some((ImageKind::Webp, w, h));
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return Some((ImageKind::Gif, u16le(6)?, u16le(8)?));
    }
    None
}

/// What resuming does to one audio part: the note that replaces it.
fn prepare_audio(url: &str) -> &'static str {
    if !url.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:")) {
        return AUDIO_UNREADABLE;
    }
    let Some((meta, payload)) = url[5..].split_once(',') else {
        return AUDIO_UNREADABLE;
    };
    let mut parts = meta.split(';');
    let mime = parts.next().unwrap_or("");
    if mime.is_empty() {
        return AUDIO_UNREADABLE;
    }
    const KNOWN: &[&str] = &[
        "audio/wav",
        "audio/x-wav",
        "audio/wave",
        "audio/vnd.wave",
        "audio/mpeg",
        "audio/mp3",
        "audio/mp4",
        "audio/m4a",
        "audio/x-m4a",
        "audio/webm",
        "audio/ogg",
    ];
    if !KNOWN.iter().any(|k| mime.eq_ignore_ascii_case(k)) {
        return AUDIO_FORMAT;
    }
    if !parts.any(|p| p.eq_ignore_ascii_case("base64")) {
        return AUDIO_UNREADABLE;
    }
    if payload.len() > MAX_AUDIO_BYTES.div_ceil(3) * 4 {
        return AUDIO_TOO_LARGE;
    }
    match BASE64.decode(payload) {
        Ok(bytes) if bytes.len() > MAX_AUDIO_BYTES => AUDIO_TOO_LARGE,
        Ok(_) => AUDIO_UNSUPPORTED, // readable, but no model of this client takes audio
        Err(_) => AUDIO_UNREADABLE,
    }
}

/// What resuming found in one item's media.
#[derive(Default)]
struct MediaFix {
    images: bool,
    audio: bool,
    not_reproduced: usize,
}

fn fix_image(
    url: &mut String,
    detail: &mut Option<Detail>,
    model: &ModelInfo,
    f: &mut MediaFix,
) -> Option<&'static str> {
    match prepare_image(url, *detail, model) {
        ImageFix::Keep => None,
        ImageFix::Rewrite(u, d) => {
            if *url != u || *detail != d {
                f.images = true;
                *url = u;
                *detail = d;
            }
            None
        }
        ImageFix::Note(n) => {
            f.images = true;
            Some(n)
        }
        ImageFix::NotReproduced => {
            f.not_reproduced += 1;
            None
        }
    }
}

/// An image or audio part, in a message or in a list tool output.
enum Media<'a> {
    Image(&'a mut String, &'a mut Option<Detail>),
    Audio(&'a str),
}

/// What messages and list outputs share: parts that may be media, and a text part.
trait MediaPart: Sized {
    fn media(&mut self) -> Option<Media<'_>>;
    fn note(text: &str) -> Self;
}

impl MediaPart for Part {
    fn media(&mut self) -> Option<Media<'_>> {
        match self {
            Part::InputImage { image_url, detail } => Some(Media::Image(image_url, detail)),
            Part::InputAudio { audio_url } => Some(Media::Audio(audio_url)),
            _ => None,
        }
    }
    fn note(text: &str) -> Self {
        Part::InputText { text: text.into() }
    }
}

impl MediaPart for OutPart {
    fn media(&mut self) -> Option<Media<'_>> {
        match self {
            OutPart::InputImage { image_url, detail } => Some(Media::Image(image_url, detail)),
            OutPart::InputAudio { audio_url } => Some(Media::Audio(audio_url)),
            _ => None,
        }
    }
    fn note(text: &str) -> Self {
        OutPart::InputText { text: text.into() }
    }
}

/// Applies `f` to the parts of a message or of a list tool output.
fn with_parts<R: Default>(item: &mut Wire, f: impl FnOnce(&mut dyn PartsMut) -> R) -> R {
    match item {
        Wire::Message { content, .. } => f(content),
        Wire::FunctionCallOutput {
            output: Output::Parts(parts),
            ..
        }
        | Wire::CustomToolCallOutput {
            output: Output::Parts(parts),
            ..
        } => f(parts),
        _ => R::default(),
    }
}

/// The parts of one item, whichever kind they are.
trait PartsMut {
    /// Calls `f` on each media part; a text it returns replaces the part.
    fn each_media(&mut self, f: &mut dyn FnMut(Media<'_>) -> Option<&'static str>);
}

impl<P: MediaPart> PartsMut for Vec<P> {
    fn each_media(&mut self, f: &mut dyn FnMut(Media<'_>) -> Option<&'static str>) {
        for p in self.iter_mut() {
            if let Some(text) = p.media().and_then(&mut *f) {
                *p = P::note(text);
            }
        }
    }
}

/// Resuming: images and audio of messages and tool outputs checked (X6, X7, X11).
fn prepare_media(item: &mut Wire, model: &ModelInfo) -> MediaFix {
    let mut f = MediaFix::default();
    with_parts(item, |parts| {
        parts.each_media(&mut |m| match m {
            Media::Image(url, detail) => fix_image(url, detail, model, &mut f),
            Media::Audio(url) => {
                f.audio = true;
                Some(prepare_audio(url))
            }
        })
    });
    f
}

/// Responses Lite takes no image detail: it is left out of every image (X12). Whether any was.
fn strip_image_details(item: &mut Wire) -> bool {
    let mut any = false;
    with_parts(item, |parts| {
        parts.each_media(&mut |m| {
            if let Media::Image(_, detail) = m {
                any |= detail.take().is_some();
            }
            None
        })
    });
    any
}

// ---- calls and outputs ---------------------------------------------------------------------

/// Namespace of the ids Codex derives for the outputs it adds (a UUIDv5 of `prefix:call-id`).
const SYNTHETIC_OUTPUT_NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x90d3_8d3e_6a5b_4d52_bfe2_2f1e_634b_fac4);

fn synthetic_id(prefix: &str, call_item_id: Option<&str>) -> Option<String> {
    let id = call_item_id.filter(|i| !i.is_empty())?;
    let u = uuid::Uuid::new_v5(&SYNTHETIC_OUTPUT_NAMESPACE, format!("{prefix}:{id}").as_bytes());
    Some(format!("{prefix}_{u}"))
}

/// Every call that expects an output and has none gets an `aborted` one right after it (X8).
fn close_calls(items: &mut Vec<Wire>) -> usize {
    let mut answered: HashSet<(CallKind, String)> = HashSet::new();
    for it in items.iter() {
        match it {
            Wire::FunctionCallOutput { call_id, .. } => {
                answered.insert((CallKind::Function, call_id.clone()));
            }
            Wire::CustomToolCallOutput { call_id, .. } => {
                answered.insert((CallKind::Custom, call_id.clone()));
            }
            Wire::ToolSearchOutput {
                call_id: Some(call_id), ..
            } => {
                answered.insert((CallKind::ToolSearch, call_id.clone()));
            }
            _ => {}
        }
    }
    let mut missing: Vec<(usize, Wire)> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let Some((call_id, kind)) = it.call() else { continue };
        if answered.contains(&(kind, call_id.to_string())) {
            continue;
        }
        let call_id = call_id.to_string();
        let output = match kind {
            CallKind::Function => Wire::FunctionCallOutput {
                id: synthetic_id("fco", it.id()),
                call_id,
                output: Output::Text("aborted".into()),
            },
            CallKind::Custom => Wire::CustomToolCallOutput {
                id: synthetic_id("ctco", it.id()),
                call_id,
                name: None,
                output: Output::Text("aborted".into()),
            },
            CallKind::ToolSearch => Wire::ToolSearchOutput {
                id: synthetic_id("tso", it.id()),
                call_id: Some(call_id),
                status: "completed".into(),
                execution: "client".into(),
                tools: Vec::new(),
            },
        };
        missing.push((i, output));
    }
    let n = missing.len();
    for (i, output) in missing.into_iter().rev() {
        items.insert(i + 1, output);
    }
    n
}

/// Outputs whose call is not in the history are dropped (X9). Server-side tool searches and
/// tool search outputs without a call id stay.
fn drop_orphans(items: &mut Vec<Wire>) -> usize {
    let mut calls: HashSet<(CallKind, String)> = HashSet::new();
    for it in items.iter() {
        if let Some((call_id, kind)) = it.call() {
            calls.insert((kind, call_id.to_string()));
        }
    }
    let before = items.len();
    items.retain(|it| match it {
        Wire::FunctionCallOutput { call_id, .. } => calls.contains(&(CallKind::Function, call_id.clone())),
        Wire::CustomToolCallOutput { call_id, .. } => calls.contains(&(CallKind::Custom, call_id.clone())),
        Wire::ToolSearchOutput { execution, .. } if execution == "server" => true,
        Wire::ToolSearchOutput {
            call_id: Some(call_id), ..
        } => calls.contains(&(CallKind::ToolSearch, call_id.clone())),
        _ => true,
    });
    before - items.len()
}

// ---- the view ------------------------------------------------------------------------------

/// The emulated request input.
#[derive(Debug)]
pub struct CodexView {
    /// Each item as the JSON text Codex sends, the prompt last when one was given.
    pub items: Vec<String>,
    /// How often each rule changed something.
    pub fired: BTreeMap<&'static str, usize>,
    pub model: ModelInfo,
    /// Lines of items kept as written although the client would change them (X11).
    pub not_reproduced: Vec<u64>,
    /// History items Codex cannot read, with why (X1): their lines are skipped.
    pub unreadable: Vec<(Option<u64>, String)>,
}

impl CodexView {
    /// ceil(bytes / 4) of the `input` JSON array these items make.
    pub fn tokens(&self) -> usize {
        let body: usize = self.items.iter().map(String::len).sum();
        crate::model::approx_tokens(body + 2 + self.items.len().saturating_sub(1))
    }

    pub fn rules(&self) -> Vec<serde_json::Value> {
        rules_of(&self.fired)
    }
}

/// Why Codex 0.171 cannot resume a file at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether Codex 0.171 can resume this rollout at all.
pub fn refusal(rollout: &Rollout) -> Option<Refusal> {
    if matches!(rollout.era, Era::Bare | Era::Document) {
        return Some(Refusal(
            "Codex 0.171 cannot resume this file: it is written in a 2025 format that current Codex no longer reads (it reports the rollout as empty)".into(),
        ));
    }
    let meta = rollout.records.iter().find_map(|(_, r)| match r {
        Record::SessionMeta { id, .. } => Some(id.is_some()),
        _ => None,
    });
    if meta != Some(true) {
        return Some(Refusal(
            "Codex 0.171 cannot resume this file: it has no session_meta with a thread id".into(),
        ));
    }
    rollout
        .unresumable
        .as_ref()
        .map(|why| Refusal(format!("Codex 0.171 cannot resume this file: {why}")))
}

/// The model a resume of this rollout runs with when nothing else is said: the last
/// `turn_context` model.
pub fn rollout_model(rollout: &Rollout) -> Option<String> {
    rollout.records.iter().rev().find_map(|(_, r)| match r {
        Record::TurnContext { model: Some(m), .. } => Some(m.clone()),
        _ => None,
    })
}

/// The `input` items Codex 0.171 sends after resuming `rollout`, whose history is `history`,
/// then `prompt` as the new user message.
pub fn api_view(
    rollout: &Rollout,
    history: &History,
    src: &Source,
    model: Option<&str>,
    prompt: Option<&str>,
) -> anyhow::Result<Result<CodexView, Refusal>> {
    if let Some(r) = refusal(rollout) {
        return Ok(Err(r));
    }
    let model = ModelInfo::for_slug(model.map(str::to_string).or_else(|| rollout_model(rollout)).as_deref());
    let mut fired = BTreeMap::new();
    // User messages Codex cannot read were left out when the file was read; those after the
    // history's base would otherwise be in it.
    let skipped_early = rollout
        .unreadable_lines
        .iter()
        .filter(|&&l| history.base_line.is_none_or(|b| l > b))
        .count();
    if skipped_early > 0 {
        fired.insert("X1", skipped_early);
    }
    let mut unreadable = Vec::new();
    let mut items: Vec<Wire> = Vec::with_capacity(history.items.len());
    let mut lines: Vec<Option<u64>> = Vec::with_capacity(history.items.len());
    let mut released = src.releaser();
    for item in &history.items {
        let (raw, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let bytes = src.read_range(*offset, *len as usize)?.into_owned();
                released.touch(*offset, u64::from(*len));
                (String::from_utf8_lossy(&bytes).into_owned(), Some(*line))
            }
            ItemSrc::Synth(s) => (s.clone(), None),
        };
        let parsed = if item.inter_agent {
            w::parse_inter_agent(&raw)
        } else {
            w::parse_item(&raw)
        };
        let mut wire = match parsed {
            Ok(w) => w,
            Err(why) => {
                bump(&mut fired, "X1");
                unreadable.push((line, why));
                continue;
            }
        };
        if item.inter_agent {
            bump(&mut fired, "X10");
        } else if rewritten(&raw, &wire) {
            bump(&mut fired, "X2");
        }
        if item.recorded {
            record(&mut wire, model.budget, &mut fired);
        }
        items.push(wire);
        lines.push(line);
    }
    let mut not_reproduced = Vec::new();
    for (wire, line) in items.iter_mut().zip(&lines) {
        let f = prepare_media(wire, &model);
        if f.images {
            bump(&mut fired, "X6");
        }
        if f.audio {
            bump(&mut fired, "X7");
        }
        if f.not_reproduced > 0 {
            *fired.entry("X11").or_default() += f.not_reproduced;
            not_reproduced.extend(*line);
        }
    }
    let closed = close_calls(&mut items);
    if closed > 0 {
        fired.insert("X8", closed);
    }
    let dropped = drop_orphans(&mut items);
    if dropped > 0 {
        fired.insert("X9", dropped);
    }
    if model.responses_lite {
        let stripped = items.iter_mut().map(strip_image_details).filter(|&s| s).count();
        if stripped > 0 {
            fired.insert("X12", stripped);
        }
    }
    let mut out: Vec<String> = items.iter().map(Wire::to_json).collect();
    if let Some(p) = prompt {
        out.push(crate::agents::codex::rollout::user_message(p).to_string());
    }
    Ok(Ok(CodexView {
        items: out,
        fired,
        model,
        not_reproduced,
        unreadable,
    }))
}

/// Whether Codex sends `raw` other than as written, its passthrough metadata aside.
fn rewritten(raw: &str, wire: &Wire) -> bool {
    let Ok(mut written) = serde_json::from_str::<serde_json::Value>(raw) else {
        return true;
    };
    if let Some(o) = written.as_object_mut() {
        o.remove("internal_chat_message_metadata_passthrough");
    }
    serde_json::to_value(wire).map_or(true, |sent| sent != written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_budget_keeps_halves_on_char_boundaries_and_counts_chars() {
        assert_eq!(truncate_text(&"a".repeat(10), Budget::Bytes(10)), "a".repeat(10));
        assert_eq!(
            truncate_text(&"b".repeat(11), Budget::Bytes(10)),
            "bbbbb…1 chars truncated…bbbbb"
        );
        // "é" straddles the head's end: it is cut, and counted as one char.
        let s = format!("{}é{}", "a".repeat(4), "z".repeat(10));
        assert_eq!(truncate_text(&s, Budget::Bytes(10)), "aaaa…6 chars truncated…zzzzz");
    }

    #[test]
    fn tokens_budget_counts_removed_bytes_in_tokens() {
        let s = "x".repeat(48_001);
        let t = truncate_text(&s, Budget::Tokens(12_000));
        assert_eq!(
            t,
            format!("{}…1 tokens truncated…{}", "x".repeat(24_000), "x".repeat(24_000))
        );
        assert_eq!(truncate_text("", Budget::Tokens(0)), "");
    }

    #[test]
    fn list_outputs_drop_empty_parts_then_cut_and_omit() {
        let t = |s: &str| OutPart::InputText { text: s.into() };
        let (out, r) = truncate_parts(
            vec![
                t(""),
                t(&"C".repeat(11_990)),
                t(&"D".repeat(100)),
                t(""),
                t("E"),
                t("F"),
            ],
            Budget::Bytes(12_000),
        );
        assert_eq!((r.empty, r.omitted, r.cut), (2, 2, true));
        assert_eq!(out.len(), 3);
        assert_eq!(out[1], t("DDDDD…90 chars truncated…DDDDD"));
        assert_eq!(out[2], t("[omitted 2 text items ...]"));
    }

    #[test]
    fn models_resolve_by_longest_catalog_prefix_then_namespace() {
        let m = |s: &str| ModelInfo::for_slug(Some(s)).entry;
        assert_eq!(m("gpt-5.5"), Some("gpt-5.5"));
        assert_eq!(m("gpt-5.5-foo"), Some("gpt-5.5"));
        assert_eq!(m("openai/gpt-5.6-sol"), Some("gpt-5.6-sol"));
        assert_eq!(m("gpt-5.4"), None);
        assert_eq!(m("GPT-5.5"), None);
        assert_eq!(m("a/b/gpt-5.5"), None);
        assert_eq!(ModelInfo::for_slug(None).budget, Budget::Bytes(12_000));
        assert_eq!(ModelInfo::for_slug(Some("gpt-6-sol")).budget, Budget::Tokens(12_000));
    }

    #[test]
    fn synthetic_output_ids_are_uuid5_of_prefix_and_call_item_id() {
        assert_eq!(
            synthetic_id("fco", Some("fc_u1")).as_deref(),
            Some("fco_d12ecf33-467c-5541-8028-ce81eca54edd")
        );
        assert_eq!(synthetic_id("fco", Some("")), None);
        assert_eq!(synthetic_id("fco", None), None);
    }

    #[test]
    fn png_headers_are_checked_chunk_by_chunk() {
        let png = BASE64
            .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
            .unwrap();
        assert_eq!(image_header(&png), Some((ImageKind::Png, 1, 1)));
        assert_eq!(image_header(&png[..40]), None);
        let mut bad = png.clone();
        bad[20] ^= 1;
        assert_eq!(image_header(&bad), None, "checksum");
        assert_eq!(image_header(b"GIF89a\x10\x00\x20\x00"), Some((ImageKind::Gif, 16, 32)));
        assert_eq!(image_header(b"not an image"), None);
    }
}
