//! `lab.sh try 11`: the learner's `execute_admitted` (in the advanced
//! runner) against a server here that answers, in order: 503 with
//! `Retry-After: 1`; 429 with a Retry-After HTTP-date 1 to 2 seconds ahead
//! of its own wall clock; a 200 that takes 300 ms; then, for the second
//! read, a 503 whose Retry-After is malformed.

use super::TryArgs;
use super::{advanced_runner, ending, kit_error, listen, Log};
use crate::catalog::{t, tr};
use crate::limits::Limits;
use crate::platform;
use lab_wire::http::{request_line, respond};
use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the server says to request `k` (from 0): status, Retry-After, and
/// how long it takes, in ms.
fn script(k: usize) -> (u16, Option<String>, u64) {
    match k {
        0 => (503, Some("1".into()), 100),
        1 => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            (429, Some(http_date(now + 2)), 100)
        }
        2 => (200, None, 300),
        3 => (503, Some("soon".into()), 50),
        _ => (200, None, 50),
    }
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) of Unix seconds.
fn http_date(unix: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, s) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let (year, month, day) = crate::calendar::civil_from_days(days);
    format!(
        "{}, {day:02} {} {year:04} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

fn answer(mut stream: TcpStream, k: usize, origin: Instant, log: &Log) {
    let line = request_line(&mut stream);
    log.push(origin, format!("request #{}: {line}", k + 1));
    let (status, retry_after, delay) = script(k);
    std::thread::sleep(Duration::from_millis(delay));
    let body = if status == 200 {
        "hello from the lab server\n"
    } else {
        "try again later\n"
    };
    let headers: Vec<(&str, &str)> = retry_after
        .as_deref()
        .map(|v| ("Retry-After", v))
        .into_iter()
        .collect();
    respond(&mut stream, status, &headers, body);
    let ra = retry_after.map_or(String::new(), |v| format!(", Retry-After: {v}"));
    log.push(origin, format!("answered {status}{ra} after {delay} ms"));
}

pub fn run(root: &Path, args: &TryArgs, limits: &Limits) -> u8 {
    // Holds the slot's lock (if any) until the demonstration is over.
    let (runners, runner) = match advanced_runner(root, args, limits) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let listener = match listen() {
        Ok(l) => l,
        Err(e) => return kit_error(e),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return kit_error(e),
    };
    println!("{}", tr("try.server11", &[("addr", &addr)]));
    let log = Log::default();
    let stop = AtomicBool::new(false);
    let origin = Instant::now();
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut k = 0;
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        answer(stream, k, origin, &log);
                        k += 1;
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        let outcome = super::supervised(
            &runner,
            &["try".into(), args.step.into(), addr.to_string()],
            &[addr.port()],
            None,
            limits,
        );
        stop.store(true, Ordering::SeqCst);
        outcome
    });
    drop(runners);
    let (exit, captured, _logs) = match outcome {
        Ok(x) => x,
        Err(code) => return code,
    };
    print!("{}", platform::excerpt(&captured.stdout, 64 << 10));
    println!("{}", t("try.server_view"));
    log.print();
    ending(exit, &captured, args.step, "execute_admitted")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_are_imf_fixdates() {
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
    }
}
