//! Step 12 sleep_at_least: the table, then generated scripts per clause,
//! then random ones. A script fixes the arguments, the clock's first reading,
//! what each sleep does to the clock and when cancellation shows; the
//! judge's model (`model.rs`) plays the contract's algorithm in the same
//! world and also says when a script makes two conditions hold whose order
//! the contract leaves open (such scripts are never sent).

mod generate;
mod model;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use generate::generated;
use lab_wire::scripts::s12::Observed;
use model::model;
use table::from_table;

const STEP: &str = "12";

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "invalid-arguments",
        "unrepresentable-wait",
        "target-beyond-deadline",
        "fixed-target",
        "early-wake-up",
        "too-many-wake-ups",
        "no-progress",
        "clock-backwards",
        "non-finite",
        "deadline",
        "cancel",
        "random",
    ];
    let mut b = Builder::new(STEP, &keys);
    for case in fixture::table(STEP) {
        let (s, expect) = from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    for (key, s) in generated(g) {
        let m = model(&s);
        if !m.ambiguous {
            b.add_script(key, &s, m.observed);
        }
    }
    b
}

advanced_step!(Observed);
