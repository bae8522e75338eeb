//! Step 13: plays a `Gate` script, or one `fan_out` in a scripted `Env`
//! behind an inbound gate that the runner partly fills first, or one
//! `to_http` call.

use crate::advanced::{fan_out, to_http, Gate};
use lab_api::advanced::{
    CallError, Env, Offer, QuoteRequest, Reply, ScriptedAnswer, ScriptedPanic, ScriptedSupplier,
    TaskCancelled, WorldEvent, WorldRecord, WorldRule, WorldStopped,
};
use lab_scripts::s13::{
    Answer, Breach, Event, FanOutScript, FanOutSeen, GateAnswer, GateOp, GateScript, Given,
    HttpScript, Observed, Outcome, Report, Script, SupplierOutcome,
};
use lab_wire::F64;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

pub fn play(script: lab_scripts::s13::Script) -> Result<serde_json::Value, String> {
    let observed = match script {
        Script::Gate(g) => gate(&g)?,
        Script::FanOut(f) => Observed::FanOut(fan(&f)),
        Script::Http(h) => http(&h),
    };
    lab_scripts::s13::write(&observed)
}

fn gate(script: &GateScript) -> Result<Observed, String> {
    let Ok(gate) = Gate::new(script.capacity) else {
        return Ok(Observed::Gate { answers: None });
    };
    let mut passes = Vec::new();
    let mut answers = Vec::new();
    for op in &script.ops {
        match op {
            GateOp::Acquire => {
                let pass = gate.try_acquire();
                answers.push(GateAnswer::Acquire {
                    got: pass.is_some(),
                });
                passes.push(pass);
            }
            GateOp::Drop { pass } => {
                let slot = passes
                    .get_mut(*pass)
                    .ok_or_else(|| format!("no pass number {pass} to drop"))?;
                drop(slot.take());
            }
            GateOp::PanicHolding => {
                // resume_unwind skips the panic hook: nothing is printed.
                let unwound = catch_unwind(AssertUnwindSafe(|| {
                    let pass = gate.try_acquire();
                    let got = pass.is_some();
                    resume_unwind(Box::new(got));
                }));
                let got = match unwound {
                    Err(payload) => payload.downcast_ref::<bool>().copied().unwrap_or(false),
                    Ok(()) => false,
                };
                answers.push(GateAnswer::PanicHolding { got });
            }
            GateOp::InUse => answers.push(GateAnswer::InUse {
                value: gate.in_use(),
            }),
            GateOp::Threads { threads } => {
                let found = crate::schedule::explore(
                    script.capacity,
                    *threads,
                    &|| gate.try_acquire(),
                    &|| gate.in_use(),
                );
                answers.push(GateAnswer::Threads {
                    over_capacity: found.over_capacity,
                    in_use_off: found.in_use_off,
                    untallied: found.untallied,
                    waited: found.waited,
                    granted_any: found.granted_any,
                    in_use_after: gate.in_use(),
                });
            }
        }
    }
    drop(passes);
    Ok(Observed::Gate {
        answers: Some(answers),
    })
}

fn scripted(a: Answer) -> ScriptedAnswer {
    match a {
        Answer::Offer {
            unit_cents,
            quantity,
            shipping_cents,
            in_stock,
        } => ScriptedAnswer::Reply(Reply::Offer(Offer {
            unit_cents,
            quantity,
            shipping_cents,
            in_stock,
        })),
        Answer::Status { status } => ScriptedAnswer::Reply(Reply::Status(status)),
        Answer::Connect => ScriptedAnswer::Fail(CallError::Connect),
        Answer::ConnectTimeout => ScriptedAnswer::Fail(CallError::ConnectTimeout),
        Answer::Read => ScriptedAnswer::Fail(CallError::Read),
        Answer::ReadTimeout => ScriptedAnswer::Fail(CallError::ReadTimeout),
        Answer::Write => ScriptedAnswer::Fail(CallError::Write),
        Answer::WriteTimeout => ScriptedAnswer::Fail(CallError::WriteTimeout),
        Answer::RemoteProtocol => ScriptedAnswer::Fail(CallError::RemoteProtocol),
        Answer::PoolTimeout => ScriptedAnswer::Fail(CallError::PoolTimeout),
        Answer::LocalProtocol => ScriptedAnswer::Fail(CallError::LocalProtocol),
        Answer::Decode => ScriptedAnswer::Fail(CallError::Decode),
        Answer::TimedOut => ScriptedAnswer::Fail(CallError::TimedOut),
        Answer::Panic => ScriptedAnswer::Panic,
    }
}

fn answer(a: Result<ScriptedAnswer, CallError>) -> Answer {
    match a {
        Ok(ScriptedAnswer::Reply(Reply::Offer(o))) => Answer::Offer {
            unit_cents: o.unit_cents,
            quantity: o.quantity,
            shipping_cents: o.shipping_cents,
            in_stock: o.in_stock,
        },
        Ok(ScriptedAnswer::Reply(Reply::Status(status))) => Answer::Status { status },
        Ok(ScriptedAnswer::Panic) => Answer::Panic,
        Ok(ScriptedAnswer::Fail(e)) | Err(e) => match e {
            CallError::Connect => Answer::Connect,
            CallError::ConnectTimeout => Answer::ConnectTimeout,
            CallError::Read => Answer::Read,
            CallError::ReadTimeout => Answer::ReadTimeout,
            CallError::Write => Answer::Write,
            CallError::WriteTimeout => Answer::WriteTimeout,
            CallError::RemoteProtocol => Answer::RemoteProtocol,
            CallError::PoolTimeout => Answer::PoolTimeout,
            CallError::LocalProtocol => Answer::LocalProtocol,
            CallError::Decode => Answer::Decode,
            CallError::TimedOut => Answer::TimedOut,
        },
    }
}

fn outcome(o: lab_api::advanced::SupplierOutcome) -> SupplierOutcome {
    use lab_api::advanced::SupplierOutcome as S;
    match o {
        S::Quote { total_cents } => SupplierOutcome::Quote { total_cents },
        S::OutOfStock => SupplierOutcome::OutOfStock,
        S::NotFound => SupplierOutcome::NotFound,
        S::HttpStatus(status) => SupplierOutcome::HttpStatus { status },
        S::TransportError => SupplierOutcome::TransportError,
        S::BadData => SupplierOutcome::BadData,
        S::Protocol => SupplierOutcome::Protocol,
        S::Decode => SupplierOutcome::Decode,
        S::TimedOut => SupplierOutcome::TimedOut,
    }
}

fn rule_name(r: WorldRule) -> &'static str {
    match r {
        WorldRule::OtherSupplier => "other-supplier",
        WorldRule::CallWithoutOneSlot => "call-without-one-slot",
        WorldRule::SleepHoldingSlot => "sleep-holding-slot",
        WorldRule::SlotOutlivedTask => "slot-outlived-task",
        WorldRule::RunAllAgain => "run-all-again",
        WorldRule::RunAllTaskCount => "run-all-task-count",
        WorldRule::RunAllInsideTask => "run-all-inside-task",
        WorldRule::OutsideTask => "outside-task",
        WorldRule::BadTimeout => "bad-timeout",
        WorldRule::BadSleep => "bad-sleep",
        WorldRule::Deadlock => "deadlock",
    }
}

fn event(e: &WorldEvent) -> Event {
    match e {
        WorldEvent::Call {
            at,
            timeout,
            request,
            ended,
            answer: a,
        } => Event::Call {
            at: F64(*at),
            timeout: F64(*timeout),
            id: request.id.clone(),
            item: request.item.clone(),
            quantity: request.quantity,
            ended: F64(*ended),
            answer: answer(*a),
        },
        WorldEvent::Pause { at, seconds } => Event::Pause {
            at: F64(*at),
            seconds: F64(*seconds),
        },
        WorldEvent::SlotWait { from, at, got } => Event::SlotWait {
            from: F64(*from),
            at: F64(*at),
            got: *got,
        },
        WorldEvent::Cancelled { at } => Event::Cancelled { at: F64(*at) },
    }
}

/// Stops a fan-out that went on far too long, as a runaway.
fn stop_if_runaway(record: &WorldRecord) {
    if let Some(events) = record.runaway {
        std::panic::panic_any(lab_harness::Runaway(events, lab_wire::Use::World));
    }
}

fn fan(script: &FanOutScript) -> FanOutSeen {
    let gate = Arc::new(Gate::new(script.capacity).unwrap_or_else(|_| {
        panic!(
            "Gate::new({}) returned Err: only a capacity of 0 is invalid",
            script.capacity
        )
    }));
    let held: Vec<_> = (0..script.held).map(|_| gate.try_acquire()).collect();
    let suppliers: Vec<ScriptedSupplier> = script
        .suppliers
        .iter()
        .map(|s| ScriptedSupplier {
            name: s.name.clone(),
            attempts: s
                .attempts
                .iter()
                .map(|a| (a.cost.0, scripted(a.answer)))
                .collect(),
            fractions: s.fractions.iter().map(|f| f.0).collect(),
        })
        .collect();
    let mut env = Env::scripted(script.start.0, script.slots, suppliers);
    let watched = gate.clone();
    env.watch_first_run_all(Box::new(move || watched.in_use()));
    let request = QuoteRequest {
        id: script.request.id.clone(),
        item: script.request.item.clone(),
        quantity: script.request.quantity,
    };
    let names: Vec<&str> = script.suppliers.iter().map(|s| s.name.as_str()).collect();
    let result = catch_unwind(AssertUnwindSafe(|| {
        fan_out(&request, &names, script.deadline.0, &env, &gate)
    }));
    let record = env.record();
    stop_if_runaway(&record);
    if let Some((task, message)) = record.stray_panics.first() {
        if message.starts_with("not yet implemented") || message.starts_with("not implemented") {
            panic!("{message}");
        }
        let name = names.get(*task).copied().unwrap_or("?");
        panic!("in the task of supplier {name:?}: {message}");
    }
    // The world's own panics escaping `fan_out` are observed; any other is
    // the learner's and fails the check as such.
    let result = match result {
        Ok(r) => Some(r),
        Err(p) if p.is::<ScriptedPanic>() || p.is::<TaskCancelled>() || p.is::<WorldStopped>() => {
            None
        }
        Err(payload) => resume_unwind(payload),
    };
    let in_use_after = gate.in_use();
    drop(held);
    let result = match result {
        None => Outcome::Panicked,
        Some(Ok(reports)) => Outcome::Ok {
            reports: reports
                .into_iter()
                .map(|r| Report {
                    supplier: r.supplier,
                    outcome: outcome(r.outcome),
                })
                .collect(),
        },
        Some(Err(lab_api::advanced::FanOutError::InvalidArgument)) => Outcome::InvalidArgument,
        Some(Err(lab_api::advanced::FanOutError::Rejected)) => Outcome::Rejected,
    };
    FanOutSeen {
        names: names.iter().map(|n| n.to_string()).collect(),
        result,
        in_use_at_run_all: record.watched,
        in_use_after,
        run_all_calls: record.run_all_calls,
        returned_at: F64(record.now),
        timelines: record
            .timelines
            .iter()
            .map(|line| line.iter().map(event).collect())
            .collect(),
        breaches: record
            .breaches
            .iter()
            .map(|b| Breach {
                rule: rule_name(b.rule).into(),
                task: b.task,
                at: F64(b.at),
            })
            .collect(),
    }
}

fn outcome_back(o: SupplierOutcome) -> lab_api::advanced::SupplierOutcome {
    use lab_api::advanced::SupplierOutcome as S;
    match o {
        SupplierOutcome::Quote { total_cents } => S::Quote { total_cents },
        SupplierOutcome::OutOfStock => S::OutOfStock,
        SupplierOutcome::NotFound => S::NotFound,
        SupplierOutcome::HttpStatus { status } => S::HttpStatus(status),
        SupplierOutcome::TransportError => S::TransportError,
        SupplierOutcome::BadData => S::BadData,
        SupplierOutcome::Protocol => S::Protocol,
        SupplierOutcome::Decode => S::Decode,
        SupplierOutcome::TimedOut => S::TimedOut,
    }
}

fn http(script: &HttpScript) -> Observed {
    use lab_api::advanced::{FanOutError, SupplierReport};
    let result = match &script.given {
        Given::Ok { reports } => Ok(reports
            .iter()
            .map(|r| SupplierReport {
                supplier: r.supplier.clone(),
                outcome: outcome_back(r.outcome),
            })
            .collect()),
        Given::InvalidArgument => Err(FanOutError::InvalidArgument),
        Given::Rejected => Err(FanOutError::Rejected),
    };
    let reply = to_http(&result);
    Observed::Http {
        status: reply.status,
        retry_after: reply.retry_after,
    }
}
