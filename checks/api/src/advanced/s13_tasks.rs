//! The scripted world's tasks and their shared state: who runs, who waits
//! and for what, the slots held, and what has happened (see
//! `s13_scripted.rs`, which runs them one at a time).

use super::s13::{ScriptedSupplier, WorldBreach, WorldEvent, WorldRule};
use std::collections::VecDeque;

/// Most broken rules written down.
const BREACH_LIMIT: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Runnable,
    Blocked,
    Done,
}

#[derive(Debug)]
pub(super) struct Task {
    pub(super) status: Status,
    /// When a blocked task wakes by itself (a call's or sleep's end, a slot
    /// wait's deadline); `None`: only a slot can wake it.
    pub(super) wake: Option<f64>,
    pub(super) waiting_slot: bool,
    pub(super) granted: Option<u64>,
    /// Cancelled because another task panicked.
    pub(super) cancelled: bool,
}

pub(super) struct State {
    pub(super) now: f64,
    pub(super) slots_free: u32,
    pub(super) next_slot: u64,
    /// The slots held: (slot id, owner task).
    pub(super) held: Vec<(u64, usize)>,
    pub(super) tasks: Vec<Task>,
    pub(super) running: Option<usize>,
    pub(super) active: bool,
    pub(super) queue: VecDeque<usize>,
    pub(super) suppliers: Vec<ScriptedSupplier>,
    pub(super) calls: Vec<usize>,
    pub(super) draws: Vec<usize>,
    pub(super) timelines: Vec<Vec<WorldEvent>>,
    pub(super) breaches: Vec<WorldBreach>,
    pub(super) run_all_calls: u32,
    pub(super) watched: Option<u32>,
    pub(super) stray_panics: Vec<(usize, String)>,
    pub(super) events: u32,
    pub(super) reads: u32,
    pub(super) runaway: bool,
    /// The first panic of a task (not a cancellation), passed on by
    /// `run_all`.
    pub(super) panic: Option<Box<dyn std::any::Any + Send>>,
}

impl State {
    pub(super) fn breach(&mut self, rule: WorldRule, task: Option<usize>) {
        if self.breaches.len() < BREACH_LIMIT {
            let at = self.now;
            self.breaches.push(WorldBreach { rule, task, at });
        }
    }

    pub(super) fn held_by(&self, task: usize) -> usize {
        self.held.iter().filter(|(_, owner)| *owner == task).count()
    }

    pub(super) fn timeline(&mut self, task: usize) -> Option<&mut Vec<WorldEvent>> {
        self.timelines.get_mut(task)
    }

    /// Gives a freed slot to the first waiter, or back to the pool.
    pub(super) fn hand_on(&mut self) {
        match self.queue.pop_front() {
            Some(w) => {
                let id = self.next_slot;
                self.next_slot += 1;
                self.held.push((id, w));
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
    pub(super) fn schedule(&mut self) {
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
