//! `LAB_TIMING=1`: how long each phase of a check or a grading run took, on
//! stderr (for work on performance; see docs/MAINTAINERS.md).

/// With LAB_TIMING set, says on stderr how long a phase took (for bench work).
pub fn phase(what: &str, since: std::time::Instant) {
    if std::env::var_os("LAB_TIMING").is_some() {
        eprintln!("timing: {what}: {:.3} s", since.elapsed().as_secs_f64());
    }
}
