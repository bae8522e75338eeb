//! Step 13's scripts and observations as a learner reads them: scripts as
//! Rust, observations (with how two compare) as results and timelines.

use crate::catalog::{t, tr};
use crate::show::float;
use crate::suites::Observable;
use lab_scripts::s13::{
    Answer, Event, FanOutSeen, GateAnswer, GateOp, Given, Observed, Outcome, Script,
    SupplierOutcome,
};
use serde_json::Value;

fn same_event(e: &Event, g: &Event) -> bool {
    match (e, g) {
        (
            Event::Call {
                at,
                timeout,
                id,
                item,
                quantity,
                ended,
                answer,
            },
            Event::Call {
                at: at2,
                timeout: timeout2,
                id: id2,
                item: item2,
                quantity: quantity2,
                ended: ended2,
                answer: answer2,
            },
        ) => {
            at.0 == at2.0
                && timeout.0 == timeout2.0
                && id == id2
                && item == item2
                && quantity == quantity2
                && ended.0 == ended2.0
                && answer == answer2
        }
        (
            Event::Pause { at, seconds },
            Event::Pause {
                at: at2,
                seconds: seconds2,
            },
        ) => at.0 == at2.0 && seconds.0 == seconds2.0,
        (
            Event::SlotWait { from, at, got },
            Event::SlotWait {
                from: from2,
                at: at2,
                got: got2,
            },
        ) => from.0 == from2.0 && at.0 == at2.0 && got == got2,
        (Event::Cancelled { at }, Event::Cancelled { at: at2 }) => at.0 == at2.0,
        (
            Event::Call { .. }
            | Event::Pause { .. }
            | Event::SlotWait { .. }
            | Event::Cancelled { .. },
            _,
        ) => false,
    }
}

fn same_fan(e: &FanOutSeen, g: &FanOutSeen) -> bool {
    e.result == g.result
        && e.in_use_at_run_all == g.in_use_at_run_all
        && e.in_use_after == g.in_use_after
        && e.run_all_calls == g.run_all_calls
        && e.returned_at.0 == g.returned_at.0
        && e.timelines.len() == g.timelines.len()
        && e.timelines
            .iter()
            .zip(&g.timelines)
            .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_event(x, y)))
        && e.breaches.len() == g.breaches.len()
        && e.breaches
            .iter()
            .zip(&g.breaches)
            .all(|(a, b)| a.rule == b.rule && a.task == b.task && a.at.0 == b.at.0)
}

/// A fan-out judged with its reports in any order (each supplier's
/// report is still judged whole): the clauses before `ranking`, so that a
/// mistake in the order shows first under the clause that names it.
#[derive(Debug)]
pub(crate) struct Unranked(pub(crate) Observed);

impl<'de> serde::Deserialize<'de> for Unranked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Observed::deserialize(d).map(Unranked)
    }
}

/// The observation with its reports by supplier name.
fn by_name(o: &Observed) -> Observed {
    let mut o = o.clone();
    if let Observed::FanOut(FanOutSeen {
        result: Outcome::Ok { reports },
        ..
    }) = &mut o
    {
        reports.sort_by(|a, b| a.supplier.cmp(&b.supplier));
    }
    o
}

impl Observable for Unranked {
    fn same(&self, got: &Self) -> bool {
        by_name(&self.0).same(&by_name(&got.0))
    }

    fn show(&self) -> String {
        show_observed(&self.0)
    }
}

impl Observable for Observed {
    /// Floats with `==` (NaN never matches, -0.0 equals 0.0).
    fn same(&self, got: &Self) -> bool {
        match (self, got) {
            (Observed::Gate { answers: a }, Observed::Gate { answers: b }) => a == b,
            (Observed::FanOut(a), Observed::FanOut(b)) => same_fan(a, b),
            (
                Observed::Http {
                    status,
                    retry_after,
                },
                Observed::Http {
                    status: status2,
                    retry_after: retry_after2,
                },
            ) => status == status2 && retry_after == retry_after2,
            (Observed::Gate { .. } | Observed::FanOut(_) | Observed::Http { .. }, _) => false,
        }
    }

    fn show(&self) -> String {
        show_observed(self)
    }
}

fn answer_rust(a: &Answer) -> String {
    match a {
        Answer::Offer {
            unit_cents,
            quantity,
            shipping_cents,
            in_stock,
        } => format!(
            "ScriptedAnswer::Reply(Reply::Offer(Offer {{ unit_cents: {unit_cents}, quantity: {quantity}, shipping_cents: {shipping_cents}, in_stock: {in_stock} }}))"
        ),
        Answer::Status { status } => format!("ScriptedAnswer::Reply(Reply::Status({status}))"),
        Answer::Panic => "ScriptedAnswer::Panic".into(),
        other => format!("ScriptedAnswer::Fail(CallError::{})", answer_short(other)),
    }
}

/// A call's answer, short.
fn answer_short(a: &Answer) -> String {
    match a {
        Answer::Offer {
            unit_cents,
            quantity,
            shipping_cents,
            in_stock,
        } => format!(
            "offer {unit_cents}×{quantity}+{shipping_cents}{}",
            if *in_stock { "" } else { " out of stock" }
        ),
        Answer::Status { status } => status.to_string(),
        Answer::Panic => "panic".into(),
        other => format!("{other:?}"),
    }
}

/// One op as Rust; `dropped` lists the passes dropped so far (dropping one
/// again does nothing, and would not compile: it is a comment).
fn gate_op_rust(op: &GateOp, acquires: &mut usize, dropped: &mut Vec<usize>) -> String {
    match op {
        GateOp::Acquire => {
            *acquires += 1;
            format!("let p{} = gate.try_acquire();", *acquires - 1)
        }
        GateOp::Drop { pass } if dropped.contains(pass) => {
            format!("// {}", tr("13.show.dropped_again", &[("pass", pass)]))
        }
        GateOp::Drop { pass } => {
            dropped.push(*pass);
            format!("drop(p{pass});")
        }
        GateOp::PanicHolding => {
            "let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| { let _p = gate.try_acquire(); panic!() }));".into()
        }
        GateOp::InUse => "dbg!(gate.in_use());".into(),
        // Runs as written, with real threads: the checker plays every
        // order of the threads' steps on the Tally instead, which this
        // shows only when threads happen to overlap.
        GateOp::Threads { threads } => format!(
            "{{\n    // {note}\n    use std::sync::atomic::{{AtomicU32, Ordering::SeqCst}};\n    \
             let (live, most) = (AtomicU32::new(0), AtomicU32::new(0));\n    \
             std::thread::scope(|s| {{\n        for _ in 0..{threads} {{\n            \
             s.spawn(|| {{\n                for _ in 0..1000 {{\n                    \
             if let Some(pass) = gate.try_acquire() {{\n                        \
             most.fetch_max(live.fetch_add(1, SeqCst) + 1, SeqCst);\n                        \
             std::thread::yield_now();\n                        \
             live.fetch_sub(1, SeqCst);\n                        \
             drop(pass);\n                    }}\n                }}\n            }});\n        \
             }}\n    }});\n    \
             dbg!(most.into_inner()); // at most the places that were free\n}}",
            note = tr("13.show.threads", &[("threads", threads)]),
        ),
    }
}

/// The script as Rust that compiles pasted into a learner's `#[test]`
/// (answers printed with `dbg!`).
pub(super) fn show_input(input: &Value) -> String {
    let Some(script) = crate::suites::read::<Script>(input) else {
        return input.to_string();
    };
    match script {
        Script::Http(h) => {
            let given = match &h.given {
                Given::Rejected => "Err(FanOutError::Rejected)".to_string(),
                Given::InvalidArgument => "Err(FanOutError::InvalidArgument)".to_string(),
                Given::Ok { reports } => {
                    let items: Vec<String> = reports
                        .iter()
                        .map(|r| {
                            format!(
                                "SupplierReport {{ supplier: {:?}.into(), outcome: SupplierOutcome::{} }}",
                                r.supplier,
                                outcome_rust(&r.outcome)
                            )
                        })
                        .collect();
                    if items.is_empty() {
                        "Ok(vec![])".to_string()
                    } else {
                        format!("Ok(vec![\n    {},\n])", items.join(",\n    "))
                    }
                }
            };
            format!("to_http(&{given})")
        }
        Script::Gate(s) => {
            if s.capacity == 0 {
                // No op runs once new has rejected.
                return format!("dbg!(Gate::new({}).is_err());", s.capacity);
            }
            let mut lines = vec![format!("let gate = Gate::new({}).unwrap();", s.capacity)];
            let (mut acquires, mut dropped) = (0, Vec::new());
            lines.extend(
                s.ops
                    .iter()
                    .map(|op| gate_op_rust(op, &mut acquires, &mut dropped)),
            );
            lines.join("\n")
        }
        Script::FanOut(s) => {
            let mut lines = vec![
                format!(
                    "let request = QuoteRequest {{ id: {:?}.into(), item: {:?}.into(), quantity: {} }};",
                    s.request.id, s.request.item, s.request.quantity
                ),
                format!(
                    "let env = Env::scripted({}, {}, vec![ // start, outbound slots, suppliers",
                    float(s.start.0),
                    s.slots
                ),
            ];
            for sup in &s.suppliers {
                let fractions: Vec<String> = sup.fractions.iter().map(|f| float(f.0)).collect();
                lines.push(format!(
                    "    ScriptedSupplier {{ name: {:?}.into(), fractions: vec![{}], attempts: vec![ // (cost, answer) per call",
                    sup.name,
                    fractions.join(", ")
                ));
                for a in &sup.attempts {
                    lines.push(format!(
                        "        ({}, {}),",
                        float(a.cost.0),
                        answer_rust(&a.answer)
                    ));
                }
                lines.push("    ] },".into());
            }
            lines.push("]);".into());
            lines.push(format!("let inbound = Gate::new({}).unwrap();", s.capacity));
            if s.held > 0 {
                lines.push(format!(
                    "let _held: Vec<_> = (0..{}).map(|_| inbound.try_acquire()).collect();",
                    s.held
                ));
            }
            let names: Vec<String> = s
                .suppliers
                .iter()
                .map(|x| format!("{:?}", x.name))
                .collect();
            lines.push(format!(
                "fan_out(&request, &[{}], {}, &env, &inbound)",
                names.join(", "),
                float(s.deadline.0)
            ));
            lines.join("\n")
        }
    }
}

fn outcome_rust(o: &SupplierOutcome) -> String {
    match o {
        SupplierOutcome::Quote { total_cents } => format!("Quote {{ total_cents: {total_cents} }}"),
        SupplierOutcome::HttpStatus { status } => format!("HttpStatus({status})"),
        other => format!("{other:?}"),
    }
}

fn event_text(e: &Event) -> String {
    match e {
        Event::Call {
            at,
            timeout,
            id,
            item,
            quantity,
            ended,
            answer,
        } => tr(
            "13.event.call",
            &[
                ("at", &float(at.0)),
                ("timeout", &float(timeout.0)),
                ("id", &format!("{id:?}")),
                ("item", &format!("{item:?}")),
                ("quantity", quantity),
                ("ended", &float(ended.0)),
                ("answer", &answer_short(answer)),
            ],
        ),
        Event::Pause { at, seconds } => tr(
            "13.event.pause",
            &[("at", &float(at.0)), ("seconds", &float(seconds.0))],
        ),
        Event::Cancelled { at } => tr("13.event.cancelled", &[("at", &float(at.0))]),
        Event::SlotWait { from, at, got } => tr(
            if *got {
                "13.event.wait-got"
            } else {
                "13.event.wait-none"
            },
            &[("from", &float(from.0)), ("at", &float(at.0))],
        ),
    }
}

/// The result, then a timeline per supplier, then anything odd.
fn show_observed(o: &Observed) -> String {
    match o {
        Observed::Http {
            status,
            retry_after,
        } => format!("HttpReply {{ status: {status}, retry_after: {retry_after:?} }}"),
        Observed::Gate { answers: None } => "Gate::new → Err(InvalidArgument)".into(),
        Observed::Gate {
            answers: Some(answers),
        } => {
            let items: Vec<String> = answers
                .iter()
                .map(|a| match a {
                    GateAnswer::Acquire { got } | GateAnswer::PanicHolding { got } => {
                        if *got { "Some(pass)" } else { "None" }.to_string()
                    }
                    GateAnswer::InUse { value } => value.to_string(),
                    GateAnswer::Threads {
                        over_capacity,
                        in_use_off,
                        untallied,
                        waited,
                        granted_any,
                        in_use_after,
                    } => {
                        let mut text = tr(
                            "13.threads",
                            &[
                                ("over", over_capacity),
                                ("off", in_use_off),
                                ("untallied", untallied),
                                ("granted", granted_any),
                                ("after", in_use_after),
                            ],
                        );
                        for (found, key) in [
                            (untallied, "13.threads.untallied"),
                            (waited, "13.threads.waited"),
                            (over_capacity, "13.threads.over"),
                            (in_use_off, "13.threads.in_use_off"),
                        ] {
                            if *found {
                                text.push_str(&format!(" ({})", t(key)));
                            }
                        }
                        text
                    }
                })
                .collect();
            format!("Gate::new → Ok; answers: [{}]", items.join(", "))
        }
        Observed::FanOut(f) => {
            let mut lines = vec![match &f.result {
                Outcome::InvalidArgument => "Err(FanOutError::InvalidArgument)".to_string(),
                Outcome::Rejected => "Err(FanOutError::Rejected)".to_string(),
                Outcome::Panicked => t("13.panicked"),
                Outcome::Ok { reports } => {
                    let items: Vec<String> = reports
                        .iter()
                        .map(|r| format!("{:?}: {}", r.supplier, outcome_rust(&r.outcome)))
                        .collect();
                    format!("Ok([{}])", items.join(", "))
                }
            }];
            for (k, line) in f.timelines.iter().enumerate() {
                let name = f
                    .names
                    .get(k)
                    .map_or_else(String::new, |n| format!("{n:?} "));
                let head = tr("13.task", &[("name", &name), ("k", &k)]);
                if line.is_empty() {
                    lines.push(format!("  {head} -"));
                } else {
                    lines.push(format!("  {head}"));
                    lines.extend(line.iter().map(|e| format!("    {}", event_text(e))));
                }
            }
            lines.push(tr(
                "13.summary",
                &[
                    ("at", &float(f.returned_at.0)),
                    ("runs", &f.run_all_calls),
                    (
                        "first",
                        &f.in_use_at_run_all
                            .map_or_else(|| "-".to_string(), |n| n.to_string()),
                    ),
                    ("after", &f.in_use_after),
                ],
            ));
            for br in &f.breaches {
                lines.push(tr(
                    "13.breach",
                    &[
                        ("rule", &t(&format!("13.rule.{}", br.rule))),
                        (
                            "task",
                            &br.task.map_or_else(|| "-".to_string(), |k| k.to_string()),
                        ),
                        ("at", &float(br.at.0)),
                    ],
                ));
            }
            lines.join("\n")
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod threads_tests {
    use super::*;

    /// The threads op is shown as Rust that runs, not as a comment.
    #[test]
    fn a_threads_op_is_shown_as_code() {
        let shown = gate_op_rust(&GateOp::Threads { threads: 3 }, &mut 0, &mut Vec::new());
        assert!(!shown.trim_start().starts_with("//"), "{shown}");
        for part in [
            "std::thread::scope",
            "for _ in 0..3",
            "for _ in 0..1000",
            "gate.try_acquire()",
            "drop(pass);",
        ] {
            assert!(shown.contains(part), "{part}: {shown}");
        }
        assert_eq!(
            shown.matches('{').count(),
            shown.matches('}').count(),
            "{shown}"
        );
    }
}
