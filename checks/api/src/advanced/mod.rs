//! Types of the advanced steps 09–13, provided to the learner's
//! `student/src/advanced.rs` through `use lab_api::advanced::*;`.
//!
//! Every type the checker builds or matches on lives here; learners write
//! only behaviour. No name here equals one of the eight core functions, so
//! the glob import never clashes with them.

mod common;
// Step 09 needs only the common types.
mod s10;
mod s11;
mod s12;
mod s13;
mod s13_live;

pub use common::*;
pub use s10::*;
pub use s11::*;
pub use s12::*;
pub use s13::*;
pub use s13_live::{LiveEvent, LiveNote, LiveSupplier, OutboundSlots};
