//! Reference answers of the advanced steps 09–13 (instructors only; never
//! linked by the judge or the runners). Each step is one section, opened by
//! its marker line; the advanced mutants and alternatives in fixtures/
//! replace one section of this file (see docs/maintainers/subjects.md).
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
    let value = match fields {
        [] => return Err(RetryAfterError::Missing),
        [value] => *value,
        _ => return Err(RetryAfterError::Duplicate),
    };
    let value = value.trim_matches(|c| c == ' ' || c == '\t');
    if value.is_empty() {
        return Err(RetryAfterError::Empty);
    }
    if value.chars().count() > FIELD_LIMIT {
        return Err(RetryAfterError::Oversized);
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        // Saturate instead of overflowing: any value past the limit is too big.
        let mut seconds: u64 = 0;
        for b in value.bytes() {
            seconds = (seconds * 10 + u64::from(b - b'0')).min(u64::from(DELAY_LIMIT) + 1);
        }
        return u32::try_from(seconds)
            .ok()
            .filter(|&s| s <= DELAY_LIMIT)
            .ok_or(RetryAfterError::OverLimit);
    }
    let date = retry_after_date(value).ok_or(RetryAfterError::Syntax)?;
    let instant = date.instant(received)?;
    if instant <= received {
        return Ok(0);
    }
    u32::try_from(instant - received)
        .ok()
        .filter(|&d| d <= DELAY_LIMIT)
        .ok_or(RetryAfterError::OverLimit)
}

/// An HTTP-date as written; `year` is two digits for RFC 850.
struct RetryAfterDate {
    weekday: usize,
    day: i64,
    month: i64,
    year: i64,
    two_digit_year: bool,
    hour: i64,
    minute: i64,
    second: i64,
}

impl RetryAfterDate {
    /// Checks the date against the calendar and returns its Unix instant.
    fn instant(&self, received: i64) -> Result<i64, RetryAfterError> {
        let year = if self.two_digit_year {
            // The latest year ending in these two digits that is not more
            // than 50 years after the receipt (29 February moves to the 28th).
            let (r, month, day) = retry_after_civil(received.div_euclid(86_400));
            let day = if month == 2 && day == 29 { 28 } else { day };
            let s = received.rem_euclid(86_400);
            let limit = (month, day, s / 3600, s / 60 % 60, s % 60);
            let written = (self.month, self.day, self.hour, self.minute, self.second);
            let year = r + 50 - (r + 50 - self.year).rem_euclid(100);
            if year == r + 50 && written > limit {
                year - 100
            } else {
                year
            }
        } else {
            self.year
        };
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let length = match self.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if year < 1
            || !(1..=length).contains(&self.day)
            || self.hour > 23
            || self.minute > 59
            || self.second > 60
        {
            return Err(RetryAfterError::InvalidDate);
        }
        let days = retry_after_days(year, self.month, self.day);
        // 1970-01-01 was a Thursday (index 4, with Sunday 0).
        if (days + 4).rem_euclid(7) as usize != self.weekday {
            return Err(RetryAfterError::InvalidDate);
        }
        let instant = days * 86_400 + self.hour * 3600 + self.minute * 60 + self.second;
        // The calendar ends at 9999-12-31 23:59:59; second 60 may pass it.
        if instant > 253_402_300_799 {
            return Err(RetryAfterError::InvalidDate);
        }
        Ok(instant)
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (H. Hinnant's days_from_civil).
fn retry_after_days(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day count from 1970-01-01 (civil_from_days).
fn retry_after_civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Exactly `width` ASCII digits.
fn retry_after_number(text: &str, width: usize) -> Option<i64> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `hh:mm:ss`, two digits each.
fn retry_after_time(text: &str) -> Option<(i64, i64, i64)> {
    let mut parts = text.split(':');
    let hour = retry_after_number(parts.next()?, 2)?;
    let minute = retry_after_number(parts.next()?, 2)?;
    let second = retry_after_number(parts.next()?, 2)?;
    parts.next().is_none().then_some((hour, minute, second))
}

fn retry_after_month(name: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTHS.iter().position(|&m| m == name).map(|i| i as i64 + 1)
}

fn retry_after_weekday(name: &str, long: bool) -> Option<usize> {
    const DAYS: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    DAYS.iter()
        .position(|&d| if long { d == name } else { &d[..3] == name })
}

/// One of the three HTTP-date forms, split at single spaces.
fn retry_after_date(text: &str) -> Option<RetryAfterDate> {
    let tokens: Vec<&str> = text.split(' ').collect();
    match tokens.as_slice() {
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        [name, day, month, year, time, "GMT"] => {
            let (hour, minute, second) = retry_after_time(time)?;
            Some(RetryAfterDate {
                weekday: retry_after_weekday(name.strip_suffix(',')?, false)?,
                day: retry_after_number(day, 2)?,
                month: retry_after_month(month)?,
                year: retry_after_number(year, 4)?,
                two_digit_year: false,
                hour,
                minute,
                second,
            })
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        [name, date, time, "GMT"] => {
            let mut parts = date.split('-');
            let day = retry_after_number(parts.next()?, 2)?;
            let month = retry_after_month(parts.next()?)?;
            let year = retry_after_number(parts.next()?, 2)?;
            if parts.next().is_some() {
                return None;
            }
            let (hour, minute, second) = retry_after_time(time)?;
            Some(RetryAfterDate {
                weekday: retry_after_weekday(name.strip_suffix(',')?, true)?,
                day,
                month,
                year,
                two_digit_year: true,
                hour,
                minute,
                second,
            })
        }
        // asctime: Sun Nov  6 08:49:37 1994 (an empty token before a one-digit day)
        [name, month, rest @ ..] => {
            let (day, time, year) = match rest {
                ["", day, time, year] => (retry_after_number(day, 1)?, time, year),
                [day, time, year] => (retry_after_number(day, 2)?, time, year),
                _ => return None,
            };
            let (hour, minute, second) = retry_after_time(time)?;
            Some(RetryAfterDate {
                weekday: retry_after_weekday(name, false)?,
                day,
                month: retry_after_month(month)?,
                year: retry_after_number(year, 4)?,
                two_digit_year: false,
                hour,
                minute,
                second,
            })
        }
        _ => None,
    }
}

// ===== step 11: admit, execute_admitted =====

/// Step 11a. Retry a `GET` answered 429 or 503 after `max(delay, min_gap)`
/// only when that wait plus the reserve fits in what is `left`; otherwise
/// say why not.
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
    if limit == 0 || attempts > limit {
        return Err(InvalidArgument(format!(
            "{attempts} attempts with a limit of {limit}: need 0 <= attempts <= limit, limit >= 1"
        )));
    }
    if !left.is_finite() {
        return Err(InvalidArgument(format!("left {left} is not finite")));
    }
    for (name, x) in [("min_gap", min_gap), ("reserve", reserve)] {
        if !x.is_finite() || x <= 0.0 {
            return Err(InvalidArgument(format!(
                "{name} {x} is not a finite number of seconds above zero"
            )));
        }
    }
    let stop = if method != "GET" {
        Stop::MethodNotAllowed
    } else if !matches!(status, 429 | 503) {
        Stop::StatusNotAllowed
    } else if attempts >= limit {
        Stop::AttemptLimit
    } else {
        match retry_after {
            Some(Ok(delay)) => {
                let wait = f64::from(delay).max(min_gap);
                if wait + reserve <= left {
                    return Ok(Admission::Retry { wait });
                }
                Stop::InsufficientBudget
            }
            None | Some(Err(_)) => Stop::InvalidRetryAfter,
        }
    };
    Ok(Admission::Refuse(stop))
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
    let valid = |x: f64| x.is_finite() && x > 0.0;
    if !deadline.is_finite()
        || policy.limit == 0
        || !valid(policy.min_gap)
        || !valid(policy.reserve)
    {
        return Err(InvalidArgument(format!(
            "deadline {deadline} or policy {policy:?} is invalid"
        )));
    }
    let stopped = |reason| Ok(Finish::Stopped { reason, last: None });
    let mut sends = 0;
    loop {
        // Before every send: cancellation, the deadline, then the reserve.
        if cancel.is_cancelled() {
            return stopped(Stop::Cancelled);
        }
        let now = clock.now();
        if now >= deadline {
            return stopped(Stop::DeadlineReached);
        }
        if deadline - now < policy.reserve {
            return stopped(Stop::InsufficientBudget);
        }
        let response = transport.send(method, deadline - now);
        sends += 1;
        // After every response: cancellation and the deadline again; a
        // response that is not handed back is closed (dropped) first.
        let now = clock.now();
        if cancel.is_cancelled() {
            drop(response);
            return stopped(Stop::Cancelled);
        }
        if now >= deadline {
            drop(response);
            return stopped(Stop::DeadlineReached);
        }
        if !matches!(response.status, 429 | 503) {
            return Ok(Finish::Answer(response));
        }
        // Parse before deciding: a missing or malformed field stops here.
        let fields: Vec<&str> = response.retry_after.iter().map(String::as_str).collect();
        let delay = match parse_retry_after(&fields, response.received_at) {
            Ok(delay) => delay,
            Err(_) => {
                return Ok(Finish::Stopped {
                    reason: Stop::InvalidRetryAfter,
                    last: Some(response),
                })
            }
        };
        let admission = admit(
            method,
            response.status,
            sends,
            policy.limit,
            deadline - now,
            Some(Ok(delay)),
            policy.min_gap,
            policy.reserve,
        )?;
        match admission {
            Admission::Refuse(reason) => {
                return Ok(Finish::Stopped {
                    reason,
                    last: Some(response),
                })
            }
            Admission::Retry { wait } => {
                drop(response);
                sleeper.sleep(wait);
            }
        }
    }
}

// ===== step 12: sleep_at_least, guarded_read =====

/// Step 12. Sleeps until the clock reaches a target fixed once, at the first
/// reading (`t0 + wait`), and returns `Ok(())` only from a reading at or past
/// that target and before `deadline`; otherwise names why the caller must
/// not go on.
///
/// Order of the checks: the arguments; the first reading (finite?); then at
/// every reading: after a sleep, finite and not backwards; cancelled; a
/// target that does not lie after the first reading (a zero wait, one too
/// small to move it, or an overflow); deadline (also when the target itself
/// is not before it); target reached; after a sleep, no progress;
/// `SLEEP_LIMIT` sleeps made; else sleep exactly what is left.
pub fn sleep_at_least(
    wait: f64,
    deadline: f64,
    clock: &dyn Clock,
    sleeper: &mut dyn Sleeper,
    cancel: &dyn Cancel,
) -> Result<(), SleepFault> {
    if !wait.is_finite() || wait < 0.0 || !deadline.is_finite() {
        return Err(SleepFault::InvalidArgument);
    }
    let t0 = clock.now();
    if !t0.is_finite() {
        return Err(SleepFault::NonFiniteReading);
    }
    let target = t0 + wait;
    let mut now = t0;
    let mut previous: Option<f64> = None;
    let mut sleeps = 0;
    loop {
        if let Some(before) = previous {
            if !now.is_finite() {
                return Err(SleepFault::NonFiniteReading);
            }
            if now < before {
                return Err(SleepFault::ClockWentBackwards);
            }
        }
        if cancel.is_cancelled() {
            return Err(SleepFault::Cancelled);
        }
        // Fixed by the first reading: if it holds, it holds there already.
        if target <= t0 || target.is_infinite() {
            return Err(SleepFault::UnrepresentableWait);
        }
        if now >= deadline || target >= deadline {
            return Err(SleepFault::DeadlineReached);
        }
        if now >= target {
            return Ok(());
        }
        if previous == Some(now) {
            return Err(SleepFault::NoProgress);
        }
        if sleeps == SLEEP_LIMIT {
            return Err(SleepFault::TooManyWakeUps);
        }
        sleeper.sleep(target - now);
        sleeps += 1;
        previous = Some(now);
        now = clock.now();
    }
}

/// Step 12b. `execute_admitted`, guarded: every clock reading of the read
/// goes through one checked clock (finite, never below the one before), and
/// every admitted wait is a `sleep_at_least`. The first fault ends the read
/// with `Stop::Guard(fault)` (`Stop::Cancelled` for a cancelled wait) and
/// `last: None`; nothing is sent after it.
///
/// Built as a composition: the executor itself is unchanged; it runs on a
/// checked clock and a not-before sleeper that record the first fault. After
/// a fault the clock reads `+inf`, so the executor stops before any further
/// send and closes what it holds; its reason is then replaced by the fault.
pub fn guarded_read(
    method: &str,
    deadline: f64,
    policy: Policy,
    transport: &mut dyn Transport,
    clock: &dyn Clock,
    sleeper: &mut dyn Sleeper,
    cancel: &dyn Cancel,
) -> Result<Finish, InvalidArgument> {
    use std::sync::Mutex;

    /// The last good reading and the first fault of the whole read.
    #[derive(Default)]
    struct Guard {
        last: Option<f64>,
        fault: Option<SleepFault>,
    }

    struct CheckedClock<'a> {
        inner: &'a dyn Clock,
        guard: Mutex<Guard>,
    }

    impl CheckedClock<'_> {
        fn fail(&self, fault: SleepFault) {
            let mut g = self.guard.lock().unwrap_or_else(|e| e.into_inner());
            g.fault.get_or_insert(fault);
        }

        fn fault(&self) -> Option<SleepFault> {
            self.guard.lock().unwrap_or_else(|e| e.into_inner()).fault
        }
    }

    impl Clock for CheckedClock<'_> {
        fn now(&self) -> f64 {
            if self.fault().is_some() {
                return f64::INFINITY;
            }
            let now = self.inner.now();
            let mut g = self.guard.lock().unwrap_or_else(|e| e.into_inner());
            let fault = if !now.is_finite() {
                Some(SleepFault::NonFiniteReading)
            } else if g.last.is_some_and(|last| now < last) {
                Some(SleepFault::ClockWentBackwards)
            } else {
                None
            };
            match fault {
                Some(f) => {
                    g.fault = Some(f);
                    f64::INFINITY
                }
                None => {
                    g.last = Some(now);
                    now
                }
            }
        }
    }

    struct NotBefore<'a, 's> {
        deadline: f64,
        clock: &'a CheckedClock<'a>,
        sleeper: &'a mut (dyn Sleeper + 's),
        cancel: &'a dyn Cancel,
    }

    impl Sleeper for NotBefore<'_, '_> {
        fn sleep(&mut self, wait: f64) {
            if self.clock.fault().is_some() {
                return;
            }
            let slept = sleep_at_least(wait, self.deadline, self.clock, self.sleeper, self.cancel);
            if let Err(fault) = slept {
                self.clock.fail(fault);
            }
        }
    }

    let checked = CheckedClock {
        inner: clock,
        guard: Mutex::new(Guard::default()),
    };
    let mut waits = NotBefore {
        deadline,
        clock: &checked,
        sleeper,
        cancel,
    };
    let finish = execute_admitted(
        method, deadline, policy, transport, &checked, &mut waits, cancel,
    )?;
    Ok(match checked.fault() {
        None => finish,
        Some(fault) => {
            // The executor stopped at the +inf reading: it holds nothing.
            drop(finish);
            let reason = match fault {
                SleepFault::Cancelled => Stop::Cancelled,
                other => Stop::Guard(other),
            };
            Finish::Stopped { reason, last: None }
        }
    })
}

// ===== step 13: Gate, fan_out, to_http =====

/// Step 13a. The inbound admission limit: at most `capacity` passes alive,
/// counted in a `Tally` and nowhere else (the checker plays every order of
/// threads' steps on it).
pub struct Gate {
    capacity: u32,
    used: Tally,
}

/// One admitted request; dropping it gives its place back.
pub struct Pass<'g> {
    gate: &'g Gate,
}

impl Gate {
    /// Rejects a capacity of 0.
    pub fn new(capacity: u32) -> Result<Gate, InvalidArgument> {
        if capacity == 0 {
            return Err(InvalidArgument(
                "a gate needs a capacity of at least 1".into(),
            ));
        }
        Ok(Gate {
            capacity,
            used: Tally::new(0),
        })
    }

    /// A pass when fewer than `capacity` are in use; otherwise `None`, and
    /// nothing changes.
    pub fn try_acquire(&self) -> Option<Pass<'_>> {
        self.used
            .fetch_update(|n| (n < self.capacity).then_some(n + 1))
            .ok()
            .map(|_| Pass { gate: self })
    }

    /// Passes alive right now.
    pub fn in_use(&self) -> u32 {
        self.used.load()
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        self.gate.used.fetch_sub(1);
    }
}

use std::ops::ControlFlow;

/// Step 13b. Quotes from every supplier under one deadline, ranked.
pub fn fan_out(
    request: &QuoteRequest,
    suppliers: &[&str],
    deadline: f64,
    env: &Env,
    inbound: &Gate,
) -> Result<Vec<SupplierReport>, FanOutError> {
    let mut names = std::collections::HashSet::new();
    let valid = !suppliers.is_empty()
        && suppliers.iter().all(|s| !s.is_empty() && names.insert(*s))
        && request.quantity > 0
        && !request.id.trim().is_empty()
        && deadline.is_finite();
    if !valid {
        return Err(FanOutError::InvalidArgument);
    }
    let _pass = inbound.try_acquire().ok_or(FanOutError::Rejected)?;
    type Task<'a> = Box<dyn FnOnce() -> SupplierOutcome + Send + 'a>;
    let tasks: Vec<Task<'_>> = suppliers
        .iter()
        .map(|&name| Box::new(move || quotes_from(name, request, deadline, env)) as Task<'_>)
        .collect();
    // A panic in a supplier's call is a bug, not an outcome: `run_all`
    // cancels the other tasks and passes it on, and `_pass` goes back while
    // it unwinds out of `fan_out`.
    let outcomes = env.run_all(tasks);
    let mut reports: Vec<SupplierReport> = suppliers
        .iter()
        .zip(outcomes)
        .map(|(name, outcome)| SupplierReport {
            supplier: name.to_string(),
            outcome,
        })
        .collect();
    reports.sort_by(|a, b| rank(a).cmp(&rank(b)));
    Ok(reports)
}

/// Quotes first, cheapest first; then the rest; each by name.
fn rank(r: &SupplierReport) -> (bool, u64, &str) {
    match r.outcome {
        SupplierOutcome::Quote { total_cents } => (false, total_cents, &r.supplier),
        _ => (true, 0, &r.supplier),
    }
}

/// One supplier's task: up to two attempts, a jittered pause between them.
/// The result is the last attempt's.
fn quotes_from(name: &str, request: &QuoteRequest, deadline: f64, env: &Env) -> SupplierOutcome {
    let mut last = SupplierOutcome::TimedOut;
    for attempt in 1..=ATTEMPTS_PER_SUPPLIER {
        match one_attempt(name, request, deadline, env) {
            ControlFlow::Break(done) => return done,
            ControlFlow::Continue(code) => last = code,
        }
        if attempt == ATTEMPTS_PER_SUPPLIER {
            break;
        }
        let pause = PAUSE_MIN + PAUSE_SPREAD * env.fraction(name);
        if env.now() + pause >= deadline {
            return SupplierOutcome::TimedOut;
        }
        env.sleep(pause);
    }
    last
}

/// One call holding one slot: `Break` with a final outcome, or `Continue`
/// with the code a transient failure leaves (`HttpStatus(503)` or
/// `TransportError`).
fn one_attempt(
    name: &str,
    request: &QuoteRequest,
    deadline: f64,
    env: &Env,
) -> ControlFlow<SupplierOutcome, SupplierOutcome> {
    use ControlFlow::{Break, Continue};
    let Some(slot) = env.acquire(deadline) else {
        return Break(SupplierOutcome::TimedOut);
    };
    let reply = env.call(name, request, deadline - env.now());
    drop(slot);
    match reply {
        Ok(Reply::Offer(offer)) if !offer.in_stock => Break(SupplierOutcome::OutOfStock),
        Ok(Reply::Offer(offer)) => Break(
            total(&offer, request).map_or(SupplierOutcome::BadData, |total_cents| {
                SupplierOutcome::Quote { total_cents }
            }),
        ),
        Ok(Reply::Status(503)) => Continue(SupplierOutcome::HttpStatus(503)),
        Ok(Reply::Status(404)) => Break(SupplierOutcome::NotFound),
        Ok(Reply::Status(status)) => Break(SupplierOutcome::HttpStatus(status)),
        Err(
            CallError::Connect
            | CallError::ConnectTimeout
            | CallError::Read
            | CallError::ReadTimeout
            | CallError::Write
            | CallError::WriteTimeout
            | CallError::RemoteProtocol
            | CallError::PoolTimeout,
        ) => Continue(SupplierOutcome::TransportError),
        Err(CallError::TimedOut) => Break(SupplierOutcome::TimedOut),
        Err(CallError::LocalProtocol) => Break(SupplierOutcome::Protocol),
        Err(CallError::Decode) => Break(SupplierOutcome::Decode),
    }
}

/// `unit × quantity + shipping` in cents; `None` for bad data.
fn total(offer: &Offer, request: &QuoteRequest) -> Option<u64> {
    if offer.quantity != request.quantity {
        return None;
    }
    let unit = u64::try_from(offer.unit_cents).ok()?;
    let shipping = u64::try_from(offer.shipping_cents).ok()?;
    unit.checked_mul(u64::from(offer.quantity))?
        .checked_add(shipping)
}

/// Step 13c. What the HTTP entry answers for one `fan_out` result: a full
/// inbound gate is 503 with `Retry-After: 1`; an answered request is 200,
/// whatever its suppliers said; an invalid request is 422.
pub fn to_http(result: &Result<Vec<SupplierReport>, FanOutError>) -> HttpReply {
    let (status, retry_after) = match result {
        Ok(_) => (200, None),
        Err(FanOutError::Rejected) => (503, Some(1)),
        Err(FanOutError::InvalidArgument) => (422, None),
    };
    HttpReply {
        status,
        retry_after,
    }
}
