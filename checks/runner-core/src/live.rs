//! `lab-runner try ADDRESS`: the learner's `execute` against a real HTTP
//! server, through a real socket, with a real monotonic clock, real sleeps
//! and a real random source. A demonstration of how the injected functions
//! map onto the world; nothing here is judged.

use lab_api::{ExecuteError, Options, Response};
use lab_wire::http::{self, Answer, Failure};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// What `send` returns when the budget runs out on the wire: the budget is
/// spent, like a gateway timing out.
fn client_timeout(what: &str) -> Response {
    Response {
        status: 504,
        retry_after: None,
        body: format!("client: {what}"),
    }
}

/// One GET over a fresh connection, within `timeout` seconds.
fn get(addr: SocketAddr, timeout: f64) -> Response {
    let raw = match http::exchange(addr, &http::request("GET", "/", addr), timeout, &|| false) {
        Ok(raw) => raw,
        Err(f) => {
            return client_timeout(&match f {
                Failure::NoTime => "no time left to send".into(),
                Failure::Connect(e) => format!("connect failed: {e}"),
                Failure::Write(e) => format!("write failed: {e}"),
                Failure::Read(_) => "the response did not arrive within the time left".into(),
                Failure::TooLong => "the response is too long".into(),
            })
        }
    };
    match Answer::parse(&raw) {
        Some(answer) => {
            let retry_after = answer.fields("retry-after").next().map(str::to_string);
            Response {
                status: answer.status,
                retry_after,
                body: answer.body,
            }
        }
        None => Response {
            status: 502,
            retry_after: None,
            body: "client: not an HTTP answer".into(),
        },
    }
}

pub fn run(address: &str) -> Result<(), String> {
    let addr: SocketAddr = address
        .parse()
        .map_err(|_| format!("bad address {address:?}"))?;
    let start = Instant::now();
    let at = move || start.elapsed().as_secs_f64();
    let mut seed =
        (start.elapsed().as_nanos() as u64) ^ 0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id());
    let options = Options {
        method: "GET",
        key: None,
        timeout: 5.0,
        maximum: 4,
    };
    println!("client: execute(GET http://{addr}/, timeout 5.0 s, at most 4 sends)");
    let mut send = |timeout: f64| {
        println!("  t={:6.3}  send(timeout = {timeout:.3})", at());
        let r = get(addr, timeout);
        let ra = r
            .retry_after
            .as_deref()
            .map_or(String::new(), |v| format!(", Retry-After: {v}"));
        println!("  t={:6.3}    <- {}{ra}", at(), r.status);
        r
    };
    let mut clock = || at();
    let mut sleep = |seconds: f64| {
        println!("  t={:6.3}  sleep({seconds:.3})", at());
        if seconds.is_finite() && seconds > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(seconds.min(60.0)));
        }
    };
    let mut fraction = || {
        // xorshift64*: any fraction in [0, 1) will do for a demonstration.
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let f = (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        println!("  t={:6.3}  random_fraction() = {f:.3}", at());
        f
    };
    let result =
        (crate::learner().execute)(&mut send, &mut clock, &mut sleep, options, &mut fraction);
    match result {
        Ok(r) => println!(
            "  t={:6.3}  result: Ok({}, body {:?})",
            at(),
            r.status,
            r.body
        ),
        Err(ExecuteError::Timeout) => println!("  t={:6.3}  result: Err(Timeout)", at()),
        Err(ExecuteError::InvalidArgument(e)) => {
            println!("  t={:6.3}  result: Err(InvalidArgument({:?}))", at(), e.0)
        }
    }
    Ok(())
}
