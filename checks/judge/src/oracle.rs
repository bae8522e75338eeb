//! The judge's own reading of the contract (CONTRACT.md in the kit's root).
//! It never calls `solutions`: a bug shared by both would be invisible.
//! The self-test proves that this oracle, the hand-written tables in
//! fixtures/cases and the reference solution agree.

use lab_wire::{Ending, Event, Reply, Scenario, F64};

pub fn retryable(status: u16) -> bool {
    [429, 502, 503, 504].contains(&status)
}

pub fn replay_safe(method: &str, key: Option<&str>) -> bool {
    let upper = method.to_ascii_uppercase();
    match upper.as_str() {
        "GET" | "HEAD" | "PUT" | "DELETE" => true,
        "POST" => matches!(key, Some(k) if !k.trim().is_empty()),
        _ => false,
    }
}

pub fn remaining(deadline: f64, now: f64) -> f64 {
    match deadline - now {
        d if d > 0.0 => d,
        _ => 0.0, // zero, negative and NaN alike
    }
}

fn finite_non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

pub fn backoff(attempt: u32, base: f64, cap: f64) -> Option<f64> {
    if attempt > 30 || !finite_non_negative(base) || !finite_non_negative(cap) {
        return None;
    }
    let raw = base * 2f64.powi(attempt as i32);
    Some(cap.min(raw))
}

pub fn jitter(delay: f64, fraction: f64) -> Option<f64> {
    let fraction_ok = (0.0..=1.0).contains(&fraction);
    (finite_non_negative(delay) && fraction_ok).then_some(delay * fraction)
}

/// Retry-After as delay-seconds, or None. Digit strings of any length are
/// read with saturation: exact up to 2^53, never 0 when they are not 0.
pub fn delay_seconds(text: &str) -> Option<f64> {
    let core = text
        .trim_start_matches([' ', '\t'])
        .trim_end_matches([' ', '\t']);
    if core.is_empty() || core.bytes().any(|b| !b.is_ascii_digit()) {
        return None;
    }
    Some(
        core.bytes()
            .fold(0.0, |acc, b| acc * 10.0 + f64::from(b - b'0')),
    )
}

pub fn wait_delay(local: f64, retry_after: Option<&str>) -> f64 {
    let server = retry_after.and_then(delay_seconds).unwrap_or(0.0);
    local.max(server)
}

/// Above this, wait_delay may answer any value at least this large.
pub const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

pub fn can_attempt(attempts: u32, maximum: u32, wait: f64, budget: f64) -> bool {
    if attempts >= maximum || wait.is_nan() || budget.is_nan() {
        return false;
    }
    wait >= 0.0 && budget > wait
}

/// The expected trace of one scripted `execute` call: the same world the
/// runner builds (see lab_wire::Scenario), driven by the contract's
/// clauses 1–6 of step 08.
pub fn execute(s: &Scenario) -> (Vec<Event>, Ending) {
    let (events, ending, _) = execute_timed(s);
    (events, ending)
}

/// [`execute`], with the clock's time (from the start) when each event began.
pub fn execute_timed(s: &Scenario) -> (Vec<Event>, Ending, Vec<f64>) {
    let mut events = Vec::new();
    let mut times = Vec::new();
    if !(s.timeout.0.is_finite() && s.timeout.0 > 0.0) || s.maximum == 0 {
        return (events, Ending::InvalidArgument, times);
    }
    let mut now = s.start.0;
    let deadline = now + s.timeout.0;
    now += s.gap.0;
    let safe = replay_safe(&s.method, s.key.as_deref());
    let (mut sends, mut sleeps, mut draws) = (0usize, 0usize, 0usize);
    loop {
        let left = remaining(deadline, now);
        if left == 0.0 {
            return (events, Ending::Timeout, times);
        }
        events.push(Event::Send { timeout: F64(left) });
        times.push(now - s.start.0);
        let reply: &Reply = s.replies.get(sends).unwrap_or(&s.fallback);
        sends += 1;
        now += reply.cost.0;
        let ending = Ending::Ok {
            status: reply.status,
            retry_after: reply.retry_after.clone(),
            body: reply.body.clone(),
        };
        if !retryable(reply.status) || !safe {
            return (events, ending, times);
        }
        let n = sends as u32;
        let fraction = s.fractions.get(draws).map_or(0.0, |f| f.0);
        draws += 1;
        let Some(backed) = backoff((n - 1).min(30), lab_api::BASE, lab_api::CAP) else {
            return (events, Ending::InvalidArgument, times);
        };
        let Some(local) = jitter(backed, fraction) else {
            return (events, Ending::InvalidArgument, times);
        };
        let wait = wait_delay(local, reply.retry_after.as_deref());
        if !can_attempt(n, s.maximum, wait, remaining(deadline, now)) {
            return (events, ending, times);
        }
        if wait != 0.0 {
            events.push(Event::Sleep { seconds: F64(wait) });
            times.push(now - s.start.0);
            now += wait + s.oversleep.get(sleeps).map_or(0.0, |x| x.0);
            sleeps += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_four_statuses_are_retryable() {
        let count = (0..=u16::MAX).filter(|&s| retryable(s)).count();
        assert_eq!(count, 4);
        assert!(retryable(429) && !retryable(500));
    }

    #[test]
    fn replay_safety_is_ascii_only() {
        assert!(replay_safe("gEt", None));
        assert!(!replay_safe("poſt", Some("k")));
        assert!(!replay_safe("POST", Some("\u{a0}")));
        assert!(replay_safe("post", Some(" k ")));
        assert!(!replay_safe(" GET", None));
    }

    #[test]
    fn remaining_never_gives_nan_or_negative() {
        assert_eq!(remaining(f64::INFINITY, f64::INFINITY), 0.0);
        assert_eq!(remaining(1.0, 2.0), 0.0);
        assert_eq!(remaining(f64::INFINITY, 0.0), f64::INFINITY);
    }

    #[test]
    fn backoff_bounds() {
        assert_eq!(backoff(30, 1.0, 1e300), Some(1_073_741_824.0));
        assert_eq!(backoff(31, 1.0, 1e300), None);
        assert_eq!(backoff(0, -0.0, 4.0), Some(-0.0));
        assert_eq!(backoff(0, 0.5, f64::INFINITY), None);
    }

    #[test]
    fn delay_seconds_is_strict_and_saturating() {
        assert_eq!(delay_seconds(" \t007 "), Some(7.0));
        assert_eq!(delay_seconds("+5"), None);
        assert_eq!(delay_seconds("5\n"), None);
        assert!(delay_seconds(&"9".repeat(400)).unwrap() >= EXACT_LIMIT);
        assert_eq!(delay_seconds("9007199254740992"), Some(EXACT_LIMIT));
    }

    #[test]
    fn can_attempt_needs_budget_strictly_above_wait() {
        assert!(!can_attempt(0, 1, 1.0, 1.0));
        assert!(can_attempt(0, 1, -0.0, 0.015625));
        assert!(!can_attempt(0, 1, f64::NAN, 1.0));
    }
}
