//! The scripted world of one `execute` call: a virtual clock, scripted
//! replies and fractions, and a recorder of sends and non-zero sleeps.

use lab_api::{ExecuteError, Options, Response};
use lab_harness::Runaway;
use lab_wire::{Ending, Event, Reply, Scenario, Trace, Use, F64};
use std::cell::RefCell;

/// Far more sends and sleeps than any scenario needs: the loop is runaway.
const MAX_EVENTS: u32 = 10_000;
/// Far more clock readings between two sends or sleeps than any call
/// needs: the loop waits for a clock that only send and sleep move.
const MAX_IDLE_READS: u32 = 1_000_000;

struct World<'s> {
    scenario: &'s Scenario,
    now: f64,
    first_read_done: bool,
    sends: usize,
    sleeps: usize,
    events: Vec<Event>,
    times: Vec<F64>,
    draws: u32,
    clock_reads: u32,
    /// Clock readings since the last send or sleep.
    idle_reads: u32,
}

impl World<'_> {
    fn record(&mut self, event: Event) {
        self.idle_reads = 0;
        let kind = match event {
            Event::Sleep { .. } => Use::Sleeps,
            _ => Use::Sends,
        };
        let at = self.now - self.scenario.start.0;
        lab_harness::so_far::event(&event, at);
        self.events.push(event);
        self.times.push(F64(at));
        let count = self.events.len() as u32;
        if count > MAX_EVENTS {
            std::panic::panic_any(Runaway(count, kind));
        }
    }
}

fn response(reply: &Reply) -> Response {
    Response {
        status: reply.status,
        retry_after: reply.retry_after.clone(),
        body: reply.body.clone(),
    }
}

pub fn run(scenario: &Scenario) -> Trace {
    let world = RefCell::new(World {
        scenario,
        now: scenario.start.0,
        first_read_done: false,
        sends: 0,
        sleeps: 0,
        events: Vec::new(),
        times: Vec::new(),
        draws: 0,
        clock_reads: 0,
        idle_reads: 0,
    });
    let mut send = |timeout: f64| {
        let mut w = world.borrow_mut();
        w.record(Event::Send {
            timeout: F64(timeout),
        });
        let reply = w
            .scenario
            .replies
            .get(w.sends)
            .unwrap_or(&w.scenario.fallback);
        let (cost, answer) = (reply.cost.0, response(reply));
        w.sends += 1;
        w.now += cost;
        answer
    };
    let mut clock = || {
        let mut w = world.borrow_mut();
        w.clock_reads += 1;
        w.idle_reads += 1;
        lab_harness::so_far::counts(w.draws, w.clock_reads);
        // The clock moves only in send and sleep: a loop that only reads it
        // waits for ever.
        if w.idle_reads > MAX_IDLE_READS {
            std::panic::panic_any(Runaway(w.clock_reads, Use::ClockReadings));
        }
        let reading = w.now;
        if !w.first_read_done {
            w.first_read_done = true;
            w.now += w.scenario.gap.0;
        }
        reading
    };
    let mut sleep = |seconds: f64| {
        let mut w = world.borrow_mut();
        if seconds == 0.0 {
            return; // sleeping for nothing may be skipped, so it is not observed
        }
        w.record(Event::Sleep {
            seconds: F64(seconds),
        });
        let extra = w.scenario.oversleep.get(w.sleeps).map_or(0.0, |x| x.0);
        w.sleeps += 1;
        if seconds.is_finite() && seconds > 0.0 {
            w.now += seconds + extra;
        }
    };
    let mut fraction = || {
        let mut w = world.borrow_mut();
        let value = w
            .scenario
            .fractions
            .get(w.draws as usize)
            .map_or(0.0, |x| x.0);
        w.draws += 1;
        lab_harness::so_far::counts(w.draws, w.clock_reads);
        value
    };
    let options = Options {
        method: &scenario.method,
        key: scenario.key.as_deref(),
        timeout: scenario.timeout.0,
        maximum: scenario.maximum,
    };
    let result =
        (crate::learner().execute)(&mut send, &mut clock, &mut sleep, options, &mut fraction);
    let ending = match result {
        Ok(r) => Ending::Ok {
            status: r.status,
            retry_after: r.retry_after,
            body: r.body,
        },
        Err(ExecuteError::InvalidArgument(_)) => Ending::InvalidArgument,
        Err(ExecuteError::Timeout) => Ending::Timeout,
    };
    let w = world.into_inner();
    Trace {
        events: w.events,
        times: w.times,
        ending,
        draws: w.draws,
        clock_reads: w.clock_reads,
    }
}
