//! The checker's scripts for the advanced steps 09–13, and what the runner
//! observed while playing them: one module per step. They travel inside
//! [`lab_wire::Call::Advanced`] and [`lab_wire::Value::Json`], so a
//! step's shapes can change without touching the core protocol's types.
//! Floats travel as [`lab_wire::F64`] text, exact to the bit. Where a
//! script or an observation holds one of `lab_api`'s own enums (a
//! `RetryAfterError`, a `Stop`, a `sleep_at_least` result), it holds that
//! type, written by [`named`] (lab-api has no serde), not a copy of it.

/// A step's `read` (its script from JSON) and `write` (its observation as
/// JSON). Plain functions, so serde's generic code for these types is
/// compiled here, once, and not again in every build of the advanced
/// runner, which links the learner's code and is rebuilt at each save.
macro_rules! json_io {
    () => {
        /// This step's script, read from the JSON it travels in.
        pub fn read(input: serde_json::Value) -> Result<Script, String> {
            serde_json::from_value(input).map_err(|e| e.to_string())
        }

        /// What the runner observed, as the JSON it travels in.
        pub fn write(observed: &Observed) -> Result<serde_json::Value, String> {
            serde_json::to_value(observed).map_err(|e| e.to_string())
        }
    };
}

pub mod named;

pub use named::Named;

use lab_wire::Call;

/// The advanced steps, each once: `"NN" => sNN, SNN`. A new step is one
/// more entry here: the entry declares the step's module (`sNN.rs`), its
/// variant of [`Script`], and its place in [`each_step!`], through which
/// the runner's glue lists the steps without a line of its own. The first
/// token is a `$`, handed in so that the macro this one writes can have
/// metavariables of its own.
macro_rules! scripts {
    ($d:tt $($step:literal => $module:ident, $variant:ident);* $(;)?) => {
        $(pub mod $module;)*

        /// Calls the macro named `$callback` with every advanced step as
        /// `sNN SNN;` (module, then [`Script`] variant), in step order: a
        /// crate that handles each step (the advanced runner's glue) lists
        /// them from here, so a new step is registered once, in this crate.
        #[macro_export]
        macro_rules! each_step {
            ($d callback:ident) => {
                $d callback! { $($module $variant;)* }
            };
        }

        /// One advanced step's script, typed: one variant per step, so that
        /// code that handles every step (the runner's dispatch) does not
        /// compile while a step is missing. On the wire it is a
        /// [`Call::Advanced`]: the step's number and its script's JSON.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Script {
            $($variant($module::Script),)*
        }

        impl Script {
            /// The step, as the registry and the wire name it.
            pub fn step(&self) -> &'static str {
                match self {
                    $(Script::$variant(_) => $step,)*
                }
            }

            /// The protocol call that carries this script.
            pub fn call(&self) -> Call {
                let input = match self {
                    $(Script::$variant(s) => serde_json::to_value(s),)*
                };
                Call::Advanced {
                    step: self.step().to_string(),
                    input: input.expect("scripts serialise"),
                }
            }

            /// The script a [`Call::Advanced`] carries for `step`.
            pub fn read(step: &str, input: serde_json::Value) -> Result<Script, String> {
                match step {
                    $($step => $module::read(input).map(Script::$variant),)*
                    other => Err(format!("no advanced step {other}")),
                }
            }
        }

        $(
            impl From<$module::Script> for Script {
                fn from(script: $module::Script) -> Script {
                    Script::$variant(script)
                }
            }
        )*
    };
}

scripts! { $
    "09" => s09, S09;
    "10" => s10, S10;
    "11" => s11, S11;
    "12" => s12, S12;
    "13" => s13, S13;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_travels_as_its_step_and_its_json() {
        let script = Script::from(s12::Script::SleepAtLeast(s12::SleepScript {
            wait: lab_wire::F64(1.0),
            deadline: lab_wire::F64(2.0),
            start: lab_wire::F64(0.0),
            wakes: vec![],
            cancel_after_sleeps: None,
        }));
        let Call::Advanced { step, input } = script.call() else {
            panic!("not an advanced call")
        };
        assert_eq!(step, "12");
        assert_eq!(input["call"], "sleep-at-least");
        assert_eq!(Script::read(&step, input), Ok(script));
        assert!(Script::read("14", serde_json::Value::Null).is_err());
    }
}
