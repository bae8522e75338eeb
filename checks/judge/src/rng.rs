//! The run's one random source: a ChaCha8 generator from a u64 seed, so that
//! `--seed` reproduces a run bit for bit.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub struct Gen(ChaCha8Rng);

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(ChaCha8Rng::seed_from_u64(seed))
    }

    /// An independent stream for one purpose (a step, an id space), so adding
    /// cases to one suite does not shift another suite's values.
    pub fn fork(seed: u64, stream: &str) -> Gen {
        let h = crate::hash::fnv1a(stream.as_bytes());
        Gen::new(seed ^ h.rotate_left(17))
    }

    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        // Rejection sampling keeps it uniform.
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A multiple of 1/64 in `lo..=hi` (both in 64ths), so sums stay exact.
    pub fn sixty_fourths(&mut self, lo: i64, hi: i64) -> f64 {
        self.int(lo, hi) as f64 / 64.0
    }

    /// A case id or response body: 16 hex digits nobody can guess.
    pub fn id(&mut self, prefix: &str) -> String {
        format!("{prefix}{:016x}", self.u64())
    }
}

/// A secret nobody can guess, for one runner (not part of any verdict).
pub fn nonce() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = nanos
        ^ (u64::from(std::process::id()) << 40)
        ^ COUNTER.fetch_add(1, Ordering::SeqCst).rotate_left(20);
    Gen::new(mixed).id("")
}

/// A seed for a run that was given none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut g = Gen::new(nanos ^ (u64::from(std::process::id()) << 32));
    // Keep seeds short enough to type.
    g.below(1_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_gives_same_values() {
        let (mut a, mut b) = (Gen::new(7), Gen::new(7));
        let xs: Vec<u64> = (0..5).map(|_| a.u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, (0..5).map(|_| Gen::new(8).u64()).collect::<Vec<_>>());
    }

    #[test]
    fn forks_are_independent_streams() {
        assert_ne!(Gen::fork(1, "01").u64(), Gen::fork(1, "02").u64());
        assert_eq!(Gen::fork(1, "01").u64(), Gen::fork(1, "01").u64());
    }

    #[test]
    fn ranges_are_inclusive_and_in_sixty_fourths() {
        let mut g = Gen::new(3);
        let mut seen = [false; 3];
        for _ in 0..200 {
            let x = g.int(-1, 1);
            seen[(x + 1) as usize] = true;
            let f = g.sixty_fourths(-64, 64);
            assert!((-1.0..=1.0).contains(&f) && (f * 64.0).fract() == 0.0);
        }
        assert_eq!(seen, [true; 3]);
    }
}
