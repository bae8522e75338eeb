//! The checker's scripts for the advanced steps 09–13, and what the runner
//! observed while playing them: one module per step. They travel inside
//! [`crate::Call::Advanced`] and [`crate::Value::Json`], so a
//! step's shapes can change without touching the core protocol's types.
//! Floats travel as [`crate::F64`] text, exact to the bit.

/// A step's `read` (its script from JSON) and `write` (its observation as
/// JSON). Plain functions, so serde's generic code for these types is
/// compiled here, once and optimised, and not again in every build of the
/// advanced runner, which links the learner's code and is rebuilt at each save.
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

pub mod s09;
pub mod s10;
pub mod s11;
pub mod s12;
pub mod s13;
mod shared;
