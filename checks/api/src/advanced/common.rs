//! Shared by several advanced steps: time, sleeping and cancellation.

use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::InvalidArgument;

/// Seconds on one monotonic time line.
pub trait Clock: Send + Sync {
    fn now(&self) -> f64;
}

/// A clock set by hand: for the learner's own tests, and the checker's clock
/// in step 09.
#[derive(Debug, Default)]
pub struct ManualClock {
    bits: AtomicU64,
}

impl ManualClock {
    pub fn new(start: f64) -> ManualClock {
        ManualClock {
            bits: AtomicU64::new(start.to_bits()),
        }
    }

    pub fn set(&self, t: f64) {
        self.bits.store(t.to_bits(), Ordering::SeqCst);
    }

    pub fn advance(&self, dt: f64) {
        self.set(self.now() + dt);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.bits.load(Ordering::SeqCst))
    }
}

/// Something that sleeps: for real in production, in virtual time in the
/// checker. It may return early (see step 12).
pub trait Sleeper {
    fn sleep(&mut self, seconds: f64);
}

/// Asks whether the caller has given up.
pub trait Cancel {
    fn is_cancelled(&self) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_reads_what_was_set_and_advanced() {
        let c = ManualClock::new(10.0);
        assert_eq!(c.now(), 10.0);
        c.advance(0.5);
        assert_eq!(c.now(), 10.5);
        c.set(-0.0);
        assert_eq!(c.now().to_bits(), (-0.0f64).to_bits());
    }
}
