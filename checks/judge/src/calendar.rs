//! Dates of the proleptic Gregorian calendar as days since the Unix epoch,
//! both ways (Howard Hinnant's `days_from_civil` and `civil_from_days`),
//! for the few places that write or read a date without a date crate: the
//! backups' names, the late policy's times, the live demo's HTTP dates.

/// The date (`year`, `month` 1–12, `day` 1–31) of the `days`-th day since
/// 1970-01-01 (negative before it).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The days since 1970-01-01 of the date `y`-`m`-`d` (no check that the
/// day exists in its month).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
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
    use super::*;

    /// Dates worked out by hand: the epoch, a leap day, the day before the
    /// epoch, a century that is not a leap year and one that is.
    #[test]
    fn known_dates_both_ways() {
        let known = [
            (0, (1970, 1, 1)),
            (-1, (1969, 12, 31)),
            (11_016, (2000, 2, 29)),
            (10_957, (2000, 1, 1)),
            (47_541, (2100, 3, 1)),
            (20_788, (2026, 12, 1)),
        ];
        for (days, date) in known {
            assert_eq!(civil_from_days(days), date, "{days}");
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
        }
        for days in -800_000..800_000 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
