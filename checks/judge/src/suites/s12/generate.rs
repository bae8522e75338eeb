//! Step 12's random generators: scripts aimed at each clause, then random ones.

use super::model::LIMIT;
use crate::rng::Gen;
use lab_wire::scripts::s12::{Script, Wake};
use lab_wire::F64;

pub(super) fn script(
    wait: f64,
    deadline: f64,
    start: f64,
    wakes: Vec<Wake>,
    cancel: Option<u32>,
) -> Script {
    Script {
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
pub fn generated(g: &mut Gen) -> Vec<(&'static str, Script)> {
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

#[cfg(test)]
mod tests {
    use super::super::model::model;
    use super::*;
    use lab_wire::scripts::s12::Ending;

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
                    "invalid-arguments" => r == Ending::InvalidArgument,
                    "unrepresentable-wait" => {
                        m.observed.sleeps.is_empty() && r == Ending::UnrepresentableWait
                    }
                    "target-beyond-deadline" => {
                        (r == Ending::DeadlineReached && m.observed.sleeps.is_empty())
                            || (r == Ending::Ok && m.observed.sleeps.len() == 1)
                    }
                    "fixed-target" => r == Ending::Ok && m.observed.sleeps.len() >= 3,
                    "early-wake-up" => r == Ending::Ok && m.observed.sleeps.len() == 2,
                    "too-many-wake-ups" => {
                        m.observed.sleeps.len() == LIMIT
                            && matches!(r, Ending::Ok | Ending::TooManyWakeUps)
                    }
                    "no-progress" => r == Ending::NoProgress,
                    "clock-backwards" => r == Ending::ClockWentBackwards,
                    "non-finite" => r == Ending::NonFiniteReading,
                    "deadline" => r == Ending::DeadlineReached && !m.observed.sleeps.is_empty(),
                    "cancel" => r == Ending::Cancelled,
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
}
