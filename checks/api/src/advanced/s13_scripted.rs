//! Step 13's scripted world, the one behind [`Env::scripted`]: virtual
//! time, the scripted suppliers, a fixed number of outbound slots, and the
//! tasks, run on ordinary threads one at a time (a baton), so a fan-out is
//! deterministic (see `s13.rs` for the rules it keeps). It writes down what
//! every task did and each rule the learner's code broke.
//!
//! [`Env::scripted`]: super::Env::scripted

use super::s13::{
    CallError, Env, EnvWorld, QuoteRequest, Reply, ScriptedAnswer, ScriptedPanic, ScriptedSupplier,
    TaskCancelled, WorldEvent, WorldRecord, WorldRule, WorldStopped,
};
use super::s13_tasks::{State, Status, Task};
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Most calls, pauses, acquisitions and draws in one fan-out.
const EVENT_LIMIT: u32 = 10_000;
/// Most readings of `now` in one fan-out (a busy loop on `now` never ends:
/// time moves only when every task waits).
const READ_LIMIT: u32 = 100_000;

thread_local! {
    /// (world id, task index) of the task running on this thread.
    static TASK: Cell<Option<(u64, usize)>> = const { Cell::new(None) };
}

static NEXT_WORLD: AtomicU64 = AtomicU64::new(1);

/// The scripted world of one fan-out.
pub(super) struct Scripted {
    world: u64,
    state: Mutex<State>,
    baton: Condvar,
    watch: Option<Box<dyn Fn() -> u32 + Send + Sync>>,
}

impl Scripted {
    /// A world starting at `start` with `slots` outbound slots and these
    /// suppliers.
    pub(super) fn new(start: f64, slots: u32, suppliers: Vec<ScriptedSupplier>) -> Scripted {
        let n = suppliers.len();
        Scripted {
            world: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            state: Mutex::new(State {
                now: start,
                slots_free: slots,
                next_slot: 0,
                held: Vec::new(),
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

    /// Lets the calling task go on: first, when it has a `wake`, gives the
    /// baton away until then and unwinds if the world cancelled it
    /// meanwhile; then stops the fan-out if it went on far too long.
    fn go_on<'a>(&'a self, mut st: MutexGuard<'a, State>, me: usize, wake: Option<f64>) {
        if let Some(wake) = wake {
            st.tasks[me].wake = Some(wake);
            st = self.block(st, me);
            st = self.unwind_if_cancelled(st, me);
        }
        let stopped = st.runaway;
        drop(st);
        if stopped {
            std::panic::panic_any(WorldStopped);
        }
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

    /// Runs task `k` when the baton comes (not at all when it was cancelled
    /// before it began).
    fn run_task(&self, k: usize, task: Box<dyn FnOnce() + Send + '_>) {
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
        while let Some(i) = st.held.iter().position(|(_, owner)| *owner == k) {
            st.held.remove(i);
            st.breach(WorldRule::SlotOutlivedTask, Some(k));
            st.hand_on();
        }
        st.tasks[k].status = Status::Done;
        if let Err(payload) = result {
            if !payload.is::<TaskCancelled>() && st.panic.is_none() {
                st.panic = Some(payload);
                Self::cancel_others(&mut st, k);
            }
        }
        st.schedule();
        self.baton.notify_all();
    }
}

impl EnvWorld for Scripted {
    /// The virtual time, in seconds. It moves only while every task waits.
    fn now(&self) -> f64 {
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
    fn run_all<'t>(&self, tasks: Vec<Box<dyn FnOnce() + Send + 't>>) {
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
        std::thread::scope(|scope| {
            for (k, task) in tasks.into_iter().enumerate() {
                scope.spawn(move || self.run_task(k, task));
            }
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
    }

    /// An outbound slot: at once when one is free and `now() < deadline`;
    /// otherwise waits (first come, first served) until one is given back,
    /// or returns `None` when `deadline` comes first.
    fn acquire(&self, deadline: f64) -> Option<u64> {
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
            st.held.push((id, me));
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
                    if let Some(i) = st.held.iter().position(|(s, _)| *s == id) {
                        st.held.remove(i);
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
                    self.release(id);
                    std::panic::panic_any(WorldStopped);
                }
                return Some(id);
            }
            return None;
        };
        Some(id)
    }

    /// Asks `supplier` for a quote, giving up after `timeout` seconds
    /// (`Err(CallError::TimedOut)`); a reply that would come exactly at the
    /// timeout has timed out.
    fn call(
        &self,
        supplier: &str,
        request: &QuoteRequest,
        timeout: f64,
    ) -> Result<Reply, CallError> {
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
        self.go_on(st, me, yields.then_some(ended));
        match answer {
            Ok(ScriptedAnswer::Reply(r)) => Ok(r),
            Ok(ScriptedAnswer::Fail(e)) | Err(e) => Err(e),
            Ok(ScriptedAnswer::Panic) => std::panic::panic_any(ScriptedPanic),
        }
    }

    /// Waits `seconds` (finite, above 0) of virtual time, exactly.
    fn sleep(&self, seconds: f64) {
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
        self.go_on(st, me, Some(at + seconds));
    }

    /// The next of `supplier`'s random fractions in `[0, 1)`.
    fn fraction(&self, supplier: &str) -> f64 {
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

    /// Gives slot `id` back at once (to the task that has waited longest,
    /// if any).
    fn release(&self, id: u64) {
        let mut st = self.lock();
        if let Some(i) = st.held.iter().position(|(held, _)| *held == id) {
            st.held.remove(i);
            st.hand_on();
        }
    }

    /// The virtual time, without counting a reading (for `Debug`).
    fn clock(&self) -> f64 {
        self.lock().now
    }

    /// What happened so far.
    fn record(&self) -> WorldRecord {
        let st = self.lock();
        WorldRecord {
            timelines: st.timelines.clone(),
            breaches: st.breaches.clone(),
            run_all_calls: st.run_all_calls,
            watched: st.watched,
            stray_panics: st.stray_panics.clone(),
            runaway: st.runaway.then_some(st.events + st.reads),
            now: st.now,
            slots_held: st.held.len() as u32,
        }
    }

    /// Runs `watch` once, at the first call of `run_all`, before any task;
    /// its answer is in the record.
    fn watch_first_run_all(&mut self, watch: Box<dyn Fn() -> u32 + Send + Sync>) {
        self.watch = Some(watch);
    }
}

impl Env {
    /// A world starting at `start` with `slots` outbound slots and these
    /// suppliers (for the checker and for your own tests).
    #[doc(hidden)]
    pub fn scripted(start: f64, slots: u32, suppliers: Vec<ScriptedSupplier>) -> Env {
        Env::with_world(Box::new(Scripted::new(start, slots, suppliers)))
    }
}
