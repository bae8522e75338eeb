//! Step 08's generators: `Plan`, a scenario under construction (the table's
//! too), then scenarios per clause and random ones, traced by the oracle.

use super::super::{Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, Reply, Scenario, F64};

const RETRYABLE: [u16; 4] = [429, 502, 503, 504];

/// A scenario under construction; bodies are drawn when it is finished.
#[derive(Clone)]
pub(super) struct Plan {
    pub(super) method: String,
    pub(super) key: Option<String>,
    pub(super) timeout: f64,
    pub(super) maximum: u32,
    pub(super) start: f64,
    pub(super) gap: f64,
    pub(super) replies: Vec<(u16, Option<String>, f64)>,
    pub(super) fallback_cost: f64,
    pub(super) oversleep: Vec<f64>,
    pub(super) fractions: Vec<f64>,
}

impl Plan {
    pub(super) fn new(g: &mut Gen, timeout: f64, maximum: u32) -> Plan {
        Plan {
            method: "GET".into(),
            key: None,
            timeout,
            maximum,
            start: g.sixty_fourths(0, 64 * 1000),
            gap: 0.0,
            replies: Vec::new(),
            fallback_cost: g.sixty_fourths(1, 64),
            oversleep: Vec::new(),
            fractions: Vec::new(),
        }
    }

    fn reply(mut self, status: u16, retry_after: Option<&str>, cost: f64) -> Plan {
        self.replies
            .push((status, retry_after.map(str::to_string), cost));
        self
    }

    pub(super) fn finish(self, g: &mut Gen) -> Scenario {
        let mut reply = |(status, retry_after, cost): (u16, Option<String>, f64)| Reply {
            status,
            retry_after,
            body: g.id("body-"),
            cost: F64(cost),
        };
        let replies = self.replies.into_iter().map(&mut reply).collect();
        let fallback = reply((200, None, self.fallback_cost));
        Scenario {
            method: self.method,
            key: self.key,
            timeout: F64(self.timeout),
            maximum: self.maximum,
            start: F64(self.start),
            gap: F64(self.gap),
            replies,
            fallback,
            oversleep: self.oversleep.into_iter().map(F64).collect(),
            fractions: self.fractions.into_iter().map(F64).collect(),
        }
    }
}

pub(super) fn add_planned(b: &mut Builder, g: &mut Gen, key: &str, plan: Plan) {
    let scenario = plan.finish(g);
    let (events, ending) = oracle::execute(&scenario);
    b.add(
        key,
        Call::Execute {
            scenario: Box::new(scenario),
        },
        Expect::Trace {
            events,
            ending: Box::new(ending),
            timeouts: true,
        },
    );
}

fn retryable_status(g: &mut Gen) -> u16 {
    *g.pick(&RETRYABLE)
}

fn final_status(g: &mut Gen) -> u16 {
    loop {
        let s = if g.chance(3, 4) {
            g.int(100, 599) as u16
        } else {
            g.below(65536) as u16
        };
        if !oracle::retryable(s) {
            return s;
        }
    }
}

fn fraction(g: &mut Gen) -> f64 {
    g.sixty_fourths(0, 64)
}

/// One scenario per clause, with random numbers in the clause's shape. Each
/// meets its own clause's special case and no later clause's (see
/// `view::domain`): the general ones retry with backoff waits well inside
/// the budget, and their responses arrive well before the deadline.
pub(super) fn generated(b: &mut Builder, g: &mut Gen) {
    let st = retryable_status(g);

    let bad = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -g.sixty_fourths(1, 640),
    ];
    let (timeout, maximum) = (*g.pick(&bad), g.int(1, 5) as u32);
    let mut p = Plan::new(g, timeout, maximum).reply(st, None, 0.25);
    if g.chance(1, 3) {
        p.timeout = g.sixty_fourths(64, 640);
        p.maximum = 0;
    }
    add_planned(b, g, "invalid-options", p);

    // One send, and its final answer (a Retry-After on it is never read).
    let timeout = g.sixty_fourths(64 * 10, 64 * 20);
    let last = final_status(g);
    let p = Plan::new(g, timeout, 6).reply(
        last,
        if g.chance(1, 3) { Some("1") } else { None },
        g.sixty_fourths(1, 64),
    );
    add_planned(b, g, "final-response", p);

    let timeout = g.sixty_fourths(64 * 20, 64 * 40);
    let mut p = Plan::new(g, timeout, 5);
    for _ in 0..g.int(1, 4) {
        p = p.reply(retryable_status(g), None, g.sixty_fourths(1, 64));
        p.fractions.push(fraction(g));
    }
    if g.chance(1, 2) {
        p = p.reply(final_status(g), None, g.sixty_fourths(1, 64));
    }
    add_planned(b, g, "exact-timeouts", p);

    // The gap leaves more than two seconds: the retry fits, and so does the
    // fallback's reply.
    let timeout = g.sixty_fourths(64 * 3, 640);
    let mut p = Plan::new(g, timeout, 3).reply(st, None, 0.5);
    p.fractions.push(fraction(g));
    p.gap = g.sixty_fourths(1, (timeout * 64.0) as i64 - 144);
    add_planned(b, g, "gap-before-first-send", p);

    let p = match g.below(3) {
        // A sleep that overruns to or past the deadline: no time left for the send.
        0 => {
            let (cost, f) = (g.sixty_fourths(1, 64), 2.0 * g.sixty_fourths(1, 32));
            let wait = 0.5 * f;
            let timeout = cost + wait + g.sixty_fourths(1, 128);
            let mut p = Plan::new(g, timeout, 4).reply(st, None, cost);
            p.fractions.push(f);
            p.oversleep
                .push(timeout - cost - wait + g.sixty_fourths(0, 8));
            p
        }
        // A gap that uses up the whole timeout before the first send.
        1 => {
            let timeout = g.sixty_fourths(64, 640);
            let mut p = Plan::new(g, timeout, 3).reply(st, None, 0.5);
            p.gap = timeout + g.sixty_fourths(0, 64);
            p
        }
        // Sleeps that overrun but leave time: each send gets what is left.
        _ => {
            let timeout = g.sixty_fourths(64 * 20, 64 * 40);
            let mut p = Plan::new(g, timeout, 5);
            for _ in 0..g.int(2, 4) {
                p = p.reply(retryable_status(g), None, g.sixty_fourths(1, 64));
                p.fractions.push(g.sixty_fourths(1, 64));
                p.oversleep.push(g.sixty_fourths(1, 16));
            }
            p
        }
    };
    add_planned(b, g, "timeout-before-send", p);

    let maximum = g.int(1, 6) as u32;
    let mut p = Plan::new(g, 60.0, maximum);
    for _ in 0..maximum + 2 {
        p = p.reply(retryable_status(g), None, g.sixty_fourths(1, 32));
        p.fractions.push(g.sixty_fourths(0, 16));
    }
    add_planned(b, g, "attempt-limit", p);

    // Waits after the 32nd send and later, then a final 200 before the limit.
    let maximum = g.int(33, 40) as u32;
    let mut p = Plan::new(g, 300.0, maximum);
    for _ in 0..maximum - 1 {
        p = p.reply(retryable_status(g), None, 1.0 / 64.0);
        p.fractions.push(g.sixty_fourths(0, 2));
    }
    add_planned(b, g, "above-31-sends", p);

    let mut p = Plan::new(g, 20.0, 3).reply(st, None, 0.25);
    p.fractions.push(fraction(g));
    p.method = g
        .pick(&["PATCH", "OPTIONS", "TRACE", "CONNECT", " GET", "poſt"])
        .to_string();
    p.key = g.chance(1, 2).then(|| g.id("key-"));
    add_planned(b, g, "not-replay-safe", p);

    let mut p = Plan::new(g, 20.0, 3)
        .reply(st, None, 0.25)
        .reply(retryable_status(g), None, 0.25);
    p.fractions = vec![fraction(g), fraction(g)];
    p.method = g.pick(&["POST", "post", "Post"]).to_string();
    p.key = match g.below(4) {
        0 => None,
        1 => Some(g.pick(&["", " ", "\t \u{a0}"]).to_string()),
        _ => Some(g.id("key-")),
    };
    add_planned(b, g, "post-key", p);

    let maximum = g.int(2, 4) as u32;
    let mut p = Plan::new(g, 30.0, maximum);
    let bad_at = g.below(u64::from(maximum) - 1) as usize;
    for i in 0..maximum {
        p = p.reply(retryable_status(g), None, 0.125);
        let bad = [f64::NAN, -1.0 / 64.0, 1.0 + 1.0 / 64.0, f64::INFINITY];
        p.fractions.push(if i as usize == bad_at {
            *g.pick(&bad)
        } else {
            fraction(g)
        });
    }
    add_planned(b, g, "invalid-fraction", p);

    // Retry-After of 3 to 5 s, longer than any local wait here (0.5 at most).
    let seconds = g.int(3, 5);
    let text = format!(
        "{}{seconds}{}",
        g.pick(&["", " ", "\t"]),
        g.pick(&["", " ", "\t"])
    );
    let mut p = Plan::new(g, 30.0, 3).reply(st, Some(&text), 0.25);
    p.fractions.push(fraction(g));
    add_planned(b, g, "retry-after", p);

    // Retry-After at least the whole timeout: beyond the budget, and beyond
    // the time left before the send too.
    let cost = g.sixty_fourths(1, 63);
    let timeout = g.sixty_fourths(64, 64 * 5);
    let seconds = timeout.ceil() as i64 + g.int(0, 3);
    // Sometimes far beyond any integer type: still a wait, never 0.
    let text = if g.chance(1, 3) {
        format!(
            "{seconds}{}",
            (0..g.int(20, 40))
                .map(|_| char::from(b'0' + g.below(10) as u8))
                .collect::<String>()
        )
    } else {
        seconds.to_string()
    };
    let mut p = Plan::new(g, timeout, 3).reply(st, Some(&text), cost);
    p.fractions.push(fraction(g));
    add_planned(b, g, "retry-after-beyond-budget", p);

    // The wait fits in the time left before the send, but the response's
    // cost leaves less than the wait (and more than 0).
    let (cost, k) = (g.sixty_fourths(32, 128), g.int(4, 32));
    let wait = k as f64 / 64.0;
    let short = g.sixty_fourths(1, k - 1);
    let mut p = Plan::new(g, cost + wait - short, 3).reply(st, None, cost);
    p.fractions.push(2.0 * wait);
    add_planned(b, g, "response-time-counts", p);

    // The budget ends exactly at the wait, on the first response or the second.
    let cost = g.sixty_fourths(16, 128);
    let mut p = Plan::new(g, cost, 3);
    let wait = if g.chance(1, 2) {
        let f = 2.0 * g.sixty_fourths(1, 32);
        p.fractions.push(f);
        0.5 * f
    } else {
        let (first, f1) = (g.sixty_fourths(1, 64), 2.0 * g.sixty_fourths(1, 32));
        p = p.reply(retryable_status(g), None, first);
        p.timeout += first + 0.5 * f1;
        let f = g.sixty_fourths(1, 64);
        p.fractions = vec![f1, f];
        f
    };
    p.timeout += wait;
    p = p.reply(st, None, cost);
    add_planned(b, g, "wait-equals-budget", p);

    let timeout = g.sixty_fourths(64, 640);
    let status = if g.chance(2, 3) { st } else { 200 };
    let mut p = Plan::new(g, timeout, 3).reply(status, None, timeout + g.sixty_fourths(0, 64));
    p.fractions.push(fraction(g));
    add_planned(b, g, "late-response", p);
}

pub(super) fn random_plan(g: &mut Gen) -> Plan {
    let (timeout, maximum) = (g.sixty_fourths(1, 64 * 12), g.int(1, 6) as u32);
    let mut p = Plan::new(g, timeout, maximum);
    let methods = ["GET", "put", "POST", "post", "PATCH", "DELETE", "head"];
    p.method = g.pick(&methods).to_string();
    p.key = g.chance(1, 2).then(|| g.id("key-"));
    if g.chance(1, 8) {
        p.gap = g.sixty_fourths(0, 64);
    }
    for _ in 0..g.int(1, 6) {
        let status = if g.chance(3, 4) {
            retryable_status(g)
        } else {
            final_status(g)
        };
        let retry_after = match g.below(8) {
            0 => Some(g.int(0, 4).to_string()),
            1 => Some(g.pick(&["+1", "1.5", "soon", "", " 2 "]).to_string()),
            _ => None,
        };
        p = p.reply(status, retry_after.as_deref(), g.sixty_fourths(0, 128));
        p.fractions.push(fraction(g));
        p.oversleep.push(if g.chance(1, 3) {
            g.sixty_fourths(1, 32)
        } else {
            0.0
        });
    }
    p
}
