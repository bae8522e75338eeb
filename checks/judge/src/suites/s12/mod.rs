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

use super::{fixture, show_answer, Builder};
use crate::rng::Gen;
use generate::generated;
use lab_wire::scripts::s12::Observed;
use model::model;
use table::from_table;
use view::show_input;

const STEP: &str = "12";

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "invalid-arguments",
        "zero-wait",
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

/// Step 12 in the registry.
pub struct ThisStep;

impl super::Step for ThisStep {
    fn build(&self, g: &mut Gen) -> Builder {
        build(g)
    }
    fn show_call(&self, call: &lab_wire::Call) -> String {
        match call {
            lab_wire::Call::Advanced { input, .. } => show_input(input),
            other => format!("{other:?}"),
        }
    }
    fn show_json(&self, value: &serde_json::Value) -> String {
        show_answer::<Observed>(value)
    }
}
