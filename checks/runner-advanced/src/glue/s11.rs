//! Step 11: plays one `admit` call, or one `execute_admitted` call in a
//! scripted world of virtual time: `lab_api::advanced::ScriptedWorld`, the
//! very world a failure prints for the learner to paste. Time moves only
//! inside a send (by the reply's cost) and inside a non-zero sleep (by its
//! length plus the scripted overrun). The world tells the runner of every
//! close: dropping the response to send k records `close(k)`, so the
//! runner sees when each response was closed relative to the sends and
//! sleeps around it. Step 12's `guarded_read` is played the same way
//! (the read itself is in `read.rs`).

use super::read::{play_read, world};
use crate::advanced::{admit, execute_admitted};
use lab_api::advanced::{Admission, ScriptedWake};
use lab_scripts::s11::{AdmitCall, Decision, Observed, Parsed, Scenario, Script};
use lab_wire::F64;

pub fn play(script: lab_scripts::s11::Script) -> Result<serde_json::Value, String> {
    let observed = match script {
        Script::Admit(call) => Observed::Admit {
            decision: play_admit(&call),
        },
        Script::Execute(scenario) => play_execute(scenario),
    };
    lab_scripts::s11::write(&observed)
}

fn play_admit(c: &AdmitCall) -> Decision {
    let retry_after = match c.retry_after {
        Parsed::None => None,
        Parsed::Ok { delay } => Some(Ok(delay)),
        Parsed::Err { error } => Some(Err(error)),
    };
    match admit(
        &c.method,
        c.status,
        c.attempts,
        c.limit,
        c.left.0,
        retry_after,
        c.min_gap.0,
        c.reserve.0,
    ) {
        Ok(Admission::Retry { wait }) => Decision::Retry { wait: F64(wait) },
        Ok(Admission::Refuse(stop)) => Decision::Refuse { reason: stop },
        Err(_) => Decision::InvalidArgument,
    }
}

/// Step 11's world: each non-zero sleep overruns by its scripted overrun.
fn play_execute(scenario: Scenario) -> Observed {
    let wakes = scenario
        .overrun
        .iter()
        .map(|x| {
            if x.0 == 0.0 {
                ScriptedWake::Exact
            } else {
                ScriptedWake::Late { over: x.0 }
            }
        })
        .collect();
    let world = world(&scenario).wakes(wakes);
    let (events, ending) = play_read(world, &scenario, false, execute_admitted);
    Observed::Execute { events, ending }
}
