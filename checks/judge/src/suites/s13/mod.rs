//! Step 13 Gate and fan_out: the table, then generated scripts per clause,
//! then random ones. Gate scripts are checked against the obvious counter;
//! fan-out scenarios against the judge's own single-threaded simulation of
//! a correct `fan_out` in the baton world (see `model`), which shares no
//! code with the runner's `Env`.

use super::{fixture, show_answer, Builder, Observable};
use crate::catalog::{t, tr};
use crate::rng::Gen;
use crate::show::float;
use lab_wire::scripts::s13::{
    Answer, Attempt, Event, FanOutScript, FanOutSeen, GateAnswer, GateOp, GateScript, Observed,
    Outcome, Report, Request, Script, SupplierOutcome, SupplierScript,
};
use lab_wire::F64;
use serde_json::Value;
use std::collections::VecDeque;

const STEP: &str = "13";
const PAUSE_MIN: f64 = 0.0625;
const PAUSE_SPREAD: f64 = 0.0625;

// ---------------------------------------------------------------- models

/// The judge's model of a correct `Gate` (a counter up to the capacity).
pub fn gate_model(s: &GateScript) -> Observed {
    if s.capacity == 0 {
        return Observed::Gate { answers: None };
    }
    let mut used = 0u32;
    let mut passes: Vec<bool> = Vec::new();
    let mut answers = Vec::new();
    for op in &s.ops {
        match op {
            GateOp::Acquire => {
                let got = used < s.capacity;
                used += u32::from(got);
                passes.push(got);
                answers.push(GateAnswer::Acquire { got });
            }
            GateOp::Drop { pass } => {
                if let Some(p) = passes.get_mut(*pass) {
                    used -= u32::from(*p);
                    *p = false;
                }
            }
            GateOp::PanicHolding => answers.push(GateAnswer::PanicHolding {
                got: used < s.capacity,
            }),
            GateOp::InUse => answers.push(GateAnswer::InUse { value: used }),
            GateOp::Threads { .. } => answers.push(GateAnswer::Threads {
                over_capacity: false,
                granted_any: used < s.capacity,
                in_use_after: used,
            }),
        }
    }
    Observed::Gate {
        answers: Some(answers),
    }
}

fn transient(a: &Answer) -> bool {
    matches!(
        a,
        Answer::Status { status: 503 } | Answer::ConnectionRefused | Answer::ConnectionReset
    )
}

/// The final outcome of an attempt's answer; `None` when transient.
fn classify(a: &Answer, quantity: u32) -> Option<SupplierOutcome> {
    Some(match *a {
        Answer::Offer {
            in_stock: false, ..
        } => SupplierOutcome::OutOfStock,
        Answer::Offer {
            unit_cents,
            quantity: q,
            shipping_cents,
            ..
        } => {
            let total = (q == quantity && unit_cents >= 0 && shipping_cents >= 0)
                .then(|| (unit_cents as u128) * u128::from(q) + shipping_cents as u128)
                .and_then(|t| u64::try_from(t).ok());
            match total {
                Some(total_cents) => SupplierOutcome::Quote { total_cents },
                None => SupplierOutcome::BadData,
            }
        }
        _ if transient(a) => return None,
        Answer::Status { status: 404 } => SupplierOutcome::NotFound,
        Answer::Status { status } => SupplierOutcome::HttpStatus { status },
        Answer::TimedOut => SupplierOutcome::TimedOut,
        Answer::Protocol => SupplierOutcome::Protocol,
        Answer::Decode => SupplierOutcome::Decode,
        Answer::Panic => SupplierOutcome::Panicked,
        Answer::ConnectionRefused | Answer::ConnectionReset => unreachable!("transient"),
    })
}

fn valid(s: &FanOutScript) -> bool {
    let names: Vec<&str> = s.suppliers.iter().map(|x| x.name.as_str()).collect();
    let distinct = names
        .iter()
        .enumerate()
        .all(|(i, n)| !names[..i].contains(n));
    !names.is_empty()
        && names.iter().all(|n| !n.is_empty())
        && distinct
        && s.request.quantity > 0
        && !s.request.id.trim().is_empty()
        && s.deadline.0.is_finite()
}

/// Where a simulated task is in its program.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pc {
    Acquire,
    Waited,
    Called,
    Paused,
}

#[derive(Debug)]
struct Sim {
    pc: Pc,
    second: bool,
    runnable: bool,
    done: bool,
    /// `Some(t)`: blocked until t (a call, a pause, a slot wait's deadline).
    wake: Option<f64>,
    waiting: bool,
    granted: bool,
    wait_from: f64,
    answer: Answer,
    calls: usize,
    outcome: Option<SupplierOutcome>,
    events: Vec<Event>,
}

/// The judge's own simulation of a correct `fan_out` in the baton world:
/// tasks that can run go in index order, each until it calls, sleeps,
/// waits for a slot or ends; time jumps only when none can run.
pub fn fan_model(s: &FanOutScript) -> FanOutSeen {
    let n = s.suppliers.len();
    let names: Vec<String> = s.suppliers.iter().map(|x| x.name.clone()).collect();
    let empty = |result| FanOutSeen {
        names: names.clone(),
        result,
        in_use_at_run_all: None,
        in_use_after: s.held,
        run_all_calls: 0,
        returned_at: s.start,
        timelines: vec![Vec::new(); n],
        breaches: Vec::new(),
    };
    if !valid(s) {
        return empty(Outcome::InvalidArgument);
    }
    if s.held >= s.capacity {
        return empty(Outcome::Rejected);
    }
    let deadline = s.deadline.0;
    let mut now = s.start.0;
    let mut free = s.slots;
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut tasks: Vec<Sim> = (0..n)
        .map(|_| Sim {
            pc: Pc::Acquire,
            second: false,
            runnable: true,
            done: false,
            wake: None,
            waiting: false,
            granted: false,
            wait_from: 0.0,
            answer: Answer::Protocol,
            calls: 0,
            outcome: None,
            events: Vec::new(),
        })
        .collect();
    loop {
        if let Some(k) = tasks.iter().position(|t| t.runnable && !t.done) {
            // Run task k until it gives way.
            loop {
                let t = &mut tasks[k];
                let holding;
                match t.pc {
                    Pc::Acquire => {
                        if now >= deadline {
                            t.outcome = Some(SupplierOutcome::TimedOut);
                            t.done = true;
                            break;
                        }
                        if free == 0 {
                            queue.push_back(k);
                            t.waiting = true;
                            t.granted = false;
                            t.wait_from = now;
                            t.wake = Some(deadline);
                            t.runnable = false;
                            t.pc = Pc::Waited;
                            break;
                        }
                        free -= 1;
                        holding = true;
                    }
                    Pc::Waited => {
                        t.events.push(Event::SlotWait {
                            from: F64(t.wait_from),
                            at: F64(now),
                            got: t.granted,
                        });
                        if !t.granted {
                            t.outcome = Some(SupplierOutcome::TimedOut);
                            t.done = true;
                            break;
                        }
                        holding = true;
                    }
                    Pc::Called => {
                        // The slot goes back at once, to the first waiter.
                        match queue.pop_front() {
                            Some(w) => {
                                let w = &mut tasks[w];
                                w.granted = true;
                                w.waiting = false;
                                w.wake = None;
                                w.runnable = true;
                            }
                            None => free += 1,
                        }
                        let t = &mut tasks[k];
                        match classify(&t.answer, s.request.quantity) {
                            Some(outcome) => {
                                t.outcome = Some(outcome);
                                t.done = true;
                            }
                            None if t.second => {
                                t.outcome = Some(SupplierOutcome::Unavailable);
                                t.done = true;
                            }
                            None => {
                                let supplier = &s.suppliers[k];
                                let f = supplier.fractions.first().map_or(0.0, |f| f.0);
                                let pause = PAUSE_MIN + PAUSE_SPREAD * f;
                                if now + pause >= deadline {
                                    t.outcome = Some(SupplierOutcome::TimedOut);
                                    t.done = true;
                                } else {
                                    t.events.push(Event::Pause {
                                        at: F64(now),
                                        seconds: F64(pause),
                                    });
                                    t.wake = Some(now + pause);
                                    t.runnable = false;
                                    t.second = true;
                                    t.pc = Pc::Paused;
                                }
                            }
                        }
                        break;
                    }
                    Pc::Paused => {
                        t.pc = Pc::Acquire;
                        continue;
                    }
                }
                if holding {
                    let supplier = &s.suppliers[k];
                    let scripted = &supplier.attempts[t.calls.min(supplier.attempts.len() - 1)];
                    t.calls += 1;
                    let timeout = deadline - now;
                    let (ended, answer) = if scripted.cost.0 < timeout {
                        (now + scripted.cost.0, scripted.answer)
                    } else {
                        (now + timeout, Answer::TimedOut)
                    };
                    t.events.push(Event::Call {
                        at: F64(now),
                        timeout: F64(timeout),
                        id: s.request.id.clone(),
                        item: s.request.item.clone(),
                        quantity: s.request.quantity,
                        ended: F64(ended),
                        answer,
                    });
                    t.answer = answer;
                    t.wake = Some(ended);
                    t.runnable = false;
                    t.pc = Pc::Called;
                    break;
                }
            }
            continue;
        }
        let next = tasks
            .iter()
            .filter(|t| !t.done)
            .filter_map(|t| t.wake)
            .fold(f64::INFINITY, f64::min);
        if next == f64::INFINITY {
            break;
        }
        now = now.max(next);
        for (i, t) in tasks.iter_mut().enumerate() {
            if !t.done && t.wake.is_some_and(|w| w <= now) {
                t.wake = None;
                t.runnable = true;
                if t.waiting {
                    t.waiting = false;
                    t.granted = false;
                    queue.retain(|&q| q != i);
                }
            }
        }
    }
    let mut reports: Vec<Report> = s
        .suppliers
        .iter()
        .zip(&tasks)
        .map(|(sup, t)| Report {
            supplier: sup.name.clone(),
            outcome: t.outcome.unwrap_or(SupplierOutcome::TimedOut),
        })
        .collect();
    reports.sort_by(|a, b| rank(a).cmp(&rank(b)));
    FanOutSeen {
        names,
        result: Outcome::Ok { reports },
        in_use_at_run_all: Some(s.held + 1),
        in_use_after: s.held,
        run_all_calls: 1,
        returned_at: F64(now),
        timelines: tasks.into_iter().map(|t| t.events).collect(),
        breaches: Vec::new(),
    }
}

fn rank(r: &Report) -> (bool, u64, &str) {
    match r.outcome {
        SupplierOutcome::Quote { total_cents } => (false, total_cents, &r.supplier),
        _ => (true, 0, &r.supplier),
    }
}

pub fn model(s: &Script) -> Observed {
    match s {
        Script::Gate(g) => gate_model(g),
        Script::FanOut(f) => Observed::FanOut(fan_model(f)),
    }
}

// ---------------------------------------------------------------- table

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

/// `acquire`, `drop N`, `panic_holding`, `in_use`, `threads T R`.
fn table_gate_op(t: &str, case: &Value) -> GateOp {
    let words: Vec<&str> = t.split(' ').collect();
    match words[..] {
        ["acquire"] => GateOp::Acquire,
        ["drop", n] => GateOp::Drop { pass: int(n, case) },
        ["panic_holding"] => GateOp::PanicHolding,
        ["in_use"] => GateOp::InUse,
        ["threads", th, r] => GateOp::Threads {
            threads: int(th, case),
            rounds: int(r, case),
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
            granted_any: true,
            in_use_after: 0,
        },
        _ => bad(&format!("no answer {t:?} for {op:?}"), case),
    }
}

/// `503`, `offer U*Q+S`, `offer-out U*Q+S`, `refused`, `reset`,
/// `timed-out`, `protocol`, `decode`, `panic`.
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
        "refused" => Answer::ConnectionRefused,
        "reset" => Answer::ConnectionReset,
        "timed-out" => Answer::TimedOut,
        "protocol" => Answer::Protocol,
        "decode" => Answer::Decode,
        "panic" => Answer::Panic,
        status => Answer::Status {
            status: int(status, case),
        },
    }
}

/// `quote N`, `out-of-stock`, `not-found`, `http N`, `unavailable`,
/// `bad-data`, `protocol`, `decode`, `panicked`, `timed-out`.
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
        "unavailable" => SupplierOutcome::Unavailable,
        "bad-data" => SupplierOutcome::BadData,
        "protocol" => SupplierOutcome::Protocol,
        "decode" => SupplierOutcome::Decode,
        "panicked" => SupplierOutcome::Panicked,
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

/// A table timeline entry: `T call TIMEOUT`, `T pause S` or
/// `wait FROM-T got|none`. A call's return time and answer are the world's
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
            let reports = e["reports"]
                .as_array()
                .unwrap_or_else(|| bad("reports must be a list", case))
                .iter()
                .map(|pair| Report {
                    supplier: pair[0].as_str().unwrap_or_default().into(),
                    outcome: table_outcome(pair[1].as_str().unwrap_or_default(), case),
                })
                .collect();
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
                result: Outcome::Ok { reports },
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

fn from_table(case: &Value) -> (Script, Observed) {
    if case.get("gate").is_some() {
        from_table_gate(case)
    } else {
        from_table_fan(case)
    }
}

// ---------------------------------------------------------------- generation

const NAMES: [&str; 12] = [
    "acme", "bolt-co", "cogs", "delta", "echo", "fixit", "gizmo", "hexa", "Zeta", "b", "a2",
    "äpfel",
];
const ITEMS: [&str; 4] = ["bolt", "nut", "gear", "valve"];
const NOT_RETRIED: [Answer; 8] = [
    Answer::Status { status: 404 },
    Answer::Status { status: 429 },
    Answer::Status { status: 500 },
    Answer::Status { status: 502 },
    Answer::Protocol,
    Answer::Decode,
    Answer::Status { status: 400 },
    Answer::Status { status: 504 },
];
const TRANSIENT: [Answer; 3] = [
    Answer::Status { status: 503 },
    Answer::ConnectionRefused,
    Answer::ConnectionReset,
];

fn request(g: &mut Gen) -> Request {
    Request {
        id: g.id("q-"),
        item: g.pick(&ITEMS).to_string(),
        quantity: g.int(1, 5) as u32,
    }
}

/// `n` distinct names, in a random order.
fn names(g: &mut Gen, n: usize) -> Vec<String> {
    let mut pool: Vec<&str> = NAMES.to_vec();
    (0..n)
        .map(|_| pool.remove(g.below(pool.len() as u64) as usize).to_string())
        .collect()
}

fn offer(g: &mut Gen, quantity: u32) -> Answer {
    Answer::Offer {
        unit_cents: g.int(1, 5000),
        quantity,
        shipping_cents: g.int(0, 900),
        in_stock: true,
    }
}

/// Any answer that ends a supplier's work, bad data included.
fn final_answer(g: &mut Gen, quantity: u32) -> Answer {
    match g.below(8) {
        0..=2 => offer(g, quantity),
        3 => Answer::Offer {
            unit_cents: g.int(1, 900),
            quantity,
            shipping_cents: 0,
            in_stock: false,
        },
        4 => bad_offer(g, quantity),
        _ => *g.pick(&NOT_RETRIED),
    }
}

fn bad_offer(g: &mut Gen, quantity: u32) -> Answer {
    match g.below(4) {
        0 => Answer::Offer {
            unit_cents: -g.int(1, 500),
            quantity,
            shipping_cents: 10,
            in_stock: true,
        },
        1 => Answer::Offer {
            unit_cents: g.int(1, 500),
            quantity,
            shipping_cents: -g.int(1, 500),
            in_stock: true,
        },
        2 => Answer::Offer {
            unit_cents: g.int(1, 500),
            quantity: quantity + g.int(1, 3) as u32,
            shipping_cents: 10,
            in_stock: true,
        },
        _ => Answer::Offer {
            unit_cents: i64::MAX - g.int(0, 1000),
            quantity: quantity.max(2),
            shipping_cents: 0,
            in_stock: true,
        },
    }
}

fn cost(g: &mut Gen) -> F64 {
    F64(g.sixty_fourths(1, 64))
}

fn supplier(g: &mut Gen, name: &str, answers: &[Answer]) -> SupplierScript {
    SupplierScript {
        name: name.into(),
        attempts: answers
            .iter()
            .map(|&answer| Attempt {
                cost: cost(g),
                answer,
            })
            .collect(),
        fractions: vec![F64(g.sixty_fourths(0, 63))],
    }
}

/// A scenario with ample time (no supplier can run out of it).
fn roomy(g: &mut Gen, suppliers: Vec<SupplierScript>, slots: u32) -> FanOutScript {
    let start = g.sixty_fourths(0, 64 * 100);
    let capacity = g.int(1, 3) as u32;
    FanOutScript {
        request: Request {
            id: String::new(),
            item: String::new(),
            quantity: 1,
        },
        suppliers,
        slots,
        capacity,
        held: g.below(u64::from(capacity)) as u32,
        start: F64(start),
        deadline: F64(start + 64.0),
    }
}

/// A roomy scenario for `request` with one supplier per list of answers.
fn scenario(g: &mut Gen, answers: &[Vec<Answer>], slots: u32) -> FanOutScript {
    let req = request(g);
    let names = names(g, answers.len());
    let sups = names
        .iter()
        .zip(answers)
        .map(|(n, a)| supplier(g, n, a))
        .collect();
    let mut s = roomy(g, sups, slots);
    s.request = req;
    s
}

fn quantity_fix(answers: &mut [Vec<Answer>], quantity: u32) {
    for a in answers.iter_mut().flatten() {
        if let Answer::Offer { quantity: q, .. } = a {
            if *q == 0 {
                *q = quantity;
            }
        }
    }
}

/// Answers for a supplier whose offers get the request's quantity later
/// (quantity 0 stands for "the request's").
fn any_offer(g: &mut Gen) -> Answer {
    Answer::Offer {
        unit_cents: g.int(1, 5000),
        quantity: 0,
        shipping_cents: g.int(0, 900),
        in_stock: true,
    }
}

fn gen_scenario(g: &mut Gen, mut answers: Vec<Vec<Answer>>, slots: u32) -> FanOutScript {
    let q = g.int(1, 5) as u32;
    quantity_fix(&mut answers, q);
    let mut s = scenario(g, &answers, slots);
    s.request.quantity = q;
    s
}

fn random_answer(g: &mut Gen, q: u32) -> Answer {
    match g.below(10) {
        0..=2 => *g.pick(&TRANSIENT),
        3 if g.chance(1, 3) => Answer::Panic,
        3 => Answer::TimedOut,
        _ => final_answer(g, q),
    }
}

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "gate-capacity",
        "gate-full-rejects",
        "gate-returns-on-drop",
        "gate-returns-on-panic",
        "gate-threads",
        "invalid-input",
        "rejected-when-full",
        "two-attempts",
        "retry-only-transient",
        "classification",
        "same-request-id",
        "pause-outside-slot",
        "slot-limit",
        "panic-returns-slot",
        "shared-deadline",
        "timed-out-keeps-finished",
        "ranking",
        "random",
    ];
    let mut b = Builder::new(STEP, &keys);
    for case in fixture::table(STEP) {
        let (s, expect) = from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    let gen = |b: &mut Builder, key: &str, s: Script| {
        let expect = model(&s);
        b.add_script(key, &s, expect);
    };
    let gate = |capacity: u32, ops: Vec<GateOp>| Script::Gate(GateScript { capacity, ops });
    for _ in 0..8 {
        let c = g.int(1, 6) as u32;
        gen(&mut b, "gate-capacity", gate(c, vec![GateOp::InUse]));
        gen(&mut b, "gate-capacity", gate(0, vec![GateOp::InUse]));
        let mut ops = vec![GateOp::Acquire; c as usize + g.int(1, 3) as usize];
        ops.push(GateOp::InUse);
        ops.push(GateOp::Drop { pass: 0 });
        ops.push(GateOp::InUse);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut b, "gate-full-rejects", gate(c, ops));
        let held = g.int(1, i64::from(c)) as usize;
        let mut ops = vec![GateOp::Acquire; held];
        for p in (0..held).rev() {
            ops.push(GateOp::Drop { pass: p });
            ops.push(GateOp::Drop { pass: p });
            ops.push(GateOp::InUse);
        }
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut b, "gate-returns-on-drop", gate(c, ops));
        let held = g.int(0, i64::from(c) - 1) as usize;
        let mut ops = vec![GateOp::Acquire; held];
        ops.extend([
            GateOp::PanicHolding,
            GateOp::InUse,
            GateOp::PanicHolding,
            GateOp::InUse,
        ]);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut b, "gate-returns-on-panic", gate(c, ops));
    }
    for _ in 0..4 {
        let c = g.int(1, 3) as u32;
        gen(
            &mut b,
            "gate-threads",
            gate(
                c,
                vec![
                    GateOp::Threads {
                        threads: g.int(2, 6) as u32,
                        rounds: 200,
                    },
                    GateOp::InUse,
                ],
            ),
        );
    }
    for _ in 0..15 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let mut s = gen_scenario(g, answers, n as u32);
        if g.chance(1, 3) {
            s.held = s.capacity;
        }
        match g.below(6) {
            0 => s.suppliers.clear(),
            1 => {
                let i = g.below(n as u64) as usize;
                s.suppliers[i].name = String::new();
            }
            2 => {
                let copy = s.suppliers[0].clone();
                let at = g.below(n as u64 + 1) as usize;
                s.suppliers.insert(at, copy);
            }
            3 => s.request.quantity = 0,
            4 => s.request.id = g.pick(&["", " ", "\t", " \n ", "\u{3000}"]).to_string(),
            _ => s.deadline = F64(*g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY])),
        }
        gen(&mut b, "invalid-input", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![*g.pick(&TRANSIENT), any_offer(g)])
            .collect();
        let mut s = gen_scenario(g, answers, 1);
        s.held = s.capacity;
        gen(&mut b, "rejected-when-full", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![*g.pick(&TRANSIENT), *g.pick(&TRANSIENT), any_offer(g)])
            .collect();
        let slots = g.int(1, n as i64) as u32;
        gen(
            &mut b,
            "two-attempts",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                let first = if g.chance(1, 3) {
                    *g.pick(&TRANSIENT)
                } else {
                    *g.pick(&NOT_RETRIED)
                };
                vec![first, any_offer(g)]
            })
            .collect();
        let slots = n as u32;
        gen(
            &mut b,
            "retry-only-transient",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        let n = g.int(1, 4) as usize;
        let q = g.int(1, 5) as u32;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                let a = if g.chance(1, 4) {
                    Answer::TimedOut
                } else {
                    final_answer(g, q)
                };
                vec![a, offer(g, q)]
            })
            .collect();
        let mut s = scenario(g, &answers, n as u32);
        s.request.quantity = q;
        gen(&mut b, "classification", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![*g.pick(&TRANSIENT), any_offer(g)])
            .collect();
        let slots = g.int(1, n as i64) as u32;
        gen(
            &mut b,
            "same-request-id",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..12 {
        let n = g.int(2, 4) as usize;
        let mut answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        answers[0] = vec![*g.pick(&TRANSIENT), any_offer(g)];
        if g.chance(1, 2) {
            answers[n - 1] = vec![*g.pick(&TRANSIENT), any_offer(g)];
        }
        let slots = g.int(1, n as i64 - 1) as u32;
        gen(
            &mut b,
            "pause-outside-slot",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..12 {
        let n = g.int(3, 5) as usize;
        let q = g.int(1, 5) as u32;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![final_answer(g, q)]).collect();
        let slots = g.int(1, n as i64 - 1) as u32;
        let mut s = scenario(g, &answers, slots);
        s.request.quantity = q;
        gen(&mut b, "slot-limit", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(2, 4) as usize;
        let mut answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let k = g.below(n as u64) as usize;
        answers[k] = if g.chance(1, 3) {
            vec![*g.pick(&TRANSIENT), Answer::Panic]
        } else {
            vec![Answer::Panic, any_offer(g)]
        };
        let slots = g.int(1, n as i64 - 1) as u32;
        gen(
            &mut b,
            "panic-returns-slot",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        let n = g.int(1, 4) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                if g.chance(1, 2) {
                    vec![*g.pick(&TRANSIENT), any_offer(g)]
                } else {
                    vec![any_offer(g)]
                }
            })
            .collect();
        let slots = g.int(1, n as i64) as u32;
        let mut s = gen_scenario(g, answers, slots);
        let span = if g.chance(1, 8) {
            -g.sixty_fourths(0, 64)
        } else {
            g.sixty_fourths(1, 96)
        };
        s.deadline = F64(s.start.0 + span);
        gen(&mut b, "shared-deadline", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(2, 4) as usize;
        let mut answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let mut s = gen_scenario(g, std::mem::take(&mut answers), n as u32);
        let span = g.sixty_fourths(16, 64);
        s.deadline = F64(s.start.0 + span);
        // At least one finishes well before the deadline, one never does.
        let fast = g.below(n as u64) as usize;
        let slow = (fast + 1 + g.below(n as u64 - 1) as usize) % n;
        s.suppliers[fast].attempts[0].cost = F64(g.sixty_fourths(1, 15));
        s.suppliers[slow].attempts[0].cost = F64(span + g.sixty_fourths(0, 64));
        gen(&mut b, "timed-out-keeps-finished", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(3, 6) as usize;
        let q = g.int(1, 3) as u32;
        let price = g.int(1, 3) * 100;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                vec![if g.chance(2, 3) {
                    Answer::Offer {
                        unit_cents: price + g.int(0, 1) * 50,
                        quantity: q,
                        shipping_cents: g.int(0, 1) * 50,
                        in_stock: true,
                    }
                } else {
                    final_answer(g, q)
                }]
            })
            .collect();
        let mut s = scenario(g, &answers, n as u32);
        s.request.quantity = q;
        gen(&mut b, "ranking", Script::FanOut(s));
    }
    for _ in 0..80 {
        let n = g.int(1, 5) as usize;
        let q = g.int(1, 5) as u32;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![random_answer(g, q), random_answer(g, q)])
            .collect();
        let slots = g.int(1, n as i64 + 1) as u32;
        let mut s = scenario(g, &answers, slots);
        s.request.quantity = q;
        s.deadline = F64(s.start.0 + g.sixty_fourths(-8, 64 * 3));
        if g.chance(1, 10) {
            s.held = s.capacity;
        }
        gen(&mut b, "random", Script::FanOut(s));
    }
    b
}

// ---------------------------------------------------------------- views

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
        (Event::Call { .. } | Event::Pause { .. } | Event::SlotWait { .. }, _) => false,
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

impl Observable for Observed {
    /// Floats with `==` (NaN never matches, -0.0 equals 0.0).
    fn same(&self, got: &Self) -> bool {
        match (self, got) {
            (Observed::Gate { answers: a }, Observed::Gate { answers: b }) => a == b,
            (Observed::FanOut(a), Observed::FanOut(b)) => same_fan(a, b),
            (Observed::Gate { .. } | Observed::FanOut(_), _) => false,
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
        Answer::ConnectionRefused => "ScriptedAnswer::Fail(CallError::ConnectionRefused)".into(),
        Answer::ConnectionReset => "ScriptedAnswer::Fail(CallError::ConnectionReset)".into(),
        Answer::TimedOut => "ScriptedAnswer::Fail(CallError::TimedOut)".into(),
        Answer::Protocol => "ScriptedAnswer::Fail(CallError::Protocol)".into(),
        Answer::Decode => "ScriptedAnswer::Fail(CallError::Decode)".into(),
        Answer::Panic => "ScriptedAnswer::Panic".into(),
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
        Answer::ConnectionRefused => "ConnectionRefused".into(),
        Answer::ConnectionReset => "ConnectionReset".into(),
        Answer::TimedOut => "TimedOut".into(),
        Answer::Protocol => "Protocol".into(),
        Answer::Decode => "Decode".into(),
        Answer::Panic => "panic".into(),
    }
}

fn gate_op_rust(op: &GateOp, acquires: &mut usize) -> String {
    match op {
        GateOp::Acquire => {
            *acquires += 1;
            format!("let p{} = gate.try_acquire();", *acquires - 1)
        }
        GateOp::Drop { pass } => format!("drop(p{pass});"),
        GateOp::PanicHolding => {
            "catch_unwind(|| { let _p = gate.try_acquire(); panic!() });".into()
        }
        GateOp::InUse => "gate.in_use()".into(),
        GateOp::Threads { threads, rounds } => format!(
            "// {threads} threads × {rounds}: take a pass with try_acquire(), hold it briefly, drop it"
        ),
    }
}

/// The script as Rust a learner could paste into a test.
pub fn show_input(input: &Value) -> String {
    let Some(script) = super::read::<Script>(input) else {
        return input.to_string();
    };
    match script {
        Script::Gate(s) => {
            let mut lines = vec![format!("let gate = Gate::new({})?;", s.capacity)];
            let mut acquires = 0;
            lines.extend(s.ops.iter().map(|op| gate_op_rust(op, &mut acquires)));
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
            lines.push(format!("let inbound = Gate::new({})?;", s.capacity));
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
                        granted_any,
                        in_use_after,
                    } => tr(
                        "13.threads",
                        &[
                            ("over", over_capacity),
                            ("granted", granted_any),
                            ("after", in_use_after),
                        ],
                    ),
                })
                .collect();
            format!("Gate::new → Ok; answers: [{}]", items.join(", "))
        }
        Observed::FanOut(f) => {
            let mut lines = vec![match &f.result {
                Outcome::InvalidArgument => "Err(FanOutError::InvalidArgument)".to_string(),
                Outcome::Rejected => "Err(FanOutError::Rejected)".to_string(),
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

/// Step 13 in the registry.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (s, expect) = from_table(&case);
            let m = model(&s);
            assert!(
                expect.same(&m),
                "{case}\nexpected {}\nmodel    {}",
                expect.show(),
                m.show()
            );
        }
    }

    #[test]
    fn every_generated_scenario_ends_by_its_deadline() {
        for seed in 0..4 {
            let mut g = Gen::new(seed);
            let suite = build(&mut g);
            for clause in &suite.clauses {
                for check in &clause.checks {
                    let lab_wire::Call::Advanced { input, .. } = &check.call else {
                        panic!("step 13 makes advanced calls only");
                    };
                    let Ok(Script::FanOut(s)) = serde_json::from_value::<Script>(input.clone())
                    else {
                        continue;
                    };
                    let seen = fan_model(&s);
                    let limit = if s.deadline.0.is_finite() {
                        s.deadline.0.max(s.start.0)
                    } else {
                        s.start.0
                    };
                    assert!(seen.returned_at.0 <= limit, "{}: {s:?}", clause.key);
                    for event in seen.timelines.iter().flatten() {
                        if let Event::Call { ended, .. } = event {
                            assert!(ended.0 <= s.deadline.0, "{}: {s:?}", clause.key);
                        }
                    }
                }
            }
        }
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
}
