//! Step 12 `sleep_at_least` and `guarded_read`. A `sleep_at_least` script
//! is the arguments, the clock's first reading, what each sleeper call does
//! to the clock, and when cancellation becomes visible; the runner reports
//! every sleep it was asked for (with the clock's reading after it) and the
//! result. A `guarded_read` script is step 11's world of replies (see
//! [`crate::s11::Scenario`]) whose sleeper moves the clock by
//! [`Wake`]s, and whose closes may move it too; the runner reports the
//! events and the `Finish`, as in step 11.
//!
//! The world's rule for one sleep lives here ([`Wake::after`]), so the
//! runner's world and the judge's model move the clock the same way. The
//! clock is state: it changes only inside a send (by the reply's cost),
//! a close (by its scripted step) or a non-zero sleep, never by reading it.

use crate::s11;
use lab_api::advanced::SleepFault;
use lab_wire::F64;
use serde::{Deserialize, Serialize};

/// How a `sleep_at_least` call ended: its own result, on the wire `"ok"` or
/// the fault in kebab case (see [`crate::named::ending`]).
pub type Ending = Result<(), SleepFault>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "kebab-case")]
pub enum Script {
    SleepAtLeast(SleepScript),
    GuardedRead(Guarded),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "kebab-case")]
pub enum Observed {
    SleepAtLeast(SleepSeen),
    GuardedRead(GuardedSeen),
}

/// One `guarded_read` call and its world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guarded {
    /// Step 11's world: the arguments, the clock's start, the replies (a
    /// cost may be negative, NaN or infinite: the clock reads that after
    /// the send) and when cancellation shows (after that many sends and
    /// non-zero sleeps have returned). Its `overrun` is unused: `wakes`
    /// say what each sleep does.
    pub read: s11::Scenario,
    /// What the 1st, 2nd, ... non-zero sleep of the whole read does to the
    /// clock; [`Wake::Exact`] once the list runs out.
    pub wakes: Vec<Wake>,
    /// Closing the response to send k moves the clock by `closing[k]`
    /// (0 past the list), until the call returns.
    pub closing: Vec<F64>,
    /// The n-th non-zero sleep (from 1) panics instead of returning.
    pub sleeper_panics: Option<u32>,
}

impl Guarded {
    /// What the `n`th non-zero sleep (from 1) does.
    pub fn wake(&self, n: usize) -> Wake {
        self.wakes.get(n - 1).copied().unwrap_or(Wake::Exact)
    }

    /// How far closing the response to send `k` moves the clock.
    pub fn closing(&self, k: u32) -> f64 {
        self.closing.get(k as usize).map_or(0.0, |x| x.0)
    }
}

/// What the runner saw of one `guarded_read` call: as step 11's
/// `execute_admitted` (the sleeps are the sleeper's calls).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuardedSeen {
    pub events: Vec<s11::Event>,
    pub ending: s11::Ending,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SleepScript {
    /// The arguments of `sleep_at_least`.
    pub wait: F64,
    pub deadline: F64,
    /// The clock's reading until the first sleep.
    pub start: F64,
    /// What the 1st, 2nd, ... non-zero sleep does to the clock; once the
    /// list runs out, every sleep is [`Wake::Exact`].
    pub wakes: Vec<Wake>,
    /// Cancellation becomes visible once this many non-zero sleeps have
    /// returned (`Some(0)`: from the start); `None`: never.
    pub cancel_after_sleeps: Option<u32>,
}

/// What one sleeper call does to the clock.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "wake", rename_all = "kebab-case")]
pub enum Wake {
    /// Moves by exactly the request.
    Exact,
    /// Moves by `moved` only (scripts choose it below the request a correct
    /// solution makes).
    Early { moved: F64 },
    /// Does not move at all.
    Frozen,
    /// Moves by the request plus `over`.
    Late { over: F64 },
    /// Moves back by `by`.
    Back { by: F64 },
    /// The clock reads `t` afterwards (NaN or an infinity).
    Reads { t: F64 },
}

impl Wake {
    /// The clock's reading after a sleep of `asked` seconds that started at `now`.
    pub fn after(self, now: f64, asked: f64) -> f64 {
        match self {
            Wake::Exact => now + asked,
            Wake::Early { moved } => now + moved.0,
            Wake::Frozen => now,
            Wake::Late { over } => now + asked + over.0,
            Wake::Back { by } => now - by.0,
            Wake::Reads { t } => t.0,
        }
    }
}

impl SleepScript {
    /// What the `n`th non-zero sleep (from 1) does.
    pub fn wake(&self, n: usize) -> Wake {
        self.wakes.get(n - 1).copied().unwrap_or(Wake::Exact)
    }

    /// Whether cancellation is visible once `slept` non-zero sleeps have returned.
    pub fn cancelled(&self, slept: usize) -> bool {
        self.cancel_after_sleeps
            .is_some_and(|k| slept >= k as usize)
    }
}

/// One non-zero sleep the learner asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slept {
    /// The argument of `sleeper.sleep`.
    pub asked: F64,
    /// The clock's reading once it returned (shown, never judged: it follows
    /// from the requests).
    pub after: F64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SleepSeen {
    /// The clock's first reading (shown, never judged).
    pub start: F64,
    /// Every non-zero sleep, in order (sleeps of zero are ignored).
    pub sleeps: Vec<Slept>,
    #[serde(with = "crate::named::ending")]
    pub result: Ending,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wakes_move_the_clock_as_documented() {
        let at = |w: Wake| w.after(10.0, 1.0);
        assert_eq!(at(Wake::Exact), 11.0);
        assert_eq!(at(Wake::Early { moved: F64(0.25) }), 10.25);
        assert_eq!(at(Wake::Frozen), 10.0);
        assert_eq!(at(Wake::Late { over: F64(0.5) }), 11.5);
        assert_eq!(at(Wake::Back { by: F64(0.5) }), 9.5);
        assert!(at(Wake::Reads { t: F64(f64::NAN) }).is_nan());
    }

    #[test]
    fn scripts_run_out_into_exact_wakes_and_cancel_on_time() {
        let s = SleepScript {
            wait: F64(1.0),
            deadline: F64(20.0),
            start: F64(10.0),
            wakes: vec![Wake::Frozen],
            cancel_after_sleeps: Some(2),
        };
        assert_eq!(s.wake(1), Wake::Frozen);
        assert_eq!(s.wake(2), Wake::Exact);
        assert!(!s.cancelled(1));
        assert!(s.cancelled(2));
        let seen = SleepSeen {
            start: F64(10.0),
            sleeps: vec![],
            result: Err(SleepFault::TooManyWakeUps),
        };
        let text = serde_json::to_string(&seen).unwrap();
        assert!(
            text.ends_with(",\"result\":\"too-many-wake-ups\"}"),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<SleepSeen>(&text).unwrap(), seen);
    }

    #[test]
    fn both_calls_travel_tagged() {
        let s = Script::SleepAtLeast(SleepScript {
            wait: F64(1.0),
            deadline: F64(f64::NAN),
            start: F64(10.0),
            wakes: vec![Wake::Reads { t: F64(f64::NAN) }],
            cancel_after_sleeps: None,
        });
        let text = serde_json::to_string(&s).unwrap();
        let back: Script = serde_json::from_str(&text).unwrap();
        assert!(text.starts_with("{\"call\":\"sleep-at-least\""), "{text}");
        let Script::SleepAtLeast(b) = back else {
            panic!("{text}")
        };
        assert!(b.deadline.0.is_nan());
    }
}

json_io!();
