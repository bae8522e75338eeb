pub use lab_api::*;

/// Step 01: statuses that say "try again later".
pub fn retryable(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// Step 02: may this request be sent twice without harm?
pub fn replay_safe(method: &str, key: Option<&str>) -> bool {
    let is = |name: &str| method.eq_ignore_ascii_case(name);
    if is("GET") || is("HEAD") || is("PUT") || is("DELETE") {
        return true;
    }
    is("POST") && key.is_some_and(|k| !k.trim().is_empty())
}

/// Step 03: seconds left before the deadline, never negative, never NaN.
pub fn remaining(deadline: f64, now: f64) -> f64 {
    let left = deadline - now;
    if left > 0.0 {
        left
    } else {
        0.0
    }
}

fn usable(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// Step 04: capped exponential backoff.
pub fn backoff(attempt: u32, base: f64, cap: f64) -> Result<f64, InvalidArgument> {
    if attempt > 30 {
        return Err(InvalidArgument(format!("attempt {attempt} is above 30")));
    }
    if !usable(base) || !usable(cap) {
        return Err(InvalidArgument(format!(
            "base {base} and cap {cap} must be finite and not negative"
        )));
    }
    let raw = base * f64::from(1u32 << attempt);
    Ok(if raw < cap { raw } else { cap })
}

/// Step 05: full jitter, with the random fraction passed in.
pub fn jitter(delay: f64, fraction: f64) -> Result<f64, InvalidArgument> {
    if !usable(delay) {
        return Err(InvalidArgument(format!(
            "delay {delay} must be finite and not negative"
        )));
    }
    if !(0.0..=1.0).contains(&fraction) {
        return Err(InvalidArgument(format!(
            "fraction {fraction} must lie in [0, 1]"
        )));
    }
    Ok(delay * fraction)
}

/// Reads Retry-After as delay-seconds; None when it is anything else.
fn delay_seconds(value: &str) -> Option<f64> {
    let digits = value.trim_matches(|c| c == ' ' || c == '\t');
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Every digit string parses as f64; huge ones round, they never fail.
    digits.parse::<f64>().ok()
}

/// Step 06: the longer of our own backoff and the server's Retry-After.
pub fn wait_delay(local: f64, retry_after: Option<&str>) -> f64 {
    let server = retry_after.and_then(delay_seconds).unwrap_or(0.0);
    if server > local {
        server
    } else {
        local
    }
}

/// Step 07: is there an attempt left, and time to wait for it?
pub fn can_attempt(attempts: u32, maximum: u32, wait: f64, budget: f64) -> bool {
    attempts < maximum && wait >= 0.0 && budget > wait
}

/// Step 08: the retry loop, every attempt under one deadline.
pub fn execute(
    send: &mut dyn FnMut(f64) -> Response,
    clock: &mut dyn FnMut() -> f64,
    sleep: &mut dyn FnMut(f64),
    options: Options<'_>,
    random_fraction: &mut dyn FnMut() -> f64,
) -> Result<Response, ExecuteError> {
    if !(options.timeout.is_finite() && options.timeout > 0.0) || options.maximum == 0 {
        return Err(InvalidArgument(
            "timeout must be positive and finite, maximum at least 1".into(),
        )
        .into());
    }
    let deadline = clock() + options.timeout;
    let safe = replay_safe(options.method, options.key);
    let mut sends: u32 = 0;
    loop {
        let left = remaining(deadline, clock());
        if left == 0.0 {
            return Err(ExecuteError::Timeout);
        }
        let response = send(left);
        sends += 1;
        if !retryable(response.status) || !safe {
            return Ok(response);
        }
        let local = jitter(backoff((sends - 1).min(30), BASE, CAP)?, random_fraction())?;
        let wait = wait_delay(local, response.retry_after.as_deref());
        let budget = remaining(deadline, clock());
        if !can_attempt(sends, options.maximum, wait, budget) {
            return Ok(response);
        }
        sleep(wait);
    }
}
