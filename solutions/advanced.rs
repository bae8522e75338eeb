//! Reference answers of the advanced steps 09–13 (instructors only; never
//! linked by the judge or the runners). Each step is one section, opened by
//! its marker line; the advanced mutants and alternatives in fixtures/
//! replace one section of this file (see docs/MAINTAINERS.md).
use lab_api::advanced::*;

// ===== step 09: Deadline =====

/// Step 09. A budget fixed once, from a number of seconds and a clock.
pub struct Deadline {
    deadline: f64,
    clock: std::sync::Arc<dyn Clock>,
}

impl Deadline {
    /// Rejects a NaN, infinite or negative `seconds`; otherwise reads the
    /// clock once and fixes the deadline at that reading plus `seconds`.
    pub fn new(
        seconds: f64,
        clock: std::sync::Arc<dyn Clock>,
    ) -> Result<Deadline, InvalidArgument> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(InvalidArgument(format!(
                "budget {seconds} is not a finite, non-negative number of seconds"
            )));
        }
        let deadline = clock.now() + seconds;
        Ok(Deadline { deadline, clock })
    }

    /// Seconds left now; never negative.
    pub fn remaining(&self) -> f64 {
        let left = self.deadline - self.clock.now();
        if left > 0.0 {
            left
        } else {
            0.0
        }
    }

    /// `min(cap, remaining())`; rejects a NaN, infinite or negative cap.
    pub fn timeout_for(&self, per_call_cap: f64) -> Result<f64, InvalidArgument> {
        if !per_call_cap.is_finite() || per_call_cap < 0.0 {
            return Err(InvalidArgument(format!(
                "cap {per_call_cap} is not a finite, non-negative number of seconds"
            )));
        }
        Ok(per_call_cap.min(self.remaining()))
    }

    /// True once nothing remains (at the deadline itself too).
    pub fn expired(&self) -> bool {
        self.clock.now() >= self.deadline
    }
}

// ===== step 10: parse_retry_after =====

/// Step 10. The delay, in whole seconds, asked for by the Retry-After
/// fields of one response received at Unix time `received`.
pub fn parse_retry_after(fields: &[&str], received: i64) -> Result<u32, RetryAfterError> {
    todo!("step 10: parse_retry_after({fields:?}, {received})")
}

// ===== step 11: admit, execute_admitted =====

/// Step 11a. Retry after `max(delay, min_gap)` only when that wait plus the
/// reserve fits in what is `left`; otherwise say why not.
#[allow(clippy::too_many_arguments)]
pub fn admit(
    method: &str,
    status: u16,
    attempts: u32,
    limit: u32,
    left: f64,
    retry_after: Option<Result<u32, RetryAfterError>>,
    min_gap: f64,
    reserve: f64,
) -> Result<Admission, InvalidArgument> {
    todo!("step 11: admit({method:?}, {status}, {attempts}, {limit}, {left}, {retry_after:?}, {min_gap}, {reserve})")
}

/// Step 11b. Sends `method` until an answer, a stop reason or `deadline`.
pub fn execute_admitted(
    method: &str,
    deadline: f64,
    policy: Policy,
    transport: &mut dyn Transport,
    clock: &dyn Clock,
    sleeper: &mut dyn Sleeper,
    cancel: &dyn Cancel,
) -> Result<Finish, InvalidArgument> {
    let _ = (transport, clock, sleeper, cancel);
    todo!("step 11: execute_admitted({method:?}, {deadline}, {policy:?})")
}

// ===== step 12: sleep_at_least =====

/// Step 12. Returns `Ok(())` only once the clock has reached the target
/// fixed at the start (`now + wait`); otherwise names why not.
pub fn sleep_at_least(
    wait: f64,
    deadline: f64,
    clock: &dyn Clock,
    sleeper: &mut dyn Sleeper,
    cancel: &dyn Cancel,
) -> Result<(), SleepFault> {
    let _ = (clock, sleeper, cancel);
    todo!("step 12: sleep_at_least({wait}, {deadline})")
}

// ===== step 13: Gate, fan_out =====

/// Step 13a. The inbound admission limit.
pub struct Gate {
    // Your fields here. Gate must stay Send + Sync.
    _todo: (),
}

/// One admitted request; dropping it gives its place back.
pub struct Pass<'g> {
    _gate: &'g Gate,
}

impl Gate {
    /// Rejects a capacity of 0.
    pub fn new(capacity: u32) -> Result<Gate, InvalidArgument> {
        todo!("step 13: Gate::new({capacity})")
    }

    /// A pass when fewer than `capacity` are in use, otherwise `None`.
    pub fn try_acquire(&self) -> Option<Pass<'_>> {
        todo!("step 13: Gate::try_acquire")
    }

    /// Passes held right now.
    pub fn in_use(&self) -> u32 {
        todo!("step 13: Gate::in_use")
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {}
}

/// Step 13b. Quotes from every supplier under one deadline, ranked.
pub fn fan_out(
    request: &QuoteRequest,
    suppliers: &[&str],
    deadline: f64,
    env: &Env,
    inbound: &Gate,
) -> Result<Vec<SupplierReport>, FanOutError> {
    let _ = (env, inbound);
    todo!("step 13: fan_out({request:?}, {suppliers:?}, {deadline})")
}
