//! Wall-clock time for the service's bookkeeping (leases, retries, timestamps). Grading never reads
//! it: reports do not depend on time.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A duration an operator writes on the command line, in milliseconds: a whole number and its unit,
/// `s`, `m`, `h` or `d` (`90s`, `30m`, `24h`, `7d`); an error says what is accepted.
pub(crate) fn parse_duration(text: &str) -> Result<u64, String> {
    let unit_ms = |unit: &str| match unit {
        "s" => Some(1_000u64),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        "d" => Some(86_400_000),
        _ => None,
    };
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    number.parse::<u64>().ok().zip(unit_ms(unit)).and_then(|(n, ms)| n.checked_mul(ms)).ok_or_else(|| {
        format!("{text:?} is not a duration: write a whole number and s, m, h or d (e.g. 24h, 7d)")
    })
}

/// `2026-12-03T06:02:56.123Z` for milliseconds since the epoch.
pub(crate) fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Milliseconds since the epoch of an RFC 3339 date-time (`2026-12-03T06:02:56Z`, fractions of a
/// second and offsets like `+01:00` allowed); none if it is not one, or names a day its month
/// does not have. Leap seconds are refused.
pub(crate) fn parse_rfc3339(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let number = |from: usize, len: usize| -> Option<i64> {
        let part = text.get(from..from + len)?;
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
    };
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't') {
        return None;
    }
    if bytes[13] != b':' || bytes[16] != b':' {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
    let (hour, minute, second) = (number(11, 2)?, number(14, 2)?, number(17, 2)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0i64;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded: String = fraction[..digits].chars().chain("000".chars()).take(3).collect();
        millis = padded.parse().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(rest.as_bytes()[0], b'+' | b'-') && rest.as_bytes()[3] == b':' => {
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// What [`parse_rfc3339`] takes, as a regular expression (for the OpenAPI document; with the
/// `date-time` format, which also refuses days a month does not have).
pub(crate) const RFC3339_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";

/// Days since 1970-01-01 of a civil date (the inverse of [`civil_from_days`]).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_known_instants() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(super::rfc3339(1_796_277_776_123), "2026-12-03T06:02:56.123Z");
    }

    #[test]
    fn parses_what_it_formats_and_refuses_the_rest() {
        for ms in [0, 951_782_400_000, 1_796_277_776_123, -86_400_000] {
            assert_eq!(super::parse_rfc3339(&super::rfc3339(ms)), Some(ms), "{ms}");
        }
        assert_eq!(super::parse_rfc3339("2026-12-03T07:02:56+01:00"), Some(1_796_277_776_000));
        assert_eq!(super::parse_rfc3339("2026-12-03T06:02:56.1Z"), Some(1_796_277_776_100));
        assert_eq!(super::parse_rfc3339("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
        for bad in [
            "",
            "yesterday",
            "1796277776123",
            "2026-02-29T00:00:00Z",
            "2026-12-03 06:02:56Z",
            "2016-12-31T23:59:60Z",
            " 2026-12-03T06:02:56Z",
            "2026-12-03",
            "2026-12-03T25:00:00Z",
            "2026-12-03T06:02:56",
            "2026-12-03T06:02:56.Z",
            "2026-12-03T06:02:56+1:00",
            "-5",
        ] {
            assert_eq!(super::parse_rfc3339(bad), None, "{bad:?}");
        }
    }
}

#[cfg(test)]
mod duration_tests {
    use super::parse_duration;

    #[test]
    fn durations_are_a_whole_number_and_a_unit() {
        assert_eq!(parse_duration("90s"), Ok(90_000));
        assert_eq!(parse_duration("30m"), Ok(1_800_000));
        assert_eq!(parse_duration("24h"), Ok(86_400_000));
        assert_eq!(parse_duration("7d"), Ok(604_800_000));
        for bad in ["", "24", "h", "1.5h", "-1h", "24 h", "1w", "99999999999999999999d"] {
            let error = parse_duration(bad).unwrap_err();
            assert!(error.contains("whole number and s, m, h or d"), "{bad}: {error}");
        }
    }
}
