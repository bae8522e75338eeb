//! Step 13's model: the obvious counter for `Gate`, the judge's own
//! single-threaded simulation of a correct `fan_out` in the baton world,
//! and the HTTP entry's three answers for `to_http`.

use lab_scripts::s13::{
    Answer, Event, FanOutScript, FanOutSeen, GateAnswer, GateOp, GateScript, Given, HttpScript,
    Observed, Outcome, Report, Script, SupplierOutcome,
};
use lab_wire::F64;
use std::collections::VecDeque;

const PAUSE_MIN: f64 = 0.02;
const PAUSE_SPREAD: f64 = 0.01;

/// The judge's model of a correct `Gate` (a counter up to the capacity).
pub(super) fn gate_model(s: &GateScript) -> Observed {
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
                in_use_off: false,
                untallied: false,
                waited: false,
                granted_any: used < s.capacity,
                in_use_after: used,
            }),
        }
    }
    Observed::Gate {
        answers: Some(answers),
    }
}

/// The code a transient answer leaves when it is the last round's:
/// `HttpStatus(503)` or `TransportError`; `None` when not transient.
fn transient(a: &Answer) -> Option<SupplierOutcome> {
    match a {
        Answer::Status { status: 503 } => Some(SupplierOutcome::HttpStatus { status: 503 }),
        Answer::Connect
        | Answer::ConnectTimeout
        | Answer::Read
        | Answer::ReadTimeout
        | Answer::Write
        | Answer::WriteTimeout
        | Answer::RemoteProtocol
        | Answer::PoolTimeout => Some(SupplierOutcome::TransportError),
        _ => None,
    }
}

/// The outcome of an attempt's answer: `Err(code)` when transient (the
/// code it leaves if no further attempt comes), else `Ok(final)`.
fn classify(a: &Answer, quantity: u32) -> Result<SupplierOutcome, SupplierOutcome> {
    if let Some(code) = transient(a) {
        return Err(code);
    }
    Ok(match *a {
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
        Answer::Status { status: 404 } => SupplierOutcome::NotFound,
        Answer::Status { status } => SupplierOutcome::HttpStatus { status },
        Answer::TimedOut => SupplierOutcome::TimedOut,
        Answer::LocalProtocol => SupplierOutcome::Protocol,
        Answer::Decode => SupplierOutcome::Decode,
        _ => unreachable!("transient answers and panics are handled before"),
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
pub(super) fn fan_model(s: &FanOutScript) -> FanOutSeen {
    simulate(s).0
}

/// `a + b >= c` for exact reals, when all three are multiples of 2^-80
/// below 2^40 in magnitude (every time, pause and deadline the checker
/// makes); `None` otherwise.
fn exact_sum_reaches(a: f64, b: f64, c: f64) -> Option<bool> {
    let fixed = |x: f64| {
        let scaled = x * 2f64.powi(80);
        (x.abs() < 2f64.powi(40) && scaled.fract() == 0.0).then_some(scaled as i128)
    };
    Some(fixed(a)? + fixed(b)? >= fixed(c)?)
}

/// Whether "the pause ends at or after the deadline" comes out the same in
/// every arrangement a correct `fan_out` may write, and as in exact
/// arithmetic. When it does not, the expected timeline would depend on how
/// the learner arranged a sum, so the checker never uses such a scenario.
pub(super) fn pause_test_is_exact(now: f64, pause: f64, deadline: f64) -> bool {
    let ways = [
        now + pause >= deadline,
        deadline - now <= pause,
        pause >= deadline - now,
        deadline - pause <= now,
        now >= deadline - pause,
        (now + pause).partial_cmp(&deadline) != Some(std::cmp::Ordering::Less),
        (deadline - now).partial_cmp(&pause) != Some(std::cmp::Ordering::Greater),
        now - deadline + pause >= 0.0,
        pause - (deadline - now) >= 0.0,
    ];
    let exact = exact_sum_reaches(now, pause, deadline);
    ways.iter().all(|&w| w == ways[0]) && exact.is_none_or(|e| e == ways[0])
}

/// The model's result, and the first comparison (if any) whose outcome
/// depends on how a correct implementation arranges its arithmetic.
pub(super) fn simulate(s: &FanOutScript) -> (FanOutSeen, Option<String>) {
    let mut fragile: Option<String> = None;
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
        return (empty(Outcome::InvalidArgument), None);
    }
    if s.held >= s.capacity {
        return (empty(Outcome::Rejected), None);
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
            answer: Answer::LocalProtocol,
            calls: 0,
            outcome: None,
            events: Vec::new(),
        })
        .collect();
    // A call that panics ends the fan-out: every other task is cancelled at
    // that instant and `fan_out` unwinds.
    let mut panicked = false;
    loop {
        if panicked {
            break;
        }
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
                        if tasks[k].answer == Answer::Panic {
                            panicked = true;
                            tasks[k].done = true;
                            for t in tasks.iter_mut().filter(|t| !t.done) {
                                t.events.push(Event::Cancelled { at: F64(now) });
                                t.done = true;
                            }
                            break;
                        }
                        let t = &mut tasks[k];
                        match classify(&t.answer, s.request.quantity) {
                            Ok(outcome) => {
                                t.outcome = Some(outcome);
                                t.done = true;
                            }
                            Err(last) if t.second => {
                                t.outcome = Some(last);
                                t.done = true;
                            }
                            Err(_) => {
                                let supplier = &s.suppliers[k];
                                let f = supplier.fractions.first().map_or(0.0, |f| f.0);
                                let pause = PAUSE_MIN + PAUSE_SPREAD * f;
                                if fragile.is_none() && !pause_test_is_exact(now, pause, deadline) {
                                    fragile = Some(format!(
                                        "supplier {k}: now {now:?} + pause {pause:?} against \
                                         deadline {deadline:?}"
                                    ));
                                }
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
    let seen = FanOutSeen {
        names,
        result: if panicked {
            Outcome::Panicked
        } else {
            Outcome::Ok { reports }
        },
        in_use_at_run_all: Some(s.held + 1),
        in_use_after: s.held,
        run_all_calls: 1,
        returned_at: F64(now),
        timelines: tasks.into_iter().map(|t| t.events).collect(),
        breaches: Vec::new(),
    };
    (seen, fragile)
}

fn rank(r: &Report) -> (bool, u64, &str) {
    match r.outcome {
        SupplierOutcome::Quote { total_cents } => (false, total_cents, &r.supplier),
        _ => (true, 0, &r.supplier),
    }
}

/// The HTTP entry: a full inbound gate is 503 with `Retry-After: 1`; an
/// answered request is 200 whatever its reports say; an invalid one 422.
pub(super) fn http_model(s: &HttpScript) -> Observed {
    let (status, retry_after) = match s.given {
        Given::Rejected => (503, Some(1)),
        Given::Ok { .. } => (200, None),
        Given::InvalidArgument => (422, None),
    };
    Observed::Http {
        status,
        retry_after,
    }
}

pub(super) fn model(s: &Script) -> Observed {
    match s {
        Script::Gate(g) => gate_model(g),
        Script::FanOut(f) => Observed::FanOut(fan_model(f)),
        Script::Http(h) => http_model(h),
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::from_table;
    use super::super::{build, ThisStep};
    use super::*;
    use crate::rng::Gen;
    use crate::suites::{fixture, Observable};

    const STEP: &str = ThisStep::ID;

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

    /// Every fan-out scenario of the step, hand-written and generated
    /// (under several seeds).
    fn every_scenario() -> Vec<(String, FanOutScript)> {
        let mut out = Vec::new();
        for case in fixture::table(STEP) {
            if let (Script::FanOut(s), _) = from_table(&case) {
                out.push((format!("hand case {case}"), s));
            }
        }
        for seed in 0..12 {
            let mut g = Gen::new(seed);
            for clause in &build(STEP, &mut g).clauses {
                for check in &clause.checks {
                    let lab_wire::Call::Advanced { input, .. } = &check.call else {
                        panic!("step 13 makes advanced calls only");
                    };
                    if let Ok(Script::FanOut(s)) = serde_json::from_value::<Script>(input.clone()) {
                        out.push((format!("seed {seed}, {}", clause.key), s));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn no_scenario_depends_on_how_the_pause_test_is_arranged() {
        let fragile: Vec<String> = every_scenario()
            .into_iter()
            .filter_map(|(name, s)| simulate(&s).1.map(|why| format!("{name}: {why}")))
            .collect();
        assert!(fragile.is_empty(), "{}", fragile.join("\n"));
    }

    #[test]
    fn settling_the_pauses_removes_a_rounded_tie() {
        use lab_scripts::s13::{Attempt, Request, SupplierScript};
        let mut s = FanOutScript {
            request: Request {
                id: "r".into(),
                item: "nut".into(),
                quantity: 1,
            },
            suppliers: vec![SupplierScript {
                name: "b".into(),
                attempts: vec![Attempt {
                    cost: F64(0.98),
                    answer: Answer::Status { status: 503 },
                }],
                fractions: vec![F64(0.0)],
            }],
            slots: 1,
            capacity: 1,
            held: 0,
            start: F64(0.0),
            deadline: F64(1.0),
        };
        assert!(simulate(&s).1.is_some());
        super::super::generate::settle_pauses(&mut s, &mut Gen::new(5));
        assert!(simulate(&s).1.is_none(), "{s:?}");
    }

    #[test]
    fn the_arrangement_test_sees_rounding() {
        // 0.98 + 0.02 rounds to 1.0, but 1.0 - 0.98 is above 0.02.
        assert!(!pause_test_is_exact(0.98, 0.02, 1.0));
        // 3/128 is a pause of the grid's kind: 0.9765625 + 0.0234375 is 1.0
        // exactly, every way round.
        assert!(pause_test_is_exact(0.9765625, 0.0234375, 1.0));
        assert!(pause_test_is_exact(0.5, 0.02, 1.0));
    }

    #[test]
    fn every_generated_scenario_ends_by_its_deadline() {
        for seed in 0..4 {
            let mut g = Gen::new(seed);
            let suite = build(STEP, &mut g);
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
}
