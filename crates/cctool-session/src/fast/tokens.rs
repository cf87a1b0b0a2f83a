//! String tokens kept as written: which ones serde would write back unchanged, and how those
//! with escapes are re-encoded and measured without building the string.

use super::*;

/// A string token that serde would write back unchanged (no `\u` or `\/` escapes).
pub(super) fn plain_string(r: &RawValue) -> bool {
    let raw = r.get();
    scan_string(raw.as_bytes(), 0).is_some_and(|(end, plain)| end == raw.len() && plain.is_some())
}

pub(super) fn decline<E: serde::de::Error>() -> E {
    E::custom("not for the fast path")
}

/// Reads an object's entries; a key seen twice declines (the tree keeps the last).
pub(super) fn entries<'de, A: MapAccess<'de>>(mut a: A) -> Result<Vec<(Key<'de>, &'de RawValue)>, A::Error> {
    let mut out: Vec<(Key<'de>, &'de RawValue)> = Vec::new();
    while let Some(k) = a.next_key::<Key<'de>>()? {
        if out.iter().any(|(x, _)| x.as_ref() == k.as_ref()) {
            return Err(decline());
        }
        let v = a.next_value::<&'de RawValue>()?;
        out.push((k, v));
    }
    Ok(out)
}

/// A string field read by serde as a raw value: scanned as [`string_at`] scans the others.
pub(super) fn string_field<E: serde::de::Error>(v: &RawValue) -> Result<Str<'_>, E> {
    match string_at(v.get(), 0) {
        Some((s, end)) if end == v.get().len() => Ok(s),
        _ => Err(decline()),
    }
}

/// An unknown field, kept as written. It declines when it is named like a field v5 writes at
/// the same level (`written`: the general path lets the new field replace it) or holds a value
/// serde cannot decode (a lone surrogate, a number out of range).
pub(super) fn extra_field<'a, E: serde::de::Error>(
    key: &str,
    v: &'a RawValue,
    written: &[&str],
) -> Result<(String, &'a RawValue), E> {
    if written.contains(&key) || !decodable(v) {
        return Err(decline());
    }
    Ok((key.to_string(), v))
}

/// Whether serde can read the token (the raw scanner lets a lone surrogate or `1e600` through).
pub(super) fn decodable(v: &RawValue) -> bool {
    !is_structured(v) || serde_json::from_str::<Value>(v.get()).is_ok()
}

/// A string token as serde writes it: as written when that is the same, else decoded and
/// encoded again (`\u00e9` becomes `é`, `\/` becomes `/`).
pub(super) fn token(v: Str<'_>) -> Cow<'_, str> {
    token_and_len(v).0
}

/// [`token`], and the UTF-8 length of the string it decodes to.
pub(super) fn token_and_len(v: Str<'_>) -> (Cow<'_, str>, u64) {
    let raw = v.raw;
    if let Some(escapes) = v.plain_escapes {
        // Without `\u`, every escape is two bytes for one.
        return (Cow::Borrowed(raw), (raw.len() - 2 - escapes) as u64);
    }
    // `string_at` checked that it decodes, with the same walk.
    let (token, len) = reencode(raw).unwrap_or_default();
    (Cow::Owned(token), len)
}

/// The token serde writes for the string token `raw`, made in one pass instead of a decode and
/// an encode (files written by Python hold every non-ASCII character as `\u` escapes), and
/// the UTF-8 length of the decoded string. See [`reencode_into`].
pub(super) fn reencode(raw: &str) -> Option<(String, u64)> {
    let mut out = String::with_capacity(raw.len());
    let len = reencode_into(raw, Some(&mut out))?;
    Some((out, len))
}

/// Walks the escapes of a token [`scan_string`] accepted, as serde decodes them: `\uXXXX`
/// becomes the character, or serde's own escape for a quote, a backslash or a control
/// character; `\/` becomes `/`; everything else is copied. The token goes to `out` when there
/// is one; without, this only checks that serde would decode it. `None` where it would not:
/// a `\u` without four hex digits, a lone surrogate.
pub(super) fn reencode_into(raw: &str, mut out: Option<&mut String>) -> Option<u64> {
    let mut rest = raw.get(1..raw.len().checked_sub(1)?)?;
    let mut push = |s: &str| {
        if let Some(o) = out.as_deref_mut() {
            o.push_str(s);
        }
    };
    let mut len = 0u64;
    push("\"");
    let hex = |s: Option<&str>| {
        s.filter(|s| s.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|s| u32::from_str_radix(s, 16).ok())
    };
    while let Some(i) = memchr::memchr(b'\\', rest.as_bytes()) {
        push(&rest[..i]);
        len += i as u64;
        let (c, used) = match rest.as_bytes().get(i + 1)? {
            b'u' => {
                let hi = hex(rest.get(i + 2..i + 6))?;
                if (0xD800..0xDC00).contains(&hi) {
                    if rest.get(i + 6..i + 8)? != "\\u" {
                        return None;
                    }
                    let lo = hex(rest.get(i + 8..i + 12)).filter(|lo| (0xDC00..0xE000).contains(lo))?;
                    (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?, 12)
                } else {
                    (char::from_u32(hi)?, 6)
                }
            }
            b'/' => ('/', 2),
            _ => {
                // An escape serde writes the same way.
                push(rest.get(i..i + 2)?);
                len += 1;
                rest = &rest[i + 2..];
                continue;
            }
        };
        match c {
            '"' => push("\\\""),
            '\\' => push("\\\\"),
            '\u{8}' => push("\\b"),
            '\u{c}' => push("\\f"),
            '\n' => push("\\n"),
            '\r' => push("\\r"),
            '\t' => push("\\t"),
            c if u32::from(c) < 0x20 => push(&format!("\\u{:04x}", u32::from(c))),
            c => push(c.encode_utf8(&mut [0u8; 4])),
        }
        len += c.len_utf8() as u64;
        rest = &rest[i + used..];
    }
    push(rest);
    len += rest.len() as u64;
    push("\"");
    Some(len)
}

/// The end (just past the closing quote) of the JSON string token at `p`, and how many escapes
/// it has when serde would write it back unchanged (`None` when it holds `\u` or `\/`); `None`
/// for what is not a valid string token (a control character, an unknown escape, no end).
/// UTF-8 is checked once for the whole document, not here. Messages are mostly long strings,
/// so this one pass replaces serde's scan, its UTF-8 check and a search for escapes.
pub(super) fn scan_string(b: &[u8], p: usize) -> Option<(usize, Option<usize>)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let (mut i, mut escapes, mut plain) = (p + 1, 0usize, true);
    loop {
        // Eight bytes at a time, to the first quote, backslash or control character. The
        // "has a zero byte" test can flag bytes above a flagged one, never below: the lowest
        // flag is exact.
        while let Some(w) = b.get(i..i + 8) {
            let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
            let quote = x ^ (ONES * u64::from(b'"'));
            let slash = x ^ (ONES * u64::from(b'\\'));
            let found = (quote.wrapping_sub(ONES) & !quote)
                | (slash.wrapping_sub(ONES) & !slash)
                | (x.wrapping_sub(ONES * 0x20) & !x);
            let found = found & HIGH;
            if found != 0 {
                i += (found.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some((i + 1, plain.then_some(escapes))),
            b'\\' => {
                match *b.get(i + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'/' | b'u' => plain = false,
                    _ => return None,
                }
                escapes += 1;
                i += 2;
            }
            0..0x20 => return None,
            _ => i += 1,
        }
    }
}
