//! The generated `execute_admitted` scenarios: plans of replies, finished
//! into scenarios whose expectations the model gives.

use super::super::add_execute;
use super::super::model;
use super::super::view::SendsOnly;
use super::{final_status, malformed, safe_method, BAD, RETRYABLE, UNSAFE};
use crate::rng::Gen;
use crate::suites::Builder;
use lab_scripts::s11::{Event, Observed, Reply, Scenario, Script};
use lab_wire::F64;

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

fn delay_field(g: &mut Gen, d: u32) -> String {
    if g.chance(1, 4) {
        format!("{}{d}", "0".repeat(g.int(1, 3) as usize))
    } else {
        d.to_string()
    }
}

pub(in super::super) fn generated_execute(b: &mut Builder, g: &mut Gen) {
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
        // And after retries: each later send gets all that is left of the
        // one deadline too. Judged on the sends alone (see `SendsOnly`).
        let mut p = Plan::new(g, (64 * 10, 64 * 20), 4);
        p.reserve = g.sixty_fourths(1, 64);
        for _ in 0..g.int(1, 2) {
            let field = g.int(0, 2).to_string();
            p = p.reply(*g.pick(&RETRYABLE), &[&field], g.sixty_fourths(1, 32));
        }
        let s = p.finish(g);
        let run = model::execute(&s);
        b.add_script(
            "exact-timeouts",
            &Script::Execute(s),
            SendsOnly(Observed::Execute {
                events: run.events,
                ending: run.ending,
            }),
        );

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
