//! The judge's own model of a correct `parse_retry_after`: a parser that
//! reads the three date forms at fixed byte positions, and the meaning of a
//! written date at a receipt time (ranges, weekday, window, instant).

use super::calendar::{
    days, month_length, weekday, window, DAY, LAST_INSTANT, LONG_DAYS, MONTHS, SHORT_DAYS,
};
use lab_scripts::s10::{Kind, Observed, Script};

pub const DELAY_LIMIT: i64 = 2_147_483_647;
pub const FIELD_LIMIT: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Imf,
    Rfc850,
    Asctime,
}

/// A date as written, its numbers not checked yet. For RFC 850 only
/// `year mod 100` is written; the window gives the century back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub form: Form,
    /// The day name's index, 0 = Sunday.
    pub weekday: usize,
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    /// asctime only: a day below 10 written `06` instead of ` 6`.
    pub zero_day: bool,
}

impl Written {
    /// The date in its form, exactly as the grammar spells it.
    pub fn text(&self) -> String {
        let time = format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second);
        let month = MONTHS[(self.month - 1) as usize];
        match self.form {
            Form::Imf => format!(
                "{}, {:02} {month} {:04} {time} GMT",
                SHORT_DAYS[self.weekday], self.day, self.year
            ),
            Form::Rfc850 => format!(
                "{}, {:02}-{month}-{:02} {time} GMT",
                LONG_DAYS[self.weekday],
                self.day,
                self.year.rem_euclid(100)
            ),
            Form::Asctime => {
                let day = if self.zero_day {
                    format!("{:02}", self.day)
                } else {
                    format!("{:2}", self.day)
                };
                format!(
                    "{} {month} {day} {time} {:04}",
                    SHORT_DAYS[self.weekday], self.year
                )
            }
        }
    }

    /// Month, day and time as written, for the 50-year rule.
    pub fn written(&self) -> (i64, i64, i64, i64, i64) {
        (self.month, self.day, self.hour, self.minute, self.second)
    }

    /// The year the text stands for when received at `received`.
    pub fn full_year(&self, received: i64) -> i64 {
        match self.form {
            Form::Rfc850 => window(self.year.rem_euclid(100), self.written(), received),
            Form::Imf | Form::Asctime => self.year,
        }
    }

    /// What a correct parser answers for this text at `received`.
    pub fn meaning(&self, received: i64) -> Observed {
        let year = self.full_year(received);
        let in_range = year >= 1
            && (1..=12).contains(&self.month)
            && (1..=month_length(year, self.month)).contains(&self.day)
            && (0..=23).contains(&self.hour)
            && (0..=59).contains(&self.minute)
            && (0..=60).contains(&self.second);
        if !in_range {
            return err(Kind::InvalidDate);
        }
        let n = days(year, self.month, self.day);
        if weekday(n) != self.weekday {
            return err(Kind::InvalidDate);
        }
        let instant = n * DAY + self.hour * 3600 + self.minute * 60 + self.second;
        if instant > LAST_INSTANT {
            // 9999-12-31 23:59:60 rolls out of the calendar.
            return err(Kind::InvalidDate);
        }
        delay(instant - received)
    }
}

pub fn err(kind: Kind) -> Observed {
    Observed::Err { error: kind }
}

/// A delay in seconds: none when not positive, an error above the limit.
pub fn delay(d: i64) -> Observed {
    if d <= 0 {
        Observed::Ok { value: 0 }
    } else if d > DELAY_LIMIT {
        err(Kind::OverLimit)
    } else {
        Observed::Ok { value: d as u32 }
    }
}

/// The whole contract, in its order of precedence.
pub fn model(script: &Script) -> Observed {
    let value = match script.fields.as_slice() {
        [] => return err(Kind::Missing),
        [one] => one,
        _ => return err(Kind::Duplicate),
    };
    let core = value.trim_matches([' ', '\t']);
    if core.is_empty() {
        return err(Kind::Empty);
    }
    if core.chars().count() > FIELD_LIMIT {
        return err(Kind::Oversized);
    }
    if core.bytes().all(|b| b.is_ascii_digit()) {
        let digits = core.trim_start_matches('0');
        if digits.len() > 10 {
            return err(Kind::OverLimit);
        }
        let v: i64 = digits.parse().unwrap_or(0);
        return if v > DELAY_LIMIT {
            err(Kind::OverLimit)
        } else {
            Observed::Ok { value: v as u32 }
        };
    }
    match parse(core.as_bytes()) {
        Some(w) => w.meaning(script.received),
        None => err(Kind::Syntax),
    }
}

/// Step 10's result for these fields, by the judge's own model: what the
/// learner's parser must give, and what step 11's executor sees.
pub fn expected(fields: &[String], received: i64) -> Result<u32, Kind> {
    let script = Script {
        fields: fields.to_vec(),
        received,
    };
    match model(&script) {
        Observed::Ok { value } => Ok(value),
        Observed::Err { error } => Err(error),
    }
}

fn number(b: &[u8]) -> Option<i64> {
    b.iter().try_fold(0i64, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
    })
}

fn index(names: &[&str], b: &[u8]) -> Option<usize> {
    names.iter().position(|n| n.as_bytes() == b)
}

/// `hh:mm:ss`.
fn time(b: &[u8]) -> Option<(i64, i64, i64)> {
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    Some((number(&b[0..2])?, number(&b[3..5])?, number(&b[6..8])?))
}

/// One of the three forms, the whole text and nothing else.
pub fn parse(b: &[u8]) -> Option<Written> {
    let imf = |b: &[u8]| -> Option<Written> {
        // Sun, 06 Nov 1994 08:49:37 GMT
        if b.len() != 29 || &b[3..5] != b", " || b[7] != b' ' || b[11] != b' ' {
            return None;
        }
        if b[16] != b' ' || &b[25..] != b" GMT" {
            return None;
        }
        let (hour, minute, second) = time(&b[17..25])?;
        Some(Written {
            form: Form::Imf,
            weekday: index(&SHORT_DAYS, &b[0..3])?,
            day: number(&b[5..7])?,
            month: index(&MONTHS, &b[8..11])? as i64 + 1,
            year: number(&b[12..16])?,
            hour,
            minute,
            second,
            zero_day: true,
        })
    };
    let rfc850 = |b: &[u8]| -> Option<Written> {
        // Sunday, 06-Nov-94 08:49:37 GMT
        let comma = b.iter().position(|&c| c == b',')?;
        let weekday = index(&LONG_DAYS, &b[..comma])?;
        let r = &b[comma..];
        if r.len() != 24 || &r[..2] != b", " || r[4] != b'-' || r[8] != b'-' {
            return None;
        }
        if r[11] != b' ' || &r[20..] != b" GMT" {
            return None;
        }
        let (hour, minute, second) = time(&r[12..20])?;
        Some(Written {
            form: Form::Rfc850,
            weekday,
            day: number(&r[2..4])?,
            month: index(&MONTHS, &r[5..8])? as i64 + 1,
            year: number(&r[9..11])?,
            hour,
            minute,
            second,
            zero_day: true,
        })
    };
    let asctime = |b: &[u8]| -> Option<Written> {
        // Sun Nov  6 08:49:37 1994
        if b.len() != 24 || b[3] != b' ' || b[7] != b' ' || b[10] != b' ' || b[19] != b' ' {
            return None;
        }
        let (day, zero_day) = if b[8] == b' ' {
            (number(&b[9..10])?, false)
        } else {
            (number(&b[8..10])?, true)
        };
        let (hour, minute, second) = time(&b[11..19])?;
        Some(Written {
            form: Form::Asctime,
            weekday: index(&SHORT_DAYS, &b[0..3])?,
            month: index(&MONTHS, &b[4..7])? as i64 + 1,
            day,
            hour,
            minute,
            second,
            year: number(&b[20..24])?,
            zero_day,
        })
    };
    imf(b).or_else(|| rfc850(b)).or_else(|| asctime(b))
}

#[cfg(test)]
mod tests {
    use super::super::{table::from_table, ThisStep};
    use super::*;
    use crate::suites::fixture;

    const STEP: &str = ThisStep::ID;

    #[test]
    fn expected_reads_what_step_11_sends() {
        let f = |v: &str| vec![v.to_string()];
        let date = f("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(expected(&date, 784_111_740), Ok(37));
        assert_eq!(expected(&date, 784_111_800), Ok(0));
        let wrong_day = f("Mon, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(expected(&wrong_day, 0), Err(Kind::InvalidDate));
        assert_eq!(expected(&f(" 007\t"), 0), Ok(7));
        assert_eq!(
            expected(&f("99999999999999999999"), 0),
            Err(Kind::OverLimit)
        );
        assert_eq!(expected(&f("1, 2"), 0), Err(Kind::Syntax));
        assert_eq!(expected(&[], 0), Err(Kind::Missing));
    }

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (s, expect) = from_table(&case);
            assert_eq!(model(&s), expect, "{case}");
        }
    }
}
