//! The checker's scripts for the advanced steps 09–13, and what the runner
//! observed while playing them: one module per step. They travel inside
//! [`crate::Call::Advanced`] and [`crate::Value::Json`], so a
//! step's shapes can change without touching the core protocol's types.
//! Floats travel as [`crate::F64`] text, exact to the bit.

pub mod s09;
pub mod s10;
pub mod s11;
pub mod s12;
pub mod s13;
