//! Unit tests of `view`: step 13's scripts as Rust, and its observations as
//! results and timelines.

use super::super::model::{fan_model, gate_model};
use super::*;
use lab_scripts::s13::{Attempt, FanOutScript, GateScript, Report, Request, SupplierScript};
use lab_wire::F64;

#[test]
fn before_ranking_the_reports_are_judged_in_any_order_and_each_whole() {
    let report = |name: &str, outcome| Report {
        supplier: name.into(),
        outcome,
    };
    let fan = |reports: Vec<Report>| {
        Observed::FanOut(FanOutSeen {
            names: vec!["a".into(), "b".into()],
            result: Outcome::Ok { reports },
            in_use_at_run_all: Some(1),
            in_use_after: 0,
            run_all_calls: 1,
            returned_at: F64(1.0),
            timelines: vec![Vec::new(), Vec::new()],
            breaches: Vec::new(),
        })
    };
    let quote = SupplierOutcome::Quote { total_cents: 500 };
    let ranked = fan(vec![
        report("b", quote),
        report("a", SupplierOutcome::TimedOut),
    ]);
    let swapped = fan(vec![
        report("a", SupplierOutcome::TimedOut),
        report("b", quote),
    ]);
    let wrong = fan(vec![
        report("a", SupplierOutcome::NotFound),
        report("b", quote),
    ]);
    assert!(!ranked.same(&swapped));
    let unranked = |o: &Observed| Unranked(o.clone());
    assert!(unranked(&ranked).same(&unranked(&swapped)));
    assert!(!unranked(&ranked).same(&unranked(&wrong)));
}

#[test]
fn a_gate_that_counts_refusals_is_told_apart() {
    let s = GateScript {
        capacity: 1,
        ops: vec![GateOp::Acquire, GateOp::Acquire, GateOp::InUse],
    };
    let e = gate_model(&s);
    let leaky = Observed::Gate {
        answers: Some(vec![
            GateAnswer::Acquire { got: true },
            GateAnswer::Acquire { got: false },
            GateAnswer::InUse { value: 2 },
        ]),
    };
    assert!(!e.same(&leaky));
}

#[test]
fn a_slot_held_through_the_pause_is_told_apart() {
    // One slot, "a" gets 503 then an offer; "b" waits. Held through the
    // pause, b's call would come only after a's second call.
    let s = FanOutScript {
        request: Request {
            id: "r".into(),
            item: "i".into(),
            quantity: 1,
        },
        suppliers: vec![
            SupplierScript {
                name: "a".into(),
                attempts: vec![
                    Attempt {
                        cost: F64(0.5),
                        answer: Answer::Status { status: 503 },
                    },
                    Attempt {
                        cost: F64(0.5),
                        answer: Answer::Offer {
                            unit_cents: 1,
                            quantity: 1,
                            shipping_cents: 0,
                            in_stock: true,
                        },
                    },
                ],
                fractions: vec![F64(0.0)],
            },
            SupplierScript {
                name: "b".into(),
                attempts: vec![Attempt {
                    cost: F64(0.25),
                    answer: Answer::Status { status: 404 },
                }],
                fractions: vec![],
            },
        ],
        slots: 1,
        capacity: 1,
        held: 0,
        start: F64(0.0),
        deadline: F64(10.0),
    };
    let good = fan_model(&s);
    // b gets the slot at 0.5, when a's first call returns.
    assert_eq!(
        good.timelines[1][0],
        Event::SlotWait {
            from: F64(0.0),
            at: F64(0.5),
            got: true
        }
    );
    let mut held = good.clone();
    held.timelines[1][0] = Event::SlotWait {
        from: F64(0.0),
        at: F64(1.0625),
        got: true,
    };
    assert!(!Observed::FanOut(good).same(&Observed::FanOut(held)));
}
