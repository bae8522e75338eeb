//! Step 03 remaining: the table, then random times in 64ths.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, F64};

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let mut b = Builder::new(
        step,
        &["positive", "not-positive", "nan", "infinite", "random"],
    );
    for case in fixture::table(step) {
        let (deadline, now) = (
            fixture::float(&case, "deadline"),
            fixture::float(&case, "now"),
        );
        let call = Call::Remaining {
            deadline: F64(deadline),
            now: F64(now),
        };
        b.add(
            fixture::clause(&case),
            call,
            Expect::Float(fixture::float(&case, "expect")),
        );
    }
    for _ in 0..400 {
        let now = g.sixty_fourths(-64_000, 64_000);
        let deadline = now + g.sixty_fourths(-640, 640);
        let call = Call::Remaining {
            deadline: F64(deadline),
            now: F64(now),
        };
        b.add(
            "random",
            call,
            Expect::Float(oracle::remaining(deadline, now)),
        );
    }
    b
}

core_step!(shrinks, domains);
