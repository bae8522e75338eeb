//! One protocol call → one script of an advanced step, played against the
//! learner's items. Each step's module deserialises its script (shapes in
//! `lab_scripts`), runs it and returns what it observed.

mod read;

use lab_harness::KitError;
use lab_scripts::Script;
use lab_wire::{Call, Observed, Value};

/// Compile-time promises the contract makes about the learner's types.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<crate::advanced::Deadline>();
    shared::<crate::advanced::Gate>();
};

/// Each step's module (`sNN.rs` here) and its arm of [`play`], for every
/// step `lab_scripts` lists: a new step adds its file and no line here.
macro_rules! glue {
    ($($module:ident $variant:ident;)*) => {
        $(mod $module;)*

        /// The script played by its step's module.
        fn play(script: Script) -> Result<serde_json::Value, String> {
            match script {
                $(Script::$variant(s) => $module::play(s),)*
            }
        }
    };
}

lab_scripts::each_step!(glue);

pub fn dispatch(call: Call) -> Observed {
    let Call::Advanced { step, input } = call else {
        std::panic::panic_any(KitError(
            "a core call was sent to the advanced runner".into(),
        ));
    };
    let played = Script::read(&step, input).and_then(play);
    match played {
        Ok(value) => Observed::Returned {
            value: Value::Json { value },
        },
        Err(why) => std::panic::panic_any(KitError(format!("step {step}: {why}"))),
    }
}
