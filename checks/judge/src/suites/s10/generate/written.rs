//! What the generators write: receipt times, valid dates in each form,
//! padding, and values of every kind.

use super::super::calendar::{civil, days, month_length, weekday, year_length, year_of, DAY};
use super::super::model::{Form, Written};
use super::FORMS;
use crate::rng::Gen;

/// A receipt instant anywhere in `year`.
pub(super) fn receipt(g: &mut Gen, year: i64) -> i64 {
    days(year, 1, 1) * DAY + g.below((year_length(year) * DAY) as u64) as i64
}

/// Any receipt year the contract lets the checker send.
pub(super) fn receipt_year(g: &mut Gen) -> i64 {
    g.int(1970, 2199)
}

pub(super) fn any_receipt(g: &mut Gen) -> i64 {
    let r = receipt_year(g);
    receipt(g, r)
}

/// A receipt instant in `year` on a day where a civil-from-days
/// conversion of the receipt slips first: 1–2 March (its years begin on
/// 1 March, so its century terms show there, in 1970–1999 and from 2100 on,
/// and 1 March 2000 starts a 400-year era), 3–6 March, 28 or 29 February,
/// the first day of any month, or the last four days of any month (the
/// 29th, 30th and 31st included); a third of them at the first or the last
/// second of the day.
pub(super) fn edge_receipt(g: &mut Gen, year: i64) -> i64 {
    let (month, day) = match g.below(5) {
        0 => (3, g.int(1, 2)),
        1 => (3, g.int(3, 6)),
        2 => (2, g.int(28, month_length(year, 2))),
        3 => (g.int(1, 12), 1),
        _ => {
            let month = g.int(1, 12);
            let length = month_length(year, month);
            (month, g.int(length - 3, length))
        }
    };
    let second = match g.below(6) {
        0 => 0,
        1 => DAY - 1,
        _ => g.below(DAY as u64) as i64,
    };
    days(year, month, day) * DAY + second
}

/// A receipt instant in `year`: on an edge day (`edge_receipt`) with
/// chance `n` in `d`, else anywhere in the year.
pub(super) fn receipt_edged(g: &mut Gen, year: i64, n: u64, d: u64) -> i64 {
    if g.chance(n, d) {
        edge_receipt(g, year)
    } else {
        receipt(g, year)
    }
}

/// A valid date in `year` written in `form`, second 60 when asked.
pub(super) fn valid(g: &mut Gen, form: Form, year: i64, second_60: bool) -> Written {
    let month = g.int(1, 12);
    let day = g.int(1, month_length(year, month));
    let mut w = Written {
        form,
        weekday: 0,
        year,
        month,
        day,
        hour: g.int(0, 23),
        minute: g.int(0, 59),
        second: if second_60 { 60 } else { g.int(0, 59) },
        zero_day: g.chance(1, 2),
    };
    fix_weekday(&mut w);
    w
}

pub(super) fn fix_weekday(w: &mut Written) {
    w.weekday = weekday(days(w.year, w.month, w.day));
}

/// The date of an instant (years 0–9999), written in `form`.
pub(super) fn at(instant: i64, form: Form, zero_day: bool) -> Written {
    let n = instant.div_euclid(DAY);
    let (year, month, day) = civil(n);
    let s = instant.rem_euclid(DAY);
    Written {
        form,
        weekday: weekday(n),
        year,
        month,
        day,
        hour: s / 3600,
        minute: s / 60 % 60,
        second: s % 60,
        zero_day,
    }
}

/// A year for a date read in receipt year `r`: RFC 850 stays within 49
/// years (never the slot `yy ≡ R + 50`), the others may go anywhere in the
/// calendar (0001–9999).
pub(super) fn year_for(g: &mut Gen, form: Form, r: i64, far: bool) -> i64 {
    if far && form != Form::Rfc850 {
        g.int(1, 9999)
    } else {
        r + g.int(-49, 49)
    }
}

/// A receipt year and the year of an RFC 850 date read then, for clauses
/// other than the window's: 1970–1999, at most 40 years from the receipt
/// year, so that the true window, a fixed cutoff at 50 or 70, a plain
/// `19yy` and a window off by a year at either end all read the same
/// century. `past`: the receipt year is not before the date's.
pub(super) fn steady_rfc850(g: &mut Gen, past: bool) -> (i64, i64) {
    let y = g.int(1970, 1999);
    let lo = if past { y } else { (y - 40).max(1970) };
    (g.int(lo, y + 40), y)
}

/// A receipt year and a date's year for `form`: RFC 850 as in
/// `steady_rfc850`, the others as in `year_for`.
pub(super) fn steady_years(g: &mut Gen, form: Form, far: bool) -> (i64, i64) {
    if form == Form::Rfc850 {
        steady_rfc850(g, false)
    } else {
        let r = receipt_year(g);
        (r, year_for(g, form, r, far))
    }
}

/// Up to three spaces or tabs.
pub(super) fn pad(g: &mut Gen) -> String {
    (0..g.int(0, 3))
        .map(|_| if g.chance(1, 2) { ' ' } else { '\t' })
        .collect()
}

pub(super) fn padded(g: &mut Gen, text: &str) -> String {
    if g.chance(1, 2) {
        return text.to_string();
    }
    format!("{}{text}{}", pad(g), pad(g))
}

/// Spaces and tabs around `text`, more than 128 characters in all (what
/// is left after trimming is `text` itself).
pub(super) fn long_padded(g: &mut Gen, text: &str) -> String {
    let len = text.chars().count() as i64;
    let extra = g.int((129 - len).max(0), 200);
    let left = g.int(0, extra);
    format!("{}{text}{}", blank(g, left), blank(g, extra - left))
}

/// `len` spaces and tabs: mixed when short, else one run of each (so that
/// a failure can show it as two `.repeat(n)`).
pub(super) fn blank(g: &mut Gen, len: i64) -> String {
    if len <= 3 {
        return (0..len)
            .map(|_| if g.chance(1, 2) { ' ' } else { '\t' })
            .collect();
    }
    let split = g.int(0, len) as usize;
    let (a, b) = if g.chance(1, 2) {
        (" ", "\t")
    } else {
        ("\t", " ")
    };
    a.repeat(split) + &b.repeat(len as usize - split)
}

/// Decimal digits of `v`, with `zeros` leading zeros.
pub(super) fn digits(v: u64, zeros: i64) -> String {
    format!("{}{v}", "0".repeat(zeros as usize))
}

/// A random value of any kind, for the field-count clause.
pub(super) fn any_value(g: &mut Gen, received: i64) -> String {
    match g.below(4) {
        0 => {
            let form = *g.pick(&FORMS);
            let y = year_for(g, form, year_of(received), false);
            valid(g, form, y, false).text()
        }
        1 => g.below(100_000).to_string(),
        2 => String::new(),
        _ => g.pick(&["soon", "+5", "5.0", "never", "0"]).to_string(),
    }
}

/// Changes the case of a name inside `text` at `range`.
pub(super) fn recase(g: &mut Gen, text: &str, range: std::ops::Range<usize>) -> String {
    let name = &text[range.clone()];
    let changed = match g.below(3) {
        0 => name.to_ascii_lowercase(),
        1 => name.to_ascii_uppercase(),
        _ => {
            let mut c = name.chars();
            let first = c
                .next()
                .map_or(String::new(), |f| f.to_lowercase().to_string());
            first + c.as_str()
        }
    };
    format!("{}{changed}{}", &text[..range.start], &text[range.end..])
}
