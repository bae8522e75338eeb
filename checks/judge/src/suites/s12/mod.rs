//! Step 12 sleep_at_least and guarded_read: the table, then generated
//! scripts per clause, then random ones. A `sleep_at_least` script fixes the
//! arguments, the clock's first reading, what each sleep does to the clock
//! and when cancellation shows; the judge's model (`model.rs`) plays the
//! contract's algorithm in the same world and also says when a script makes
//! two conditions hold whose order the contract leaves open (such scripts
//! are never sent). A `guarded_read` script is step 11's world with this
//! step's sleeps; its model composes step 11's model of the executor with
//! this step's model of the wait.

mod generate;
mod model;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use generate::{generated, generated_guarded};
use lab_scripts::s12::{Observed, Script};
use model::{guarded, model};
use table::{from_table, guarded_from_table, is_guarded_row};

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let keys = [
        "invalid-arguments",
        "early-wake-up",
        "fixed-target",
        "no-progress",
        "too-many-wake-ups",
        "clock-backwards",
        "non-finite",
        "deadline",
        "target-beyond-deadline",
        "unrepresentable-wait",
        "cancel",
        "random",
        "guarded-wait",
        "guarded-clock",
        "guarded-cancel",
        "guarded-as-executor",
        "guarded-random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let key = fixture::clause(&case);
        if is_guarded_row(&case) {
            let (s, expect) = guarded_from_table(g, &case);
            b.add_script(key, &Script::GuardedRead(s), Observed::GuardedRead(expect));
        } else {
            let (s, expect) = from_table(&case);
            b.add_script(
                key,
                &Script::SleepAtLeast(s),
                Observed::SleepAtLeast(expect),
            );
        }
    }
    for (key, s) in generated(g) {
        let m = model(&s);
        if !m.ambiguous {
            b.add_script(
                key,
                &Script::SleepAtLeast(s),
                Observed::SleepAtLeast(m.observed),
            );
        }
    }
    for (key, s) in generated_guarded(g) {
        let m = guarded(&s);
        if !m.ambiguous {
            b.add_script(key, &Script::GuardedRead(s), Observed::GuardedRead(m.seen));
        }
    }
    b
}

advanced_step!(Observed, world);
