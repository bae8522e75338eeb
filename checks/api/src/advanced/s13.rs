//! Step 13: fan-out to several suppliers under one budget.
//!
//! [`Env`] is the world of one fan-out: virtual time, the suppliers, the
//! outbound slots and the tasks. It runs tasks on ordinary threads but lets
//! only one of them run at a time (a baton), so a fan-out is deterministic:
//! - `run_all` starts one thread per task; they all start at `env.now()`;
//! - a running task gives way only inside `call`, `sleep`, an `acquire`
//!   that has to wait, and at its end;
//! - of the tasks that can run, the one with the lowest index runs next;
//! - virtual time jumps to the next wake-up only when no task can run;
//! - like a task group, when a task panics the world cancels the others and
//!   `run_all` passes the panic on once every task has ended.
//!
//! That scripted world is in `s13_scripted.rs`. An `Env` reaches its world
//! only through [`EnvWorld`], so `lab.sh try 13` puts another world behind
//! the same `Env` (real time, threads and HTTP calls: `lab_harness::live13`,
//! plugged in by `lab-runner-advanced`'s `live/`). The checks never do.

use std::sync::Mutex;

/// One request for quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    pub id: String,
    pub item: String,
    pub quantity: u32,
}

/// A supplier's offer: the body of an HTTP 200 that decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub unit_cents: i64,
    pub quantity: u32,
    pub shipping_cents: i64,
    pub in_stock: bool,
}

/// What a supplier answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// An HTTP 200 whose body decoded.
    Offer(Offer),
    /// Any other status; never 200.
    Status(u16),
}

/// Why a call gave no reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallError {
    /// Transient: the connection could not be made.
    Connect,
    /// Transient: connecting took too long.
    ConnectTimeout,
    /// Transient: the connection broke while reading the reply.
    Read,
    /// Transient: reading the reply took too long.
    ReadTimeout,
    /// Transient: the connection broke while sending the request.
    Write,
    /// Transient: sending the request took too long.
    WriteTimeout,
    /// Transient: the supplier's side broke the protocol.
    RemoteProtocol,
    /// Transient: no connection of the client's pool came free in time.
    PoolTimeout,
    /// Not transient: our own side broke the protocol (a bug to fix).
    LocalProtocol,
    /// Not transient: a 200 whose body did not decode (bad data).
    Decode,
    /// The timeout given to `call` ran out (what was left of the budget).
    TimedOut,
}

/// How one supplier's part of a fan-out ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SupplierOutcome {
    Quote {
        total_cents: u64,
    },
    OutOfStock,
    NotFound,
    /// A status other than 200 and 404 (503 when both attempts got it).
    HttpStatus(u16),
    /// A transient transport failure on the last attempt.
    TransportError,
    BadData,
    Protocol,
    Decode,
    TimedOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupplierReport {
    pub supplier: String,
    pub outcome: SupplierOutcome,
}

/// Why `fan_out` gave no reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FanOutError {
    /// The request or the suppliers did not validate (HTTP 422).
    InvalidArgument,
    /// The inbound gate was full: the service is busy (HTTP 503 with
    /// `Retry-After: 1`).
    Rejected,
}

/// What the HTTP entry answers for one quote request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    /// The `Retry-After` field in seconds, when there is one.
    pub retry_after: Option<u32>,
}

/// Most attempts per supplier, the first included.
pub const ATTEMPTS_PER_SUPPLIER: u32 = 2;
/// Shortest pause before a second attempt, in seconds (20 ms).
pub const PAUSE_MIN: f64 = 0.02;
/// The pause is `PAUSE_MIN + PAUSE_SPREAD * fraction`, in seconds: 20 to
/// 30 ms.
pub const PAUSE_SPREAD: f64 = 0.01;
/// The service's default budget per request, in seconds: a request's
/// deadline is `now + BUDGET`.
pub const BUDGET: f64 = 0.8;
/// The service's default inbound capacity (requests in flight).
pub const INBOUND_LIMIT: u32 = 8;
/// The service's default number of outbound slots (calls in flight).
pub const OUTBOUND_LIMIT: u32 = 6;

/// The panic of a call whose script says "panic" (a programming error in
/// the supplier's call). `run_all` passes it on like any other panic.
#[doc(hidden)]
#[derive(Debug)]
pub struct ScriptedPanic;

/// The panic that stops a fan-out that went on far too long, or a
/// `run_all` called where it may not be (see the broken rule).
#[doc(hidden)]
#[derive(Debug)]
pub struct WorldStopped;

/// The panic that unwinds a task the world cancelled because another task
/// panicked.
#[doc(hidden)]
#[derive(Debug)]
pub struct TaskCancelled;

/// One scripted attempt of a supplier.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScriptedAnswer {
    Reply(Reply),
    Fail(CallError),
    Panic,
}

/// A supplier as the checker scripts it.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedSupplier {
    pub name: String,
    /// Cost in seconds and answer of each call, in order; calls beyond the
    /// list get the last entry again.
    pub attempts: Vec<(f64, ScriptedAnswer)>,
    /// Returned by `fraction`, in order, then 0.0.
    pub fractions: Vec<f64>,
}

/// Something a task did, as the world saw it.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub enum WorldEvent {
    Call {
        at: f64,
        timeout: f64,
        request: QuoteRequest,
        /// When the call returned (or its scripted panic unwound).
        ended: f64,
        answer: Result<ScriptedAnswer, CallError>,
    },
    Pause {
        at: f64,
        seconds: f64,
    },
    /// An `acquire` that had to wait.
    SlotWait {
        from: f64,
        at: f64,
        got: bool,
    },
    /// The task was cancelled here (another task panicked): its pending
    /// `acquire`, `call` or `sleep` unwound at `at`.
    Cancelled {
        at: f64,
    },
}

/// A rule of the world that the learner's code broke.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorldRule {
    /// `call` for a supplier that is not the calling task's.
    OtherSupplier,
    /// `call` while holding no slot, or more than one.
    CallWithoutOneSlot,
    /// `sleep` while holding a slot.
    SleepHoldingSlot,
    /// A slot still held when its task ended.
    SlotOutlivedTask,
    /// `run_all` called a second time (or while running).
    RunAllAgain,
    /// `run_all` with a number of tasks other than the number of suppliers.
    RunAllTaskCount,
    /// `run_all` called from inside a task.
    RunAllInsideTask,
    /// `call`, `sleep`, `acquire` or `fraction` outside the tasks of `run_all`.
    OutsideTask,
    /// `call` with a timeout that is not a positive number.
    BadTimeout,
    /// `sleep` with a duration that is not a finite positive number.
    BadSleep,
    /// Every unfinished task waited for a slot that could never come.
    Deadlock,
}

#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct WorldBreach {
    pub rule: WorldRule,
    /// The task, when a task broke it.
    pub task: Option<usize>,
    pub at: f64,
}

/// Everything the world saw during one fan-out.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorldRecord {
    /// One list per supplier (task `k` works for supplier `k`).
    pub timelines: Vec<Vec<WorldEvent>>,
    pub breaches: Vec<WorldBreach>,
    pub run_all_calls: u32,
    /// What the watch (see [`Env::watch_first_run_all`]) answered.
    pub watched: Option<u32>,
    /// Panics in tasks that the world did not script: (task, message).
    pub stray_panics: Vec<(usize, String)>,
    /// `Some(events)` when the fan-out was stopped for going on too long.
    pub runaway: Option<u32>,
    pub now: f64,
    /// Slots held right now.
    pub slots_held: u32,
}

/// What an [`Env`] asks of the world behind it, one method per method of
/// `Env`: the scripted world of the checks is one; the runner plugs in
/// another for `lab.sh try 13`.
#[doc(hidden)]
pub trait EnvWorld: Send + Sync {
    fn now(&self) -> f64;
    /// Runs every task and returns once all have ended, passing on the
    /// first panic of a task (as [`Env::run_all`] says).
    fn run_all<'t>(&self, tasks: Vec<Box<dyn FnOnce() + Send + 't>>);
    /// A slot's id, or `None` when `deadline` came first.
    fn acquire(&self, deadline: f64) -> Option<u64>;
    /// Gives back the slot `acquire` gave.
    fn release(&self, slot: u64);
    fn call(
        &self,
        supplier: &str,
        request: &QuoteRequest,
        timeout: f64,
    ) -> Result<Reply, CallError>;
    fn sleep(&self, seconds: f64);
    fn fraction(&self, supplier: &str) -> f64;
    /// The time for `Debug`, read without counting as a reading.
    fn clock(&self) -> f64 {
        self.now()
    }
    /// What happened so far: the scripted world's record; others keep none.
    fn record(&self) -> WorldRecord {
        WorldRecord::default()
    }
    /// Runs `watch` once, at the first call of `run_all`, before any task
    /// (the scripted world; others ignore it).
    fn watch_first_run_all(&mut self, _watch: Box<dyn Fn() -> u32 + Send + Sync>) {}
}

/// The world of one fan-out: virtual time, the suppliers, a fixed number of
/// outbound slots, and the tasks that work for the suppliers.
///
/// Rules (the checker reports every one that is broken):
/// 1. task `k` of [`Env::run_all`] works only for `suppliers[k]`, and
///    calls only while it holds exactly one [`Slot`];
/// 2. no task sleeps while holding a slot;
/// 3. no slot outlives its task;
/// 4. `run_all` is called once, with one task per supplier, and not from
///    inside a task;
/// 5. `acquire`, `call`, `sleep` and `fraction` are used only from inside
///    the tasks of `run_all` (`now` anywhere);
/// 6. never hold a lock of your own across a call of `Env`: only one task
///    runs at a time, so another task waiting for your lock would wait for
///    ever.
pub struct Env {
    /// The scripted world of the checks (`Env::scripted`, in
    /// `s13_scripted.rs`) or a world of the runner's (`lab.sh try 13`).
    world: Box<dyn EnvWorld>,
}

/// One outbound slot; dropping it gives it back at once (to the task that
/// has waited longest, if any).
pub struct Slot<'e> {
    env: &'e Env,
    id: u64,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.env.world().release(self.id);
    }
}

impl std::fmt::Debug for Slot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Slot({})", self.id)
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Env {{ now: {:?} }}", self.world.clock())
    }
}

impl Env {
    /// An `Env` over another world (for `lab.sh try 13`, never for the
    /// checks): every method goes to `world`; `record` is empty and
    /// `watch_first_run_all` does nothing.
    #[doc(hidden)]
    pub fn with_world(world: Box<dyn EnvWorld>) -> Env {
        Env { world }
    }

    /// Runs `watch` once, at the first call of `run_all`, before any task;
    /// its answer is in the record.
    #[doc(hidden)]
    pub fn watch_first_run_all(&mut self, watch: Box<dyn Fn() -> u32 + Send + Sync>) {
        self.world.watch_first_run_all(watch);
    }

    /// What happened so far.
    #[doc(hidden)]
    pub fn record(&self) -> WorldRecord {
        self.world.record()
    }

    fn world(&self) -> &dyn EnvWorld {
        self.world.as_ref()
    }

    /// The virtual time, in seconds. It moves only while every task waits.
    pub fn now(&self) -> f64 {
        self.world().now()
    }

    /// Runs every task, each on its own thread and one at a time, and
    /// returns their results in task order when all have ended.
    ///
    /// Like a task group: when a task panics, the world cancels every other
    /// task at that instant (its pending `acquire`, `call` or `sleep`, or
    /// its next one, unwinds), and once all have ended `run_all` passes the
    /// first panic on to its caller.
    pub fn run_all<'s, T: Send + 's>(
        &'s self,
        tasks: Vec<Box<dyn FnOnce() -> T + Send + 's>>,
    ) -> Vec<T> {
        let results: Vec<Mutex<Option<T>>> = tasks.iter().map(|_| Mutex::new(None)).collect();
        let erased: Vec<Box<dyn FnOnce() + Send + '_>> = tasks
            .into_iter()
            .zip(&results)
            .map(|(task, out)| {
                Box::new(move || {
                    let value = task();
                    *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        self.world().run_all(erased);
        results
            .into_iter()
            .filter_map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }

    /// An outbound slot: at once when one is free and `now() < deadline`;
    /// otherwise waits (first come, first served) until one is given back,
    /// or returns `None` when `deadline` comes first.
    pub fn acquire(&self, deadline: f64) -> Option<Slot<'_>> {
        let id = self.world().acquire(deadline)?;
        Some(Slot { env: self, id })
    }

    /// Asks `supplier` for a quote, giving up after `timeout` seconds
    /// (`Err(CallError::TimedOut)`); a reply that would come exactly at the
    /// timeout has timed out.
    pub fn call(
        &self,
        supplier: &str,
        request: &QuoteRequest,
        timeout: f64,
    ) -> Result<Reply, CallError> {
        self.world().call(supplier, request, timeout)
    }

    /// Waits `seconds` (finite, above 0) of virtual time, exactly.
    pub fn sleep(&self, seconds: f64) {
        self.world().sleep(seconds)
    }

    /// The next of `supplier`'s random fractions in `[0, 1)`.
    pub fn fraction(&self, supplier: &str) -> f64 {
        self.world().fraction(supplier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn supplier(name: &str, attempts: Vec<(f64, ScriptedAnswer)>) -> ScriptedSupplier {
        ScriptedSupplier {
            name: name.into(),
            attempts,
            fractions: vec![0.5],
        }
    }

    fn offer() -> ScriptedAnswer {
        ScriptedAnswer::Reply(Reply::Offer(Offer {
            unit_cents: 100,
            quantity: 1,
            shipping_cents: 0,
            in_stock: true,
        }))
    }

    fn request() -> QuoteRequest {
        QuoteRequest {
            id: "r".into(),
            item: "i".into(),
            quantity: 1,
        }
    }

    #[test]
    fn one_slot_serves_three_tasks_in_task_order() {
        let env = Env::scripted(
            10.0,
            1,
            vec![
                supplier("a", vec![(0.5, offer())]),
                supplier("b", vec![(0.5, offer())]),
                supplier("c", vec![(0.5, offer())]),
            ],
        );
        let r = request();
        let names = ["a", "b", "c"];
        let tasks: Vec<Box<dyn FnOnce() -> Option<f64> + Send + '_>> = names
            .iter()
            .map(|&name| {
                let (env, r) = (&env, &r);
                Box::new(move || {
                    let _slot = env.acquire(11.25)?;
                    let t = env.now();
                    env.call(name, r, 11.25 - t).ok().map(|_| t)
                }) as Box<dyn FnOnce() -> Option<f64> + Send + '_>
            })
            .collect();
        let got = env.run_all(tasks);
        assert_eq!(got, vec![Some(10.0), Some(10.5), None]);
        let rec = env.record();
        assert_eq!(rec.breaches, vec![]);
        assert_eq!(rec.now, 11.25);
        assert_eq!(rec.slots_held, 0);
        assert_eq!(
            rec.timelines[2][0],
            WorldEvent::SlotWait {
                from: 10.0,
                at: 11.0,
                got: true
            }
        );
    }

    #[test]
    fn a_scripted_panic_cancels_the_others_and_run_all_passes_it_on() {
        let env = Env::scripted(
            0.0,
            1,
            vec![
                supplier("a", vec![(0.25, ScriptedAnswer::Panic)]),
                supplier("b", vec![(0.25, offer())]),
            ],
        );
        let r = request();
        let tasks: Vec<Box<dyn FnOnce() -> bool + Send + '_>> = ["a", "b"]
            .iter()
            .map(|&name| {
                let (env, r) = (&env, &r);
                Box::new(move || {
                    let _slot = env.acquire(5.0);
                    env.call(name, r, 5.0 - env.now()).is_ok()
                }) as Box<dyn FnOnce() -> bool + Send + '_>
            })
            .collect();
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| env.run_all(tasks)));
        assert!(got.is_err_and(|p| p.is::<ScriptedPanic>()));
        let rec = env.record();
        assert_eq!(rec.stray_panics, vec![]);
        assert_eq!(rec.breaches, vec![]);
        assert_eq!(rec.slots_held, 0);
        // b got a's slot at 0.25 and was cancelled in its call at once.
        assert_eq!(rec.now, 0.25);
        assert_eq!(
            rec.timelines[1].last(),
            Some(&WorldEvent::Cancelled { at: 0.25 })
        );
    }

    #[test]
    fn breaking_rules_is_written_down() {
        let env = Env::scripted(0.0, 1, vec![supplier("a", vec![(0.25, offer())])]);
        let r = request();
        assert_eq!(env.call("a", &r, 1.0), Err(CallError::LocalProtocol));
        let tasks: Vec<Box<dyn FnOnce() + Send + '_>> = vec![Box::new(|| {
            let slot = env.acquire(5.0);
            env.sleep(0.5);
            std::mem::forget(slot);
        })];
        env.run_all(tasks);
        let rules: Vec<WorldRule> = env.record().breaches.iter().map(|b| b.rule).collect();
        assert_eq!(
            rules,
            vec![
                WorldRule::OutsideTask,
                WorldRule::SleepHoldingSlot,
                WorldRule::SlotOutlivedTask
            ]
        );
    }
}
