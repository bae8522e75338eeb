//! The generated `admit` calls, clause by clause, then random ones.

use super::super::add_admit;
use super::super::model;
use super::{final_status, safe_method, BAD, RETRYABLE, UNSAFE};
use crate::rng::Gen;
use crate::suites::Builder;
use lab_scripts::s10::Kind;
use lab_scripts::s11::{AdmitCall, Parsed};
use lab_wire::F64;

/// Methods plainly not `GET`: no near misses (case, spaces) and none of the
/// replay-safe ones, which `admit-method-and-status` owns.
const PLAIN_UNSAFE: [&str; 2] = ["POST", "PATCH"];

/// NaN and the infinities: invalid as any time, `left` included.
const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

fn gen_admit(b: &mut Builder, key: &str, call: AdmitCall) {
    let expect = model::admit(&call);
    add_admit(b, key, call, expect);
}

/// A final status that is no near miss of 429 or 503 (502 and 504 belong to
/// `admit-method-and-status`).
fn plain_final_status(g: &mut Gen) -> u16 {
    loop {
        let s = final_status(g);
        if s != 502 && s != 504 {
            return s;
        }
    }
}

fn parse_error(g: &mut Gen) -> Kind {
    // Declaration order, as the draws have always been taken.
    *g.pick(<Kind as lab_scripts::Named>::ALL)
}

/// An `admit` call that retries: every refusal is out of the way (the
/// wait plus the reserve fits, sometimes exactly).
fn retrying_call(g: &mut Gen) -> AdmitCall {
    let limit = g.int(2, 8) as u32;
    let delay = g.int(0, 6) as u32;
    let min_gap = g.sixty_fourths(1, 64 * 4);
    let reserve = g.sixty_fourths(1, 64 * 3);
    let wait = f64::from(delay).max(min_gap);
    AdmitCall {
        method: safe_method(),
        status: *g.pick(&RETRYABLE),
        attempts: g.int(0, i64::from(limit) - 1) as u32,
        limit,
        left: F64(wait + reserve + g.sixty_fourths(0, 64 * 8)),
        retry_after: Parsed::Ok { delay },
        min_gap: F64(min_gap),
        reserve: F64(reserve),
    }
}

/// No usable delay: no field, or step 10's error.
fn unusable(g: &mut Gen) -> Parsed {
    if g.chance(1, 4) {
        Parsed::None
    } else {
        Parsed::Err {
            error: parse_error(g),
        }
    }
}

fn random_parsed(g: &mut Gen) -> Parsed {
    match g.below(4) {
        0 | 1 => Parsed::None,
        2 => Parsed::Ok {
            delay: if g.chance(1, 10) {
                g.below(u64::from(u32::MAX) + 1) as u32
            } else {
                g.int(0, 8) as u32
            },
        },
        _ => Parsed::Err {
            error: parse_error(g),
        },
    }
}

pub(in super::super) fn generated_admit(b: &mut Builder, g: &mut Gen) {
    for _ in 0..16 {
        // One invalid input, the rest anything.
        let mut c = random_admit(g, false);
        match g.below(5) {
            0 => {
                c.limit = 0;
                c.attempts = g.int(0, 3) as u32;
            }
            1 => {
                c.limit = g.int(1, 6) as u32;
                c.attempts = c.limit + g.int(1, 3) as u32;
            }
            2 => c.left = F64(*g.pick(&NON_FINITE)),
            3 => c.min_gap = F64(*g.pick(&BAD)),
            _ => c.reserve = F64(*g.pick(&BAD)),
        }
        gen_admit(b, "admit-invalid-input", c);

        // The wait is max(delay, gap); the budget is generous (never
        // exactly enough: equality is admit-reserve's), and at least one
        // send is counted (0 is admit-invalid-input's boundary).
        let mut c = retrying_call(g);
        c.attempts = c.attempts.max(1);
        if g.chance(1, 2) {
            let d = g.int(0, 6) as u32;
            c.retry_after = Parsed::Ok { delay: d };
            // Often on either side of the gap, sometimes equal to it (a
            // gap is never 0: that is admit-invalid-input's).
            c.min_gap = F64(match g.below(3) {
                0 => f64::from(d).max(0.015625),
                1 => f64::from(d) + g.sixty_fourths(1, 64 * 2),
                _ => (f64::from(d) - g.sixty_fourths(1, 64 * 2)).max(0.015625),
            });
            let wait = f64::from(d).max(c.min_gap.0);
            c.left = F64(wait + c.reserve.0 + g.sixty_fourths(1, 64 * 4));
        } else if let Parsed::Ok { delay } = c.retry_after {
            let wait = f64::from(delay).max(c.min_gap.0);
            c.left = F64(wait + c.reserve.0 + g.sixty_fourths(1, 64 * 8));
        }
        gen_admit(b, "admit-wait", c);

        // wait + reserve around left: equal, one tick short, further
        // short (even below zero), or above.
        let mut c = retrying_call(g);
        let d = match c.retry_after {
            Parsed::Ok { delay } => f64::from(delay),
            _ => 0.0,
        };
        let wait = d.max(c.min_gap.0);
        let edge = wait + c.reserve.0;
        c.left = F64(match g.below(4) {
            0 => edge,
            1 => edge - 0.015625,
            2 => edge - g.sixty_fourths(1, 64 * 8),
            _ => edge + g.sixty_fourths(1, 64 * 2),
        });
        gen_admit(b, "admit-reserve", c);

        // At least two refusals at once, each in its plain form: a method
        // plainly not GET, a status no near miss of 429 or 503, and a
        // malformed (not missing) Retry-After.
        let mut c = retrying_call(g);
        let mut set = 0u8;
        while set.count_ones() < 2 {
            set = g.below(32) as u8;
        }
        if set & 1 != 0 {
            c.status = plain_final_status(g);
        }
        if set & 2 != 0 {
            c.method = g.pick(&PLAIN_UNSAFE).to_string();
        }
        if set & 4 != 0 {
            c.attempts = c.limit;
        }
        if set & 8 != 0 {
            c.retry_after = Parsed::Err {
                error: parse_error(g),
            };
        }
        if set & 16 != 0 {
            let d = match c.retry_after {
                Parsed::Ok { delay } => f64::from(delay),
                _ => 0.0,
            };
            let edge = d.max(c.min_gap.0) + c.reserve.0;
            c.left = F64(edge - g.sixty_fourths(1, 64));
        }
        gen_admit(b, "admit-order", c);

        // Only the method or the status stands in the way, or nothing does.
        let mut c = retrying_call(g);
        match g.below(4) {
            0 => c.status = final_status(g),
            1 => c.method = g.pick(&UNSAFE).to_string(),
            2 => {
                c.status = final_status(g);
                c.method = g.pick(&UNSAFE).to_string();
            }
            _ => {}
        }
        gen_admit(b, "admit-method-and-status", c);

        let mut c = retrying_call(g);
        if g.chance(1, 5) {
            c.limit = u32::MAX - g.below(3) as u32;
        }
        c.attempts = if g.chance(2, 3) { c.limit } else { c.limit - 1 };
        gen_admit(b, "admit-attempt-limit", c);

        let mut c = retrying_call(g);
        c.retry_after = unusable(g);
        if g.chance(1, 3) {
            c.left = F64(g.sixty_fourths(-64, 64));
        }
        gen_admit(b, "admit-invalid-retry-after", c);
    }
    for _ in 0..100 {
        let c = random_admit(g, true);
        gen_admit(b, "admit-random", c);
    }
}

fn random_admit(g: &mut Gen, may_be_invalid: bool) -> AdmitCall {
    let limit = if may_be_invalid && g.chance(1, 20) {
        0
    } else {
        g.int(1, 6) as u32
    };
    let attempts = if may_be_invalid && g.chance(1, 20) {
        limit + 1
    } else {
        g.int(0, i64::from(limit)) as u32
    };
    let time = |g: &mut Gen, lo: i64, hi: i64, bad: &[f64]| {
        if may_be_invalid && g.chance(1, 25) {
            *g.pick(bad)
        } else {
            g.sixty_fourths(lo, hi)
        }
    };
    AdmitCall {
        method: if g.chance(3, 4) {
            safe_method()
        } else {
            g.pick(&UNSAFE).to_string()
        },
        status: if g.chance(3, 4) {
            *g.pick(&RETRYABLE)
        } else {
            final_status(g)
        },
        attempts,
        limit,
        left: F64(time(g, -64, 64 * 10, &NON_FINITE)),
        retry_after: random_parsed(g),
        min_gap: F64(time(g, 1, 64 * 3, &BAD)),
        reserve: F64(time(g, 1, 64 * 3, &BAD)),
    }
}
