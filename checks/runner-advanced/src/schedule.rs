//! Step 13's `threads` op: threads under the runner's control play a gate's
//! calls in every order of their steps on the gate's `Tally`, so a race
//! shows every time, on any machine, idle or busy.
//!
//! Each thread makes one call: `try_acquire`, or the drop of a pass it took
//! beforehand. A thread runs only when the runner lets it: it stops before
//! its call and before every operation on a `Tally` (the hook installed in
//! `lab_api`), and each of its steps runs it to the next such point. A
//! schedule is a list of (thread, steps) played in order: with two
//! threads, A makes k steps, B j steps, then A ends, then B (every k and j,
//! so every order with one stop of A, and with a second stop of B); with
//! three, A k, B j, then C, A and B end. Between schedules the calls'
//! passes are given back one thread at a time, so every schedule starts
//! from the same state. Found after each schedule: more live passes than
//! the capacity, counted outside the gate; `in_use()` not the number of
//! live passes once every call has ended; a call that made no operation
//! on a `Tally`.
//!
//! A thread whose next point does not come within [`BLOCKED_AFTER`] waits
//! for another one (a gate's own lock held by a thread stopped inside its
//! call): every thread is then let go to its end, and no further schedule
//! is played (a lock is outside the contract; a gate with one is neither
//! failed nor explored inside its lock).

use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How long a thread let go may take to reach its next point before it is
/// taken to wait for another thread. A thread that can run reaches it in
/// microseconds, and within a few milliseconds on a busy machine.
const BLOCKED_AFTER: Duration = Duration::from_millis(200);

/// A schedule whose thread was held up is played again once, this many
/// times as patient: a thread that a busy machine left waiting for a
/// processor gets through then, and one that waits for something beside
/// the Tally (a lock, a sleep) is held up again, which breaks the rule that
/// the gate decides with its Tally alone. Without this, a gate that sleeps
/// between two operations would end the schedules and pass unseen.
const AGAIN_PATIENCE: u32 = 5;

/// How long the threads, all let go, may take to end.
const ENDS_WITHIN: Duration = Duration::from_secs(10);

/// Most steps a thread makes before a stop: a call with more operations is
/// stopped only within its first ones.
const MAX_STEPS: u32 = 8;

/// What the schedules showed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Findings {
    pub over_capacity: bool,
    pub in_use_off: bool,
    pub untallied: bool,
    /// A thread let go was held up twice, the second time
    /// [`AGAIN_PATIENCE`] times as long: the gate waits for something
    /// beside its Tally.
    pub waited: bool,
    pub granted_any: bool,
}

impl Findings {
    fn breach(&self) -> bool {
        self.over_capacity || self.in_use_off || self.untallied || self.waited
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    Acquire,
    Drop,
}

type Payload = Box<dyn Any + Send>;

/// Where each controlled thread stands.
#[derive(Default)]
struct Seat {
    /// Steps it may make; `taken` counts those made.
    granted: u32,
    taken: u32,
    /// Stopped at a point.
    waiting: bool,
    finished: bool,
    /// Operations on a `Tally` made by its call.
    ops: u32,
    panic: Option<Payload>,
}

struct Board {
    seats: Mutex<Vec<Seat>>,
    turn: Condvar,
}

thread_local! {
    /// The board and seat of a controlled thread while its call runs.
    static SEAT: RefCell<Option<(Arc<Board>, usize)>> = const { RefCell::new(None) };
}

/// Runs before every operation on a `Tally`: a controlled thread stops
/// there until the runner lets it make its next step; any other thread
/// goes on at once.
fn hook() {
    let seat = SEAT.with(|s| s.borrow().clone());
    if let Some((board, i)) = seat {
        board.point(i, true);
    }
}

impl Board {
    fn lock(&self) -> MutexGuard<'_, Vec<Seat>> {
        self.seats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Thread `i` stops here until it may make one more step.
    fn point(&self, i: usize, op: bool) {
        let mut seats = self.lock();
        seats[i].waiting = true;
        seats[i].ops += u32::from(op);
        self.turn.notify_all();
        while seats[i].taken >= seats[i].granted {
            seats = self.turn.wait(seats).unwrap_or_else(|e| e.into_inner());
        }
        seats[i].waiting = false;
        seats[i].taken += 1;
    }

    fn finish(&self, i: usize, panic: Option<Payload>) {
        let mut seats = self.lock();
        seats[i].finished = true;
        seats[i].waiting = false;
        seats[i].panic = panic;
        self.turn.notify_all();
    }

    /// Lets thread `i` make `steps` more steps (`None`: run to its end) and
    /// waits until it has; `false` when it did not within `patience`.
    fn run(&self, i: usize, steps: Option<u32>, patience: Duration) -> bool {
        let mut seats = self.lock();
        seats[i].granted = steps.map_or(u32::MAX, |n| seats[i].taken.saturating_add(n));
        self.turn.notify_all();
        let (seats, _) = self
            .turn
            .wait_timeout_while(seats, patience, |seats| {
                let s = &seats[i];
                !(s.finished || (s.waiting && s.taken == s.granted))
            })
            .unwrap_or_else(|e| e.into_inner());
        let s = &seats[i];
        s.finished || (s.waiting && s.taken == s.granted)
    }

    fn finished(&self, i: usize) -> bool {
        self.lock()[i].finished
    }

    /// Lets every thread go to its end and waits for them all.
    fn release_all(&self) {
        let mut seats = self.lock();
        for s in seats.iter_mut() {
            s.granted = u32::MAX;
        }
        self.turn.notify_all();
        let (seats, _) = self
            .turn
            .wait_timeout_while(seats, ENDS_WITHIN, |seats| {
                seats.iter().any(|s| !s.finished)
            })
            .unwrap_or_else(|e| e.into_inner());
        if seats.iter().any(|s| !s.finished) {
            panic!(
                "Gate: threads calling try_acquire or dropping a pass still had not \
                 returned after {} s: they wait for each other",
                ENDS_WITHIN.as_secs()
            );
        }
    }
}

enum Command {
    /// Take the pass a drop job will give back.
    Setup,
    Job(Job),
    /// Give back any pass held; with `true`, forget it instead (the gate
    /// is broken already, and its count may be too low to give it back).
    Cleanup(bool),
}

/// Passes alive, counted outside the gate.
struct Live {
    count: AtomicU32,
    capacity: u32,
    over: AtomicBool,
    granted: AtomicBool,
}

impl Live {
    fn up(&self, granted: bool) {
        let now = self.count.fetch_add(1, SeqCst) + 1;
        if now > self.capacity {
            self.over.store(true, SeqCst);
        }
        if granted {
            self.granted.store(true, SeqCst);
        }
    }

    fn down(&self) {
        self.count.fetch_sub(1, SeqCst);
    }

    fn now(&self) -> u32 {
        self.count.load(SeqCst)
    }
}

/// Plays every schedule of 2 threads, and with `threads` 3 also of 3, on
/// the gate whose calls are `acquire` and `in_use`, which has `before`
/// live passes (held by the caller) and the given capacity.
pub fn explore<P>(
    capacity: u32,
    threads: u32,
    acquire: &(dyn Fn() -> Option<P> + Sync),
    in_use: &(dyn Fn() -> u32 + Sync),
) -> Findings {
    lab_api::advanced::install_tally_hook(hook);
    let before = in_use();
    let live = Live {
        count: AtomicU32::new(before),
        capacity,
        over: AtomicBool::new(false),
        granted: AtomicBool::new(false),
    };
    let mut found = Findings::default();
    'all: for n in 2..=threads.clamp(2, 3) as usize {
        'combo: for combo in 0..1u32 << n {
            let jobs: Vec<Job> = (0..n)
                .map(|t| {
                    if combo >> t & 1 == 0 {
                        Job::Acquire
                    } else {
                        Job::Drop
                    }
                })
                .collect();
            for k in 1..=MAX_STEPS {
                let mut first_ended = false;
                for j in 1..=MAX_STEPS {
                    let mut plan = vec![(0, Some(k)), (1, Some(j))];
                    plan.extend((2..n).map(|t| (t, None)));
                    plan.extend((0..n).map(|t| (t, None)));
                    let mut played = None;
                    for patience in [BLOCKED_AFTER, BLOCKED_AFTER * AGAIN_PATIENCE] {
                        played = play(&jobs, &plan, acquire, in_use, &live, &mut found, patience);
                        if !played.as_ref().is_some_and(|p| p.blocked) || found.breach() {
                            break;
                        }
                    }
                    let Some(played) = played else {
                        // A drop job found no place to take its pass.
                        continue 'combo;
                    };
                    found.waited |= played.blocked;
                    if found.breach() {
                        break 'all;
                    }
                    first_ended = played.ended[0];
                    if first_ended || played.ended[1] {
                        break;
                    }
                }
                if first_ended {
                    break;
                }
            }
        }
    }
    found.granted_any = live.granted.load(SeqCst);
    found
}

struct Played {
    /// Whether each thread had ended when its first segment was over.
    ended: Vec<bool>,
    /// A thread waited for another one.
    blocked: bool,
}

/// One schedule: threads take their drop jobs' passes (one at a time), the
/// runner takes passes until one place is left (when at most 65 are free),
/// the plan is played, then everything is given back one at a time.
fn play<P>(
    jobs: &[Job],
    plan: &[(usize, Option<u32>)],
    acquire: &(dyn Fn() -> Option<P> + Sync),
    in_use: &(dyn Fn() -> u32 + Sync),
    live: &Live,
    found: &mut Findings,
    patience: Duration,
) -> Option<Played> {
    let board = Arc::new(Board {
        seats: Mutex::new((0..jobs.len()).map(|_| Seat::default()).collect()),
        turn: Condvar::new(),
    });
    let mut outcome = None;
    let mut panic: Option<Payload> = None;
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel::<Result<bool, Payload>>();
        let mut commands = Vec::new();
        for (i, _) in jobs.iter().enumerate() {
            let (tx, rx) = mpsc::channel::<Command>();
            commands.push(tx);
            let (board, done_tx) = (board.clone(), done_tx.clone());
            s.spawn(move || worker(i, &board, rx, &done_tx, acquire, live));
        }
        let ask = |i: usize, c: Command| -> Result<bool, Payload> {
            commands[i]
                .send(c)
                .map_err(|_| Box::new("a thread ended early") as Payload)?;
            done_rx
                .recv()
                .unwrap_or_else(|_| Err(Box::new("a thread ended early")))
        };
        // Setup, one thread at a time.
        let mut ready = true;
        for (i, job) in jobs.iter().enumerate() {
            if *job == Job::Drop {
                match ask(i, Command::Setup) {
                    Ok(true) => {}
                    Ok(false) => ready = false,
                    Err(p) => {
                        panic = Some(p);
                        return;
                    }
                }
            }
        }
        let mut held = Vec::new();
        let free = live.capacity.saturating_sub(live.now());
        if ready && (2..=65).contains(&free) {
            for _ in 1..free {
                let Some(pass) = acquire() else { break };
                live.up(false);
                held.push(pass);
            }
        }
        if ready {
            for (i, job) in jobs.iter().enumerate() {
                // Each stops at once, before its call.
                let _ = commands[i].send(Command::Job(*job));
            }
            let mut ended = vec![false; jobs.len()];
            let mut blocked = false;
            let mut first = vec![true; jobs.len()];
            for &(t, steps) in plan {
                if !board.run(t, steps, patience) {
                    blocked = true;
                    break;
                }
                if std::mem::take(&mut first[t]) {
                    ended[t] = board.finished(t);
                }
            }
            if blocked {
                board.release_all();
            }
            {
                let mut seats = board.lock();
                for s in seats.iter_mut() {
                    found.untallied |= s.ops == 0;
                    panic = panic.take().or_else(|| s.panic.take());
                }
            }
            found.over_capacity |= live.over.load(SeqCst);
            found.in_use_off |= in_use() != live.now();
            outcome = Some(Played { ended, blocked });
        }
        // Give everything back, one at a time.
        let broken = found.breach();
        for i in 0..jobs.len() {
            if let Err(p) = ask(i, Command::Cleanup(broken)) {
                panic = panic.take().or(Some(p));
            }
        }
        for pass in held {
            if broken {
                std::mem::forget(pass);
            } else {
                live.down();
                drop(pass);
            }
        }
        if ready && !broken {
            found.in_use_off |= in_use() != live.now();
        }
        drop(commands);
    });
    if let Some(p) = panic {
        resume_unwind(p);
    }
    outcome
}

/// A controlled thread: does what it is told, in order.
fn worker<P>(
    i: usize,
    board: &Arc<Board>,
    commands: mpsc::Receiver<Command>,
    done: &mpsc::Sender<Result<bool, Payload>>,
    acquire: &(dyn Fn() -> Option<P> + Sync),
    live: &Live,
) {
    let mut pass: Option<P> = None;
    for command in commands {
        match command {
            Command::Setup => {
                let got = catch_unwind(AssertUnwindSafe(|| {
                    pass = acquire();
                    if pass.is_some() {
                        live.up(false);
                    }
                    pass.is_some()
                }));
                let _ = done.send(got);
            }
            Command::Job(job) => {
                SEAT.with(|s| *s.borrow_mut() = Some((board.clone(), i)));
                board.point(i, false);
                let ran = catch_unwind(AssertUnwindSafe(|| match job {
                    Job::Acquire => {
                        let got = acquire();
                        if got.is_some() {
                            live.up(true);
                        }
                        got
                    }
                    Job::Drop => {
                        if let Some(p) = pass.take() {
                            live.down();
                            drop(p);
                        }
                        None
                    }
                }));
                SEAT.with(|s| *s.borrow_mut() = None);
                match ran {
                    Ok(got) => {
                        if got.is_some() {
                            pass = got;
                        }
                        board.finish(i, None);
                    }
                    Err(p) => board.finish(i, Some(p)),
                }
            }
            Command::Cleanup(forget) => {
                let gave = catch_unwind(AssertUnwindSafe(|| {
                    if let Some(p) = pass.take() {
                        if forget {
                            std::mem::forget(p);
                        } else {
                            live.down();
                            drop(p);
                        }
                    }
                    true
                }));
                let _ = done.send(gave);
            }
        }
    }
}

#[cfg(test)]
mod tests;
