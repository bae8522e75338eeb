//! `lab-runner-advanced try 11 ADDRESS` and `try 13 FD COUNT NAME=PORT...`
//! (`lab_wire::Live`'s `Admitted` and `QuoteFlow`): the learner's step 11
//! and step 13 code against real servers the judge started on 127.0.0.1,
//! with real clocks, sleeps, sockets and threads. A demonstration of how
//! the injected parts map onto the world; nothing here is judged. Step
//! 13's live world links no learner code, so it is built once with the
//! harness (`lab_harness::live13`), not at each save.

// Without an advanced file only the timeline helpers are compiled.
#![cfg_attr(not(any(lab_advanced, lab_reference)), allow(dead_code))]

#[cfg(any(lab_advanced, lab_reference))]
mod s11;
#[cfg(any(lab_advanced, lab_reference))]
mod s13;

use std::time::Instant;

/// The runner's other mode (see `lab_harness::serve`): `try STEP ...`, the
/// step read as its demonstration by `lab_wire::Live`, as the judge names it.
#[cfg(any(lab_advanced, lab_reference))]
pub fn try_mode(args: &[String]) -> Option<Result<(), String>> {
    let [mode, step, rest @ ..] = args else {
        return None;
    };
    if mode != "try" {
        return None;
    }
    match lab_wire::Live::of_step(step)? {
        lab_wire::Live::Admitted => match rest {
            [address] => Some(s11::run(address)),
            _ => None,
        },
        lab_wire::Live::QuoteFlow => match rest {
            [fd, count, suppliers @ ..] => Some(s13::run(fd, count, suppliers)),
            _ => None,
        },
        // The core runner's (`lab-runner try ADDRESS`).
        lab_wire::Live::Execute => None,
    }
}

/// Seconds since `origin`, as the timelines print them.
fn at(origin: Instant) -> f64 {
    origin.elapsed().as_secs_f64()
}

/// Prints one timeline line at once (the judge shows stdout when the runner
/// has ended, even if it was stopped).
fn line(text: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
