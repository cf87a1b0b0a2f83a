//! What a payload is, how it is named, and the placeholder text that stands in for one.
//!
//! A payload is a JSON string holding base64 (bare, or as a `data:` URL) of at least
//! [`MIN_PAYLOAD`] characters, written without escapes and in canonical form (padded, no
//! stray bits). Canonical base64 and its bytes determine each other, so a payload is named by
//! the sha256 of its decoded bytes (what `sha256sum` says of the extracted file) and can always
//! be written back byte for byte from those bytes. A string in any other form is left alone.

use std::ops::Range;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use sha2::{Digest, Sha256};

/// Shorter base64 is not worth a placeholder (which is about 120 bytes).
pub const MIN_PAYLOAD: usize = 1024;

/// The fewest base64 characters a payload's text holds in a row: a `data:` URL spends at most
/// 205 of its [`MIN_PAYLOAD`] characters before its base64 (`data:`, a media type whose comma
/// is among the first 200 characters, the comma), and the base64 is written without escapes.
pub const MIN_B64_RUN: usize = MIN_PAYLOAD - 205;

/// Whether `line` has a run of [`MIN_B64_RUN`] base64 characters (`A-Za-z0-9+/=`): a line
/// without one holds no payload, whatever its structure, and need not be parsed to be
/// counted. Such a run covers one of the positions that are multiples of its length, so only
/// those are looked at, and from each one that is a base64 character the run around it:
/// ordinary text is passed over reading about one byte in a hundred.
pub fn may_hold_payload(line: &[u8]) -> bool {
    const K: usize = MIN_B64_RUN;
    let b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let mut p = 0;
    while p < line.len() {
        if !b64(line[p]) {
            p += K;
            continue;
        }
        let start = line[..p].iter().rposition(|&b| !b64(b)).map_or(0, |i| i + 1);
        if p + 1 - start >= K {
            return true;
        }
        // Forward only as far as a run of K needs.
        let limit = (start + K).min(line.len());
        let end = line[p..limit].iter().position(|&b| !b64(b)).map_or(limit, |i| p + i);
        if end - start >= K {
            return true;
        }
        // The probes up to `end` fall in this run, which is too short.
        p = end.div_ceil(K) * K;
    }
    false
}

/// One payload found in a line.
#[derive(Clone, Debug)]
pub struct Payload {
    /// SHA-256 of the decoded bytes (zero from [`read_unhashed`]): names the payload in
    /// placeholders and extracted files.
    pub hash: [u8; 32],
    /// Decoded size in bytes.
    pub size: u64,
    /// The media type a data URL or the record states, else one sniffed from the bytes.
    pub media: String,
    /// Written as `data:<media>;base64,…` rather than bare base64.
    pub data_url: bool,
    /// The base64 text, as a range of the string's content (between its quotes).
    pub b64: Range<usize>,
}

/// `content` (a JSON string's text between its quotes) read as a payload; `hint` is the media
/// type the record states beside it. `buf` is reused for the decoded bytes.
pub fn read(content: &[u8], hint: Option<&str>, buf: &mut Vec<u8>) -> Option<Payload> {
    let mut p = read_unhashed(content, hint, buf)?;
    p.hash = Sha256::digest(&buf[..]).into();
    Some(p)
}

/// [`read`] without the hash (zero), for counting.
pub fn read_unhashed(content: &[u8], hint: Option<&str>, buf: &mut Vec<u8>) -> Option<Payload> {
    if content.len() < MIN_PAYLOAD || memchr::memchr(b'\\', content).is_some() {
        return None;
    }
    let (b64, media, data_url) = match content.strip_prefix(b"data:") {
        Some(rest) => {
            let comma = memchr::memchr(b',', &rest[..rest.len().min(200)])?;
            let media = std::str::from_utf8(rest[..comma].strip_suffix(b";base64")?).ok()?;
            if !is_media_type(media) {
                return None;
            }
            let start = 5 + comma + 1;
            (start..content.len(), Some(media.to_string()), true)
        }
        None => (0..content.len(), None, false),
    };
    buf.clear();
    // The strict engine refuses missing padding and stray trailing bits: what it accepts
    // encodes back to exactly the same text.
    BASE64.decode_vec(&content[b64.clone()], buf).ok()?;
    let media = media
        .or_else(|| hint.filter(|h| is_media_type(h)).map(str::to_string))
        .unwrap_or_else(|| sniff(buf).to_string());
    Some(Payload {
        hash: [0; 32],
        size: buf.len() as u64,
        media,
        data_url,
        b64,
    })
}

/// `type/subtype`, as a record states it.
pub fn is_media_type(s: &str) -> bool {
    let ok = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b".+-_".contains(&b));
    matches!(s.split_once('/'), Some((a, b)) if ok(a) && ok(b)) && s.len() <= 100
}

/// The media type of decoded bytes, from their first bytes.
pub fn sniff(b: &[u8]) -> &'static str {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if b.starts_with(b"\xff\xd8\xff") {
        "image/jpeg"
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        "image/gif"
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        "image/webp"
    } else if b.starts_with(b"%PDF-") {
        "application/pdf"
    } else {
        "application/octet-stream"
    }
}

/// The file name an extracted payload gets: its hash and an extension for its type.
pub fn file_name(hash: &[u8; 32], media: &str) -> String {
    let ext = match media {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "application/pdf" => "pdf",
        _ => "bin",
    };
    format!("{}.{ext}", hex(hash))
}

pub(crate) fn hex(hash: &[u8; 32]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(64);
    for b in hash {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// A size for people: `1.3 MB`, `820 KB`, `512 B` (decimal units, as file managers show).
pub fn size_text(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.0} KB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// Where the payload a placeholder stands for is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Another copy stays in the same file.
    InFile,
    /// Written by `--extract` under this name.
    SavedAs(String),
}

const IN_FILE: &str = "kept once in this file";
const DATA_URL: &str = " data URL";

/// The text that replaces a payload: readable by the model and by people, and enough for
/// `--restore` to write the original string back (its hash names the bytes, `data URL` says
/// how they were written).
pub fn placeholder(p: &Payload, kept: &Kept) -> String {
    let form = if p.data_url { DATA_URL } else { "" };
    let where_ = match kept {
        Kept::InFile => IN_FILE.to_string(),
        Kept::SavedAs(name) => format!("saved as {name}"),
    };
    format!(
        "[{}{form} {}, sha256:{}, {where_}]",
        p.media,
        size_text(p.size),
        hex(&p.hash)
    )
}

/// A placeholder read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// SHA-256 of the payload's decoded bytes.
    pub hash: [u8; 32],
    /// The media type the original string had (or was given by the record beside it).
    pub media: String,
    /// The original string was a `data:` URL rather than bare base64.
    pub data_url: bool,
    /// Where the payload is to be found.
    pub kept: Kept,
}

/// `content` (a JSON string's text between its quotes) read as a placeholder, when it is one.
pub fn parse_placeholder(content: &[u8]) -> Option<Placeholder> {
    let s = std::str::from_utf8(content).ok()?;
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let (head, rest) = inner.split_once(", sha256:")?;
    let (hash, kept) = rest.split_once(", ")?;
    let hash = unhex(hash)?;
    let kept = if kept == IN_FILE {
        Kept::InFile
    } else {
        let name = kept.strip_prefix("saved as ")?;
        let (stem, _) = name.split_once('.')?;
        if stem != hex(&hash) {
            return None;
        }
        Kept::SavedAs(name.to_string())
    };
    // head: "<media>[ data URL] <size> <unit>"
    let mut words = head.rsplitn(3, ' ');
    let _unit = words.next()?;
    let _size = words.next()?;
    let media_form = words.next()?;
    let (media, data_url) = match media_form.strip_suffix(DATA_URL) {
        Some(m) => (m, true),
        None => (media_form, false),
    };
    if !is_media_type(media) {
        return None;
    }
    Some(Placeholder {
        hash,
        media: media.to_string(),
        data_url,
        kept,
    })
}

/// The string content a placeholder stands for, from the payload's base64 text.
pub fn original(p: &Placeholder, b64: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(b64.len() + 40);
    if p.data_url {
        v.extend_from_slice(format!("data:{};base64,", p.media).as_bytes());
    }
    v.extend_from_slice(b64);
    v
}

/// The bytes of canonical base64 text (as [`read`] accepted it).
pub fn decode(b64: &[u8]) -> Vec<u8> {
    BASE64.decode(b64).unwrap_or_default()
}

/// Base64 of `bytes`, as a payload is written.
pub fn encode(bytes: &[u8]) -> String {
    BASE64.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(n: usize) -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n".to_vec();
        v.extend((0..n).map(|i| (i * 7 % 251) as u8));
        v
    }

    #[test]
    fn a_placeholder_reads_back() {
        let b64 = encode(&png(3000));
        for data_url in [false, true] {
            let content = if data_url {
                format!("data:image/png;base64,{b64}")
            } else {
                b64.clone()
            };
            let p = read(content.as_bytes(), None, &mut Vec::new()).unwrap();
            assert_eq!(p.media, "image/png");
            assert_eq!(p.data_url, data_url);
            for kept in [Kept::InFile, Kept::SavedAs(file_name(&p.hash, &p.media))] {
                let text = placeholder(&p, &kept);
                let back = parse_placeholder(text.as_bytes()).unwrap();
                assert_eq!(back.hash, p.hash);
                assert_eq!(back.kept, kept);
                assert_eq!(original(&back, &content.as_bytes()[p.b64.clone()]), content.as_bytes());
            }
        }
    }

    #[test]
    fn only_canonical_base64_is_a_payload() {
        let b64 = encode(&png(3000));
        assert!(read(b64.as_bytes(), None, &mut Vec::new()).is_some());
        let unpadded = b64.trim_end_matches('=');
        assert_ne!(unpadded, b64, "the test needs padding");
        assert!(read(unpadded.as_bytes(), None, &mut Vec::new()).is_none());
        let escaped = b64.replacen('/', "\\/", 1);
        assert!(read(escaped.as_bytes(), None, &mut Vec::new()).is_none());
        assert!(read(b"short", None, &mut Vec::new()).is_none());
        let text = "a b ".repeat(400);
        assert!(read(text.as_bytes(), None, &mut Vec::new()).is_none());
    }

    #[test]
    fn text_that_is_not_a_placeholder_is_not_read_as_one() {
        assert!(parse_placeholder(b"[image/png 1 MB, sha256:zz, kept once in this file]").is_none());
        assert!(parse_placeholder(b"see [this]").is_none());
    }
}
