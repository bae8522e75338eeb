//! The clauses about dates: each form and the RFC 850 window, spoiled
//! dates, the calendar's rules, and random values last.

use super::super::super::Builder;
use super::super::add;
use super::super::calendar::{self, days, fifty_years_on, month_length, weekday, year_length, DAY};
use super::super::model::{self, err, Form};
use super::spoil::{spoil_date, spoil_names, spoil_syntax, spoil_weekday};
use super::written::{
    any_receipt, at, digits, fix_weekday, long_padded, padded, receipt, receipt_edged,
    receipt_year, steady_rfc850, steady_years, valid, year_for,
};
use super::{dated, FORMS};
use crate::rng::Gen;
use lab_scripts::s10::Kind;

/// `imf-fixdate`, `asctime` and `rfc850-window`.
pub(super) fn forms(b: &mut Builder, g: &mut Gen) {
    for (key, form, count) in [
        ("imf-fixdate", Form::Imf, 30),
        ("asctime", Form::Asctime, 30),
    ] {
        for i in 0..count {
            let r = receipt_year(g);
            let received = receipt(g, r);
            // A later year than the receipt's: a date before the receipt
            // is `past-is-zero`'s.
            let y = r + g.int(1, 49);
            let mut w = valid(g, form, y, false);
            match i % 6 {
                // Padded past 128 characters: only what is left counts.
                4 => {
                    let text = long_padded(g, &w.text());
                    add(b, key, vec![text], received, w.meaning(received));
                }
                // asctime's one-digit day wants two spaces before it.
                5 if form == Form::Asctime => {
                    w.day = g.int(1, 9);
                    w.zero_day = false;
                    fix_weekday(&mut w);
                    let month = calendar::MONTHS[(w.month - 1) as usize];
                    let text = w.text().replacen(
                        &format!("{month}  {} ", w.day),
                        &format!("{month} {} ", w.day),
                        1,
                    );
                    let text = padded(g, &text);
                    add(b, key, vec![text], received, err(Kind::Syntax));
                }
                _ => dated(b, g, key, &w, received),
            }
        }
    }

    for i in 0..40 {
        let r = receipt_year(g);
        // A quarter at the window's ends, where a receipt read a year off
        // (a civil date a few days early on 1–6 March) picks another century.
        let k = if i % 4 == 1 {
            *g.pick(&[-49, 49])
        } else {
            g.int(-49, 49)
        };
        let y = r + k;
        let w = valid(g, Form::Rfc850, y, false);
        // Half are read a century later or earlier: the same text now
        // means another year, whose weekday never agrees.
        let reader = if i % 2 == 0 {
            r
        } else if r + 100 <= 2199 {
            r + 100
        } else {
            r - 100
        };
        let received = receipt_edged(g, reader, 1, 2);
        dated(b, g, "rfc850-window", &w, received);
    }

    for i in 0..36 {
        // Around exactly 50 years ahead, where the instant decides: every
        // receipt year ending in 00–49 (see `calendar::unsent`), three in
        // four of the receipts on an edge day (`edge_receipt`), and one case
        // in six on 29 February (2000–2048, 2104–2148).
        let r = if i % 6 == 5 {
            if g.chance(1, 2) {
                2000 + 4 * g.int(0, 12)
            } else {
                2104 + 4 * g.int(0, 11)
            }
        } else if g.chance(1, 2) {
            g.int(2000, 2049)
        } else {
            g.int(2100, 2149)
        };
        let received = if i % 6 == 5 {
            days(r, 2, 29) * DAY + g.below(DAY as u64) as i64
        } else {
            receipt_edged(g, r, 3, 4)
        };
        let (_, (m, d, hh, mm, ss)) = fifty_years_on(received);
        let limit = days(r + 50, m, d) * DAY + hh * 3600 + mm * 60 + ss;
        let offset = match i % 4 {
            0 => 0,
            1 => 1,
            2 => -1,
            _ => g.int(-2 * DAY, 2 * DAY),
        };
        let mut w = at(limit + offset, Form::Rfc850, true);
        if g.chance(1, 2) {
            // Named for the century before.
            w.year -= 100;
            fix_weekday(&mut w);
        }
        dated(b, g, "rfc850-window", &w, received);
    }
}

/// `names-and-zone`, `syntax` and `invalid-date`.
pub(super) fn spoiled(b: &mut Builder, g: &mut Gen) {
    for _ in 0..30 {
        let r = receipt_year(g);
        let received = receipt(g, r);
        let form = *g.pick(&FORMS);
        let y = year_for(g, form, r, false);
        let second_60 = g.chance(1, 8);
        let w = valid(g, form, y, second_60);
        let text = spoil_names(g, &w);
        let text = padded(g, &text);
        add(b, "names-and-zone", vec![text], received, err(Kind::Syntax));
    }

    for _ in 0..40 {
        let r = receipt_year(g);
        let received = receipt(g, r);
        let form = *g.pick(&FORMS);
        let far = g.chance(1, 4);
        let y = year_for(g, form, r, far);
        let second_60 = g.chance(1, 8);
        let w = valid(g, form, y, second_60);
        let text = spoil_syntax(g, w, false);
        let text = padded(g, &text);
        add(b, "syntax", vec![text], received, err(Kind::Syntax));
    }
    for _ in 0..4 {
        // Padded past 128 characters: still only a syntax error.
        let received = any_receipt(g);
        let core = "x".repeat(g.int(1, 128) as usize);
        let text = long_padded(g, &core);
        add(b, "syntax", vec![text], received, err(Kind::Syntax));
    }

    for _ in 0..30 {
        let form = *g.pick(&FORMS);
        let far = g.chance(1, 4);
        let (r, y) = steady_years(g, form, far);
        let received = receipt(g, r);
        let w = valid(g, form, y, false);
        let w = spoil_date(g, w);
        dated(b, g, "invalid-date", &w, received);
    }
}

/// `leap-years`, `weekday`, `second-60`, `past-is-zero` and
/// `century-boundaries`.
pub(super) fn calendar_rules(b: &mut Builder, g: &mut Gen) {
    const LEAPS: [i64; 22] = [
        1600, 1700, 1800, 1900, 2000, 2100, 2200, 2300, 2400, 1972, 1996, 2004, 2024, 2028, 2096,
        2104, 2196, 1970, 2025, 2026, 2099, 2101,
    ];
    for _ in 0..25 {
        let y = if g.chance(1, 5) {
            g.int(1, 9999)
        } else {
            *g.pick(&LEAPS)
        };
        let r = (y - g.int(0, 3)).clamp(1970, 2199);
        let received = receipt(g, r);
        // RFC 850 only where every century rule agrees (see `steady_rfc850`).
        let form = if (1970..=1999).contains(&y) {
            *g.pick(&FORMS)
        } else if g.chance(1, 2) {
            Form::Imf
        } else {
            Form::Asctime
        };
        let (month, day) = *g.pick(&[(2, 29), (2, 29), (2, 28), (3, 1), (12, 31)]);
        let mut w = valid(g, form, y, false);
        w.month = month;
        w.day = day;
        if day <= month_length(y, month) {
            fix_weekday(&mut w);
        } else {
            // Named after Mar 1 or Feb 28: either way no such day.
            w.weekday = (weekday(days(y, 3, 1)) + 6 * g.below(2) as usize) % 7;
        }
        dated(b, g, "leap-years", &w, received);
    }

    for _ in 0..30 {
        let form = *g.pick(&FORMS);
        let far = g.chance(1, 4);
        let (r, y) = steady_years(g, form, far);
        let received = receipt(g, r);
        let second_60 = g.chance(1, 8);
        let w = valid(g, form, y, second_60);
        let w = spoil_weekday(g, w);
        dated(b, g, "weekday", &w, received);
    }

    for _ in 0..30 {
        let form = *g.pick(&FORMS);
        // RFC 850 only where every century rule agrees (see `steady_rfc850`).
        let y = if form == Form::Rfc850 {
            g.int(1970, 1999)
        } else {
            g.int(1970, 2198)
        };
        let mut w = valid(g, form, y, true);
        if g.chance(1, 2) {
            // The last second of a day, a month or a year.
            w.hour = 23;
            w.minute = 59;
            if g.chance(1, 2) {
                w.day = month_length(y, w.month);
                if g.chance(1, 2) {
                    w.month = 12;
                    w.day = 31;
                }
            }
            fix_weekday(&mut w);
        }
        let instant = days(y, w.month, w.day) * DAY + w.hour * 3600 + w.minute * 60 + 60;
        let received = (instant - g.int(-60, 120)).max(0);
        if w.hour == 23 && w.minute == 59 && g.chance(1, 3) {
            // Named after the day it rolls into: wrong.
            w.weekday = (w.weekday + 1) % 7;
        }
        dated(b, g, "second-60", &w, received);
    }

    for i in 0..30 {
        let form = *g.pick(&FORMS);
        // RFC 850 only where every century rule agrees (see `steady_rfc850`):
        // its dates before 1970 are the window's.
        let (r, rfc850_year) = if form == Form::Rfc850 {
            let (r, y) = steady_rfc850(g, true);
            (if i % 5 == 0 { y } else { r }, y)
        } else {
            (receipt_year(g), 0)
        };
        let received = receipt(g, r);
        let instant = if i % 5 == 0 {
            received
        } else {
            let y = if form == Form::Rfc850 {
                rfc850_year
            } else if g.chance(1, 2) {
                r - g.int(0, 49)
            } else {
                g.int(1, r)
            };
            let start = days(y, 1, 1) * DAY;
            let end = (start + year_length(y) * DAY - 1).min(received);
            g.int(start, end)
        };
        let w = at(instant, form, g.chance(1, 2));
        dated(b, g, "past-is-zero", &w, received);
    }

    for r in [1970, 2026, 2090, 2100] {
        for k in [-49, -1, 0, 1, 49] {
            for form in FORMS {
                let start = days(r, 1, 1) * DAY;
                let received = start + g.int(DAY, (year_length(r) - 1) * DAY);
                let y = r + k;
                let (lo, hi) = (days(y, 1, 1) * DAY, days(y + 1, 1, 1) * DAY - 1);
                for (lo, hi) in if k == 0 {
                    [(lo, received - 1), (received + 1, hi)]
                } else {
                    [(lo, hi), (lo, hi)]
                } {
                    let w = at(g.int(lo, hi), form, g.chance(1, 2));
                    dated(b, g, "century-boundaries", &w, received);
                }
            }
        }
    }
}

/// `random`: any value, valid or not.
pub(super) fn random(b: &mut Builder, g: &mut Gen) {
    for _ in 0..100 {
        let r = receipt_year(g);
        let received = receipt_edged(g, r, 1, 2);
        if g.chance(1, 8) {
            let v = g.below(1 << 32);
            let zeros = g.int(0, 2);
            let text = padded(g, &digits(v, zeros));
            add(b, "random", vec![text], received, model::delay(v as i64));
            continue;
        }
        let form = *g.pick(&FORMS);
        let far = g.chance(1, 3);
        let y = year_for(g, form, r, far);
        let second_60 = g.chance(1, 10);
        let w = valid(g, form, y, second_60);
        match g.below(8) {
            0 => {
                let text = spoil_syntax(g, w, true);
                let text = padded(g, &text);
                add(b, "random", vec![text], received, err(Kind::Syntax));
            }
            1 => {
                let text = spoil_names(g, &w);
                let text = padded(g, &text);
                add(b, "random", vec![text], received, err(Kind::Syntax));
            }
            2 => {
                let w = spoil_date(g, w);
                dated(b, g, "random", &w, received);
            }
            3 => {
                let w = spoil_weekday(g, w);
                dated(b, g, "random", &w, received);
            }
            _ => dated(b, g, "random", &w, received),
        }
    }
}
