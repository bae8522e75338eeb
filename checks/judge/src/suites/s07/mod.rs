//! Step 07 can_attempt: the table, then random counters and times.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, F64};

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let keys = [
        "attempt-limit",
        "negative-wait",
        "budget-exceeds-wait",
        "nan",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let call = Call::CanAttempt {
            attempts: fixture::uint(&case, "attempts") as u32,
            maximum: fixture::uint(&case, "maximum") as u32,
            wait: F64(fixture::float(&case, "wait")),
            budget: F64(fixture::float(&case, "budget")),
        };
        b.add(
            fixture::clause(&case),
            call,
            Expect::Bool(fixture::boolean(&case, "expect")),
        );
    }
    for _ in 0..400 {
        let (attempts, maximum) = (g.int(0, 8) as u32, g.int(0, 8) as u32);
        let wait = g.sixty_fourths(-64, 64 * 8);
        // Often exactly equal, the boundary that matters most.
        let budget = if g.chance(1, 4) {
            wait
        } else {
            g.sixty_fourths(0, 64 * 8)
        };
        let expect = Expect::Bool(oracle::can_attempt(attempts, maximum, wait, budget));
        b.add(
            "random",
            Call::CanAttempt {
                attempts,
                maximum,
                wait: F64(wait),
                budget: F64(budget),
            },
            expect,
        );
    }
    b
}

core_step!(shrinks, domains);
