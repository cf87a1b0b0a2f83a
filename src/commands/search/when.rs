//! `--since` and `--until`: a local date (midnight, in the zone `TZ` names), an RFC 3339 time,
//! or a span back from now (`7d`, `12h`).

use super::super::error::Usage;

/// The time `value` names, in milliseconds since the epoch.
pub(crate) fn bound(option: &'static str, value: Option<&str>, now: jiff::Timestamp) -> Result<Option<i64>, Usage> {
    let Some(value) = value else { return Ok(None) };
    parse(value, now).map(Some).ok_or_else(|| Usage::When {
        option,
        value: value.to_string(),
    })
}

fn parse(value: &str, now: jiff::Timestamp) -> Option<i64> {
    let v = value.trim();
    if let Some((n, unit)) = v
        .strip_suffix('d')
        .map(|n| (n, 86_400_000))
        .or_else(|| v.strip_suffix('h').map(|n| (n, 3_600_000)))
        && let Ok(n) = n.parse::<i64>()
        && n >= 0
    {
        return Some(now.as_millisecond() - n.checked_mul(unit)?);
    }
    if let Ok(t) = v.parse::<jiff::Timestamp>() {
        return Some(t.as_millisecond());
    }
    let tz = jiff::tz::TimeZone::system();
    let local = match v.parse::<jiff::civil::DateTime>() {
        Ok(dt) => dt,
        Err(_) => v
            .parse::<jiff::civil::Date>()
            .ok()?
            .to_datetime(jiff::civil::Time::midnight()),
    };
    let at = tz.to_ambiguous_timestamp(local).compatible().ok()?;
    Some(at.as_millisecond())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_dates_and_times() {
        let now: jiff::Timestamp = "2027-01-22T12:00:00Z".parse().unwrap();
        let ms = |s: &str| parse(s, now);
        assert_eq!(ms("7d"), Some(now.as_millisecond() - 7 * 86_400_000));
        assert_eq!(ms("12h"), Some(now.as_millisecond() - 12 * 3_600_000));
        assert_eq!(
            ms("2027-01-20T00:00:00Z"),
            Some(now.as_millisecond() - 2 * 86_400_000 - 12 * 3_600_000)
        );
        assert!(ms("2027-01-20").is_some());
        assert_eq!(ms("yesterday"), None);
        assert_eq!(ms("-3d"), None);
    }
}
