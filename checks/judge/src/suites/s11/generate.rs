//! Step 11's generated checks, clause by clause, then random ones: `admit`
//! calls, and `execute_admitted` scenarios whose expectations the model gives.

use super::model;
use super::{add_admit, add_execute};
use crate::rng::Gen;
use crate::suites::Builder;
use lab_wire::scripts::s10::Kind;
use lab_wire::scripts::s11::{AdmitCall, Event, Parsed, Reply, Scenario};
use lab_wire::F64;

const RETRYABLE: [u16; 2] = [429, 503];
/// Everything but the exact `GET`, replay-safe methods and near misses
/// included.
const UNSAFE: [&str; 20] = [
    "get",
    "Get",
    "HEAD",
    "PUT",
    "DELETE",
    "hEaD",
    "POST",
    "post",
    "PATCH",
    "OPTIONS",
    "TRACE",
    "CONNECT",
    " GET",
    "GET ",
    "G ET",
    "GETS",
    "ＧＥＴ",
    "",
    "DELETE\t",
    "poſt",
];
/// Methods plainly not `GET`: no near misses (case, spaces) and none of the
/// replay-safe ones, which `admit-method-and-status` owns.
const PLAIN_UNSAFE: [&str; 2] = ["POST", "PATCH"];
/// NaN and the infinities: invalid as any time, `left` included.
const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
/// Invalid as a minimum gap or a reserve: not finite, or not above zero.
const BAD: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    -0.015625,
    -1.0,
    -5e-324,
];
/// Retry-After fields a correct step-10 parser rejects, whatever it is.
const MALFORMED: [&[&str]; 12] = [
    &["soon"],
    &["5", "5"],
    &[""],
    &[" "],
    &["-1"],
    &["1.5"],
    &["+3"],
    &["3", ""],
    &["0x10"],
    &["5s"],
    &["2147483648"],
    &["1, 2"],
];

// ---------------------------------------------------------------- admit

fn gen_admit(b: &mut Builder, key: &str, call: AdmitCall) {
    let expect = model::admit(&call);
    add_admit(b, key, call, expect);
}

/// The one method retried.
fn safe_method() -> String {
    "GET".to_string()
}

fn final_status(g: &mut Gen) -> u16 {
    loop {
        let s = if g.chance(3, 4) {
            g.int(100, 599) as u16
        } else {
            g.below(65536) as u16
        };
        if !RETRYABLE.contains(&s) {
            return s;
        }
    }
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
    const KINDS: [Kind; 7] = [
        Kind::Missing,
        Kind::Duplicate,
        Kind::Empty,
        Kind::Oversized,
        Kind::Syntax,
        Kind::InvalidDate,
        Kind::OverLimit,
    ];
    *g.pick(&KINDS)
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

pub(super) fn generated_admit(b: &mut Builder, g: &mut Gen) {
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

// ------------------------------------------------------ execute_admitted

/// A scenario under construction; bodies are drawn when it is finished.
#[derive(Clone)]
struct Plan {
    method: String,
    start: f64,
    budget: f64,
    limit: u32,
    min_gap: f64,
    reserve: f64,
    replies: Vec<(u16, Vec<String>, f64)>,
    fallback_cost: f64,
    overrun: Vec<f64>,
    cancel_after: Option<u32>,
}

impl Plan {
    /// A plan whose budget is drawn from `lo..=hi` sixty-fourths.
    fn new(g: &mut Gen, (lo, hi): (i64, i64), limit: u32) -> Plan {
        let budget = g.sixty_fourths(lo, hi);
        Plan {
            method: safe_method(),
            start: g.sixty_fourths(0, 64 * 1000),
            budget,
            limit,
            min_gap: g.sixty_fourths(1, 32),
            reserve: g.sixty_fourths(1, 64),
            replies: Vec::new(),
            fallback_cost: g.sixty_fourths(1, 32),
            overrun: Vec::new(),
            cancel_after: None,
        }
    }

    fn reply(mut self, status: u16, fields: &[&str], cost: f64) -> Plan {
        let fields = fields.iter().map(|f| f.to_string()).collect();
        self.replies.push((status, fields, cost));
        self
    }

    /// A 429 or 503 with `Retry-After: 0`: the wait is the minimum gap.
    fn retry(self, g: &mut Gen, cost: f64) -> Plan {
        let status = *g.pick(&RETRYABLE);
        self.reply(status, &["0"], cost)
    }

    fn finish(&self, g: &mut Gen) -> Scenario {
        let received = g.int(1_700_000_000, 1_800_000_000);
        let mut reply = |k: usize, (status, retry_after, cost): (u16, Vec<String>, f64)| Reply {
            status,
            retry_after,
            received_at: received + k as i64,
            body: g.id("body-"),
            cost: F64(cost),
        };
        let replies = self
            .replies
            .iter()
            .cloned()
            .enumerate()
            .map(|(k, r)| reply(k, r))
            .collect();
        let fallback = reply(self.replies.len(), (200, Vec::new(), self.fallback_cost));
        Scenario {
            method: self.method.clone(),
            deadline: F64(self.start + self.budget),
            limit: self.limit,
            min_gap: F64(self.min_gap),
            reserve: F64(self.reserve),
            start: F64(self.start),
            replies,
            fallback,
            overrun: self.overrun.iter().copied().map(F64).collect(),
            cancel_after: self.cancel_after,
        }
    }
}

/// Adds the plan's scenario under `key`; a plan whose cancellation would
/// meet a deadline or reserve stop at one check loses its cancellation.
fn add_planned(b: &mut Builder, g: &mut Gen, key: &str, mut plan: Plan) {
    let mut s = plan.finish(g);
    let mut run = model::execute(&s);
    if run.ambiguous {
        plan.cancel_after = None;
        s.cancel_after = None;
        run = model::execute(&s);
    }
    add_execute(b, key, s, run.events, run.ending);
}

/// How many sends and non-zero sleeps the run makes up to and including
/// its `n`-th send (from 0), or `None` when it makes fewer sends.
fn done_after_send(s: &Scenario, n: usize) -> Option<u32> {
    let run = model::execute(s);
    let mut sends = 0;
    let mut done = 0;
    for e in &run.events {
        match e {
            Event::Send { .. } => {
                done += 1;
                if sends == n {
                    return Some(done);
                }
                sends += 1;
            }
            Event::Sleep { .. } => done += 1,
            Event::Close { .. } => {}
        }
    }
    None
}

fn malformed(g: &mut Gen) -> Vec<&'static str> {
    g.pick(&MALFORMED).to_vec()
}

fn delay_field(g: &mut Gen, d: u32) -> String {
    if g.chance(1, 4) {
        format!("{}{d}", "0".repeat(g.int(1, 3) as usize))
    } else {
        d.to_string()
    }
}

pub(super) fn generated_execute(b: &mut Builder, g: &mut Gen) {
    for _ in 0..8 {
        // invalid-policy: one bad number, the rest anything.
        let limit = g.int(1, 4) as u32;
        let mut p = Plan::new(g, (64, 64 * 20), limit).retry(g, 0.25);
        let mut s_deadline = None;
        match g.below(4) {
            0 => s_deadline = Some(*g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY])),
            1 => p.limit = 0,
            2 => p.min_gap = *g.pick(&BAD),
            _ => p.reserve = *g.pick(&BAD),
        }
        if g.chance(1, 4) {
            p.cancel_after = Some(0);
        }
        let mut s = p.finish(g);
        if let Some(d) = s_deadline {
            s.deadline = F64(d);
        }
        let run = model::execute(&s);
        add_execute(b, "invalid-policy", s, run.events, run.ending);

        // checks-before-send: before the first send, or after a sleep.
        let st = *g.pick(&RETRYABLE);
        let p = match g.below(5) {
            0 => {
                let mut p = Plan::new(g, (64, 64 * 20), 3);
                p.cancel_after = Some(0);
                p
            }
            1 => {
                // At or past the deadline (the deadline wins over the reserve).
                let mut p = Plan::new(g, (0, 0), 3);
                p.budget = -g.sixty_fourths(0, 64 * 4);
                p
            }
            2 => {
                // Less than the reserve (stops), exactly it or one tick more
                // (sends).
                let mut p = Plan::new(g, (64, 64), 3);
                p.reserve = g.sixty_fourths(1, 64 * 2);
                // The answer arrives at once: never with less than the
                // reserve left (late-success owns that).
                p.fallback_cost = 0.0;
                p.budget = p.reserve
                    - if g.chance(1, 3) {
                        -0.015625
                    } else {
                        g.sixty_fourths(0, (p.reserve * 64.0) as i64 - 1)
                    };
                p
            }
            3 => {
                // A sleep overruns to or near the deadline or the reserve.
                let cost = g.sixty_fourths(1, 32);
                let mut p = Plan::new(g, (64 * 10, 64 * 10), 3).reply(st, &["0"], cost);
                p.min_gap = g.sixty_fourths(1, 32);
                p.reserve = g.sixty_fourths(1, 64);
                p.budget = cost + p.min_gap + p.reserve + g.sixty_fourths(1, 64 * 2);
                let to_deadline = p.budget - cost - p.min_gap;
                p.overrun
                    .push((to_deadline - p.reserve + g.sixty_fourths(-2, 64)).max(0.0));
                p.fallback_cost = 0.0;
                p
            }
            _ => {
                // Cancelled during the first sleep.
                let mut p =
                    Plan::new(g, (64 * 4, 64 * 10), 3).reply(st, &["0"], g.sixty_fourths(1, 32));
                p.min_gap = g.sixty_fourths(1, 32);
                p.cancel_after = Some(2);
                p
            }
        };
        add_planned(b, g, "checks-before-send", p);

        // exact-timeouts: the first send, from any start, answered well
        // inside the budget (a retry would be close-before-wait's too, an
        // overrun clock-after-wait's, an answer inside the reserve
        // late-success's).
        let limit = g.int(1, 5) as u32;
        let mut p = Plan::new(g, (64 * 3, 64 * 20), limit);
        p.reserve = g.sixty_fourths(1, 64 * 2);
        let cost = g.sixty_fourths(0, 64);
        let p = p.reply(200, &[], cost);
        add_planned(b, g, "exact-timeouts", p);

        // late-success: the deciding response arrives at, after or just
        // before the deadline.
        let mut p = Plan::new(g, (64 * 2, 64 * 10), 3);
        p.min_gap = g.sixty_fourths(1, 16);
        p.reserve = g.sixty_fourths(1, 32);
        let mut t = 0.0;
        if g.chance(1, 3) {
            let cost = g.sixty_fourths(1, 16);
            p = p.retry(g, cost);
            t = cost + p.min_gap;
        }
        let to_deadline = p.budget - t;
        let status = if g.chance(1, 2) {
            200
        } else if g.chance(1, 2) {
            *g.pick(&RETRYABLE)
        } else {
            final_status(g)
        };
        let early = g.below(3);
        let cost = match early {
            0 => to_deadline,
            1 => to_deadline + g.sixty_fourths(1, 64 * 2),
            _ => to_deadline - g.sixty_fourths(1, (p.reserve * 64.0) as i64 + 1),
        };
        // A 429 or 503 (no Retry-After) only at or after the deadline:
        // before it, its missing field is malformed-retry-after's.
        let status = if early == 2 && RETRYABLE.contains(&status) {
            200
        } else {
            status
        };
        let p = p.reply(status, &[], cost.max(0.015625));
        add_planned(b, g, "late-success", p);

        // cancel-after-response: cancelled while the n-th send runs.
        let mut p = Plan::new(g, (64 * 10, 64 * 20), 4);
        for _ in 0..g.int(1, 3) {
            let cost = g.sixty_fourths(1, 32);
            p = p.retry(g, cost);
        }
        if g.chance(1, 3) {
            p = p.reply(final_status(g), &[], g.sixty_fourths(1, 32));
        }
        let s = p.finish(g);
        let n = g.below(p.replies.len() as u64) as usize;
        p.cancel_after = done_after_send(&s, n).or(Some(1));
        add_planned(b, g, "cancel-after-response", p);

        // close-before-wait: retries after the gap or the server's delay,
        // in a budget they all fit in (at most 4 × 2.5 s, the answer, the
        // reserve).
        let mut p = Plan::new(g, (64 * 15, 64 * 25), 5);
        for _ in 0..g.int(1, 4) {
            let field = g.int(0, 2).to_string();
            p = p.reply(*g.pick(&RETRYABLE), &[&field], g.sixty_fourths(1, 32));
        }
        add_planned(b, g, "close-before-wait", p);

        // clock-after-wait: overruns of every size, in a budget that still
        // fits every wait, send and the answer, and more than the reserve
        // (a stop after an overrun is checks-before-send's).
        let mut p = Plan::new(g, (64 * 4, 64 * 10), 4);
        p.min_gap = g.sixty_fourths(1, 32);
        let mut spent = 0.0;
        for _ in 0..g.int(1, 3) {
            let cost = g.sixty_fourths(1, 32);
            p = p.retry(g, cost);
            let overrun = g.sixty_fourths(0, 64 * 4);
            p.overrun.push(overrun);
            spent += cost + p.min_gap + overrun;
        }
        p.budget = spent + p.fallback_cost + p.reserve + g.sixty_fourths(1, 64 * 2);
        add_planned(b, g, "clock-after-wait", p);

        // retry-after-wait: delay-seconds on either side of the gap.
        let mut p = Plan::new(g, (64 * 12, 64 * 20), 4);
        p.min_gap = g.sixty_fourths(1, 64 * 2);
        for _ in 0..g.int(1, 2) {
            let d = g.int(0, 3) as u32;
            let field = delay_field(g, d);
            p = p.reply(*g.pick(&RETRYABLE), &[&field], g.sixty_fourths(1, 32));
        }
        add_planned(b, g, "retry-after-wait", p);

        // malformed-retry-after: a missing or malformed field at the first
        // or second response, sometimes at the attempt limit or after
        // another method: the parse comes before the decision.
        let mut p = Plan::new(g, (64 * 10, 64 * 20), 4);
        if g.chance(1, 2) {
            let cost = g.sixty_fourths(1, 32);
            p = p.retry(g, cost);
        }
        let status = if g.chance(4, 5) {
            *g.pick(&RETRYABLE)
        } else {
            final_status(g)
        };
        let fields = if g.chance(1, 4) {
            Vec::new()
        } else {
            malformed(g)
        };
        let mut p = p.reply(status, &fields, g.sixty_fourths(1, 32));
        if g.chance(1, 3) {
            p.limit = p.replies.len() as u32;
        }
        if g.chance(1, 5) {
            p.method = g.pick(&UNSAFE).to_string();
        }
        add_planned(b, g, "malformed-retry-after", p);

        // stop-reasons: each refusal, with the last response handed back.
        let p = match g.below(4) {
            0 => {
                let limit = g.int(1, 4) as u32;
                let mut p = Plan::new(g, (64 * 30, 64 * 30), limit);
                for _ in 0..=limit {
                    let cost = g.sixty_fourths(1, 32);
                    p = p.retry(g, cost);
                }
                p
            }
            1 => {
                let cost = g.sixty_fourths(1, 32);
                let mut p = Plan::new(g, (64 * 30, 64 * 30), 3).retry(g, cost);
                p.method = g.pick(&UNSAFE).to_string();
                p
            }
            2 => {
                let status = final_status(g);
                Plan::new(g, (64 * 30, 64 * 30), 3).reply(status, &[], g.sixty_fourths(1, 32))
            }
            _ => {
                // The wait plus the reserve does not fit, or only just.
                let cost = g.sixty_fourths(1, 32);
                let d = g.int(1, 4) as u32;
                let mut p = Plan::new(g, (64, 64), 3);
                p.min_gap = g.sixty_fourths(1, 32);
                p.budget = cost + f64::from(d) + p.reserve + g.sixty_fourths(-32, 1);
                let field = d.to_string();
                p.reply(*g.pick(&RETRYABLE), &[&field], cost)
            }
        };
        add_planned(b, g, "stop-reasons", p);
    }
    for _ in 0..100 {
        let p = random_plan(g);
        add_planned(b, g, "random", p);
    }
}

fn random_plan(g: &mut Gen) -> Plan {
    let limit = g.int(1, 5) as u32;
    let mut p = Plan::new(g, (0, 64 * 12), limit);
    if g.chance(1, 5) {
        p.method = g.pick(&UNSAFE).to_string();
    }
    if g.chance(1, 20) {
        p.min_gap = 0.0;
    }
    if g.chance(1, 20) {
        p.reserve = 0.0;
    }
    for _ in 0..g.int(0, 5) {
        let status = if g.chance(3, 4) {
            *g.pick(&RETRYABLE)
        } else {
            final_status(g)
        };
        let fields: Vec<String> = match g.below(6) {
            0..=3 => vec![g.int(0, 3).to_string()],
            4 => malformed(g).iter().map(|f| f.to_string()).collect(),
            _ => Vec::new(),
        };
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        p = p.reply(status, &fields, g.sixty_fourths(0, 128));
        p.overrun.push(if g.chance(1, 3) {
            g.sixty_fourths(1, 64)
        } else {
            0.0
        });
    }
    if g.chance(1, 5) {
        p.cancel_after = Some(g.int(0, 6) as u32);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::super::view::show_input;
    use super::super::STEP;
    use super::*;
    use crate::suites::Expect;
    use lab_wire::scripts::s11::{Ending, Observed, Reason, Script};

    #[test]
    fn generated_scenarios_are_unambiguous_and_end() {
        for seed in 0..20 {
            let suite = crate::suites::build(STEP, seed);
            let checks: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
            assert!(checks < 700, "{checks} checks");
            for clause in &suite.clauses {
                for check in &clause.checks {
                    let lab_wire::Call::Advanced { input, .. } = &check.call else {
                        panic!("an advanced call");
                    };
                    if let Ok(Script::Execute(s)) = serde_json::from_value::<Script>(input.clone())
                    {
                        let run = model::execute(&s);
                        assert!(!run.ambiguous, "{}", show_input(input));
                        assert!(run.events.len() < 40, "{}", show_input(input));
                        let on_grid = |x: f64| !x.is_finite() || (x * 64.0).fract() == 0.0;
                        assert!(on_grid(s.deadline.0) && on_grid(s.start.0));
                    }
                }
            }
        }
    }

    #[test]
    fn generated_clauses_hit_their_outcomes() {
        // Each execute clause's generated cases reach the outcome it is about
        // at least once for a few seeds.
        for seed in 0..5 {
            let suite = crate::suites::build(STEP, seed);
            let count = |key: &str, want: &dyn Fn(&Observed) -> bool| -> usize {
                let clause = suite
                    .clauses
                    .iter()
                    .find(|c| c.key == format!("11/{key}"))
                    .unwrap();
                clause
                    .checks
                    .iter()
                    .filter(|c| match &c.expect {
                        Expect::Script(e) => {
                            e.as_any().downcast_ref::<Observed>().is_some_and(want)
                        }
                        _ => false,
                    })
                    .count()
            };
            let stopped = |r: Reason| move |o: &Observed| matches!(o, Observed::Execute { ending: Ending::Stopped { reason, .. }, .. } if *reason == r);
            assert!(count("late-success", &stopped(Reason::DeadlineReached)) > 0);
            assert!(count("cancel-after-response", &stopped(Reason::Cancelled)) > 0);
            assert!(count("malformed-retry-after", &stopped(Reason::InvalidRetryAfter)) > 0);
            let sleeps = |o: &Observed| matches!(o, Observed::Execute { events, .. } if events.iter().any(|e| matches!(e, Event::Sleep { .. })));
            assert!(count("close-before-wait", &sleeps) > 0);
            assert!(count("clock-after-wait", &sleeps) > 0);
        }
    }
}
