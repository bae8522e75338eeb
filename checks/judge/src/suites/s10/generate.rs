//! Step 10's generators: valid dates in the three forms, spoiled ones and
//! delays, built per clause from the judge's calendar, then random ones.

use super::super::Builder;
use super::add;
use super::calendar::{
    self, civil, days, fifty_years_on, is_leap, month_length, weekday, year_length, year_of, DAY,
    LONG_DAYS, SHORT_DAYS,
};
use super::model::{self, err, Form, Written, DELAY_LIMIT};
use crate::rng::Gen;
use lab_wire::scripts::s10::{Kind, Observed};

const FORMS: [Form; 3] = [Form::Imf, Form::Rfc850, Form::Asctime];

/// A receipt instant anywhere in `year`.
fn receipt(g: &mut Gen, year: i64) -> i64 {
    days(year, 1, 1) * DAY + g.below((year_length(year) * DAY) as u64) as i64
}

fn receipt_year(g: &mut Gen) -> i64 {
    g.int(1970, 2199)
}

fn any_receipt(g: &mut Gen) -> i64 {
    let r = receipt_year(g);
    receipt(g, r)
}

/// A valid date in `year` written in `form`, second 60 when asked.
fn valid(g: &mut Gen, form: Form, year: i64, second_60: bool) -> Written {
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

fn fix_weekday(w: &mut Written) {
    w.weekday = weekday(days(w.year, w.month, w.day));
}

/// The date of an instant (years 0–9999), written in `form`.
fn at(instant: i64, form: Form, zero_day: bool) -> Written {
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
fn year_for(g: &mut Gen, form: Form, r: i64, far: bool) -> i64 {
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
fn steady_rfc850(g: &mut Gen, past: bool) -> (i64, i64) {
    let y = g.int(1970, 1999);
    let lo = if past { y } else { (y - 40).max(1970) };
    (g.int(lo, y + 40), y)
}

/// A receipt year and a date's year for `form`: RFC 850 as in
/// `steady_rfc850`, the others as in `year_for`.
fn steady_years(g: &mut Gen, form: Form, far: bool) -> (i64, i64) {
    if form == Form::Rfc850 {
        steady_rfc850(g, false)
    } else {
        let r = receipt_year(g);
        (r, year_for(g, form, r, far))
    }
}

/// Up to three spaces or tabs.
fn pad(g: &mut Gen) -> String {
    (0..g.int(0, 3))
        .map(|_| if g.chance(1, 2) { ' ' } else { '\t' })
        .collect()
}

fn padded(g: &mut Gen, text: &str) -> String {
    if g.chance(1, 2) {
        return text.to_string();
    }
    format!("{}{text}{}", pad(g), pad(g))
}

/// Spaces and tabs around `text`, more than 128 characters in all (what
/// is left after trimming is `text` itself).
fn long_padded(g: &mut Gen, text: &str) -> String {
    let len = text.chars().count() as i64;
    let extra = g.int((129 - len).max(0), 200);
    let left = g.int(0, extra);
    format!("{}{text}{}", blank(g, left), blank(g, extra - left))
}

/// `len` spaces and tabs: mixed when short, else one run of each (so that
/// a failure can show it as two `.repeat(n)`).
fn blank(g: &mut Gen, len: i64) -> String {
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
fn digits(v: u64, zeros: i64) -> String {
    format!("{}{v}", "0".repeat(zeros as usize))
}

/// A random value of any kind, for the field-count clause.
fn any_value(g: &mut Gen, received: i64) -> String {
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
fn recase(g: &mut Gen, text: &str, range: std::ops::Range<usize>) -> String {
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

/// A valid date with a name in the wrong case, or another zone.
fn spoil_names(g: &mut Gen, w: &Written) -> String {
    let text = w.text();
    let day_len = match w.form {
        Form::Rfc850 => LONG_DAYS[w.weekday].len(),
        Form::Imf | Form::Asctime => 3,
    };
    let month_at = match w.form {
        Form::Imf => 8,
        Form::Rfc850 => day_len + 5,
        Form::Asctime => 4,
    };
    let choice = if w.form == Form::Asctime {
        g.below(2)
    } else {
        g.below(3)
    };
    match choice {
        0 => recase(g, &text, 0..day_len),
        1 => recase(g, &text, month_at..month_at + 3),
        _ => {
            const ZONES: [&str; 12] = [
                "gmt",
                "Gmt",
                "GMt",
                "gMT",
                "UTC",
                "UT",
                "Z",
                "+0000",
                "-0000",
                "EST",
                "CET",
                "GMT+00:00",
            ];
            let stem = text.strip_suffix("GMT").expect("a zone to replace");
            format!("{stem}{}", g.pick(&ZONES))
        }
    }
}

/// A value that is not one of the four forms (and not a name slip).
/// `one_space_day`: an asctime `Nov 6` after a single space may be among
/// them (the asctime clause's own case, so only `random` asks for it).
fn spoil_syntax(g: &mut Gen, mut w: Written, one_space_day: bool) -> String {
    let kind = if w.form == Form::Asctime && !one_space_day {
        g.int(2, 12) as u64
    } else {
        g.below(13)
    };
    if matches!(kind, 0 | 1) && w.day >= 10 {
        w.day = g.int(1, 9);
        fix_weekday(&mut w);
    }
    let text = w.text();
    let spaces: Vec<usize> = text.match_indices(' ').map(|(i, _)| i).collect();
    let at = |i: usize, with: &str| format!("{}{with}{}", &text[..i], &text[i + 1..]);
    match kind {
        // One-digit day in the first two forms, `Nov 6` in asctime.
        0 | 1 => match w.form {
            Form::Imf => text.replacen(&format!(" 0{} ", w.day), &format!(" {} ", w.day), 1),
            Form::Rfc850 => text.replacen(&format!(" 0{}-", w.day), &format!(" {}-", w.day), 1),
            Form::Asctime => {
                let month = calendar::MONTHS[(w.month - 1) as usize];
                let day = if w.zero_day {
                    format!("{month} 0{} ", w.day)
                } else {
                    format!("{month}  {} ", w.day)
                };
                text.replacen(&day, &format!("{month} {} ", w.day), 1)
            }
        },
        2 => {
            let i = *g.pick(&spaces);
            format!("{} {}", &text[..i], &text[i..])
        }
        3 => at(*g.pick(&spaces), "\t"),
        4 => match w.form {
            Form::Imf | Form::Rfc850 => text.replacen(',', "", 1),
            Form::Asctime => at(3, ", "),
        },
        5 => {
            let (full, short) = (format!("{:04}", w.year), format!("{:02}", w.year % 100));
            match w.form {
                Form::Imf | Form::Asctime => text.replacen(&full, &short, 1),
                Form::Rfc850 => text.replacen(&format!("-{short} "), &format!("-{full} "), 1),
            }
        }
        6 => match w.form {
            Form::Imf => text.replacen(SHORT_DAYS[w.weekday], LONG_DAYS[w.weekday], 1),
            Form::Rfc850 => text.replacen(LONG_DAYS[w.weekday], SHORT_DAYS[w.weekday], 1),
            Form::Asctime => text.replacen(SHORT_DAYS[w.weekday], LONG_DAYS[w.weekday], 1),
        },
        7 => {
            let tail = [",", ".", " x", " GMT", "\n", "\r", "\u{a0}", ";", "Z", "0"];
            format!("{text}{}", g.pick(&tail))
        }
        8 => {
            let head = ["\u{a0}", "\n", "\r", "\u{3000}", "\u{feff}", ","];
            format!("{}{text}", g.pick(&head))
        }
        9 => {
            let places: Vec<usize> = text
                .bytes()
                .enumerate()
                .filter(|(_, b)| b.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            let i = *g.pick(&places);
            let with = *g.pick(&["\u{663}", "\u{ff15}", "\u{b2}", "O", "l"]);
            at(i, with)
        }
        10 => {
            let colon = text.find(':').expect("a time");
            if g.chance(1, 2) {
                at(colon, ".")
            } else {
                at(colon, "")
            }
        }
        11 => {
            let v = g.below(100_000);
            let shapes = [
                format!("+{v}"),
                format!("-{v}"),
                format!("{v}.0"),
                format!(".{v}"),
                format!("{v}e3"),
                format!("0x{v}"),
                format!("{v}s"),
                format!("{v}, {v}"),
                format!("{v}_000"),
                format!("{v} {v}"),
                format!("{v}\t{v}"),
                format!("{v}\n"),
            ];
            g.pick(&shapes).clone()
        }
        _ => match w.form {
            Form::Imf | Form::Rfc850 => text.strip_suffix(" GMT").expect("a zone").into(),
            Form::Asctime => format!("{text} GMT"),
        },
    }
}

/// A syntactically right date with one impossible field, or (4-digit
/// years) a date outside 0001–9999.
fn spoil_date(g: &mut Gen, mut w: Written) -> Written {
    match g.below(9) {
        7 if w.form != Form::Rfc850 => {
            w.year = 0;
            w.day = w.day.min(month_length(0, w.month));
            fix_weekday(&mut w);
        }
        8 if w.form != Form::Rfc850 => {
            (w.year, w.month, w.day) = (9999, 12, 31);
            (w.hour, w.minute, w.second) = (23, 59, 60);
            fix_weekday(&mut w);
        }
        0 => w.day = 0,
        1 => w.day = g.int(month_length(w.year, w.month) + 1, 99),
        2 => {
            w.month = 2;
            w.day = if is_leap(w.year) { 30 } else { g.int(29, 31) };
        }
        3 => w.hour = g.int(24, 99),
        4 => w.minute = g.int(60, 99),
        5 => w.second = g.int(61, 99),
        _ => {
            w.month = *g.pick(&[4, 6, 9, 11]);
            w.day = 31;
        }
    }
    w
}

/// The day name shifted by 1–6 days.
fn spoil_weekday(g: &mut Gen, mut w: Written) -> Written {
    w.weekday = (w.weekday + g.int(1, 6) as usize) % 7;
    w
}

/// The generated calls: clause by clause, then random ones.
pub(super) fn generated(b: &mut Builder, g: &mut Gen) {
    // A valid date read in a random receipt year, and its meaning.
    let dated = |b: &mut Builder, g: &mut Gen, key: &str, w: &Written, received: i64| {
        let text = padded(g, &w.text());
        add(b, key, vec![text], received, w.meaning(received));
    };

    for _ in 0..15 {
        let received = any_receipt(g);
        if g.chance(1, 4) {
            add(
                b,
                "missing-or-duplicate",
                vec![],
                received,
                err(Kind::Missing),
            );
            continue;
        }
        let mut fields: Vec<String> = (0..g.int(2, 4)).map(|_| any_value(g, received)).collect();
        if g.chance(1, 3) {
            fields[1] = fields[0].clone();
        }
        add(
            b,
            "missing-or-duplicate",
            fields,
            received,
            err(Kind::Duplicate),
        );
    }

    for i in 0..24 {
        let received = any_receipt(g);
        let key = "empty-or-oversized";
        if i % 3 == 0 {
            // Blanks only, however many: nothing is left after trimming.
            let len = if g.chance(1, 3) {
                g.int(129, 300)
            } else {
                g.int(0, 128)
            };
            let value = blank(g, len);
            add(b, key, vec![value], received, err(Kind::Empty));
            continue;
        }
        // The limit counts what is left after trimming.
        let (core, expect) = if i % 3 == 1 {
            let len = g.int(129, 200) as usize;
            let core = match g.below(4) {
                0 => "x".repeat(len),
                1 => "\u{e9}".repeat(len),
                2 => digits(100 + g.below(900), len as i64 - 3),
                _ => {
                    let head = format!("{}, ", g.below(100));
                    head.clone() + &"5".repeat(len - head.len())
                }
            };
            (core, err(Kind::Oversized))
        } else {
            // A short delay that no other rule questions: only the padding
            // is long (padded dates and syntax errors are their clauses').
            let v = g.below(100_000);
            let zeros = g.int(0, 128 - v.to_string().len() as i64);
            (digits(v, zeros), Observed::Ok { value: v as u32 })
        };
        let len = core.chars().count() as i64;
        let extra = if len > 128 {
            g.int(0, 60)
        } else {
            g.int(129 - len, 200)
        };
        let left = g.int(0, extra);
        let value = format!("{}{core}{}", blank(g, left), blank(g, extra - left));
        add(b, key, vec![value], received, expect);
    }

    for _ in 0..30 {
        let received = any_receipt(g);
        let width = g.int(1, 10) as u32;
        let lo = if width == 1 { 0 } else { 10u64.pow(width - 1) };
        let hi = (10u64.pow(width) - 1).min(DELAY_LIMIT as u64);
        let v = lo + g.below(hi - lo + 1);
        let zeros = if g.chance(1, 3) { g.int(1, 20) } else { 0 };
        let text = padded(g, &digits(v, zeros));
        let expect = Observed::Ok { value: v as u32 };
        add(b, "delay-seconds", vec![text], received, expect);
    }

    for i in 0..25 {
        let r = receipt_year(g);
        let received = receipt(g, r);
        let form = if g.chance(1, 2) {
            Form::Imf
        } else {
            Form::Asctime
        };
        match i % 5 {
            0 => {
                let v = (DELAY_LIMIT + g.int(-3, 3)) as u64;
                let zeros = g.int(0, 20);
                let text = padded(g, &digits(v, zeros));
                add(
                    b,
                    "delay-limit",
                    vec![text],
                    received,
                    model::delay(v as i64),
                );
            }
            1 => {
                let len = g.int(11, 120) as usize;
                let mut text = (1 + g.below(9)).to_string();
                while text.len() < len {
                    text.push(char::from(b'0' + g.below(10) as u8));
                }
                let text = padded(g, &text);
                add(b, "delay-limit", vec![text], received, err(Kind::OverLimit));
            }
            2 => {
                let v = DELAY_LIMIT as u64 + 1 + g.below(10_000_000_000 - DELAY_LIMIT as u64);
                let text = padded(g, &v.to_string());
                add(b, "delay-limit", vec![text], received, err(Kind::OverLimit));
            }
            3 => {
                let w = at(received + DELAY_LIMIT + g.int(-2, 2), form, g.chance(1, 2));
                dated(b, g, "delay-limit", &w, received);
            }
            _ => {
                let year = g.int(r + 70, 9999);
                let w = valid(g, form, year, false);
                dated(b, g, "delay-limit", &w, received);
            }
        }
    }

    for (key, form, count) in [
        ("imf-fixdate", Form::Imf, 30),
        ("asctime", Form::Asctime, 30),
    ] {
        for i in 0..count {
            let r = receipt_year(g);
            let received = receipt(g, r);
            let y = r + g.int(0, 49);
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
        let y = r + g.int(-49, 49);
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
        let received = receipt(g, reader);
        dated(b, g, "rfc850-window", &w, received);
    }

    for i in 0..24 {
        // Around exactly 50 years ahead, where the instant decides: receipt
        // years ending in 00–49 (see `calendar::unsent`), some on 29 Feb.
        let r = if i % 6 == 5 {
            2000 + 4 * g.int(0, 12)
        } else if g.chance(1, 2) {
            g.int(2000, 2049)
        } else {
            g.int(2100, 2149)
        };
        let received = if i % 6 == 5 {
            days(r, 2, 29) * DAY + g.below(DAY as u64) as i64
        } else {
            receipt(g, r)
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

    for _ in 0..100 {
        let r = receipt_year(g);
        let received = receipt(g, r);
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

#[cfg(test)]
mod tests {
    use super::super::{build, STEP};
    use super::*;
    use crate::suites::{fixture, Check, Expect};
    use lab_wire::scripts::s10::Script;
    use lab_wire::Call;

    fn scripts(seed: u64) -> Vec<(String, Script, Observed)> {
        let mut g = Gen::fork(seed, STEP);
        let b = build(&mut g);
        let mut out = Vec::new();
        for clause in b.finish("parse_retry_after").clauses {
            for Check { call, expect, .. } in clause.checks {
                let (Call::Advanced { input, .. }, Expect::Script(e)) = (call, expect) else {
                    panic!("step 10 makes advanced calls only");
                };
                let s: Script = serde_json::from_value(input).unwrap();
                let o = *e.as_any().downcast_ref::<Observed>().unwrap();
                out.push((clause.key.clone(), s, o));
            }
        }
        out
    }

    #[test]
    fn generated_expectations_agree_with_the_model() {
        for seed in 0..40 {
            for (key, s, expect) in scripts(seed) {
                assert_eq!(model::model(&s), expect, "seed {seed}, {key}: {s:?}");
            }
        }
    }

    #[test]
    fn nothing_outside_the_contract_is_sent() {
        for seed in 0..40 {
            for (key, s, _) in scripts(seed) {
                let r = year_of(s.received);
                assert!((1970..=2199).contains(&r), "{key}: {s:?}");
                for f in &s.fields {
                    // Bytes and characters agree about the size limit.
                    let core = f.trim_matches([' ', '\t']);
                    let chars = core.chars().count();
                    assert_eq!(core.len() > 128, chars > 128, "{key}: {f:?}");
                    if let Some(w) = model::parse(core.as_bytes()) {
                        if w.form == Form::Rfc850 {
                            let unsent = calendar::unsent(w.year, w.written(), s.received);
                            assert!(!unsent, "{key}: {s:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_clause_sees_its_outcomes() {
        let all = scripts(7);
        let has = |key: &str, o: &dyn Fn(&Observed) -> bool| {
            all.iter()
                .any(|(k, _, e)| k == &format!("10/{key}") && o(e))
        };
        let kind = |k: Kind| move |o: &Observed| *o == err(k);
        assert!(has("invalid-date", &kind(Kind::InvalidDate)));
        assert!(has("weekday", &kind(Kind::InvalidDate)));
        assert!(has("second-60", &kind(Kind::InvalidDate)));
        assert!(has(
            "second-60",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has("leap-years", &kind(Kind::InvalidDate)));
        assert!(has("delay-limit", &kind(Kind::OverLimit)));
        assert!(has(
            "rfc850-window",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has(
            "century-boundaries",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has("century-boundaries", &|o| *o == Observed::Ok { value: 0 }));
        let generated = all.len() - fixture::table(STEP).len();
        assert!(
            (550..=700).contains(&generated),
            "{generated} generated cases"
        );
    }
}
