//! `try 11`: the learner's `execute_admitted` over a real HTTP/1.1 client,
//! a monotonic clock, real sleeps and a caller who never gives up. Two
//! reads against the judge's server: the first meets 503, 429 and a 200
//! that takes 300 ms, well inside the budget; the second meets a 503 whose
//! Retry-After is malformed.

use super::{at, line};
use crate::advanced::execute_admitted;
use lab_api::advanced::{Cancel, Clock, Finish, HttpResponse, Policy, Sleeper, Stop, Transport};
use lab_wire::http::{self, Answer, Failure};
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seconds of each read's budget, and how it may be spent.
const BUDGET: f64 = 8.0;
const POLICY: Policy = Policy {
    limit: 4,
    min_gap: 0.1,
    reserve: 0.5,
};

struct Monotonic(Instant);

impl Clock for Monotonic {
    fn now(&self) -> f64 {
        at(self.0)
    }
}

struct RealSleeper(Instant);

impl Sleeper for RealSleeper {
    fn sleep(&mut self, seconds: f64) {
        line(format_args!("  t={:6.3}  sleep({seconds:.3})", at(self.0)));
        if seconds.is_finite() && seconds > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(seconds.min(60.0)));
        }
    }
}

struct NeverCancelled;

impl Cancel for NeverCancelled {
    fn is_cancelled(&self) -> bool {
        false
    }
}

struct Http {
    addr: SocketAddr,
    origin: Instant,
}

/// Unix seconds by the wall clock.
fn wall() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// What the client hands back when it got no HTTP answer: 504 (the time
/// ran out) or 502 (anything else), with the reason as the body.
fn no_answer(status: u16, why: String) -> HttpResponse {
    HttpResponse::new(status, Vec::new(), wall(), format!("client: {why}"))
}

impl Http {
    /// One request over a fresh connection, all of it within `timeout`.
    fn exchange(&self, method: &str, timeout: f64) -> HttpResponse {
        let request = http::request(method, "/", self.addr);
        let raw = match http::exchange(self.addr, &request, timeout, &|| false) {
            Ok(raw) => raw,
            Err(Failure::NoTime) => return no_answer(504, "no time left to send".into()),
            Err(Failure::Connect(e)) => return no_answer(502, format!("connect failed: {e}")),
            Err(Failure::Write(e)) => return no_answer(502, format!("write failed: {e}")),
            Err(Failure::Read(_)) => return no_answer(504, "no answer within the timeout".into()),
            Err(Failure::TooLong) => return no_answer(502, "the answer is too long".into()),
        };
        let received_at = wall();
        match Answer::parse(&raw) {
            Some(a) => {
                let retry_after = a.fields("retry-after").map(str::to_string).collect();
                HttpResponse::new(a.status, retry_after, received_at, a.body)
            }
            None => no_answer(502, "not an HTTP answer".into()),
        }
    }
}

impl Transport for Http {
    fn send(&mut self, method: &str, timeout: f64) -> HttpResponse {
        line(format_args!(
            "  t={:6.3}  send({method}, timeout = {timeout:.3})",
            at(self.origin)
        ));
        let r = self.exchange(method, timeout);
        let fields: Vec<String> = r
            .retry_after
            .iter()
            .map(|v| format!(", Retry-After: {v}"))
            .collect();
        line(format_args!(
            "  t={:6.3}    <- {}{} (received_at {})",
            at(self.origin),
            r.status,
            fields.concat(),
            r.received_at
        ));
        r
    }
}

/// The stop reasons as the step's text names them.
fn reason(stop: Stop) -> &'static str {
    match stop {
        Stop::StatusNotAllowed => "status_not_allowed",
        Stop::MethodNotAllowed => "method_not_allowed",
        Stop::AttemptLimit => "attempt_limit",
        Stop::InvalidRetryAfter => "invalid_retry_after",
        Stop::InsufficientBudget => "insufficient_budget",
        Stop::Cancelled => "cancelled",
        Stop::DeadlineReached => "deadline_reached",
        // Only guarded_read (step 12) stops so; execute_admitted never does.
        Stop::Guard(_) => "guard",
    }
}

fn read(n: u32, what: &str, addr: SocketAddr, origin: Instant) {
    let clock = Monotonic(origin);
    let deadline = clock.now() + BUDGET;
    line(format_args!(
        "client: read {n} ({what}): execute_admitted(\"GET\", deadline = now + {BUDGET:.1} s, \
         limit {}, min_gap {}, reserve {})",
        POLICY.limit, POLICY.min_gap, POLICY.reserve
    ));
    let mut transport = Http { addr, origin };
    let mut sleeper = RealSleeper(origin);
    let result = execute_admitted(
        "GET",
        deadline,
        POLICY,
        &mut transport,
        &clock,
        &mut sleeper,
        &NeverCancelled,
    );
    let t = at(origin);
    match result {
        Ok(Finish::Answer(r)) => line(format_args!(
            "  t={t:6.3}  outcome: answer {} (body {:?})",
            r.status,
            r.body.trim_end()
        )),
        Ok(Finish::Stopped { reason: why, last }) => line(format_args!(
            "  t={t:6.3}  outcome: stopped, {}{}",
            reason(why),
            last.map_or(String::new(), |r| format!(" (last response {})", r.status))
        )),
        Err(e) => line(format_args!(
            "  t={t:6.3}  outcome: InvalidArgument({:?})",
            e.0
        )),
    }
}

pub fn run(address: &str) -> Result<(), String> {
    let addr: SocketAddr = address
        .parse()
        .map_err(|_| format!("bad address {address:?}"))?;
    let origin = Instant::now();
    read(
        1,
        "503, 429, then a 200 after 300 ms, in time",
        addr,
        origin,
    );
    read(2, "a malformed Retry-After", addr, origin);
    Ok(())
}
