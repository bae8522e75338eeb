//! How step 08 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::catalog::{t, tr};
use crate::oracle;
use crate::show::{float, opt_str};
use lab_wire::{Call, Scenario, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Execute { scenario } => scenario_text(scenario),
        other => format!("{other:?}"),
    }
}

fn scenario_text(s: &Scenario) -> String {
    let mut out = format!(
        "execute(.., Options {{ method: {:?}, key: {}, timeout: {}, maximum: {} }}, ..)\n",
        s.method,
        opt_str(&s.key),
        float(s.timeout.0),
        s.maximum
    );
    out += &format!(
        "    {}",
        tr("scenario.clock", &[("start", &float(s.start.0))])
    );
    if s.gap.0 != 0.0 {
        out += &tr("scenario.gap", &[("gap", &float(s.gap.0))]);
    }
    out += "\n";
    for (i, r) in s.replies.iter().enumerate() {
        let response = format!(
            "Response {{ status: {}, retry_after: {}, body: {:?} }}",
            r.status,
            opt_str(&r.retry_after),
            r.body
        );
        let args: [(&str, &dyn std::fmt::Display); 3] = [
            ("n", &(i + 1)),
            ("response", &response),
            ("cost", &float(r.cost.0)),
        ];
        out += &format!("    {}\n", tr("scenario.send", &args));
    }
    out += &format!(
        "    {}\n",
        tr("scenario.later", &[("cost", &float(s.fallback.cost.0))])
    );
    let list = |xs: &[lab_wire::F64]| xs.iter().map(|x| float(x.0)).collect::<Vec<_>>().join(", ");
    // Past its list the world's random_fraction() returns 0.0.
    let fractions = if s.fractions.is_empty() {
        t("scenario.no_fractions")
    } else {
        tr("scenario.fractions", &[("list", &list(&s.fractions))])
    };
    out += &format!("    {fractions}");
    if s.oversleep.iter().any(|x| x.0 != 0.0) {
        out += &format!(
            "\n    {}",
            tr("scenario.oversleep", &[("list", &list(&s.oversleep))])
        );
    }
    out
}

/// Simpler worlds for a failing scenario: fewer replies, no oversleep, no
/// gap, round times and fractions, a smaller attempt limit. Every one is
/// still a world in which a correct `execute` ends (replies run out into the
/// final 200).
fn simpler_scenarios(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut with = |change: &dyn Fn(&mut Scenario)| {
        let mut t = s.clone();
        change(&mut t);
        if t != *s {
            out.push(t);
        }
    };
    with(&|t| {
        t.replies.pop();
    });
    with(&|t| t.oversleep.iter_mut().for_each(|x| *x = F64(0.0)));
    with(&|t| t.gap = F64(0.0));
    with(&|t| t.start = F64(0.0));
    with(&|t| t.timeout = F64(t.timeout.0.ceil()));
    with(&|t| t.maximum = t.maximum.min(t.replies.len() as u32 + 1).max(1));
    for k in 0..s.replies.len() {
        with(&|t| t.replies[k].cost = F64((t.replies[k].cost.0 * 4.0).round() / 4.0));
        with(&|t| t.replies[k].retry_after = None);
    }
    for k in 0..s.fractions.len() {
        for f in [0.0, 1.0, 0.5] {
            with(&|t| t.fractions[k] = F64(f));
        }
    }
    with(&|t| t.fallback.cost = F64(0.25));
    out
}

pub fn shrink(call: &Call) -> Vec<Call> {
    match call {
        Call::Execute { scenario } => simpler_scenarios(scenario)
            .into_iter()
            .map(|s| Call::Execute { scenario: s })
            .collect(),
        _ => Vec::new(),
    }
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Execute { scenario } => {
            let (events, ending) = oracle::execute(scenario);
            Some(Expect::Trace { events, ending })
        }
        _ => None,
    }
}

/// When each expected event happens, for the timeline.
pub fn times(call: &Call) -> Vec<f64> {
    match call {
        Call::Execute { scenario } => oracle::execute_timed(scenario).2,
        _ => Vec::new(),
    }
}
