//! Step 09: plays a `Deadline` script on a shared manual clock.

use crate::advanced::Deadline;
use lab_api::advanced::ManualClock;
use lab_scripts::s09::{Answer, Observed, Op};
use lab_wire::F64;
use std::sync::Arc;

pub fn play(script: lab_scripts::s09::Script) -> Result<serde_json::Value, String> {
    let clock = Arc::new(ManualClock::new(script.start.0));
    let answers = Deadline::new(script.seconds.0, clock.clone())
        .ok()
        .map(|d| {
            let mut answers = Vec::new();
            for op in &script.ops {
                match op {
                    Op::At { t } => clock.set(t.0),
                    Op::Remaining => answers.push(Answer::Remaining {
                        value: F64(d.remaining()),
                    }),
                    Op::TimeoutFor { cap } => answers.push(Answer::TimeoutFor {
                        ok: d.timeout_for(cap.0).ok().map(F64),
                    }),
                    Op::Expired => answers.push(Answer::Expired { value: d.expired() }),
                }
            }
            answers
        });
    lab_scripts::s09::write(&Observed { answers })
}
