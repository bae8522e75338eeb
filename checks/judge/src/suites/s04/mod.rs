//! Step 04 backoff: the table, then random attempts and bounds.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, F64};

fn bound(g: &mut Gen) -> f64 {
    match g.below(12) {
        0 => *g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]),
        1 => g.sixty_fourths(-640, -1),
        _ => g.sixty_fourths(0, 64 * 64),
    }
}

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    // The general rule before its special case -0.0, whose rows also
    // compute min(cap, base * 2^attempt): a mistake in that rule shows
    // first under the clause that states it.
    let keys = [
        "attempt-above-30",
        "bad-base-or-cap",
        "doubles-to-cap",
        "negative-zero",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let call = Call::Backoff {
            attempt: fixture::uint(&case, "attempt") as u32,
            base: F64(fixture::float(&case, "base")),
            cap: F64(fixture::float(&case, "cap")),
        };
        b.add(
            fixture::clause(&case),
            call,
            Expect::Checked(fixture::checked(&case, "expect")),
        );
    }
    for _ in 0..400 {
        let attempt = g.int(0, 34) as u32;
        let (base, cap) = (bound(g), bound(g));
        let expect = Expect::Checked(oracle::backoff(attempt, base, cap));
        b.add(
            "random",
            Call::Backoff {
                attempt,
                base: F64(base),
                cap: F64(cap),
            },
            expect,
        );
    }
    b
}

core_step!(shrinks, domains);
