//! `try 11`: the learner's `execute_admitted` over a real HTTP/1.1 client,
//! a monotonic clock, real sleeps and a caller who never gives up. Two
//! reads against the judge's server: the first meets 503, 429 and a late
//! 200; the second meets a 503 whose Retry-After is malformed.

use super::{at, line};
use crate::advanced::execute_admitted;
use lab_api::advanced::{Cancel, Clock, Finish, HttpResponse, Policy, Sleeper, Stop, Transport};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
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

/// Status, every Retry-After field in order, and the body.
fn parse(raw: &[u8]) -> Option<(u16, Vec<String>, String)> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .filter(|l| l.starts_with("HTTP/1."))
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())?;
    let retry_after = lines
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, _)| name.eq_ignore_ascii_case("retry-after"))
        .map(|(_, value)| value.trim_matches(|c| c == ' ' || c == '\t').to_string())
        .collect();
    Some((status, retry_after, body.to_string()))
}

impl Http {
    /// One request over a fresh connection, all of it within `timeout`.
    fn exchange(&self, method: &str, timeout: f64) -> HttpResponse {
        if !(timeout.is_finite() && timeout > 0.0) {
            return no_answer(504, "no time left to send".into());
        }
        let limit = Duration::from_secs_f64(timeout.min(3600.0));
        let deadline = Instant::now() + limit;
        let left = || deadline.saturating_duration_since(Instant::now());
        let mut stream = match TcpStream::connect_timeout(&self.addr, limit) {
            Ok(s) => s,
            Err(e) => return no_answer(502, format!("connect failed: {e}")),
        };
        let request = format!(
            "{method} / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        );
        let sent = stream
            .set_write_timeout(Some(left().max(Duration::from_millis(1))))
            .and_then(|()| stream.write_all(request.as_bytes()));
        if let Err(e) = sent {
            return no_answer(502, format!("write failed: {e}"));
        }
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let rest = left();
            if rest.is_zero() || stream.set_read_timeout(Some(rest)).is_err() {
                return no_answer(504, "no answer within the timeout".into());
            }
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if raw.len() + n > 64 * 1024 => {
                    return no_answer(502, "the answer is too long".into())
                }
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(_) => return no_answer(504, "no answer within the timeout".into()),
            }
        }
        let received_at = wall();
        match parse(&raw) {
            Some((status, retry_after, body)) => {
                HttpResponse::new(status, retry_after, received_at, body)
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
    read(1, "503, 429, then a late 200", addr, origin);
    read(2, "a malformed Retry-After", addr, origin);
    Ok(())
}
