//! Your crate. Fill in the eight functions below, one step at a time, and
//! check each step with `bash checks/0N-contract.sh` (N = 1 … 8).
//! The full contract is in CONTRACT.md at the kit's root.
pub use lab_api::*;

/// Step 01. Is `status` worth retrying? True for exactly 429, 502, 503 and
/// 504; false for every other value.
///
/// Example: `retryable(503)` is `true`, `retryable(500)` is `false`.
pub fn retryable(status: u16) -> bool {
    todo!("step 01: retryable({status})")
}

/// Step 02. May this request be sent again without harm? True for `GET`,
/// `HEAD`, `PUT` and `DELETE` (ASCII case ignored), and for `POST` only with
/// an idempotency key that is not blank after `trim()`. Everything else is
/// false, including methods with surrounding whitespace or non-ASCII letters.
///
/// Example: `replay_safe("post", Some("k-1"))` is `true`,
/// `replay_safe("POST", Some("  "))` is `false`.
pub fn replay_safe(method: &str, key: Option<&str>) -> bool {
    todo!("step 02: replay_safe({method:?}, {key:?})")
}

/// Step 03. Seconds left until `deadline` at time `now`: `deadline - now`
/// when that is above 0, otherwise 0.0. A NaN difference gives 0.0; a
/// positive infinite one is returned as it is.
///
/// Example: `remaining(10.0, 7.5)` is `2.5`, `remaining(3.0, 4.0)` is `0.0`.
pub fn remaining(deadline: f64, now: f64) -> f64 {
    todo!("step 03: remaining({deadline}, {now})")
}

/// Step 04. Capped exponential backoff: `min(cap, base * 2^attempt)`.
/// `Err` when `attempt > 30`, or when `base` or `cap` is NaN, infinite or
/// negative (-0.0 counts as zero, not as negative).
///
/// Example: `backoff(3, 0.5, 4.0)` is `Ok(4.0)`, `backoff(1, 0.5, 4.0)` is `Ok(1.0)`.
pub fn backoff(attempt: u32, base: f64, cap: f64) -> Result<f64, InvalidArgument> {
    todo!("step 04: backoff({attempt}, {base}, {cap})")
}

/// Step 05. Full jitter: `delay * fraction`. `Err` unless `delay` is finite
/// and at least 0, and `fraction` lies in `[0, 1]` (NaN is never valid).
///
/// Example: `jitter(2.0, 0.25)` is `Ok(0.5)`.
pub fn jitter(delay: f64, fraction: f64) -> Result<f64, InvalidArgument> {
    todo!("step 05: jitter({delay}, {fraction})")
}

/// Step 06. How long to wait: the larger of `local` and the server's
/// Retry-After read as delay-seconds (one or more ASCII digits once spaces
/// and tabs around them are removed; no upper limit). Any other value counts
/// as 0 seconds.
///
/// Example: `wait_delay(0.5, Some(" 3\t"))` is `3.0`, `wait_delay(0.5, Some("+3"))` is `0.5`.
pub fn wait_delay(local: f64, retry_after: Option<&str>) -> f64 {
    todo!("step 06: wait_delay({local}, {retry_after:?})")
}

/// Step 07. May we wait `wait` seconds and send again? Only when fewer than
/// `maximum` sends were made, `wait >= 0`, and `budget > wait` (NaN: no).
///
/// Example: `can_attempt(1, 3, 0.5, 0.75)` is `true`; with `budget` 0.5 it is `false`.
pub fn can_attempt(attempts: u32, maximum: u32, wait: f64, budget: f64) -> bool {
    todo!("step 07: can_attempt({attempts}, {maximum}, {wait}, {budget})")
}

/// Step 08. The retry loop. Validate the options, fix one deadline from the
/// first clock reading, and before every send pass it exactly the time left
/// (returning `Err(ExecuteError::Timeout)` when none is left). Return a
/// response that is not retryable, or not replay-safe, at once. Otherwise
/// compute the wait from `backoff`, `jitter` (one `random_fraction()`) and
/// `wait_delay`, read the clock again, and either sleep and go round, or
/// return the last response when `can_attempt` says no.
///
/// Example: with the default options, a 503 then a 200 gives two sends and
/// returns the 200.
pub fn execute(
    send: &mut dyn FnMut(f64) -> Response,
    clock: &mut dyn FnMut() -> f64,
    sleep: &mut dyn FnMut(f64),
    options: Options<'_>,
    random_fraction: &mut dyn FnMut() -> f64,
) -> Result<Response, ExecuteError> {
    let _ = (send, clock, sleep, random_fraction);
    todo!("step 08: execute with {options:?}")
}
