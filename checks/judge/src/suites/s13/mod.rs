//! Step 13 Gate, fan_out and to_http: the table, then generated scripts
//! per clause, then random ones. Gate scripts are checked against the
//! obvious counter; fan-out scenarios against the judge's own
//! single-threaded simulation of a correct `fan_out` in the baton world
//! (see `model`), which shares no code with the runner's `Env`; `to_http`
//! calls against the HTTP entry's three answers.

mod generate;
mod model;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use lab_wire::scripts::s13::Observed;
use model::model;

const STEP: &str = "13";

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "gate-capacity",
        "gate-full-rejects",
        "gate-returns-on-drop",
        "gate-returns-on-panic",
        "gate-threads",
        "invalid-input",
        "rejected-when-full",
        "two-attempts",
        "last-round-code",
        "retry-only-transient",
        "classification",
        "same-request-id",
        "pause-outside-slot",
        "slot-limit",
        "panic-escapes",
        "shared-deadline",
        "timed-out-keeps-finished",
        "ranking",
        "busy-is-503",
        "answered-is-200",
        "invalid-is-422",
        "random",
    ];
    let mut b = Builder::new(STEP, &keys);
    for case in fixture::table(STEP) {
        let (s, expect) = table::from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    for (key, s) in generate::scripts(g) {
        let expect = model(&s);
        b.add_script(key, &s, expect);
    }
    b
}

advanced_step!(Observed, world);
