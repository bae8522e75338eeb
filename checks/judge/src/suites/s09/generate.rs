//! Step 09's generators: scripts per clause, then random ones, their
//! expectations from the model.

use super::super::Builder;
use super::model::{model, script};
use crate::rng::Gen;
use lab_scripts::s09::{Op, Script};
use lab_wire::F64;

/// Invalid budgets and caps: NaN, infinite or negative.
const BAD: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.015625, -1.0];

/// Twenty scripts per clause, then 150 random ones.
pub(super) fn generated(b: &mut Builder, g: &mut Gen) {
    let gen = |b: &mut Builder, key: &str, s: Script| {
        let expect = model(&s);
        b.add_script(key, &s, expect);
    };
    for _ in 0..20 {
        let start = g.sixty_fourths(0, 64 * 1000);
        let bad = if g.chance(1, 2) {
            *g.pick(&BAD)
        } else {
            g.sixty_fourths(-64 * 64, -1)
        };
        gen(
            b,
            "rejects-invalid-budget",
            script(start, bad, vec![Op::Remaining]),
        );
        let zero = if g.chance(1, 2) { 0.0 } else { -0.0 };
        let cap = g.sixty_fourths(0, 64 * 8);
        gen(
            b,
            "zero-budget",
            script(
                start,
                zero,
                vec![Op::Expired, Op::Remaining, Op::TimeoutFor { cap: F64(cap) }],
            ),
        );
        let seconds = g.sixty_fourths(2, 64 * 64);
        let deadline = start + seconds;
        let inside = start + g.sixty_fourths(1, (seconds * 64.0) as i64 - 1);
        gen(
            b,
            "fixed-at-creation",
            script(
                start,
                seconds,
                vec![Op::At { t: F64(inside) }, Op::Remaining],
            ),
        );
        let late = deadline + g.sixty_fourths(1, 64 * 64);
        gen(
            b,
            "never-negative",
            script(start, seconds, vec![Op::At { t: F64(late) }, Op::Remaining]),
        );
        let later = late + g.sixty_fourths(0, 64 * 64);
        gen(
            b,
            "never-reset",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(late) },
                    Op::Remaining,
                    Op::Expired,
                    Op::Remaining,
                    Op::At { t: F64(later) },
                    Op::Remaining,
                    Op::Expired,
                ],
            ),
        );
        gen(
            b,
            "expired",
            script(
                start,
                seconds,
                vec![
                    Op::At {
                        t: F64(deadline - 0.015625),
                    },
                    Op::Expired,
                    Op::At { t: F64(deadline) },
                    Op::Expired,
                ],
            ),
        );
        let left = deadline - inside;
        let smaller = g.sixty_fourths(0, (left * 64.0) as i64 - 1);
        gen(
            b,
            "cap-shrinks",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(inside) },
                    Op::TimeoutFor { cap: F64(smaller) },
                ],
            ),
        );
        let larger = left + g.sixty_fourths(0, 64 * 64);
        gen(
            b,
            "cap-never-extends",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(inside) },
                    Op::TimeoutFor { cap: F64(larger) },
                ],
            ),
        );
        let when = if g.chance(1, 2) { inside } else { late };
        gen(
            b,
            "rejects-invalid-cap",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(when) },
                    Op::TimeoutFor {
                        cap: F64(*g.pick(&BAD)),
                    },
                ],
            ),
        );
    }
    for _ in 0..150 {
        let start = g.sixty_fourths(0, 64 * 1000);
        let seconds = if g.chance(1, 10) {
            *g.pick(&BAD)
        } else {
            g.sixty_fourths(0, 64 * 64)
        };
        let mut now = start;
        let mut ops = Vec::new();
        for _ in 0..g.int(1, 8) {
            ops.push(match g.below(4) {
                0 => {
                    now += g.sixty_fourths(0, 64 * 16);
                    Op::At { t: F64(now) }
                }
                1 => Op::Remaining,
                2 => Op::TimeoutFor {
                    cap: F64(if g.chance(1, 8) {
                        *g.pick(&BAD)
                    } else {
                        g.sixty_fourths(0, 64 * 64)
                    }),
                },
                _ => Op::Expired,
            });
        }
        gen(b, "random", script(start, seconds, ops));
    }
}
