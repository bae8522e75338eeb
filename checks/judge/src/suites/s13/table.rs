//! Step 13's hand table: `cases.json` cases read into scripts
//! and the observations they expect.

use crate::suites::fixture;
use lab_scripts::s13::{
    Answer, Attempt, Event, FanOutScript, FanOutSeen, GateAnswer, GateOp, GateScript, Given,
    HttpScript, Observed, Outcome, Report, Request, Script, SupplierOutcome, SupplierScript,
};
use lab_wire::F64;
use serde_json::Value;

fn bad(what: &str, case: &Value) -> ! {
    panic!("13.json: {what} in {case}")
}

fn num(t: &str, case: &Value) -> f64 {
    t.parse()
        .unwrap_or_else(|_| bad(&format!("bad number {t:?}"), case))
}

fn int<T: std::str::FromStr>(t: &str, case: &Value) -> T {
    t.parse()
        .unwrap_or_else(|_| bad(&format!("bad integer {t:?}"), case))
}

/// `acquire`, `drop N`, `panic_holding`, `in_use`, `threads T`.
fn table_gate_op(t: &str, case: &Value) -> GateOp {
    let words: Vec<&str> = t.split(' ').collect();
    match words[..] {
        ["acquire"] => GateOp::Acquire,
        ["drop", n] => GateOp::Drop { pass: int(n, case) },
        ["panic_holding"] => GateOp::PanicHolding,
        ["in_use"] => GateOp::InUse,
        ["threads", th] => GateOp::Threads {
            threads: int(th, case),
        },
        _ => bad(&format!("unknown gate op {t:?}"), case),
    }
}

/// `Some`/`None` for acquisitions, a number for `in_use`, `ok` for threads.
fn table_gate_answer(op: &GateOp, t: &str, case: &Value) -> GateAnswer {
    let got = || match t {
        "Some" => true,
        "None" => false,
        _ => bad(&format!("{t:?} is not Some or None"), case),
    };
    match op {
        GateOp::Acquire => GateAnswer::Acquire { got: got() },
        GateOp::PanicHolding => GateAnswer::PanicHolding { got: got() },
        GateOp::InUse => GateAnswer::InUse {
            value: int(t, case),
        },
        GateOp::Threads { .. } if t == "ok" => GateAnswer::Threads {
            over_capacity: false,
            in_use_off: false,
            untallied: false,
            waited: false,
            granted_any: true,
            in_use_after: 0,
        },
        _ => bad(&format!("no answer {t:?} for {op:?}"), case),
    }
}

/// `503`, `offer U*Q+S`, `offer-out U*Q+S`, `connect`,
/// `connect-timeout`, `read`, `read-timeout`, `write`, `write-timeout`,
/// `remote-protocol`, `pool-timeout`, `local-protocol`, `decode`,
/// `timed-out`, `panic`.
fn table_answer(t: &str, case: &Value) -> Answer {
    let (kind, rest) = t.split_once(' ').unwrap_or((t, ""));
    let offer = |in_stock| {
        let (u, qs) = rest
            .split_once('*')
            .unwrap_or_else(|| bad(&format!("offer {rest:?}"), case));
        let (q, s) = qs
            .split_once('+')
            .unwrap_or_else(|| bad(&format!("offer {rest:?}"), case));
        Answer::Offer {
            unit_cents: int(u, case),
            quantity: int(q, case),
            shipping_cents: int(s, case),
            in_stock,
        }
    };
    match kind {
        "offer" => offer(true),
        "offer-out" => offer(false),
        "connect" => Answer::Connect,
        "connect-timeout" => Answer::ConnectTimeout,
        "read" => Answer::Read,
        "read-timeout" => Answer::ReadTimeout,
        "write" => Answer::Write,
        "write-timeout" => Answer::WriteTimeout,
        "remote-protocol" => Answer::RemoteProtocol,
        "pool-timeout" => Answer::PoolTimeout,
        "local-protocol" => Answer::LocalProtocol,
        "decode" => Answer::Decode,
        "timed-out" => Answer::TimedOut,
        "panic" => Answer::Panic,
        status => Answer::Status {
            status: int(status, case),
        },
    }
}

/// `quote N`, `out-of-stock`, `not-found`, `http N`, `transport-error`,
/// `bad-data`, `protocol`, `decode`, `timed-out`.
fn table_outcome(t: &str, case: &Value) -> SupplierOutcome {
    let (kind, rest) = t.split_once(' ').unwrap_or((t, ""));
    match kind {
        "quote" => SupplierOutcome::Quote {
            total_cents: int(rest, case),
        },
        "out-of-stock" => SupplierOutcome::OutOfStock,
        "not-found" => SupplierOutcome::NotFound,
        "http" => SupplierOutcome::HttpStatus {
            status: int(rest, case),
        },
        "transport-error" => SupplierOutcome::TransportError,
        "bad-data" => SupplierOutcome::BadData,
        "protocol" => SupplierOutcome::Protocol,
        "decode" => SupplierOutcome::Decode,
        "timed-out" => SupplierOutcome::TimedOut,
        _ => bad(&format!("unknown outcome {t:?}"), case),
    }
}

fn from_table_gate(case: &Value) -> (Script, Observed) {
    let capacity = fixture::uint(case, "gate") as u32;
    let ops: Vec<GateOp> = case["ops"]
        .as_array()
        .unwrap_or_else(|| bad("ops must be a list", case))
        .iter()
        .map(|o| table_gate_op(o.as_str().unwrap_or_default(), case))
        .collect();
    let expect = match &case["expect"] {
        Value::String(r) if r == "rejected" => None,
        Value::Array(items) => {
            let answering = ops.iter().filter(|o| !matches!(o, GateOp::Drop { .. }));
            assert_eq!(items.len(), answering.clone().count(), "13.json: {case}");
            Some(
                answering
                    .zip(items)
                    .map(|(op, a)| table_gate_answer(op, a.as_str().unwrap_or_default(), case))
                    .collect(),
            )
        }
        _ => bad("expect must be \"rejected\" or a list", case),
    };
    (
        Script::Gate(GateScript { capacity, ops }),
        Observed::Gate { answers: expect },
    )
}

/// A table timeline entry: `T call TIMEOUT`, `T pause S`,
/// `wait FROM-T got|none` or `T cancelled`. A call's return time and answer are the world's
/// (its script, its timeout), filled in here in order.
fn table_event(
    t: &str,
    case: &Value,
    s: &FanOutScript,
    sup: &SupplierScript,
    calls: &mut usize,
) -> Event {
    let words: Vec<&str> = t.split(' ').collect();
    match words[..] {
        [at, "call", timeout] => {
            let (at, timeout) = (num(at, case), num(timeout, case));
            let a = &sup.attempts[(*calls).min(sup.attempts.len() - 1)];
            *calls += 1;
            let (ended, answer) = if a.cost.0 < timeout {
                (at + a.cost.0, a.answer)
            } else {
                (at + timeout, Answer::TimedOut)
            };
            Event::Call {
                at: F64(at),
                timeout: F64(timeout),
                id: s.request.id.clone(),
                item: s.request.item.clone(),
                quantity: s.request.quantity,
                ended: F64(ended),
                answer,
            }
        }
        [at, "cancelled"] => Event::Cancelled {
            at: F64(num(at, case)),
        },
        [at, "pause", seconds] => Event::Pause {
            at: F64(num(at, case)),
            seconds: F64(num(seconds, case)),
        },
        ["wait", span, got] => {
            let (from, at) = span
                .split_once('-')
                .unwrap_or_else(|| bad(&format!("wait span {span:?}"), case));
            Event::SlotWait {
                from: F64(num(from, case)),
                at: F64(num(at, case)),
                got: got == "got",
            }
        }
        _ => bad(&format!("unknown event {t:?}"), case),
    }
}

fn from_table_fan(case: &Value) -> (Script, Observed) {
    let r = &case["request"];
    let request = Request {
        id: r[0]
            .as_str()
            .unwrap_or_else(|| bad("request id", case))
            .into(),
        item: r[1]
            .as_str()
            .unwrap_or_else(|| bad("request item", case))
            .into(),
        quantity: r[2]
            .as_u64()
            .unwrap_or_else(|| bad("request quantity", case)) as u32,
    };
    let suppliers: Vec<SupplierScript> = case["suppliers"]
        .as_array()
        .unwrap_or_else(|| bad("suppliers must be a list", case))
        .iter()
        .map(|sup| SupplierScript {
            name: sup["name"]
                .as_str()
                .unwrap_or_else(|| bad("name", case))
                .into(),
            attempts: sup["attempts"]
                .as_array()
                .unwrap_or_else(|| bad("attempts must be a list", case))
                .iter()
                .map(|a| {
                    let a = a.as_str().unwrap_or_default();
                    let (cost, answer) = a
                        .split_once(' ')
                        .unwrap_or_else(|| bad(&format!("attempt {a:?}"), case));
                    Attempt {
                        cost: F64(num(cost, case)),
                        answer: table_answer(answer, case),
                    }
                })
                .collect(),
            fractions: sup["fractions"]
                .as_array()
                .map(|fs| {
                    fs.iter()
                        .map(|f| F64(num(f.as_str().unwrap_or_default(), case)))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let s = FanOutScript {
        request,
        suppliers,
        slots: fixture::uint(case, "slots") as u32,
        capacity: fixture::uint(case, "capacity") as u32,
        held: fixture::uint(case, "held") as u32,
        start: F64(fixture::float(case, "start")),
        deadline: F64(fixture::float(case, "deadline")),
    };
    let n = s.suppliers.len();
    let e = &case["expect"];
    let none = |result| FanOutSeen {
        names: s.suppliers.iter().map(|x| x.name.clone()).collect(),
        result,
        in_use_at_run_all: None,
        in_use_after: s.held,
        run_all_calls: 0,
        returned_at: s.start,
        timelines: vec![Vec::new(); n],
        breaches: Vec::new(),
    };
    let seen = match e {
        Value::String(x) if x == "invalid-argument" => none(Outcome::InvalidArgument),
        Value::String(x) if x == "rejected" => none(Outcome::Rejected),
        Value::Object(_) => {
            let reports = match &e["reports"] {
                Value::String(x) if x == "panicked" => None,
                r => Some(
                    r.as_array()
                        .unwrap_or_else(|| bad("reports must be a list or \"panicked\"", case))
                        .iter()
                        .map(|pair| Report {
                            supplier: pair[0].as_str().unwrap_or_default().into(),
                            outcome: table_outcome(pair[1].as_str().unwrap_or_default(), case),
                        })
                        .collect(),
                ),
            };
            let timelines = s
                .suppliers
                .iter()
                .map(|sup| {
                    let mut calls = 0;
                    e["timelines"][&sup.name]
                        .as_array()
                        .map(|evs| {
                            evs.iter()
                                .map(|ev| {
                                    table_event(
                                        ev.as_str().unwrap_or_default(),
                                        case,
                                        &s,
                                        sup,
                                        &mut calls,
                                    )
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect();
            FanOutSeen {
                names: s.suppliers.iter().map(|x| x.name.clone()).collect(),
                result: reports.map_or(Outcome::Panicked, |reports| Outcome::Ok { reports }),
                in_use_at_run_all: Some(s.held + 1),
                in_use_after: s.held,
                run_all_calls: 1,
                returned_at: F64(fixture::float(e, "returned_at")),
                timelines,
                breaches: Vec::new(),
            }
        }
        _ => bad(
            "expect must be invalid-argument, rejected or an object",
            case,
        ),
    };
    (Script::FanOut(s), Observed::FanOut(seen))
}

/// `to_http`: `"rejected"`, `"invalid-argument"` or a list of
/// `[supplier, outcome]` reports (an `Ok`); expect `"STATUS"` or
/// `"STATUS retry-after N"`.
fn from_table_http(case: &Value) -> (Script, Observed) {
    let given = match &case["to_http"] {
        Value::String(x) if x == "rejected" => Given::Rejected,
        Value::String(x) if x == "invalid-argument" => Given::InvalidArgument,
        Value::Array(reports) => Given::Ok {
            reports: reports
                .iter()
                .map(|pair| Report {
                    supplier: pair[0].as_str().unwrap_or_default().into(),
                    outcome: table_outcome(pair[1].as_str().unwrap_or_default(), case),
                })
                .collect(),
        },
        _ => bad(
            "to_http must be rejected, invalid-argument or a list of reports",
            case,
        ),
    };
    let expect = case["expect"]
        .as_str()
        .unwrap_or_else(|| bad("expect must be a string", case));
    let words: Vec<&str> = expect.split(' ').collect();
    let (status, retry_after) = match words[..] {
        [status] => (int(status, case), None),
        [status, "retry-after", n] => (int(status, case), Some(int(n, case))),
        _ => bad(&format!("expect {expect:?}"), case),
    };
    (
        Script::Http(HttpScript { given }),
        Observed::Http {
            status,
            retry_after,
        },
    )
}

pub(super) fn from_table(case: &Value) -> (Script, Observed) {
    if case.get("gate").is_some() {
        from_table_gate(case)
    } else if case.get("to_http").is_some() {
        from_table_http(case)
    } else {
        from_table_fan(case)
    }
}
