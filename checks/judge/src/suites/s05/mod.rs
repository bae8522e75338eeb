//! Step 05 jitter: the table, then random delays and fractions.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, F64};

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    // The general rule before its boundaries, whose rows with a delay
    // other than 0 also scale it: a mistake in scaling shows first under
    // the clause that states it.
    let keys = [
        "bad-delay",
        "bad-fraction",
        "scales",
        "boundaries",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let call = Call::Jitter {
            delay: F64(fixture::float(&case, "delay")),
            fraction: F64(fixture::float(&case, "fraction")),
        };
        b.add(
            fixture::clause(&case),
            call,
            Expect::Checked(fixture::checked(&case, "expect")),
        );
    }
    for _ in 0..400 {
        let delay = if g.chance(1, 10) {
            g.sixty_fourths(-640, -1)
        } else {
            g.sixty_fourths(0, 64 * 64)
        };
        let fraction = g.sixty_fourths(-16, 80);
        let expect = Expect::Checked(oracle::jitter(delay, fraction));
        b.add(
            "random",
            Call::Jitter {
                delay: F64(delay),
                fraction: F64(fraction),
            },
            expect,
        );
    }
    b
}

core_step!(shrinks, domains);
