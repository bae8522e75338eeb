//! Step 08 execute: hand-written scenarios with hand-computed traces, then
//! generated scenarios per clause and random ones, judged by the oracle.
//! Every generated scenario ends for a correct implementation: replies run
//! out into a final 200.

mod generate;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;

/// The clauses from the loop's general rules to its special cases: a
/// scenario belongs to the last clause whose special case it meets
/// (`view::domain`), so a mistake in one rule shows first under that rule.
const KEYS: [&str; 16] = [
    "invalid-options",
    "final-response",
    "exact-timeouts",
    "gap-before-first-send",
    "timeout-before-send",
    "attempt-limit",
    "above-31-sends",
    "not-replay-safe",
    "post-key",
    "invalid-fraction",
    "retry-after",
    "retry-after-beyond-budget",
    "response-time-counts",
    "wait-equals-budget",
    "late-response",
    "random",
];

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let mut b = Builder::new(step, &KEYS);
    for case in fixture::table(step) {
        table::from_table(&mut b, g, &case);
    }
    for _ in 0..4 {
        generate::generated(&mut b, g);
    }
    for _ in 0..150 {
        let plan = generate::random_plan(g);
        generate::add_planned(&mut b, g, "random", plan);
    }
    // A final response returned at once is judged on its sends, sleeps and
    // result; how long each send may take is the next clause's rule, so a
    // wrong clock shows first under `exact-timeouts`.
    b.timeouts_unjudged("final-response");
    b
}

core_step!(shrinks, domains, times);
