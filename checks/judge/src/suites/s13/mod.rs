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
use lab_scripts::s13::{Observed, Script};
use model::model;

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    // A pass given back before a full gate's refusals: the refusals'
    // cases drop a pass to show that a refusal took nothing, so a pass
    // that gives nothing back must fail its own clause first.
    // The inbound pass and the slots before validation: the valid side of
    // validation's cases (names that differ only in case, blank names,
    // padded ids) runs a whole fan-out, which a pass or a slot mistake
    // would fail first otherwise.
    // General rules before special cases, so that one mistake shows first
    // under the clause that names it: every call holds one slot
    // (slot-limit, whose cases never wait), every call gets what is left
    // of the one deadline (shared-deadline: waits, no retries), then the
    // retry (the pause, the second attempt's request, what is retried),
    // classification, the attempt cap and the last round's code, and late
    // suppliers next to finished ones. A clause's cases stay clear of the
    // special cases that later clauses own.
    let keys = [
        "gate-capacity",
        "gate-returns-on-drop",
        "gate-full-rejects",
        "gate-returns-on-panic",
        "gate-threads",
        "rejected-when-full",
        "slot-limit",
        "invalid-input",
        "shared-deadline",
        "pause-outside-slot",
        "same-request-id",
        "retry-only-transient",
        "classification",
        "two-attempts",
        "last-round-code",
        "timed-out-keeps-finished",
        "panic-escapes",
        "ranking",
        "busy-is-503",
        "answered-is-200",
        "invalid-is-422",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    // Before `ranking`, a fan-out's reports are judged in any order: the
    // order is that clause's rule alone (see `view::Unranked`).
    let ranked_from = keys.iter().position(|k| *k == "ranking").unwrap_or(0);
    let add = |b: &mut Builder, key: &str, s: &Script, expect: Observed| {
        let unranked = matches!(s, Script::FanOut(_))
            && keys.iter().position(|k| *k == key) < Some(ranked_from);
        if unranked {
            b.add_script(key, s, view::Unranked(expect));
        } else {
            b.add_script(key, s, expect);
        }
    };
    for case in fixture::table(step) {
        let (s, expect) = table::from_table(&case);
        add(&mut b, fixture::clause(&case), &s, expect);
    }
    for (key, mut s) in generate::scripts(g) {
        if let Script::FanOut(f) = &mut s {
            generate::settle_pauses(f, g);
            if !matches!(key, "ranking" | "random") {
                generate::distinct_totals(f);
            }
        }
        let expect = model(&s);
        add(&mut b, key, &s, expect);
    }
    b
}

advanced_step!(Observed, world);
