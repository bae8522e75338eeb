//! The core runner: `lab-runner CASES OUTCOMES FROM [careful]`, or
//! `lab-runner try ADDRESS` (the live mode). The protocol loop is
//! `lab_harness::serve`; this crate only maps calls onto the learner's
//! eight functions. It reports, it never judges.

mod call;
mod live;
mod world;

use std::process::ExitCode;

fn main() -> ExitCode {
    lab_harness::serve("lab-runner", call::dispatch, try_mode)
}

fn try_mode(args: &[String]) -> Option<Result<(), String>> {
    match args {
        [mode, address] if mode == "try" => Some(live::run(address)),
        _ => None,
    }
}
