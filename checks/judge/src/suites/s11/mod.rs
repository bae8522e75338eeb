//! Step 11 `admit` and `execute_admitted`: one suite, two sets of clauses.
//! `admit` is a pure decision, checked call by call against the model
//! (`model.rs`). `execute_admitted` runs in a scripted world of virtual
//! time (see `lab_scripts::s11`); the model replays the contract in
//! the same world and predicts every send, close and non-zero sleep, and
//! the `Finish`. Hand-written cases come first, then generated ones.

mod generate;
pub(crate) mod model;
pub(crate) mod table;
pub(crate) mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use generate::{generated_admit, generated_execute};
use lab_scripts::s11::{AdmitCall, Decision, Ending, Event, Observed, Scenario, Script};
use table::{admit_from_table, execute_from_table, is_admit_row};

/// The clauses, each function's general rules before its special cases, so
/// that one mistake shows first under the clause that names it: `admit`'s
/// wait, then its invalid inputs and refusals; `execute_admitted`'s send
/// timeouts, closing, waiting and fresh clock readings (every retry goes
/// through them), then the invalid policy, the checks before a send, late
/// answers, cancellation, a bad Retry-After and the other stops. A clause's
/// cases stay clear of the special cases that later clauses own.
const KEYS: [&str; 19] = [
    "admit-wait",
    "admit-invalid-input",
    "admit-reserve",
    "admit-order",
    "admit-method-and-status",
    "admit-attempt-limit",
    "admit-invalid-retry-after",
    "admit-random",
    "exact-timeouts",
    "close-before-wait",
    "retry-after-wait",
    "clock-after-wait",
    "invalid-policy",
    "checks-before-send",
    "late-success",
    "cancel-after-response",
    "malformed-retry-after",
    "stop-reasons",
    "random",
];

fn add_admit(b: &mut Builder, key: &str, call: AdmitCall, expect: Decision) {
    b.add_script(
        key,
        &Script::Admit(call),
        Observed::Admit { decision: expect },
    );
}

fn add_execute(b: &mut Builder, key: &str, s: Scenario, events: Vec<Event>, ending: Ending) {
    b.add_script(
        key,
        &Script::Execute(s),
        Observed::Execute { events, ending },
    );
}

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let mut b = Builder::new(step, &KEYS);
    for case in fixture::table(step) {
        if is_admit_row(&case) {
            let (call, expect) = admit_from_table(&case);
            add_admit(&mut b, fixture::clause(&case), call, expect);
        } else {
            let (s, events, ending) = execute_from_table(g, &case);
            add_execute(&mut b, fixture::clause(&case), s, events, ending);
        }
    }
    generated_admit(&mut b, g);
    generated_execute(&mut b, g);
    b
}

advanced_step!(Observed, world);
