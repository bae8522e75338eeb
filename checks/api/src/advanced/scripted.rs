//! Steps 11 and 12: the checker's scripted world, for the learner's own
//! tests. A failing check of `execute_admitted`, `sleep_at_least` or
//! `guarded_read` prints its input as Rust that builds its world with these
//! items, and the checker plays every such check in a world built by them.

use super::common::{Cancel, Clock, Sleeper};
use super::s11::{HttpResponse, Transport};
use std::sync::{Arc, Mutex, MutexGuard};

/// One reply of a [`ScriptedWorld`]'s transport.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedReply {
    pub status: u16,
    /// One entry per Retry-After field, in order; empty when there is none.
    pub retry_after: Vec<String>,
    pub received_at: i64,
    pub body: String,
    /// Seconds the send takes: the clock moves by exactly this inside
    /// `send` (it may be negative, NaN or infinite); the timeout is ignored.
    pub takes: f64,
}

/// What one non-zero sleep of a [`ScriptedWorld`] does to its clock, for a
/// request of `s` seconds (finite and above 0; any other request leaves the
/// clock where it is, but uses up its wake).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScriptedWake {
    /// The clock moves by `s`.
    Exact,
    /// The clock moves by `moved` only (an early wake-up when it is below `s`).
    Early { moved: f64 },
    /// The clock does not move.
    Frozen,
    /// The clock moves by `s`, then by `over` (an oversleep).
    Late { over: f64 },
    /// The clock moves back by `by`.
    Back { by: f64 },
    /// The clock reads `t` afterwards (NaN or an infinity, say).
    Reads { t: f64 },
    /// The sleep panics instead of returning; the clock does not move.
    Panics,
}

impl ScriptedWake {
    /// The clock's reading after a sleep of `asked` seconds from `now`.
    fn after(self, now: f64, asked: f64) -> f64 {
        match self {
            ScriptedWake::Exact => now + asked,
            ScriptedWake::Early { moved } => now + moved,
            ScriptedWake::Frozen | ScriptedWake::Panics => now,
            ScriptedWake::Late { over } => now + asked + over,
            ScriptedWake::Back { by } => now - by,
            ScriptedWake::Reads { t } => t,
        }
    }
}

/// Told `(k, reading)` when the response to send `k` is closed: the clock's
/// reading before the close moved it.
type CloseWatch = Box<dyn Fn(u32, f64) + Send + Sync>;

struct WorldState {
    now: f64,
    replies: Vec<ScriptedReply>,
    later: Option<ScriptedReply>,
    wakes: Vec<ScriptedWake>,
    closing: Vec<f64>,
    cancel_after: Option<u32>,
    /// Sends made so far.
    sends: u32,
    /// Non-zero sleeps begun so far (a panicking one included).
    sleeps: u32,
    /// Sends and non-zero sleeps that have returned.
    returned: u32,
    close_watch: Option<CloseWatch>,
}

/// A world in virtual time, as the checker of steps 11 and 12 plays it: one
/// clock, and the transport, sleeper and cancel flag that share it. Every
/// handle (see [`ScriptedWorld::roles`]) is the same world.
///
/// - The clock reads `start` until something moves it, and reading it never
///   moves it. It moves only inside a send, a close and a non-zero sleep.
/// - The k-th send (from 0) gets the k-th of [`replies`](Self::replies),
///   then [`later`](Self::later) for every send after them; the clock moves
///   by the reply's `takes`. A send with no reply scripted panics.
/// - Closing (dropping) the response to send k moves the clock by the k-th
///   entry of [`closing`](Self::closing) (0 past the list).
/// - A sleep of zero (`0.0` or `-0.0`) does nothing at all. The n-th other
///   sleep (from 1) applies the n-th of [`wakes`](Self::wakes), then
///   [`ScriptedWake::Exact`] once the list runs out.
/// - `is_cancelled()` is true once [`cancel_after`](Self::cancel_after)
///   sends and non-zero sleeps have returned; never when it is not set.
#[derive(Clone)]
pub struct ScriptedWorld {
    state: Arc<Mutex<WorldState>>,
}

impl ScriptedWorld {
    /// A world whose clock reads `start`, with no reply scripted, exact
    /// sleeps, closes that take no time, and no cancellation.
    pub fn new(start: f64) -> ScriptedWorld {
        ScriptedWorld {
            state: Arc::new(Mutex::new(WorldState {
                now: start,
                replies: Vec::new(),
                later: None,
                wakes: Vec::new(),
                closing: Vec::new(),
                cancel_after: None,
                sends: 0,
                sleeps: 0,
                returned: 0,
                close_watch: None,
            })),
        }
    }

    /// The replies to the first sends, in order.
    pub fn replies(self, replies: Vec<ScriptedReply>) -> ScriptedWorld {
        self.lock().replies = replies;
        self
    }

    /// The reply to every send after the listed replies.
    pub fn later(self, reply: ScriptedReply) -> ScriptedWorld {
        self.lock().later = Some(reply);
        self
    }

    /// What the 1st, 2nd, ... non-zero sleep does to the clock.
    pub fn wakes(self, wakes: Vec<ScriptedWake>) -> ScriptedWorld {
        self.lock().wakes = wakes;
        self
    }

    /// How far closing the response to the 1st, 2nd, ... send moves the clock.
    pub fn closing(self, closing: Vec<f64>) -> ScriptedWorld {
        self.lock().closing = closing;
        self
    }

    /// Cancellation shows once `n` sends and non-zero sleeps have returned
    /// (`0`: from the start).
    pub fn cancel_after(self, n: u32) -> ScriptedWorld {
        self.lock().cancel_after = Some(n);
        self
    }

    /// Four handles on this one world, in the order `execute_admitted`
    /// takes them: transport, clock, sleeper, cancel.
    pub fn roles(&self) -> (ScriptedWorld, ScriptedWorld, ScriptedWorld, ScriptedWorld) {
        (self.clone(), self.clone(), self.clone(), self.clone())
    }

    /// Calls `watch(k, reading)` whenever the response to send `k` is
    /// closed, with the clock's reading before the close moved it (the
    /// checker's). It runs while the world is locked: it must not use it.
    #[doc(hidden)]
    pub fn watch_closes(self, watch: Box<dyn Fn(u32, f64) + Send + Sync>) -> ScriptedWorld {
        self.lock().close_watch = Some(watch);
        self
    }

    /// Never panics on a poisoned lock: responses close while unwinding too.
    fn lock(&self) -> MutexGuard<'_, WorldState> {
        lock(&self.state)
    }
}

fn lock(state: &Mutex<WorldState>) -> MutexGuard<'_, WorldState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl std::fmt::Debug for ScriptedWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        f.debug_struct("ScriptedWorld")
            .field("now", &st.now)
            .field("sends", &st.sends)
            .field("sleeps", &st.sleeps)
            .finish()
    }
}

impl Clock for ScriptedWorld {
    fn now(&self) -> f64 {
        self.lock().now
    }
}

impl Transport for ScriptedWorld {
    fn send(&mut self, _method: &str, _timeout: f64) -> HttpResponse {
        let mut st = self.lock();
        let k = st.sends;
        let Some(reply) = st.replies.get(k as usize).or(st.later.as_ref()).cloned() else {
            drop(st);
            panic!("ScriptedWorld: no reply for send #{k} (script one with .later(…))");
        };
        st.sends += 1;
        st.now += reply.takes;
        st.returned += 1;
        drop(st);
        let state = Arc::clone(&self.state);
        HttpResponse::watched(
            reply.status,
            reply.retry_after,
            reply.received_at,
            reply.body,
            Box::new(move || {
                let mut st = lock(&state);
                let reading = st.now;
                st.now += st.closing.get(k as usize).copied().unwrap_or(0.0);
                if let Some(watch) = &st.close_watch {
                    watch(k, reading);
                }
            }),
        )
    }
}

impl Sleeper for ScriptedWorld {
    fn sleep(&mut self, seconds: f64) {
        if seconds == 0.0 {
            return;
        }
        let mut st = self.lock();
        st.sleeps += 1;
        let n = st.sleeps;
        let wake = st
            .wakes
            .get(n as usize - 1)
            .copied()
            .unwrap_or(ScriptedWake::Exact);
        if wake == ScriptedWake::Panics {
            drop(st);
            panic!("ScriptedWorld: non-zero sleep number {n} panics, as scripted");
        }
        if seconds > 0.0 && seconds.is_finite() {
            st.now = wake.after(st.now, seconds);
        }
        st.returned += 1;
    }
}

impl Cancel for ScriptedWorld {
    fn is_cancelled(&self) -> bool {
        let st = self.lock();
        st.cancel_after.is_some_and(|n| st.returned >= n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, takes: f64) -> ScriptedReply {
        ScriptedReply {
            status,
            retry_after: vec!["1".into()],
            received_at: 1_700_000_000,
            body: format!("body-{status}"),
            takes,
        }
    }

    #[test]
    fn sends_take_their_replies_time_and_closes_move_the_clock() {
        let world = ScriptedWorld::new(100.0)
            .replies(vec![reply(429, 0.5), reply(503, f64::NAN)])
            .later(reply(200, 0.25))
            .closing(vec![-0.125]);
        let (mut transport, clock, _, _) = world.roles();
        let first = transport.send("GET", 10.0);
        assert_eq!((first.status, clock.now()), (429, 100.5));
        drop(first);
        assert_eq!(clock.now(), 100.375);
        let second = transport.send("GET", 10.0);
        assert_eq!(second.status, 503);
        assert!(clock.now().is_nan());
        world.state.lock().unwrap().now = 0.0;
        for _ in 0..3 {
            let r = transport.send("GET", 1.0);
            assert_eq!((r.status, r.body.as_str()), (200, "body-200"));
        }
        assert_eq!(clock.now(), 0.75);
    }

    #[test]
    fn sleeps_apply_their_wakes_in_turn_and_zero_is_nothing() {
        let world = ScriptedWorld::new(10.0).wakes(vec![
            ScriptedWake::Early { moved: 0.25 },
            ScriptedWake::Frozen,
            ScriptedWake::Late { over: 0.5 },
            ScriptedWake::Back { by: 2.0 },
            ScriptedWake::Exact,
            ScriptedWake::Reads { t: f64::INFINITY },
        ]);
        let (_, clock, mut sleeper, _) = world.roles();
        let mut seen = Vec::new();
        for s in [1.0, 0.0, -0.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0] {
            sleeper.sleep(s);
            seen.push(clock.now());
        }
        let want = [
            10.25,
            10.25,
            10.25,
            10.25,
            11.75,
            9.75,
            9.75,
            f64::INFINITY,
            f64::INFINITY,
        ];
        assert_eq!(seen, want);
        sleeper.sleep(1.0); // the list ran out: exact
        assert_eq!(clock.now(), f64::INFINITY);
    }

    #[test]
    fn a_scripted_panic_uses_up_its_wake_and_does_not_count_as_returned() {
        let world = ScriptedWorld::new(0.0)
            .wakes(vec![ScriptedWake::Panics, ScriptedWake::Late { over: 1.0 }])
            .cancel_after(1);
        let (_, clock, mut sleeper, cancel) = world.roles();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sleeper.sleep(2.0);
        }));
        assert!(panicked.is_err());
        assert_eq!(clock.now(), 0.0);
        assert!(!cancel.is_cancelled());
        sleeper.sleep(2.0);
        assert_eq!(clock.now(), 3.0);
        assert!(cancel.is_cancelled());
    }

    #[test]
    fn cancellation_counts_returned_sends_and_non_zero_sleeps() {
        let world = ScriptedWorld::new(0.0)
            .later(reply(429, 0.0))
            .cancel_after(2);
        let (mut transport, _, mut sleeper, cancel) = world.roles();
        drop(transport.send("GET", 1.0));
        sleeper.sleep(0.0);
        assert!(!cancel.is_cancelled());
        sleeper.sleep(-1.0);
        assert!(cancel.is_cancelled());
        let now = ScriptedWorld::new(0.0).cancel_after(0);
        assert!(now.is_cancelled());
        assert!(!ScriptedWorld::new(0.0).is_cancelled());
    }

    #[test]
    fn a_watcher_hears_every_close_with_the_reading_before_it() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = Arc::clone(&heard);
        let world = ScriptedWorld::new(1.0)
            .replies(vec![reply(429, 1.0)])
            .later(reply(200, 1.0))
            .closing(vec![0.5, 0.25])
            .watch_closes(Box::new(move |k, at| h.lock().unwrap().push((k, at))));
        let (mut transport, _, _, _) = world.roles();
        let a = transport.send("GET", 1.0);
        let b = transport.send("GET", 1.0);
        drop(b);
        drop(a);
        assert_eq!(*heard.lock().unwrap(), vec![(1, 3.0), (0, 3.25)]);
        assert_eq!(world.now(), 3.75);
    }

    #[test]
    #[should_panic(expected = "no reply for send #0")]
    fn a_send_without_a_scripted_reply_panics() {
        let (mut transport, _, _, _) = ScriptedWorld::new(0.0).roles();
        transport.send("GET", 1.0);
    }
}
