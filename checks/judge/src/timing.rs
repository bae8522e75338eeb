//! `LAB_TIMING=1`: how long each phase of a check or a grading run took, on
//! stderr (for work on performance; see docs/maintainers/performance.md).

/// With LAB_TIMING set, says on stderr how long a phase took (for bench work).
pub fn phase(what: &str, since: std::time::Instant) {
    if std::env::var_os("LAB_TIMING").is_some() {
        eprintln!("timing: {what}: {:.3} s", since.elapsed().as_secs_f64());
    }
}

/// The judge's own peak resident memory so far, in KiB (its children,
/// runners and compilers, are not counted): `getrusage`'s high-water mark.
#[cfg(unix)]
pub fn peak_memory_kib() -> u64 {
    // SAFETY: getrusage fills the struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return 0;
        }
        usage.ru_maxrss.max(0) as u64
    }
}

/// The judge's own peak resident memory: not measured on this system.
#[cfg(not(unix))]
pub fn peak_memory_kib() -> u64 {
    0
}

/// With LAB_TIMING set, says on stderr the judge's own peak memory.
pub fn peak_memory() {
    if std::env::var_os("LAB_TIMING").is_some() {
        eprintln!("timing: judge peak memory: {} KiB", peak_memory_kib());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_grows_with_what_the_judge_holds() {
        let before = super::peak_memory_kib();
        assert!(before > 0);
        let held = vec![1u8; 64 << 20];
        std::hint::black_box(&held);
        assert!(super::peak_memory_kib() >= before.max(64 << 10));
    }
}
