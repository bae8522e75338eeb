//! One protocol call → one script of an advanced step, played against the
//! learner's items. Each step's module deserialises its script (shapes in
//! `lab_scripts`), runs it and returns what it observed.

mod read;
mod s09;
mod s10;
mod s11;
mod s12;
mod s13;

use lab_harness::KitError;
use lab_scripts::Script;
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
    let played = Script::read(&step, input).and_then(|script| match script {
        Script::S09(s) => s09::play(s),
        Script::S10(s) => s10::play(s),
        Script::S11(s) => s11::play(s),
        Script::S12(s) => s12::play(s),
        Script::S13(s) => s13::play(s),
    });
    match played {
        Ok(value) => Observed::Returned {
            value: Value::Json { value },
        },
        Err(why) => std::panic::panic_any(KitError(format!("step {step}: {why}"))),
    }
}
