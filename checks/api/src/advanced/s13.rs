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
//! `lab.sh try 13` runs the same `Env` over the real world instead (a
//! hidden constructor, `Env::live`; see `s13_live.rs`): real time, real
//! threads, real HTTP calls. The checks never use it.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

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

/// Most calls, pauses, acquisitions and draws in one fan-out.
const EVENT_LIMIT: u32 = 10_000;
/// Most readings of `now` in one fan-out (a busy loop on `now` never ends:
/// time moves only when every task waits).
const READ_LIMIT: u32 = 100_000;
/// Most broken rules written down.
const BREACH_LIMIT: usize = 20;

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
#[derive(Debug, Clone, PartialEq)]
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

thread_local! {
    /// (world id, task index) of the task running on this thread.
    static TASK: Cell<Option<(u64, usize)>> = const { Cell::new(None) };
}

static NEXT_WORLD: AtomicU64 = AtomicU64::new(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Runnable,
    Blocked,
    Done,
}

#[derive(Debug)]
struct Task {
    status: Status,
    /// When a blocked task wakes by itself (a call's or sleep's end, a slot
    /// wait's deadline); `None`: only a slot can wake it.
    wake: Option<f64>,
    waiting_slot: bool,
    granted: Option<u64>,
    /// Cancelled because another task panicked.
    cancelled: bool,
}

struct State {
    now: f64,
    slots_free: u32,
    next_slot: u64,
    /// (slot id, owner task).
    live: Vec<(u64, usize)>,
    tasks: Vec<Task>,
    running: Option<usize>,
    active: bool,
    queue: VecDeque<usize>,
    suppliers: Vec<ScriptedSupplier>,
    calls: Vec<usize>,
    draws: Vec<usize>,
    timelines: Vec<Vec<WorldEvent>>,
    breaches: Vec<WorldBreach>,
    run_all_calls: u32,
    watched: Option<u32>,
    stray_panics: Vec<(usize, String)>,
    events: u32,
    reads: u32,
    runaway: bool,
    /// The first panic of a task (not a cancellation), passed on by
    /// `run_all`.
    panic: Option<Box<dyn std::any::Any + Send>>,
}

impl State {
    fn breach(&mut self, rule: WorldRule, task: Option<usize>) {
        if self.breaches.len() < BREACH_LIMIT {
            let at = self.now;
            self.breaches.push(WorldBreach { rule, task, at });
        }
    }

    fn held_by(&self, task: usize) -> usize {
        self.live.iter().filter(|(_, owner)| *owner == task).count()
    }

    fn timeline(&mut self, task: usize) -> Option<&mut Vec<WorldEvent>> {
        self.timelines.get_mut(task)
    }

    /// Gives a freed slot to the first waiter, or back to the pool.
    fn hand_on(&mut self) {
        match self.queue.pop_front() {
            Some(w) => {
                let id = self.next_slot;
                self.next_slot += 1;
                self.live.push((id, w));
                let t = &mut self.tasks[w];
                t.granted = Some(id);
                t.waiting_slot = false;
                t.wake = None;
                t.status = Status::Runnable;
            }
            None => self.slots_free += 1,
        }
    }

    /// Picks the next task to run, moving time when none can.
    fn schedule(&mut self) {
        loop {
            if let Some(i) = self.tasks.iter().position(|t| t.status == Status::Runnable) {
                self.running = Some(i);
                return;
            }
            let next = self
                .tasks
                .iter()
                .filter(|t| t.status == Status::Blocked)
                .filter_map(|t| t.wake)
                .fold(None, |m: Option<f64>, w| Some(m.map_or(w, |m| m.min(w))));
            match next {
                Some(t) => {
                    if t > self.now {
                        self.now = t;
                    }
                    let now = self.now;
                    for i in 0..self.tasks.len() {
                        let task = &mut self.tasks[i];
                        if task.status == Status::Blocked && task.wake.is_some_and(|w| w <= now) {
                            task.status = Status::Runnable;
                            task.wake = None;
                            if task.waiting_slot {
                                task.waiting_slot = false;
                                task.granted = None;
                                self.queue.retain(|&q| q != i);
                            }
                        }
                    }
                }
                None => {
                    if !self.tasks.iter().any(|t| t.status == Status::Blocked) {
                        self.running = None;
                        return;
                    }
                    self.breach(WorldRule::Deadlock, None);
                    for i in 0..self.tasks.len() {
                        let task = &mut self.tasks[i];
                        if task.status == Status::Blocked {
                            task.status = Status::Runnable;
                            task.waiting_slot = false;
                            task.granted = None;
                        }
                    }
                    self.queue.clear();
                }
            }
        }
    }
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
    world: u64,
    state: Mutex<State>,
    baton: Condvar,
    watch: Option<Box<dyn Fn() -> u32 + Send + Sync>>,
    /// `Some` for the live world of `lab.sh try 13` (see [`Env::live`]);
    /// every method then goes there, and the scripted state stays unused.
    live: Option<super::s13_live::Live>,
}

/// One outbound slot; dropping it gives it back at once (to the task that
/// has waited longest, if any).
pub struct Slot<'e> {
    env: &'e Env,
    id: u64,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(live) = &self.env.live {
            live.release();
            return;
        }
        let mut st = self.env.lock();
        if let Some(i) = st.live.iter().position(|(id, _)| *id == self.id) {
            st.live.remove(i);
            st.hand_on();
        }
    }
}

impl std::fmt::Debug for Slot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Slot({})", self.id)
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Env {{ now: {:?} }}", self.lock().now)
    }
}

impl Env {
    /// A world starting at `start` with `slots` outbound slots and these
    /// suppliers (for the checker and for your own tests).
    #[doc(hidden)]
    pub fn scripted(start: f64, slots: u32, suppliers: Vec<ScriptedSupplier>) -> Env {
        let n = suppliers.len();
        Env {
            world: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            state: Mutex::new(State {
                now: start,
                slots_free: slots,
                next_slot: 0,
                live: Vec::new(),
                tasks: Vec::new(),
                running: None,
                active: false,
                queue: VecDeque::new(),
                calls: vec![0; n],
                draws: vec![0; n],
                timelines: vec![Vec::new(); n],
                suppliers,
                breaches: Vec::new(),
                run_all_calls: 0,
                watched: None,
                stray_panics: Vec::new(),
                events: 0,
                reads: 0,
                runaway: false,
                panic: None,
            }),
            baton: Condvar::new(),
            watch: None,
            live: None,
        }
    }

    /// A live world (for `lab.sh try 13`, never for the checks): `now` reads
    /// a monotonic clock in seconds since `origin`, `sleep` really sleeps,
    /// `call` makes a real HTTP GET to the supplier's address within the
    /// timeout, `run_all` runs every task at once on its own thread, and
    /// `acquire` takes one of `slots` (shared with other live worlds).
    /// `note` hears of every call, answer, pause and slot wait. The rules
    /// of the scripted world are not watched here.
    #[doc(hidden)]
    pub fn live(
        origin: std::time::Instant,
        slots: std::sync::Arc<super::s13_live::OutboundSlots>,
        suppliers: Vec<super::s13_live::LiveSupplier>,
        note: super::s13_live::LiveNote,
    ) -> Env {
        Env {
            live: Some(super::s13_live::Live::new(origin, slots, suppliers, note)),
            ..Env::scripted(0.0, 0, Vec::new())
        }
    }

    /// Runs `watch` once, at the first call of `run_all`, before any task;
    /// its answer is in the record.
    #[doc(hidden)]
    pub fn watch_first_run_all(&mut self, watch: Box<dyn Fn() -> u32 + Send + Sync>) {
        self.watch = Some(watch);
    }

    /// What happened so far.
    #[doc(hidden)]
    pub fn record(&self) -> WorldRecord {
        let st = self.lock();
        WorldRecord {
            timelines: st.timelines.clone(),
            breaches: st.breaches.clone(),
            run_all_calls: st.run_all_calls,
            watched: st.watched,
            stray_panics: st.stray_panics.clone(),
            runaway: st.runaway.then_some(st.events + st.reads),
            now: st.now,
            slots_held: st.live.len() as u32,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task of this world running on this thread.
    fn task(&self) -> Option<usize> {
        TASK.with(Cell::get)
            .and_then(|(w, k)| (w == self.world).then_some(k))
    }

    /// Counts one event; stops the fan-out when there are far too many.
    fn count<'a>(&self, mut st: MutexGuard<'a, State>, read: bool) -> MutexGuard<'a, State> {
        if read {
            st.reads += 1;
        } else {
            st.events += 1;
        }
        if st.events > EVENT_LIMIT || st.reads > READ_LIMIT {
            st.runaway = true;
        }
        if st.runaway {
            drop(st);
            std::panic::panic_any(WorldStopped);
        }
        st
    }

    /// The calling task, or a broken rule when the caller is not a task.
    fn me(&self, st: &mut State) -> Option<usize> {
        match self.task() {
            Some(k) if st.active && st.running == Some(k) => Some(k),
            _ => {
                st.breach(WorldRule::OutsideTask, None);
                None
            }
        }
    }

    /// Gives the baton away and waits until it comes back.
    fn block<'a>(&'a self, mut st: MutexGuard<'a, State>, me: usize) -> MutexGuard<'a, State> {
        st.tasks[me].status = Status::Blocked;
        st.schedule();
        self.baton.notify_all();
        while st.running != Some(me) {
            st = self.baton.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st
    }

    /// Unwinds the calling task when the world cancelled it, writing down
    /// where.
    fn unwind_if_cancelled<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        me: usize,
    ) -> MutexGuard<'a, State> {
        if st.tasks.get(me).is_some_and(|t| t.cancelled) {
            let at = st.now;
            if let Some(line) = st.timeline(me) {
                line.push(WorldEvent::Cancelled { at });
            }
            drop(st);
            std::panic::panic_any(TaskCancelled);
        }
        st
    }

    /// The virtual time, in seconds. It moves only while every task waits.
    pub fn now(&self) -> f64 {
        if let Some(live) = &self.live {
            return live.now();
        }
        let st = self.count(self.lock(), true);
        st.now
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
        if let Some(live) = &self.live {
            return live.run_all(tasks);
        }
        let n = tasks.len();
        let first = {
            let mut st = self.count(self.lock(), false);
            st.run_all_calls += 1;
            if self.task().is_some() {
                st.breach(WorldRule::RunAllInsideTask, self.task());
                drop(st);
                std::panic::panic_any(WorldStopped);
            }
            if st.run_all_calls > 1 {
                st.breach(WorldRule::RunAllAgain, None);
            }
            if st.active {
                drop(st);
                std::panic::panic_any(WorldStopped);
            }
            if n != st.suppliers.len() {
                st.breach(WorldRule::RunAllTaskCount, None);
            }
            st.active = true;
            st.run_all_calls == 1
        };
        if first {
            if let Some(watch) = &self.watch {
                let seen = watch();
                self.lock().watched = Some(seen);
            }
        }
        {
            let mut st = self.lock();
            st.tasks = (0..n)
                .map(|_| Task {
                    status: Status::Runnable,
                    wake: None,
                    waiting_slot: false,
                    granted: None,
                    cancelled: false,
                })
                .collect();
            while st.timelines.len() < n {
                st.timelines.push(Vec::new());
            }
            st.schedule();
        }
        let results: Vec<Option<T>> = std::thread::scope(|scope| {
            let handles: Vec<_> = tasks
                .into_iter()
                .enumerate()
                .map(|(k, task)| scope.spawn(move || self.run_task(k, task)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        });
        let mut st = self.lock();
        st.active = false;
        st.tasks.clear();
        st.running = None;
        let panic = st.panic.take();
        drop(st);
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
        results.into_iter().flatten().collect()
    }

    /// Cancels every task but `k` that has not ended: it can run at once,
    /// and its pending (or next) use of the world unwinds.
    fn cancel_others(st: &mut State, k: usize) {
        for i in 0..st.tasks.len() {
            let task = &mut st.tasks[i];
            if i == k || task.status == Status::Done {
                continue;
            }
            task.cancelled = true;
            task.status = Status::Runnable;
            task.wake = None;
            if task.waiting_slot {
                task.waiting_slot = false;
                st.queue.retain(|&q| q != i);
            }
        }
    }

    /// Runs task `k` when the baton comes; `None` when it panicked or was
    /// cancelled before it began.
    fn run_task<T>(&self, k: usize, task: Box<dyn FnOnce() -> T + Send + '_>) -> Option<T> {
        let cancelled = {
            let mut st = self.lock();
            while st.running != Some(k) {
                st = self.baton.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st.tasks[k].cancelled
        };
        let result = if cancelled {
            Err(Box::new(TaskCancelled) as Box<dyn std::any::Any + Send>)
        } else {
            TASK.with(|t| t.set(Some((self.world, k))));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            TASK.with(|t| t.set(None));
            result
        };
        let mut st = self.lock();
        if let Err(payload) = &result {
            if !payload.is::<ScriptedPanic>()
                && !payload.is::<WorldStopped>()
                && !payload.is::<TaskCancelled>()
            {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(a panic without a message)".into());
                st.stray_panics.push((k, message));
            }
        }
        while let Some(i) = st.live.iter().position(|(_, owner)| *owner == k) {
            st.live.remove(i);
            st.breach(WorldRule::SlotOutlivedTask, Some(k));
            st.hand_on();
        }
        st.tasks[k].status = Status::Done;
        let result = match result {
            Ok(value) => Some(value),
            Err(payload) => {
                if !payload.is::<TaskCancelled>() && st.panic.is_none() {
                    st.panic = Some(payload);
                    Self::cancel_others(&mut st, k);
                }
                None
            }
        };
        st.schedule();
        self.baton.notify_all();
        drop(st);
        result
    }

    /// An outbound slot: at once when one is free and `now() < deadline`;
    /// otherwise waits (first come, first served) until one is given back,
    /// or returns `None` when `deadline` comes first.
    pub fn acquire(&self, deadline: f64) -> Option<Slot<'_>> {
        if let Some(live) = &self.live {
            return live.acquire(deadline).then_some(Slot { env: self, id: 0 });
        }
        let mut st = self.count(self.lock(), false);
        let me = self.me(&mut st)?;
        let mut st = self.unwind_if_cancelled(st, me);
        // NaN deadlines included: only `now < deadline` lets a task in.
        if st.now >= deadline || deadline.is_nan() {
            return None;
        }
        let id = if st.slots_free > 0 {
            st.slots_free -= 1;
            let id = st.next_slot;
            st.next_slot += 1;
            st.live.push((id, me));
            id
        } else {
            let from = st.now;
            st.queue.push_back(me);
            let task = &mut st.tasks[me];
            task.waiting_slot = true;
            task.granted = None;
            task.wake = deadline.is_finite().then_some(deadline);
            st = self.block(st, me);
            let granted = st.tasks[me].granted.take();
            if st.tasks[me].cancelled {
                if let Some(id) = granted {
                    if let Some(i) = st.live.iter().position(|(s, _)| *s == id) {
                        st.live.remove(i);
                        st.hand_on();
                    }
                }
                drop(self.unwind_if_cancelled(st, me));
                unreachable!("a cancelled task unwinds");
            }
            let at = st.now;
            if let Some(line) = st.timeline(me) {
                line.push(WorldEvent::SlotWait {
                    from,
                    at,
                    got: granted.is_some(),
                });
            }
            drop(st);
            if let Some(id) = granted {
                if self.lock().runaway {
                    drop(Slot { env: self, id });
                    std::panic::panic_any(WorldStopped);
                }
                return Some(Slot { env: self, id });
            }
            return None;
        };
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
        if let Some(live) = &self.live {
            return live.call(supplier, request, timeout);
        }
        let mut st = self.count(self.lock(), false);
        let Some(me) = self.me(&mut st) else {
            return Err(CallError::LocalProtocol);
        };
        let mut st = self.unwind_if_cancelled(st, me);
        let own = st.suppliers.get(me).is_some_and(|s| s.name == supplier);
        if !own {
            st.breach(WorldRule::OtherSupplier, Some(me));
        }
        if st.held_by(me) != 1 {
            st.breach(WorldRule::CallWithoutOneSlot, Some(me));
        }
        let at = st.now;
        let index = st.suppliers.iter().position(|s| s.name == supplier);
        let scripted = index.and_then(|i| {
            let attempts = &st.suppliers[i].attempts;
            let n = st.calls[i].min(attempts.len().saturating_sub(1));
            attempts.get(n).copied()
        });
        if let Some(i) = index {
            st.calls[i] += 1;
        }
        let positive = timeout > 0.0;
        let yields = positive && scripted.is_some();
        let (ended, answer) = if !positive {
            st.breach(WorldRule::BadTimeout, Some(me));
            (at, Err(CallError::TimedOut))
        } else {
            match scripted {
                None => (at, Err(CallError::LocalProtocol)),
                Some((cost, answer)) if cost < timeout => (at + cost, Ok(answer)),
                Some(_) => (at + timeout, Err(CallError::TimedOut)),
            }
        };
        if let Some(line) = st.timeline(me) {
            line.push(WorldEvent::Call {
                at,
                timeout,
                request: request.clone(),
                ended,
                answer,
            });
        }
        if yields {
            st.tasks[me].wake = Some(ended);
            st = self.block(st, me);
            st = self.unwind_if_cancelled(st, me);
        }
        let stopped = st.runaway;
        drop(st);
        if stopped {
            std::panic::panic_any(WorldStopped);
        }
        match answer {
            Ok(ScriptedAnswer::Reply(r)) => Ok(r),
            Ok(ScriptedAnswer::Fail(e)) | Err(e) => Err(e),
            Ok(ScriptedAnswer::Panic) => std::panic::panic_any(ScriptedPanic),
        }
    }

    /// Waits `seconds` (finite, above 0) of virtual time, exactly.
    pub fn sleep(&self, seconds: f64) {
        if let Some(live) = &self.live {
            return live.sleep(seconds);
        }
        let mut st = self.count(self.lock(), false);
        let Some(me) = self.me(&mut st) else {
            return;
        };
        let mut st = self.unwind_if_cancelled(st, me);
        if st.held_by(me) > 0 {
            st.breach(WorldRule::SleepHoldingSlot, Some(me));
        }
        if !(seconds.is_finite() && seconds > 0.0) {
            st.breach(WorldRule::BadSleep, Some(me));
            return;
        }
        let at = st.now;
        if let Some(line) = st.timeline(me) {
            line.push(WorldEvent::Pause { at, seconds });
        }
        st.tasks[me].wake = Some(at + seconds);
        st = self.block(st, me);
        st = self.unwind_if_cancelled(st, me);
        let stopped = st.runaway;
        drop(st);
        if stopped {
            std::panic::panic_any(WorldStopped);
        }
    }

    /// The next of `supplier`'s random fractions in `[0, 1)`.
    pub fn fraction(&self, supplier: &str) -> f64 {
        if let Some(live) = &self.live {
            return live.fraction();
        }
        let mut st = self.count(self.lock(), false);
        let Some(me) = self.me(&mut st) else {
            return 0.0;
        };
        let mut st = self.unwind_if_cancelled(st, me);
        if st.suppliers.get(me).is_none_or(|s| s.name != supplier) {
            st.breach(WorldRule::OtherSupplier, Some(me));
        }
        let Some(i) = st.suppliers.iter().position(|s| s.name == supplier) else {
            return 0.0;
        };
        let n = st.draws[i];
        st.draws[i] += 1;
        st.suppliers[i].fractions.get(n).copied().unwrap_or(0.0)
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
