//! One protocol call → one script of an advanced step, played against the
//! learner's items. Each step's module deserialises its script (shapes in
//! `lab_wire::scripts`), runs it and returns what it observed.

mod read;
mod s09;
mod s10;
mod s11;
mod s12;
mod s13;

use lab_harness::KitError;
use lab_wire::{Call, Observed, Value};

/// Compile-time promises the contract makes about the learner's types.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<crate::advanced::Deadline>();
    shared::<crate::advanced::Gate>();
};

pub fn dispatch(call: Call) -> Observed {
    let Call::Advanced { step, input } = call else {
        std::panic::panic_any(KitError(
            "a core call was sent to the advanced runner".into(),
        ));
    };
    let played = match step.as_str() {
        "09" => s09::play(input),
        "10" => s10::play(input),
        "11" => s11::play(input),
        "12" => s12::play(input),
        "13" => s13::play(input),
        other => Err(format!("no advanced step {other}")),
    };
    match played {
        Ok(value) => Observed::Returned {
            value: Value::Json { value },
        },
        Err(why) => std::panic::panic_any(KitError(format!("step {step}: {why}"))),
    }
}
