//! The images and audio of every item checked as Codex checks them on resume (X6, X7, X11).

use super::*;

pub(super) const IMAGE_UNREADABLE: &str = "image content omitted because it could not be processed";
pub(super) const IMAGE_LOW_DETAIL: &str =
    "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'";
pub(super) const IMAGE_REMOTE: &str = "image content omitted because remote image URLs are not supported";
pub(super) const AUDIO_UNREADABLE: &str = "audio content omitted because it could not be processed";
pub(super) const AUDIO_TOO_LARGE: &str =
    "audio content omitted because it exceeded the supported size limit; use a smaller audio file";
pub(super) const AUDIO_FORMAT: &str =
    "audio content omitted because its format is not supported; use wav, mp3, m4a, webm, or ogg";
pub(super) const AUDIO_UNSUPPORTED: &str = "audio content omitted because you do not support audio input";
pub(super) const MAX_AUDIO_BYTES: usize = 50 * 1024 * 1024;

/// Image limits: at most this width or height, and this many 32-pixel patches.
pub(super) const HIGH_DETAIL_LIMITS: (u32, u64) = (2048, 2_500);
pub(super) const ORIGINAL_DETAIL_LIMITS: (u32, u64) = (6000, 10_000);

/// What resuming does to one image.
pub(super) enum ImageFix {
    Keep,
    /// Sent as this URL (and detail).
    Rewrite(String, Option<Detail>),
    /// Replaced by this text.
    Note(&'static str),
    /// Codex resizes or converts it; cctool keeps it as written.
    NotReproduced,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ImageKind {
    Png,
    Jpeg,
    Webp,
    Gif,
}

pub(super) fn prepare_image(url: &str, detail: Option<Detail>, model: &ModelInfo) -> ImageFix {
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
pub(super) fn image_header(b: &[u8]) -> Option<(ImageKind, u32, u32)> {
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
pub(super) fn prepare_audio(url: &str) -> &'static str {
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
pub(super) struct MediaFix {
    pub(super) images: bool,
    pub(super) audio: bool,
    pub(super) not_reproduced: usize,
}

pub(super) fn fix_image(
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
pub(super) enum Media<'a> {
    Image(&'a mut String, &'a mut Option<Detail>),
    Audio(&'a str),
}

/// What messages and list outputs share: parts that may be media, and a text part.
pub(super) trait MediaPart: Sized {
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
pub(super) fn with_parts<R: Default>(item: &mut Wire, f: impl FnOnce(&mut dyn PartsMut) -> R) -> R {
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
pub(super) trait PartsMut {
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
pub(super) fn prepare_media(item: &mut Wire, model: &ModelInfo) -> MediaFix {
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
pub(super) fn strip_image_details(item: &mut Wire) -> bool {
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
