//! The judge's own proleptic Gregorian calendar, written apart from the
//! reference solution: days are counted from 0000-01-01 with leap-year
//! counts (the count knows year 0; the contract's dates start at 0001, see
//! `LAST_INSTANT` and the model), then shifted to 1970.

/// Seconds in a day; POSIX time has no leap seconds.
pub const DAY: i64 = 86_400;

pub const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Index 0 is Sunday.
pub const SHORT_DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
pub const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

pub fn is_leap(year: i64) -> bool {
    year % 400 == 0 || (year % 4 == 0 && year % 100 != 0)
}

pub fn year_length(year: i64) -> i64 {
    if is_leap(year) {
        366
    } else {
        365
    }
}

/// Days in `month` (1–12) of `year`.
pub fn month_length(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 0000-01-01 to 1 January of `year` (year ≥ 0).
fn days_before(year: i64) -> i64 {
    if year <= 0 {
        return 0;
    }
    // Year 0 is a leap year; then count the leap years 1..year-1.
    let p = year - 1;
    365 * year + 1 + p / 4 - p / 100 + p / 400
}

/// Days from 1970-01-01 to the given date (negative before it). The
/// date must exist (0 ≤ year, 1 ≤ month ≤ 12, 1 ≤ day ≤ its length).
pub fn days(year: i64, month: i64, day: i64) -> i64 {
    let mut n = days_before(year) - days_before(1970);
    for m in 1..month {
        n += month_length(year, m);
    }
    n + day - 1
}

/// The weekday of a day count, 0 = Sunday (1970-01-01 was a Thursday).
pub fn weekday(days: i64) -> usize {
    (days + 4).rem_euclid(7) as usize
}

/// (year, month, day) of a day count from 1970-01-01; years 0–9999.
pub fn civil(days_since_1970: i64) -> (i64, i64, i64) {
    let mut n = days_since_1970 + days_before(1970);
    let mut year = n / 366;
    while days_before(year + 1) <= n {
        year += 1;
    }
    n -= days_before(year);
    let mut month = 1;
    while n >= month_length(year, month) {
        n -= month_length(year, month);
        month += 1;
    }
    (year, month, n + 1)
}

/// The calendar year of a Unix instant.
pub fn year_of(instant: i64) -> i64 {
    civil(instant.div_euclid(DAY)).0
}

/// The last instant the calendar holds: 9999-12-31T23:59:59Z. Dates run
/// from 0001-01-01 to here; year 0000 and anything later are invalid.
pub const LAST_INSTANT: i64 = 253_402_300_799;

/// The receipt moved 50 years ahead, as (month, day, hour, minute, second)
/// of year `R + 50`; a receipt on 29 February gives 28 February.
pub fn fifty_years_on(received: i64) -> (i64, (i64, i64, i64, i64, i64)) {
    let (r, month, day) = civil(received.div_euclid(DAY));
    let day = if month == 2 && day == 29 { 28 } else { day };
    let s = received.rem_euclid(DAY);
    (r, (month, day, s / 3600, s / 60 % 60, s % 60))
}

/// The 50-year rule: the latest year ending in `yy` whose written date and
/// time (compared field by field, as written) is not after the receipt
/// moved 50 years ahead. Only `yy ≡ R + 50` looks at more than the year.
pub fn window(yy: i64, written: (i64, i64, i64, i64, i64), received: i64) -> i64 {
    let (r, limit) = fifty_years_on(received);
    let year = r + 50 - (r + 50 - yy).rem_euclid(100);
    if year == r + 50 && written > limit {
        year - 100
    } else {
        year
    }
}

/// Whether an RFC 850 date is one the checker never sends: where a reading
/// that takes the candidate year from `R − 50 … R + 49` by year alone (for
/// a receipt year ending in 50–99), or one that reads second 60 as 59
/// before comparing, would answer otherwise.
#[cfg(test)]
pub fn unsent(yy: i64, written: (i64, i64, i64, i64, i64), received: i64) -> bool {
    let (r, limit) = fifty_years_on(received);
    let slot = yy == (r + 50).rem_euclid(100);
    let (month, day, hour, minute, second) = written;
    let read_as_59 = second == 60 && (month, day, hour, minute, 59) == limit;
    slot && (r.rem_euclid(100) >= 50 || read_as_59)
}

/// An instant as `2026-03-14T12:00:00Z`.
pub fn iso(instant: i64) -> String {
    let (y, m, d) = civil(instant.div_euclid(DAY));
    let s = instant.rem_euclid(DAY);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days_and_weekdays() {
        assert_eq!(days(1970, 1, 1), 0);
        assert_eq!(days(1994, 11, 6) * DAY, 784_080_000);
        assert_eq!(days(2000, 3, 1) - days(2000, 2, 28), 2);
        assert_eq!(days(2100, 3, 1) - days(2100, 2, 28), 1);
        assert_eq!(days(1900, 3, 1) - days(1900, 2, 28), 1);
        assert_eq!(
            days(2038, 1, 19) * DAY + 3 * 3600 + 14 * 60 + 7,
            2_147_483_647
        );
        assert_eq!(days(1, 1, 1) * DAY, -62_135_596_800);
        assert_eq!(weekday(days(1994, 11, 6)), 0);
        assert_eq!(weekday(days(1, 1, 1)), 1);
        assert_eq!(weekday(days(0, 1, 1)), 6);
        assert_eq!(weekday(days(2094, 11, 6)), 6);
    }

    #[test]
    fn civil_inverts_days() {
        for n in (days(0, 1, 1)..days(10000, 1, 1)).step_by(997) {
            let (y, m, d) = civil(n);
            assert_eq!(days(y, m, d), n);
        }
        assert_eq!(civil(days(2100, 12, 31)), (2100, 12, 31));
        assert_eq!(iso(1_773_489_600), "2026-03-14T12:00:00Z");
    }

    #[test]
    fn the_worked_windows() {
        let mid = |y: i64| days(y, 7, 1) * DAY;
        let noon = (7, 4, 0, 0, 0);
        for (r, yy, y) in [
            (1970, 21, 1921),
            (1970, 19, 2019),
            (2026, 77, 1977),
            (2026, 75, 2075),
            (2090, 41, 2041),
            (2090, 39, 2139),
            (2100, 51, 2051),
            (2100, 0, 2100),
            (2100, 49, 2149),
        ] {
            assert_eq!(window(yy, noon, mid(r)), y, "{r} {yy}");
        }
        // Received 2026-10-07T12:00:00Z: exactly 50 years is still ahead.
        let received = days(2026, 10, 7) * DAY + 12 * 3600;
        assert_eq!(window(76, (10, 7, 12, 0, 0), received), 2076);
        assert_eq!(window(76, (10, 7, 12, 0, 1), received), 1976);
        assert_eq!(window(76, (10, 7, 11, 59, 60), received), 2076);
        assert_eq!(window(76, (10, 8, 0, 0, 0), received), 1976);
        // A 29 February receipt moves to 28 February.
        let leap = days(2028, 2, 29) * DAY + 12 * 3600;
        assert_eq!(window(78, (2, 28, 12, 0, 0), leap), 2078);
        assert_eq!(window(78, (2, 28, 12, 0, 1), leap), 1978);
        assert!(unsent(40, noon, mid(2090)) && !unsent(76, noon, mid(2026)));
        assert!(unsent(76, (10, 7, 11, 59, 60), received - 1));
        assert!(!unsent(76, (10, 7, 11, 59, 60), received));
    }
}
