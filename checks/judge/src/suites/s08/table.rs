//! How step 08 reads its hand table: scenarios with hand-computed traces
//! (`cases.json`).

use super::super::{fixture, Builder, Expect};
use super::generate::Plan;
use crate::rng::Gen;
use lab_wire::{Call, Ending, Event, Reply, Scenario, F64};
use serde_json::Value;

pub(super) fn from_table(b: &mut Builder, g: &mut Gen, case: &Value) {
    let mut plan = Plan::new(
        g,
        fixture::float(case, "timeout"),
        fixture::uint(case, "maximum") as u32,
    );
    plan.method = fixture::opt_text(case, "method").expect("method is a string");
    plan.key = fixture::opt_text(case, "key");
    plan.start = fixture::float(case, "start");
    plan.gap = fixture::float(case, "gap");
    plan.fallback_cost = fixture::float(case, "fallback_cost");
    for r in case["replies"].as_array().expect("replies is a list") {
        let status = fixture::uint(r, "status") as u16;
        plan.replies.push((
            status,
            fixture::opt_text(r, "retry_after"),
            fixture::float(r, "cost"),
        ));
    }
    let floats = |field: &str| -> Vec<f64> {
        let list = case[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field} is a list"));
        list.iter()
            .map(|v| v.as_str().and_then(|t| t.parse().ok()).expect("float text"))
            .collect()
    };
    plan.oversleep = floats("oversleep");
    plan.fractions = floats("fractions");
    let scenario = plan.finish(g);
    let expect = &case["expect"];
    let events = expect["events"]
        .as_array()
        .expect("expect.events is a list")
        .iter()
        .map(|e| parse_event(e.as_str().expect("event text")))
        .collect();
    let ending = parse_ending(expect["result"].as_str().expect("expect.result"), &scenario);
    b.add(
        fixture::clause(case),
        Call::Execute {
            scenario: Box::new(scenario),
        },
        Expect::Trace {
            events,
            ending: Box::new(ending),
            timeouts: true,
        },
    );
}

fn parse_event(text: &str) -> Event {
    let (kind, value) = text
        .split_once(' ')
        .unwrap_or_else(|| panic!("bad event {text:?}"));
    let value = F64(value
        .parse()
        .unwrap_or_else(|_| panic!("bad event value {text:?}")));
    match kind {
        "send" => Event::Send { timeout: value },
        "sleep" => Event::Sleep { seconds: value },
        _ => panic!("bad event kind {text:?}"),
    }
}

fn parse_ending(text: &str, s: &Scenario) -> Ending {
    let ok = |r: &Reply| Ending::Ok {
        status: r.status,
        retry_after: r.retry_after.clone(),
        body: r.body.clone(),
    };
    match text.split_once(' ') {
        Some(("ok", "fallback")) => ok(&s.fallback),
        Some(("ok", k)) => ok(&s.replies[k.parse::<usize>().expect("reply index")]),
        _ if text == "timeout" => Ending::Timeout,
        _ if text == "invalid-argument" => Ending::InvalidArgument,
        _ => panic!("bad result {text:?}"),
    }
}
