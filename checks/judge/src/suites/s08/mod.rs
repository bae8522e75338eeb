//! Step 08 execute: hand-written scenarios with hand-computed traces, then
//! generated scenarios per clause and random ones, judged by the oracle.
//! Every generated scenario ends for a correct implementation: replies run
//! out into a final 200.

mod generate;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;

const KEYS: [&str; 16] = [
    "invalid-options",
    "exact-timeouts",
    "final-response",
    "gap-before-first-send",
    "timeout-before-send",
    "response-time-counts",
    "wait-equals-budget",
    "attempt-limit",
    "above-31-sends",
    "post-key",
    "not-replay-safe",
    "invalid-fraction",
    "retry-after",
    "retry-after-beyond-budget",
    "late-response",
    "random",
];

pub fn build(g: &mut Gen) -> Builder {
    let mut b = Builder::new("08", &KEYS);
    for case in fixture::table("08") {
        table::from_table(&mut b, g, &case);
    }
    for _ in 0..4 {
        generate::generated(&mut b, g);
    }
    for _ in 0..150 {
        let plan = generate::random_plan(g);
        generate::add_planned(&mut b, g, "random", plan);
    }
    b
}

core_step!(shrinks, times);
