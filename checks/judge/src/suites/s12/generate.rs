//! Step 12's random generators: scripts aimed at each clause, then random
//! ones; `sleep_at_least` first, then `guarded_read`.

use super::model::LIMIT;
use crate::rng::Gen;
use lab_scripts::s11::{Reply, Scenario};
use lab_scripts::s12::{Guarded, SleepScript, Wake};
use lab_wire::F64;

pub(super) fn script(
    wait: f64,
    deadline: f64,
    start: f64,
    wakes: Vec<Wake>,
    cancel: Option<u32>,
) -> SleepScript {
    SleepScript {
        wait: F64(wait),
        deadline: F64(deadline),
        start: F64(start),
        wakes,
        cancel_after_sleeps: cancel,
    }
}

/// NaN, the infinities and negative waits, in turn.
const BAD_WAITS: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.015625, -1.0];
const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

/// A start, a wait of at least `min_wait` 64ths and a deadline strictly
/// after the target: `(start, wait, deadline, margin)`.
fn frame(g: &mut Gen, min_wait: i64) -> (f64, f64, f64, f64) {
    let start = g.sixty_fourths(0, 64 * 1000);
    let wait = g.sixty_fourths(min_wait, 64 * 16);
    let margin = g.sixty_fourths(1, 64 * 16);
    (start, wait, start + wait + margin, margin)
}

/// `k` early wake-ups for a target `wait` ahead: each moves the clock by at
/// most half of what is left, so every one is short of the request.
fn earlies(g: &mut Gen, wait: f64, k: usize) -> Vec<Wake> {
    let mut left = (wait * 64.0) as i64;
    (0..k)
        .map(|_| {
            let m = g.int(1, (left / 2).max(1));
            left -= m;
            Wake::Early {
                moved: F64(m as f64 / 64.0),
            }
        })
        .collect()
}

/// Between `lo` and `hi` early wake-ups, as [`earlies`].
fn some_earlies(g: &mut Gen, wait: f64, lo: i64, hi: i64) -> Vec<Wake> {
    let k = g.int(lo, hi) as usize;
    earlies(g, wait, k)
}

/// A wake that reaches the target before the deadline (`margin` after it).
fn reaching(g: &mut Gen, margin: f64) -> Wake {
    if g.chance(1, 2) {
        Wake::Exact
    } else {
        Wake::Late {
            over: F64(g.sixty_fourths(0, (margin * 64.0) as i64 - 1)),
        }
    }
}

/// Any wake at all, for random scripts.
fn any_wake(g: &mut Gen) -> Wake {
    match g.below(6) {
        0 => Wake::Exact,
        1 => Wake::Early {
            moved: F64(g.sixty_fourths(1, 64 * 4)),
        },
        2 => Wake::Frozen,
        3 => Wake::Late {
            over: F64(g.sixty_fourths(0, 64 * 8)),
        },
        4 => Wake::Back {
            by: F64(g.sixty_fourths(1, 64 * 4)),
        },
        _ => Wake::Reads {
            t: F64(*g.pick(&NON_FINITE)),
        },
    }
}

fn any_wakes(g: &mut Gen) -> Vec<Wake> {
    (0..g.int(0, 5)).map(|_| any_wake(g)).collect()
}

/// The generated scripts, clause by clause (random ones included; the
/// caller drops any the model calls ambiguous).
pub fn generated(g: &mut Gen) -> Vec<(&'static str, SleepScript)> {
    let mut out = Vec::new();
    for _ in 0..16 {
        // invalid-arguments: a bad wait or a bad deadline, a finite start.
        let (start, wait, deadline, _) = frame(g, 1);
        let cancel = if g.chance(1, 2) {
            None
        } else {
            Some(g.int(1, 4) as u32)
        };
        let s = if g.chance(1, 2) {
            let bad = if g.chance(1, 2) {
                *g.pick(&BAD_WAITS)
            } else {
                g.sixty_fourths(-64 * 64, -1)
            };
            script(bad, deadline, start, any_wakes(g), cancel)
        } else {
            script(wait, *g.pick(&NON_FINITE), start, any_wakes(g), cancel)
        };
        out.push(("invalid-arguments", s));

        // unrepresentable-wait: a zero wait, or one too small to move the
        // start (`start * 2^-54` is below half the spacing of floats at a
        // start of at least 1), before, at or past the deadline.
        let start = g.sixty_fourths(64, 64 * 1000);
        let tiny = match g.below(4) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::from_bits(1),
            _ => start * 2f64.powi(-54),
        };
        let deadline = start
            + if g.chance(3, 4) {
                g.sixty_fourths(1, 64 * 16)
            } else {
                g.sixty_fourths(-64 * 4, 0)
            };
        out.push((
            "unrepresentable-wait",
            script(tiny, deadline, start, any_wakes(g), None),
        ));

        // target-beyond-deadline: not slept at all; or just in time.
        let (start, wait, _, _) = frame(g, 1);
        let s = if g.chance(1, 4) {
            script(wait, start + wait + 0.015625, start, vec![], None)
        } else {
            let deadline = start + wait - g.sixty_fourths(0, 64 * 32);
            script(wait, deadline, start, any_wakes(g), None)
        };
        out.push(("target-beyond-deadline", s));

        // fixed-target: early wake-ups up to the limit, then the target.
        let (start, wait, deadline, margin) = frame(g, 64);
        let mut wakes = earlies(g, wait, LIMIT - 1);
        wakes.push(reaching(g, margin));
        out.push(("fixed-target", script(wait, deadline, start, wakes, None)));

        // early-wake-up: one early wake-up, then the target.
        let (start, wait, deadline, margin) = frame(g, 2);
        let mut wakes = earlies(g, wait, 1);
        wakes.push(reaching(g, margin));
        out.push(("early-wake-up", script(wait, deadline, start, wakes, None)));

        // too-many-wake-ups: LIMIT early ones, or one fewer and the target.
        let (start, wait, deadline, margin) = frame(g, 64);
        let wakes = if g.chance(1, 2) {
            earlies(g, wait, LIMIT)
        } else {
            let mut w = earlies(g, wait, LIMIT - 1);
            w.push(reaching(g, margin));
            w
        };
        out.push((
            "too-many-wake-ups",
            script(wait, deadline, start, wakes, None),
        ));

        // no-progress: a frozen clock at a sleep before the last one (after
        // the last, it meets the limit, an order left open).
        let (start, wait, deadline, _) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, LIMIT as i64 - 2);
        wakes.push(Wake::Frozen);
        out.push(("no-progress", script(wait, deadline, start, wakes, None)));

        // clock-backwards: the clock goes back at a sleep before the last.
        let (start, wait, deadline, _) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, LIMIT as i64 - 2);
        wakes.push(Wake::Back {
            by: F64(g.sixty_fourths(1, 64 * 8)),
        });
        out.push((
            "clock-backwards",
            script(wait, deadline, start, wakes, None),
        ));

        // non-finite: at the first reading, or after a sleep before the last.
        let (start, wait, deadline, _) = frame(g, 64);
        let s = if g.chance(1, 3) {
            script(wait, deadline, *g.pick(&NON_FINITE), any_wakes(g), None)
        } else {
            let mut wakes = some_earlies(g, wait, 0, LIMIT as i64 - 2);
            wakes.push(Wake::Reads {
                t: F64(*g.pick(&NON_FINITE)),
            });
            script(wait, deadline, start, wakes, None)
        };
        out.push(("non-finite", s));

        // deadline: a sleep (1st to last) that ends at or past the deadline.
        let (start, wait, deadline, margin) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, LIMIT as i64 - 1);
        let over = if g.chance(1, 4) {
            margin
        } else {
            margin + g.sixty_fourths(0, 64 * 8)
        };
        wakes.push(Wake::Late { over: F64(over) });
        out.push(("deadline", script(wait, deadline, start, wakes, None)));

        // cancel: visible from the start, or once sleep 1..LIMIT has
        // returned (on a reading that is sound, before the deadline, and
        // reaches the target when it is the last).
        let (start, wait, deadline, margin) = frame(g, 64);
        let k = g.int(0, LIMIT as i64) as usize;
        let wakes = if k == LIMIT || (k > 0 && g.chance(1, 2)) {
            let mut w = earlies(g, wait, k - 1);
            w.push(reaching(g, margin));
            w
        } else {
            earlies(g, wait, k)
        };
        let zero = k == 0 && g.chance(1, 3);
        let s = script(
            if zero { 0.0 } else { wait },
            deadline,
            start,
            wakes,
            Some(k as u32),
        );
        out.push(("cancel", s));
    }
    for _ in 0..150 {
        let start = if g.chance(1, 20) {
            *g.pick(&NON_FINITE)
        } else {
            g.sixty_fourths(0, 64 * 1000)
        };
        let wait = if g.chance(1, 10) {
            *g.pick(&BAD_WAITS)
        } else {
            g.sixty_fourths(0, 64 * 16)
        };
        let base = if start.is_finite() { start } else { 0.0 };
        let deadline = if g.chance(1, 20) {
            *g.pick(&NON_FINITE)
        } else {
            base + g.sixty_fourths(-64 * 2, 64 * 24)
        };
        let cancel = if g.chance(3, 5) {
            None
        } else {
            Some(g.int(0, 5) as u32)
        };
        out.push((
            "random",
            script(wait, deadline, start, any_wakes(g), cancel),
        ));
    }
    out
}

/// A reply of `status` with these Retry-After fields, taking `cost` seconds.
fn reply(g: &mut Gen, status: u16, fields: &[&str], cost: f64) -> Reply {
    Reply {
        status,
        retry_after: fields.iter().map(|f| f.to_string()).collect(),
        received_at: 1_700_000_000,
        body: g.id("body-"),
        cost: F64(cost),
    }
}

/// A 429 or 503 asking for 0 to 3 seconds, taking up to half a second.
fn retryable(g: &mut Gen) -> Reply {
    let status = *g.pick(&[429, 503]);
    let delay = g.int(0, 3).to_string();
    let cost = g.sixty_fourths(0, 32);
    reply(g, status, &[&delay], cost)
}

/// A healthy guarded read: a finite start, a deadline 6 to 20 s ahead, one
/// or two retryable replies, then a 200 for ever; the sleeper is exact.
fn healthy(g: &mut Gen) -> Guarded {
    let start = g.sixty_fourths(0, 64 * 100);
    let replies = (0..g.int(1, 2)).map(|_| retryable(g)).collect();
    let fallback_cost = g.sixty_fourths(1, 32);
    let fallback = reply(g, 200, &[], fallback_cost);
    Guarded {
        read: Scenario {
            method: "GET".into(),
            deadline: F64(start + g.sixty_fourths(64 * 6, 64 * 20)),
            limit: g.int(2, 4) as u32,
            min_gap: F64(*g.pick(&[0.25, 0.5, 0.015625])),
            reserve: F64(g.sixty_fourths(16, 64 * 2)),
            start: F64(start),
            replies,
            fallback,
            overrun: Vec::new(),
            cancel_after: None,
        },
        wakes: Vec::new(),
        closing: Vec::new(),
        sleeper_panics: None,
    }
}

/// A wake that keeps the clock finite and never moves it back.
fn forward_wake(g: &mut Gen) -> Wake {
    match g.below(4) {
        0 => Wake::Exact,
        1 => Wake::Early {
            moved: F64(g.sixty_fourths(1, 64 * 2)),
        },
        2 => Wake::Frozen,
        _ => Wake::Late {
            over: F64(g.sixty_fourths(0, 64 * 4)),
        },
    }
}

fn forward_wakes(g: &mut Gen) -> Vec<Wake> {
    (0..g.int(0, 6)).map(|_| forward_wake(g)).collect()
}

/// A send's cost that breaks the clock: back, NaN or an infinity.
fn bad_cost(g: &mut Gen) -> f64 {
    match g.below(3) {
        0 => -g.sixty_fourths(1, 64 * 2),
        _ => *g.pick(&NON_FINITE),
    }
}

/// The generated `guarded_read` scripts, clause by clause (the caller drops
/// any the model calls ambiguous).
pub fn generated_guarded(g: &mut Gen) -> Vec<(&'static str, Guarded)> {
    let mut out = Vec::new();
    for _ in 0..12 {
        // guarded-wait: early, frozen and late wake-ups; closes that take time.
        let mut s = healthy(g);
        s.wakes = forward_wakes(g);
        if g.chance(1, 3) {
            s.closing = (0..2).map(|_| F64(g.sixty_fourths(0, 64))).collect();
        }
        out.push(("guarded-wait", s));

        // guarded-clock: one reading goes bad, in a send, a close or a sleep,
        // or at the very start.
        let mut s = healthy(g);
        s.wakes = forward_wakes(g);
        match g.below(5) {
            0 => {
                let k = g.below(s.read.replies.len() as u64 + 1) as usize;
                let cost = bad_cost(g);
                match s.read.replies.get_mut(k) {
                    Some(r) => r.cost = F64(cost),
                    None => s.read.fallback.cost = F64(cost),
                }
            }
            1 => {
                let k = g.below(2) as usize;
                s.closing = vec![F64(0.0); k + 1];
                s.closing[k] = F64(-g.sixty_fourths(1, 64 * 2));
            }
            2 => {
                let at = g.below(s.wakes.len() as u64 + 1) as usize;
                let by = F64(g.sixty_fourths(1, 64 * 4));
                s.wakes.insert(at, Wake::Back { by });
            }
            3 => {
                let at = g.below(s.wakes.len() as u64 + 1) as usize;
                let t = F64(*g.pick(&NON_FINITE));
                s.wakes.insert(at, Wake::Reads { t });
            }
            _ => s.read.start = F64(*g.pick(&NON_FINITE)),
        }
        out.push(("guarded-clock", s));

        // guarded-cancel: cancellation shows after some sends and sleeps, or
        // a sleep panics.
        let mut s = healthy(g);
        s.wakes = forward_wakes(g);
        if g.chance(2, 3) {
            s.read.cancel_after = Some(g.int(1, 5) as u32);
        }
        if s.read.cancel_after.is_none() || g.chance(1, 3) {
            s.sleeper_panics = Some(g.int(1, 3) as u32);
        }
        out.push(("guarded-cancel", s));

        // guarded-as-executor: invalid arguments, other statuses, bad
        // Retry-After fields, budgets too short: the executor's own answers.
        let mut s = healthy(g);
        match g.below(4) {
            0 => match g.below(4) {
                0 => s.read.deadline = F64(*g.pick(&NON_FINITE)),
                1 => s.read.limit = 0,
                2 => s.read.min_gap = F64(*g.pick(&[0.0, -0.25, f64::NAN])),
                _ => s.read.reserve = F64(*g.pick(&[0.0, -1.0, f64::INFINITY])),
            },
            1 => {
                let status = *g.pick(&[200, 404, 500, 204]);
                let cost = g.sixty_fourths(0, 32);
                s.read.replies.push(reply(g, status, &["1"], cost));
            }
            2 => {
                const BAD: [&[&str]; 4] = [&[], &["soon"], &["-1"], &["1", "2"]];
                let fields = *g.pick(&BAD);
                let cost = g.sixty_fourths(0, 32);
                let bad = reply(g, 503, fields, cost);
                s.read.replies.insert(0, bad);
            }
            _ => s.read.deadline = F64(s.read.start.0 + g.sixty_fourths(64, 64 * 4)),
        }
        out.push(("guarded-as-executor", s));

        // guarded-random: anything at all.
        let mut s = healthy(g);
        s.wakes = (0..g.int(0, 6)).map(|_| any_wake(g)).collect();
        if g.chance(1, 4) {
            let cost = bad_cost(g);
            s.read.replies[0].cost = F64(cost);
        }
        if g.chance(1, 3) {
            s.closing = (0..3).map(|_| F64(g.sixty_fourths(-64, 64))).collect();
        }
        if g.chance(1, 3) {
            s.read.cancel_after = Some(g.int(0, 6) as u32);
        }
        if g.chance(1, 5) {
            s.sleeper_panics = Some(g.int(1, 4) as u32);
        }
        out.push(("guarded-random", s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::model::model;
    use super::*;
    use lab_api::advanced::SleepFault;

    #[test]
    fn targeted_scripts_are_never_ambiguous_and_hit_their_clause() {
        for seed in 0..200 {
            let mut g = Gen::new(seed);
            for (key, s) in generated(&mut g) {
                let m = model(&s);
                if key == "random" {
                    continue;
                }
                assert!(!m.ambiguous, "{key}: {s:?}");
                let r = m.observed.result;
                let fits = match key {
                    "invalid-arguments" => r == Err(SleepFault::InvalidArgument),
                    "unrepresentable-wait" => {
                        m.observed.sleeps.is_empty() && r == Err(SleepFault::UnrepresentableWait)
                    }
                    "target-beyond-deadline" => {
                        (r == Err(SleepFault::DeadlineReached) && m.observed.sleeps.is_empty())
                            || (r == Ok(()) && m.observed.sleeps.len() == 1)
                    }
                    "fixed-target" => r == Ok(()) && m.observed.sleeps.len() >= 3,
                    "early-wake-up" => r == Ok(()) && m.observed.sleeps.len() == 2,
                    "too-many-wake-ups" => {
                        m.observed.sleeps.len() == LIMIT
                            && matches!(r, Ok(()) | Err(SleepFault::TooManyWakeUps))
                    }
                    "no-progress" => r == Err(SleepFault::NoProgress),
                    "clock-backwards" => r == Err(SleepFault::ClockWentBackwards),
                    "non-finite" => r == Err(SleepFault::NonFiniteReading),
                    "deadline" => {
                        r == Err(SleepFault::DeadlineReached) && !m.observed.sleeps.is_empty()
                    }
                    "cancel" => r == Err(SleepFault::Cancelled),
                    _ => false,
                };
                assert!(fits, "{key} gave {r:?}: {s:?}");
            }
        }
    }

    #[test]
    fn every_clause_gets_generated_cases_and_random_ones_mostly_survive() {
        let mut g = Gen::new(7);
        let all = generated(&mut g);
        let kept = all
            .iter()
            .filter(|(k, s)| *k == "random" && !model(s).ambiguous)
            .count();
        assert!(kept >= 100, "only {kept} random scripts kept");
    }

    #[test]
    fn guarded_scripts_mostly_survive_and_hit_their_clause() {
        use super::super::model::guarded;
        use lab_scripts::s11::{Ending as End, Reason};
        let mut kept = std::collections::BTreeMap::new();
        let mut hit = std::collections::BTreeMap::new();
        for seed in 0..50 {
            let mut g = Gen::new(seed);
            for (key, s) in generated_guarded(&mut g) {
                let m = guarded(&s);
                if m.ambiguous {
                    continue;
                }
                *kept.entry(key).or_insert(0) += 1;
                let e = &m.seen.ending;
                let aimed = match key {
                    "guarded-clock" => matches!(
                        e,
                        End::Stopped {
                            reason: Reason::Guard(_),
                            ..
                        }
                    ),
                    "guarded-cancel" => matches!(
                        e,
                        End::Panicked
                            | End::Stopped {
                                reason: Reason::Cancelled,
                                ..
                            }
                    ),
                    _ => true,
                };
                if aimed {
                    *hit.entry(key).or_insert(0) += 1;
                }
            }
        }
        for key in [
            "guarded-wait",
            "guarded-clock",
            "guarded-cancel",
            "guarded-as-executor",
            "guarded-random",
        ] {
            let n = kept.get(key).copied().unwrap_or(0);
            let h = hit.get(key).copied().unwrap_or(0);
            assert!(n >= 300, "only {n} {key} scripts kept of 600");
            assert!(2 * h >= n, "only {h} of {n} {key} scripts end as aimed");
        }
    }
}
