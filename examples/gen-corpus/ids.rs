//! Ids and timestamps: UUIDs v4 and v7, base62 ids, civil dates.

use std::io::Write;

use crate::rng::Rng;

#[derive(Clone, Copy)]
pub(crate) struct Uuid(pub(crate) [u8; 36]);

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Uuid {
    fn from_bits(v: u128) -> Uuid {
        let mut out = [b'-'; 36];
        let mut nib = 0;
        for (i, o) in out.iter_mut().enumerate() {
            if matches!(i, 8 | 13 | 18 | 23) {
                continue;
            }
            *o = HEX[((v >> (124 - 4 * nib)) & 0xF) as usize];
            nib += 1;
        }
        Uuid(out)
    }

    pub(crate) fn v4(rng: &mut Rng) -> Uuid {
        let v = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        let v = (v & !(0xF << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
        Uuid::from_bits(v)
    }

    pub(crate) fn v7(rng: &mut Rng, ms: i64) -> Uuid {
        let r = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        let v = (u128::from(ms as u64 & 0xFFFF_FFFF_FFFF) << 80) | (r & ((1u128 << 80) - 1));
        let v = (v & !(0xF << 76) & !(0x3 << 62)) | (0x7 << 76) | (0x2 << 62);
        Uuid::from_bits(v)
    }

    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex and dashes")
    }
}

/// `prefix` followed by `n` base62 characters (message, request and tool-call ids).
pub(crate) fn base62_id(rng: &mut Rng, prefix: &str, n: usize) -> String {
    const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        s.push(A[rng.below(62) as usize] as char);
    }
    s
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub(crate) struct Parts {
    pub(crate) y: i64,
    pub(crate) mo: u32,
    pub(crate) d: u32,
    pub(crate) h: i64,
    pub(crate) mi: i64,
    pub(crate) s: i64,
    pub(crate) ms: i64,
}

pub(crate) fn parts(ms: i64) -> Parts {
    let (y, mo, d) = civil(ms.div_euclid(86_400_000));
    let t = ms.rem_euclid(86_400_000);
    Parts {
        y,
        mo,
        d,
        h: t / 3_600_000,
        mi: t / 60_000 % 60,
        s: t / 1000 % 60,
        ms: t % 1000,
    }
}

/// Writes `"2026-01-22T01:41:10.233Z"` (with the quotes).
pub(crate) fn push_ts(b: &mut Vec<u8>, ms: i64) {
    let p = parts(ms);
    let _ = write!(
        b,
        "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"",
        p.y, p.mo, p.d, p.h, p.mi, p.s, p.ms
    );
}
