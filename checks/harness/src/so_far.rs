//! What the current case's call did so far, for a case that runs long: a
//! call that never answers is stopped by the judge, and with it everything
//! the runner knew. The scripted world reports its sends, sleeps, clock
//! readings and draws here as they happen; a watcher thread writes them to
//! the outcomes as a [`wire::Partial`] line once the case has run for
//! [`AFTER`], and again whenever they change. So the judge can show a hung
//! call's timeline up to the moment it stopped answering.
//!
//! Order: a partial line is written only while its case is the current one,
//! under the lock that ends the case, so it always comes before that case's
//! outcome and never after.

use crate::sink::Handle;
use lab_wire::{self as wire, Event, SoFar, F64};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a case runs before its story so far is written: honest calls
/// answer in microseconds, so only a call that hangs (or sleeps for real)
/// gets one.
pub const AFTER: Duration = Duration::from_millis(250);

/// How often the watcher looks.
const EVERY: Duration = Duration::from_millis(50);

struct Current {
    id: String,
    started: Instant,
    so_far: SoFar,
    /// (events, draws, clock readings) when last written.
    written: Option<(u32, u32, u32)>,
}

static CURRENT: Mutex<Option<Current>> = Mutex::new(None);
static DRAWS: AtomicU32 = AtomicU32::new(0);
static CLOCK_READS: AtomicU32 = AtomicU32::new(0);

fn current() -> MutexGuard<'static, Option<Current>> {
    CURRENT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Case `id` starts now.
pub(crate) fn begin(id: &str) {
    DRAWS.store(0, Ordering::Relaxed);
    CLOCK_READS.store(0, Ordering::Relaxed);
    *current() = Some(Current {
        id: id.to_string(),
        started: Instant::now(),
        so_far: SoFar::default(),
        written: None,
    });
}

/// The current case has answered: nothing more is written for it.
pub(crate) fn end() {
    *current() = None;
}

/// The world's call made `event`, which began at `at` (from the start).
pub fn event(event: &Event, at: f64) {
    if let Some(c) = current().as_mut() {
        let s = &mut c.so_far;
        if s.events.len() < wire::SO_FAR_EVENTS {
            s.events.push(event.clone());
            s.times.push(F64(at));
        } else {
            s.more = s.more.saturating_add(1);
        }
    }
}

/// The world's counts of draws and clock readings so far.
pub fn counts(draws: u32, clock_reads: u32) {
    DRAWS.store(draws, Ordering::Relaxed);
    CLOCK_READS.store(clock_reads, Ordering::Relaxed);
}

/// The partial line for the current case, if it has run past [`AFTER`]
/// and changed since it was last written (marked written).
fn due(now: Instant) -> Option<(MutexGuard<'static, Option<Current>>, String)> {
    let mut guard = current();
    let c = guard.as_mut()?;
    if now.duration_since(c.started) < AFTER {
        return None;
    }
    let (draws, reads) = (
        DRAWS.load(Ordering::Relaxed),
        CLOCK_READS.load(Ordering::Relaxed),
    );
    let seen = (c.so_far.events.len() as u32 + c.so_far.more, draws, reads);
    if c.written == Some(seen) {
        return None;
    }
    c.written = Some(seen);
    c.so_far.draws = draws;
    c.so_far.clock_reads = reads;
    let mut line = wire::to_line(&wire::Partial {
        partial: c.id.clone(),
        so_far: c.so_far.clone(),
    });
    line.push('\n');
    Some((guard, line))
}

/// Starts the watcher that writes partial lines to `out` (where no thread
/// can be started, none is written).
pub(crate) fn watch(out: Handle) {
    let _ = std::thread::Builder::new()
        .name("so-far".into())
        .stack_size(64 << 10)
        .spawn(move || loop {
            std::thread::sleep(EVERY);
            if let Some((_case, line)) = due(Instant::now()) {
                // Written while the case's lock is held: before its outcome.
                let _ = out.line(line.as_bytes());
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_case_is_written_once_per_change_and_an_ended_one_never() {
        begin("c1");
        event(&Event::Send { timeout: F64(1.5) }, 0.25);
        counts(1, 3);
        let start = current().as_ref().unwrap().started;
        assert!(due(start + AFTER / 2).is_none(), "too early");
        let line = due(start + AFTER).expect("due after AFTER").1;
        let p = wire::parse_partial(line.trim_end()).unwrap();
        assert_eq!(p.partial, "c1");
        assert_eq!(p.so_far.events.len(), 1);
        assert_eq!((p.so_far.draws, p.so_far.clock_reads), (1, 3));
        assert!(due(start + AFTER * 2).is_none(), "unchanged");
        counts(1, 4);
        assert!(due(start + AFTER * 2).is_some(), "changed");
        for _ in 0..wire::SO_FAR_EVENTS + 5 {
            event(&Event::Sleep { seconds: F64(1.0) }, 1.0);
        }
        let line = due(start + AFTER * 3).unwrap().1;
        let p = wire::parse_partial(line.trim_end()).unwrap();
        assert_eq!(p.so_far.events.len(), wire::SO_FAR_EVENTS);
        assert_eq!(p.so_far.more, 6);
        end();
        assert!(due(start + AFTER * 4).is_none(), "ended");
    }
}
