//! The advanced runner: `lab-runner-advanced FROM [careful]` (cases and
//! outcomes on the descriptors the judge hands it, see `lab_harness`), or
//! `lab-runner-advanced try 11|13 ...` (the live mode, see `live`).
//!
//! Compiles the learner's `student/src/advanced.rs` as its module `advanced`
//! (never part of the `student` crate, so core submissions build exactly as
//! before) and plays the checker's scripts of steps 09–13 against it
//! through `glue`. The crate root holds nothing else the learner's module
//! could reach.

// rustfmt follows `mod` items even behind `cfg` and fails on a missing
// file; it does not expand macros, so this keeps the module out of its way.
#[allow(unused_macros)] // unused when there is no advanced file
macro_rules! unseen_by_rustfmt { ($($i:item)*) => { $($i)* } }

#[cfg(lab_advanced)]
unseen_by_rustfmt! {
    #[allow(dead_code)] // a learner's unused helpers are not the kit's business
    #[path = "../../../student/src/advanced.rs"]
    mod advanced;
}

// The instructors' reference, for linting this crate (see build.rs).
#[cfg(lab_reference)]
unseen_by_rustfmt! {
    #[path = "../../../solutions/advanced.rs"]
    mod advanced;
}

#[cfg(any(lab_advanced, lab_reference))]
mod glue;
#[cfg(any(lab_advanced, lab_reference, test))]
mod live;
#[cfg(any(lab_advanced, lab_reference, test))]
mod schedule;

fn main() -> std::process::ExitCode {
    #[cfg(any(lab_advanced, lab_reference))]
    return lab_harness::serve("lab-runner-advanced", glue::dispatch, live::try_mode);
    #[cfg(not(any(lab_advanced, lab_reference)))]
    {
        eprintln!("lab-runner-advanced: student/src/advanced.rs does not exist");
        std::process::ExitCode::from(70)
    }
}
