//! Judging: what one case did against what the judge expects, then one
//! verdict per clause. Every variant is matched by name, so a new one can
//! never silently count as a pass.

use crate::platform::Exit;
use crate::session::Got;
use crate::suites::{Check, Expect};
use lab_wire::{Event, Observed, Value, F64};

/// How one case went wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// A value came back, and it is not the expected one.
    Wrong(Value),
    /// `todo!()` or `unimplemented!()` was reached.
    NotImplemented,
    /// The message, and where (`file:line:column`) when known.
    Panicked(String, Option<String>),
    Runaway(u32, lab_wire::Use),
    /// No answer within the case limit; what the call did so far, when its
    /// runner said.
    TimedOut(Option<Box<lab_wire::SoFar>>),
    /// No answer within the shorter limit of a case after a hang.
    CutShort,
    Crashed {
        exit: Exit,
        stderr: String,
    },
    Flooded,
    Forged(String),
    NotRun,
}

/// The judgement of one case: `None` for a pass.
pub fn judge(check: &Check, got: &Got) -> Option<Fault> {
    match got {
        Got::Observed(Observed::Returned { value }) => {
            (!matches(&check.expect, value)).then(|| Fault::Wrong(value.clone()))
        }
        Got::Observed(Observed::Panicked { todo: true, .. }) => Some(Fault::NotImplemented),
        Got::Observed(Observed::Panicked {
            message,
            todo: false,
            at,
        }) => Some(Fault::Panicked(message.clone(), at.clone())),
        Got::Observed(Observed::Runaway { events, of }) => Some(Fault::Runaway(*events, *of)),
        Got::TimedOut(so_far) => Some(Fault::TimedOut(so_far.clone())),
        Got::CutShort => Some(Fault::CutShort),
        Got::Crashed { exit, stderr } => Some(Fault::Crashed {
            exit: exit.clone(),
            stderr: stderr.clone(),
        }),
        Got::Flooded => Some(Fault::Flooded),
        Got::Forged(why) => Some(Fault::Forged(why.clone())),
        // The clause already failed on the case that caused the skip.
        Got::Skipped => None,
        Got::NotRun => Some(Fault::NotRun),
    }
}

fn same_float(expected: f64, got: f64) -> bool {
    expected == got // NaN never passes; -0.0 == 0.0
}

fn matches(expect: &Expect, value: &Value) -> bool {
    match (expect, value) {
        (Expect::Bool(e), Value::Bool { value }) => e == value,
        (Expect::Float(e), Value::Float { value }) => same_float(*e, value.0),
        (Expect::Huge, Value::Float { value }) => value.0 >= crate::oracle::EXACT_LIMIT,
        (Expect::Checked(None), Value::Checked { ok }) => ok.is_none(),
        (Expect::Checked(Some(e)), Value::Checked { ok: Some(F64(g)) }) => same_float(*e, *g),
        (Expect::Checked(Some(_)), Value::Checked { ok: None }) => false,
        (
            Expect::Trace {
                events,
                ending,
                timeouts,
            },
            Value::Trace { trace },
        ) => trace.ending == **ending && same_events(events, &trace.events, *timeouts),
        (Expect::Script(e), Value::Json { value: g }) => e.matches(g),
        // A value of the wrong shape: the runner and judge disagree.
        (
            Expect::Bool(_)
            | Expect::Float(_)
            | Expect::Huge
            | Expect::Checked(_)
            | Expect::Trace { .. }
            | Expect::Script(_),
            _,
        ) => false,
    }
}

fn same_events(expected: &[Event], got: &[Event], timeouts: bool) -> bool {
    expected.len() == got.len()
        && expected
            .iter()
            .zip(got)
            .all(|(e, g)| same_event(e, g, timeouts))
}

/// Two events of a timeline alike; with `timeouts` false, any two sends.
pub fn same_event(e: &Event, g: &Event, timeouts: bool) -> bool {
    match (e, g) {
        (Event::Send { .. }, Event::Send { .. }) if !timeouts => true,
        (Event::Send { timeout: a }, Event::Send { timeout: b }) => same_float(a.0, b.0),
        (Event::Sleep { seconds: a }, Event::Sleep { seconds: b }) => same_float(a.0, b.0),
        (Event::Send { .. } | Event::Sleep { .. }, _) => false,
    }
}

/// The verdict of one clause.
#[derive(Debug, Clone, PartialEq)]
pub enum ClauseVerdict {
    Passed {
        checks: usize,
    },
    /// Every fault was a `todo!()`.
    NotImplemented,
    /// An advanced step, and the learner has no advanced.rs.
    NotAttempted,
    /// An advanced step whose advanced.rs does not compile.
    NotBuilt,
    Failed {
        faults: Vec<(usize, Fault)>,
        total: usize,
    },
}

impl ClauseVerdict {
    pub fn is_pass(&self) -> bool {
        match self {
            ClauseVerdict::Passed { .. } => true,
            ClauseVerdict::NotImplemented
            | ClauseVerdict::NotAttempted
            | ClauseVerdict::NotBuilt
            | ClauseVerdict::Failed { .. } => false,
        }
    }
}

/// Keeps the first `shown` faults (with their check index) and counts all.
/// `total` counts distinct failing inputs: a call that fails twice (a table
/// row that a generated case repeats) is shown and counted once.
pub fn clause_verdict(checks: &[Check], got: &[Got], shown: usize) -> ClauseVerdict {
    let failures: Vec<(usize, Fault)> = checks
        .iter()
        .zip(got)
        .enumerate()
        .filter_map(|(i, (check, g))| judge(check, g).map(|f| (i, f)))
        .collect();
    if failures.is_empty() {
        return ClauseVerdict::Passed {
            checks: checks.len(),
        };
    }
    if failures.iter().all(|(_, f)| *f == Fault::NotImplemented) {
        return ClauseVerdict::NotImplemented;
    }
    // Calls are told apart by their debug text (exact for every float,
    // -0.0 included); a set keeps a clause of 65,536 inputs linear.
    let mut seen = std::collections::HashSet::new();
    let mut faults = Vec::new();
    for (i, fault) in failures {
        if seen.insert(format!("{:?}", checks[i].call)) && faults.len() < shown {
            faults.push((i, fault));
        }
    }
    ClauseVerdict::Failed {
        faults,
        total: seen.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_wire::{Call, Ending};

    fn check(expect: Expect) -> Check {
        Check {
            step: "01",
            call: Call::Retryable { status: 1 },
            expect,
        }
    }

    fn returned(value: Value) -> Got {
        Got::Observed(Observed::Returned { value })
    }

    #[test]
    fn nan_never_matches_and_negative_zero_equals_zero() {
        let c = check(Expect::Float(0.0));
        assert!(judge(&c, &returned(Value::Float { value: F64(-0.0) })).is_none());
        assert!(judge(
            &c,
            &returned(Value::Float {
                value: F64(f64::NAN)
            })
        )
        .is_some());
    }

    #[test]
    fn huge_accepts_anything_from_two_to_the_53() {
        let c = check(Expect::Huge);
        assert!(judge(
            &c,
            &returned(Value::Float {
                value: F64(9_007_199_254_740_992.0)
            })
        )
        .is_none());
        assert!(judge(
            &c,
            &returned(Value::Float {
                value: F64(f64::INFINITY)
            })
        )
        .is_none());
        assert!(judge(
            &c,
            &returned(Value::Float {
                value: F64(9_007_199_254_740_991.0)
            })
        )
        .is_some());
        assert!(judge(&c, &returned(Value::Float { value: F64(0.0) })).is_some());
    }

    #[test]
    fn a_wrong_shape_or_err_for_ok_fails() {
        let c = check(Expect::Checked(Some(1.0)));
        assert!(judge(&c, &returned(Value::Checked { ok: None })).is_some());
        assert!(judge(&c, &returned(Value::Bool { value: true })).is_some());
        assert!(judge(
            &check(Expect::Checked(None)),
            &returned(Value::Checked { ok: Some(F64(1.0)) })
        )
        .is_some());
    }

    #[test]
    fn nothing_but_a_matching_value_passes() {
        let c = check(Expect::Bool(true));
        let bad = [
            Got::TimedOut(None),
            Got::Flooded,
            Got::NotRun,
            Got::Forged("x".into()),
            Got::Crashed {
                exit: Exit::Success,
                stderr: String::new(),
            },
            Got::Observed(Observed::Panicked {
                message: "m".into(),
                todo: false,
                at: None,
            }),
            Got::Observed(Observed::Panicked {
                message: "m".into(),
                todo: true,
                at: None,
            }),
            Got::Observed(Observed::Runaway {
                events: 10_001,
                of: lab_wire::Use::Sends,
            }),
            returned(Value::Bool { value: false }),
        ];
        for g in bad {
            assert!(judge(&c, &g).is_some(), "{g:?} passed");
        }
        assert!(judge(&c, &returned(Value::Bool { value: true })).is_none());
    }

    #[test]
    fn a_repeated_failing_input_is_shown_and_counted_once() {
        let call = |status| Check {
            step: "01",
            call: Call::Retryable { status },
            expect: Expect::Bool(true),
        };
        let checks = vec![call(504), call(504), call(500), call(504)];
        let no = returned(Value::Bool { value: false });
        let got = vec![no.clone(), no.clone(), no.clone(), no];
        let ClauseVerdict::Failed { faults, total } = clause_verdict(&checks, &got, 3) else {
            panic!("not failed")
        };
        assert_eq!(total, 2);
        let shown: Vec<usize> = faults.iter().map(|(i, _)| *i).collect();
        assert_eq!(shown, [0, 2]);
    }

    #[test]
    fn a_clause_of_todos_is_not_implemented_but_one_real_fault_fails_it() {
        let mut other = check(Expect::Bool(true));
        other.call = Call::Retryable { status: 2 };
        let checks = vec![check(Expect::Bool(true)), other];
        let todo = Got::Observed(Observed::Panicked {
            message: "not yet implemented".into(),
            todo: true,
            at: None,
        });
        assert_eq!(
            clause_verdict(&checks, &[todo.clone(), todo.clone()], 3),
            ClauseVerdict::NotImplemented
        );
        let v = clause_verdict(&checks, &[todo, Got::TimedOut(None)], 3);
        assert!(matches!(v, ClauseVerdict::Failed { total: 2, .. }));
        let all_skipped = clause_verdict(
            &checks,
            &[returned(Value::Bool { value: true }), Got::Skipped],
            3,
        );
        assert!(all_skipped.is_pass());
    }

    #[test]
    fn traces_compare_events_and_ending() {
        let ending = Ending::Timeout;
        let events = vec![Event::Send { timeout: F64(5.0) }];
        let c = check(Expect::Trace {
            events: events.clone(),
            ending: Box::new(ending.clone()),
            timeouts: true,
        });
        let trace = |events: Vec<Event>, ending: Ending| {
            returned(Value::Trace {
                trace: lab_wire::Trace {
                    events,
                    times: vec![],
                    ending,
                    draws: 0,
                    clock_reads: 0,
                },
            })
        };
        assert!(judge(&c, &trace(events.clone(), ending.clone())).is_none());
        assert!(judge(&c, &trace(vec![], ending.clone())).is_some());
        assert!(judge(&c, &trace(events.clone(), Ending::InvalidArgument)).is_some());
        // Unjudged timeouts: a send is a send, whatever its timeout; the
        // number of sends and the ending still count.
        let other = vec![Event::Send { timeout: F64(4.75) }];
        assert!(judge(&c, &trace(other.clone(), ending.clone())).is_some());
        let loose = check(Expect::Trace {
            events: events.clone(),
            ending: Box::new(ending.clone()),
            timeouts: false,
        });
        assert!(judge(&loose, &trace(other.clone(), ending.clone())).is_none());
        assert!(judge(&loose, &trace(vec![], ending.clone())).is_some());
        let sleep = vec![Event::Sleep { seconds: F64(4.75) }];
        assert!(judge(&loose, &trace(sleep, ending)).is_some());
    }
}
