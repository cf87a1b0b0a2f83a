//! Identifiers and timestamps for the records a compaction writes.
//!
//! Ids are derived from the input (a seed naming the session and the tip it compacts, and the
//! id they replace), not drawn at random: compacting the same file twice writes the same ids,
//! so outputs can be compared byte for byte. `SOURCE_DATE_EPOCH` fixes the clock for the same
//! reason (the reproducible-builds convention).

use std::time::{SystemTime, UNIX_EPOCH};

/// 64-bit FNV-1a: small, stable across Rust releases (unlike `DefaultHasher`).
fn fnv1a(seed: u64, parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    // A final avalanche so that near-identical inputs differ in every hex digit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h
}

fn bits128(parts: &[&str]) -> u128 {
    (u128::from(fnv1a(1, parts)) << 64) | u128::from(fnv1a(2, parts))
}

/// A version-4-shaped UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`) derived from `parts`.
pub fn uuid(parts: &[&str]) -> String {
    let mut b = bits128(parts);
    b &= !(0xf_u128 << 76);
    b |= 0x4_u128 << 76;
    b &= !(0x3_u128 << 62);
    b |= 0x2_u128 << 62;
    let h = format!("{b:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// An Anthropic-shaped message id (`msg_01` and 22 base58 characters) derived from `parts`.
pub fn message_id(parts: &[&str]) -> String {
    let mut b = bits128(parts);
    let mut s = String::from("msg_01");
    for _ in 0..22 {
        s.push(BASE58[(b % 58) as usize] as char);
        b /= 58;
    }
    s
}

/// Now, in milliseconds since the epoch; `SOURCE_DATE_EPOCH` (seconds) overrides the clock.
pub fn now_ms() -> i64 {
    if let Some(s) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return s.saturating_mul(1000);
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_well_formed() {
        let a = uuid(&["s", "tip", "x"]);
        assert_eq!(a, uuid(&["s", "tip", "x"]));
        assert_ne!(a, uuid(&["s", "tip", "y"]));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
        let m = message_id(&["m"]);
        assert!(m.starts_with("msg_01") && m.len() == 28);
    }
}
