//! Everything the core runner does, compiled once with the kit: the
//! mapping of protocol calls onto the learner's eight functions
//! (`call`), step 08's scripted world (`world`) and the live mode
//! (`live`). The learner's functions arrive as pointers in [`Functions`],
//! so the binary rebuilt at every save (`checks/runner`) is one `main`
//! that names them, and its build is a small compile and a link.

mod call;
mod live;
mod world;

use lab_api::{ExecuteError, InvalidArgument, Options, Response};
use std::process::ExitCode;
use std::sync::OnceLock;

/// `student::execute`'s type.
pub type Execute = fn(
    &mut dyn FnMut(f64) -> Response,
    &mut dyn FnMut() -> f64,
    &mut dyn FnMut(f64),
    Options<'_>,
    &mut dyn FnMut() -> f64,
) -> Result<Response, ExecuteError>;

/// The learner's eight functions, with the contract's signatures.
pub struct Functions {
    pub retryable: fn(u16) -> bool,
    pub replay_safe: fn(&str, Option<&str>) -> bool,
    pub remaining: fn(f64, f64) -> f64,
    pub backoff: fn(u32, f64, f64) -> Result<f64, InvalidArgument>,
    pub jitter: fn(f64, f64) -> Result<f64, InvalidArgument>,
    pub wait_delay: fn(f64, Option<&str>) -> f64,
    pub can_attempt: fn(u32, u32, f64, f64) -> bool,
    pub execute: Execute,
}

static LEARNER: OnceLock<Functions> = OnceLock::new();

/// The functions `main` was handed.
fn learner() -> &'static Functions {
    LEARNER.get().unwrap_or_else(|| {
        std::panic::panic_any(lab_harness::KitError("no learner functions".into()))
    })
}

/// The core runner: `lab-runner CASES OUTCOMES FROM [careful]`, or
/// `lab-runner try ADDRESS` (the live mode). The protocol loop is
/// `lab_harness::serve`. It reports, it never judges.
pub fn main(functions: Functions) -> ExitCode {
    let _ = LEARNER.set(functions);
    lab_harness::serve("lab-runner", call::dispatch, try_mode)
}

fn try_mode(args: &[String]) -> Option<Result<(), String>> {
    match args {
        [mode, address] if mode == "try" => Some(live::run(address)),
        _ => None,
    }
}
