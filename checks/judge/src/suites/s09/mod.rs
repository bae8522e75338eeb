//! Step 09 Deadline: the table, then generated scripts per clause, then
//! random ones. A script starts the shared clock, calls `Deadline::new`
//! once and then moves the clock and asks questions; the judge's model
//! (`model.rs`) answers them from `deadline = start + seconds`, fixed once.

mod generate;
mod model;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use lab_scripts::s09::Observed;

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let keys = [
        "rejects-invalid-budget",
        "fixed-at-creation",
        "never-negative",
        "never-reset",
        "expired",
        "cap-shrinks",
        "cap-never-extends",
        "zero-budget",
        "rejects-invalid-cap",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let (s, expect) = table::from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    generate::generated(&mut b, g);
    b
}

advanced_step!(Observed);
