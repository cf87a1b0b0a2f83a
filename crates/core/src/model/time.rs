//! Timestamps as the agents write them: ISO-8601, UTC, usually with milliseconds.
//!
//! Claude Code picks tips and bridges gaps with `Date.parse`, so a timestamp that JavaScript
//! cannot parse must never win a comparison; [`parse_ms`] returns `None` for those. Only the
//! forms agents actually write are accepted (date, `T` or space, seconds, any fraction, `Z`
//! or a numeric offset); a missing offset is read as UTC rather than local time, so that
//! results do not depend on the machine running cctool.

/// Milliseconds since the Unix epoch, or `None` when the text is not a timestamp.
pub fn parse_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    // Each byte is read once: the text may lie in a mapped file whose pages can turn to
    // zeros under a truncation (see `io::mapguard`), so a check and a second read of the same
    // byte could disagree.
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() {
            return None;
        }
        part.iter().try_fold(0i64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let year = num(0..4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = num(5..7)?;
    let day = num(8..10)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ms = days_from_civil(year, month, day) * 86_400_000;
    if b.len() == 10 {
        return Some(ms);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let hour = num(11..13)?;
    if b.get(13) != Some(&b':') {
        return None;
    }
    let minute = num(14..16)?;
    let mut i = 16;
    let mut second = 0;
    let mut millis = 0;
    if b.get(i) == Some(&b':') {
        second = num(17..19)?;
        i = 19;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            let mut end = start;
            // Milliseconds are the first three digits; JavaScript truncates the rest.
            let mut kept = 0;
            while let Some(&d) = b.get(end)
                && d.is_ascii_digit()
            {
                if kept < 3 {
                    millis = millis * 10 + i64::from(d - b'0');
                    kept += 1;
                }
                end += 1;
            }
            if end == start {
                return None;
            }
            for _ in kept..3 {
                millis *= 10;
            }
            i = end;
        }
    }
    if hour > 24 || minute > 59 || second > 59 || (hour == 24 && (minute, second, millis) != (0, 0, 0)) {
        return None;
    }
    ms += ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    match b.get(i) {
        None => Some(ms),
        Some(b'Z' | b'z') if i + 1 == b.len() => Some(ms),
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1..i + 3)?;
            let om = match b.get(i + 3) {
                Some(b':') if b.len() == i + 6 => num(i + 4..i + 6)?,
                Some(_) if b.len() == i + 5 => num(i + 3..i + 5)?,
                None => 0,
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            let off = (oh * 60 + om) * 60_000;
            Some(if sign == b'+' { ms - off } else { ms + off })
        }
        _ => None,
    }
}

/// Milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form agents write.
pub fn format_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`, the text of [`format_ms`] without the
/// milliseconds, made without allocating (it is written once per message of a large session);
/// `None` outside the years 0 to 9999, where that text is not of this fixed width.
pub fn seconds_text(secs: i64) -> Option<[u8; 20]> {
    let ms = secs.saturating_mul(1000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    if !(0..=9999).contains(&y) {
        return None;
    }
    let mut out = *b"0000-00-00T00:00:00Z";
    for (at, width, mut v) in [
        (0, 4, y),
        (5, 2, m),
        (8, 2, d),
        (11, 2, rem / 3_600_000),
        (14, 2, rem / 60_000 % 60),
        (17, 2, rem / 1000 % 60),
    ] {
        for k in (at..at + width).rev() {
            out[k] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    Some(out)
}

/// The inverse of [`days_from_civil`] (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::{format_ms, parse_ms, seconds_text};

    #[test]
    fn seconds_text_is_format_ms_to_the_second() {
        let edges = [
            0,
            -1,
            59,
            86_399,
            951_782_400,
            1_752_573_600,
            -62_167_219_200,
            253_402_300_799,
        ];
        let spread = (0..2000).map(|k: i64| k * 126_398_717 - 62_000_000_000);
        for s in edges.into_iter().chain(spread) {
            let full = format_ms(s * 1000);
            assert_eq!(
                seconds_text(s).map(|t| t.to_vec()),
                Some(format!("{}Z", &full[..19]).into_bytes()),
                "{s}"
            );
        }
        // Outside 0 to 9999 the text is not of the fixed width.
        assert_eq!(seconds_text(-62_167_219_201), None);
        assert_eq!(seconds_text(253_402_300_800), None);
    }

    #[test]
    fn agent_timestamps() {
        assert_eq!(parse_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_ms("2026-01-12T09:42:24.261Z"), Some(1_768_210_944_261));
        assert_eq!(parse_ms("2026-01-12T09:42:24.2619Z"), Some(1_768_210_944_261));
        assert_eq!(parse_ms("2026-01-12T10:42:24.261+01:00"), Some(1_768_210_944_261));
        assert_eq!(parse_ms("2026-01-12T09:42:24Z"), Some(1_768_210_944_000));
        assert_eq!(parse_ms("2024-02-29"), Some(1_709_164_800_000));
    }

    #[test]
    fn formats_back_what_it_parses() {
        for s in [
            "2026-01-12T09:42:24.261Z",
            "1970-01-01T00:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "1969-12-31T23:59:59.999Z",
        ] {
            assert_eq!(format_ms(parse_ms(s).unwrap()), s);
        }
    }

    #[test]
    fn garbage_never_parses() {
        for s in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01T25:00:00Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00Zjunk",
        ] {
            assert_eq!(parse_ms(s), None, "{s}");
        }
    }
}
