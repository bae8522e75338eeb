//! The judge's own reading of step 11's contract: `admit` as a pure
//! function, and `execute_admitted` replayed in the runner's world. It
//! never calls the reference solution.

use lab_api::scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, ParseError, Parsed, Reason, Scenario,
};
use lab_api::wire::F64;

const DELAY_LIMIT: u64 = 2_147_483_647;
const FIELD_LIMIT: usize = 128;

fn valid_time(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

fn retryable(status: u16) -> bool {
    [429, 502, 503, 504].contains(&status)
}

fn replay_safe(method: &str) -> bool {
    ["GET", "HEAD", "PUT", "DELETE"]
        .iter()
        .any(|m| method.eq_ignore_ascii_case(m))
}

/// Clauses A1–A4 of `admit`.
pub fn admit(c: &AdmitCall) -> Decision {
    let (left, gap, reserve) = (c.left.0, c.min_gap.0, c.reserve.0);
    if c.attempts == 0
        || c.limit == 0
        || c.attempts > c.limit
        || !valid_time(left)
        || !valid_time(gap)
        || !valid_time(reserve)
    {
        return Decision::InvalidArgument;
    }
    let delay = match c.retry_after {
        Parsed::Ok { delay } => f64::from(delay),
        Parsed::None | Parsed::Err { .. } => 0.0,
    };
    let wait = delay.max(gap);
    let refuse = |reason| Decision::Refuse { reason };
    if !retryable(c.status) {
        refuse(Reason::StatusNotAllowed)
    } else if !replay_safe(&c.method) {
        refuse(Reason::MethodNotAllowed)
    } else if c.attempts >= c.limit {
        refuse(Reason::AttemptLimit)
    } else if matches!(c.retry_after, Parsed::Err { .. }) {
        refuse(Reason::InvalidRetryAfter)
    } else if wait + reserve < left {
        Decision::Retry { wait: F64(wait) }
    } else {
        refuse(Reason::InsufficientBudget)
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// An IMF-fixdate's instant, or `None` (the checker's scenarios hold only
/// well-formed, valid ones; anything else here is a syntax error).
fn imf_fixdate(v: &str) -> Option<i64> {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let b = v.as_bytes();
    if b.len() != 29 || &v[3..5] != ", " || &v[25..] != " GMT" {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = v.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let day = num(5..7)?;
    let month = MONTHS.iter().position(|m| *m == &v[8..11])? as i64 + 1;
    let year = num(12..16)?;
    let (h, mi, s) = (num(17..19)?, num(20..22)?, num(23..25)?);
    if b[7] != b' ' || b[11] != b' ' || b[16] != b' ' || b[19] != b':' || b[22] != b':' {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if DAYS[days.rem_euclid(7) as usize] != &v[..3] || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(days * 86_400 + h * 3_600 + mi * 60 + s)
}

/// Step 10's result for the Retry-After values the checker sends:
/// delay-seconds, one valid IMF-fixdate form, and clearly malformed ones.
pub fn parse_retry_after(fields: &[String], received: i64) -> Result<u32, ParseError> {
    let [value] = fields else {
        return Err(if fields.is_empty() {
            ParseError::Missing
        } else {
            ParseError::Duplicate
        });
    };
    if value.len() > FIELD_LIMIT {
        return Err(ParseError::Oversized);
    }
    let core = value.trim_matches([' ', '\t']);
    if core.is_empty() {
        return Err(ParseError::Empty);
    }
    if core.bytes().all(|c| c.is_ascii_digit()) {
        let v = core.bytes().fold(0u64, |acc, c| {
            (acc * 10 + u64::from(c - b'0')).min(DELAY_LIMIT + 1)
        });
        return u32::try_from(v)
            .ok()
            .filter(|&v| u64::from(v) <= DELAY_LIMIT)
            .ok_or(ParseError::OverLimit);
    }
    let instant = imf_fixdate(core).ok_or(ParseError::Syntax)?;
    let d = (instant - received).max(0);
    u32::try_from(d)
        .ok()
        .filter(|&v| u64::from(v) <= DELAY_LIMIT)
        .ok_or(ParseError::OverLimit)
}

/// The predicted run of one `execute_admitted` scenario.
pub struct Run {
    pub events: Vec<Event>,
    pub ending: Ending,
    /// Cancellation became visible at a check where the deadline or the
    /// reserve stops the call too: the contract names no precedence, so
    /// the checker never sends such a scenario.
    pub ambiguous: bool,
}

/// Clauses E1–E7, in the runner's world.
pub fn execute(s: &Scenario) -> Run {
    let mut run = Run {
        events: Vec::new(),
        ending: Ending::InvalidArgument,
        ambiguous: false,
    };
    let (deadline, gap, reserve) = (s.deadline.0, s.min_gap.0, s.reserve.0);
    if !deadline.is_finite() || s.limit == 0 || !valid_time(gap) || !valid_time(reserve) {
        return run;
    }
    let mut now = s.start.0;
    let at = |now: f64| F64(now - s.start.0);
    let (mut sends, mut sleeps, mut done) = (0u32, 0usize, 0u32);
    let cancelled = |done: u32| s.cancel_after.is_some_and(|n| done >= n);
    let stop = |reason| Ending::Stopped { reason, last: None };
    loop {
        // E2: before every send.
        let late = now >= deadline;
        let short = deadline - now <= reserve;
        if cancelled(done) {
            run.ambiguous |= late || short;
            run.ending = stop(Reason::Cancelled);
            return run;
        }
        if late {
            run.ending = stop(Reason::DeadlineReached);
            return run;
        }
        if short {
            run.ending = stop(Reason::InsufficientBudget);
            return run;
        }
        run.events.push(Event::Send {
            method: s.method.clone(),
            timeout: F64((deadline - now) - reserve),
            at: at(now),
        });
        let k = sends;
        let reply = s.replies.get(k as usize).unwrap_or(&s.fallback);
        sends += 1;
        now += reply.cost.0;
        done += 1;
        let close = |now: f64| Event::Close {
            reply: k,
            at: at(now),
        };
        // E3: after every response.
        let late = now >= deadline;
        if cancelled(done) {
            run.ambiguous |= late;
            run.events.push(close(now));
            run.ending = stop(Reason::Cancelled);
            return run;
        }
        if late {
            run.events.push(close(now));
            run.ending = stop(Reason::DeadlineReached);
            return run;
        }
        // E4, E5.
        let parsed = if reply.retry_after.is_empty() {
            Parsed::None
        } else {
            match parse_retry_after(&reply.retry_after, reply.received_at) {
                Ok(delay) => Parsed::Ok { delay },
                Err(error) => Parsed::Err { error },
            }
        };
        let decision = admit(&AdmitCall {
            method: s.method.clone(),
            status: reply.status,
            attempts: sends,
            limit: s.limit,
            left: F64(deadline - now),
            retry_after: parsed,
            min_gap: s.min_gap,
            reserve: s.reserve,
        });
        let response = Handed {
            reply: Some(k),
            status: reply.status,
            retry_after: reply.retry_after.clone(),
            received_at: reply.received_at,
            body: reply.body.clone(),
        };
        match decision {
            Decision::Refuse {
                reason: Reason::StatusNotAllowed,
            } => {
                run.ending = Ending::Answer { response };
                return run;
            }
            Decision::Refuse { reason } => {
                run.ending = Ending::Stopped {
                    reason,
                    last: Some(response),
                };
                return run;
            }
            Decision::InvalidArgument => unreachable!("E5's inputs are valid"),
            Decision::Retry { wait } => {
                // E6: close, then wait, then back to E2.
                run.events.push(close(now));
                if wait.0 != 0.0 {
                    run.events.push(Event::Sleep {
                        seconds: wait,
                        at: at(now),
                    });
                    now += wait.0 + s.overrun.get(sleeps).map_or(0.0, |x| x.0);
                    sleeps += 1;
                    done += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_example_date() {
        let f = |v: &str| vec![v.to_string()];
        let date = f("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(parse_retry_after(&date, 784_111_740), Ok(37));
        assert_eq!(parse_retry_after(&date, 784_111_800), Ok(0));
        let wrong_day = f("Mon, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(parse_retry_after(&wrong_day, 0), Err(ParseError::Syntax));
        assert_eq!(parse_retry_after(&f(" 007\t"), 0), Ok(7));
        assert_eq!(
            parse_retry_after(&f("99999999999999999999"), 0),
            Err(ParseError::OverLimit)
        );
        assert_eq!(parse_retry_after(&f("1, 2"), 0), Err(ParseError::Syntax));
        assert_eq!(parse_retry_after(&[], 0), Err(ParseError::Missing));
    }
}
