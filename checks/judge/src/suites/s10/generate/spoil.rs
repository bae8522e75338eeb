//! Valid dates spoiled: names in the wrong case or another zone, broken
//! syntax, impossible dates and wrong weekdays.

use super::super::calendar::{self, is_leap, month_length, LONG_DAYS, SHORT_DAYS};
use super::super::model::{Form, Written};
use super::written::{fix_weekday, recase};
use crate::rng::Gen;

pub(super) fn spoil_names(g: &mut Gen, w: &Written) -> String {
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
pub(super) fn spoil_syntax(g: &mut Gen, mut w: Written, one_space_day: bool) -> String {
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
pub(super) fn spoil_date(g: &mut Gen, mut w: Written) -> Written {
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
pub(super) fn spoil_weekday(g: &mut Gen, mut w: Written) -> Written {
    w.weekday = (w.weekday + g.int(1, 6) as usize) % 7;
    w
}
