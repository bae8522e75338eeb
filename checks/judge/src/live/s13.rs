//! `lab.sh try 13`: QuoteFlow for real. Five supplier servers here (fast;
//! flaky: 503 on a request id's first try, 200 on its second; down: always
//! 503; slow: answers after the 0.8 s budget; silent: never answers), the
//! front's listening socket, handed to the advanced runner, whose front
//! runs the learner's `fan_out` and `to_http` behind one `Gate` of 2; and
//! an inbound client here that sends four requests at once (the gate fills
//! and turns some away), then one more after they finish.

use super::TryArgs;
use super::{advanced_runner, ending, kit_error, listen, Log};
use crate::catalog::{t, tr};
use crate::limits::Limits;
use crate::platform;
use lab_wire::http::{self, Answer, Failure};
use std::collections::HashMap;
use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Fast,
    Flaky,
    Down,
    Slow,
    Silent,
}

const SUPPLIERS: [(&str, Kind); 5] = [
    ("fast", Kind::Fast),
    ("flaky", Kind::Flaky),
    ("down", Kind::Down),
    ("slow", Kind::Slow),
    ("silent", Kind::Silent),
];

/// Inbound requests sent at once, then one more after they finish.
const AT_ONCE: usize = 4;

/// The value of `key` in the query of a request line.
fn query(line: &str, key: &str) -> Option<String> {
    http::query(http::target(line), key).map(str::to_string)
}

fn offer(unit: i64, quantity: u32, shipping: i64) -> String {
    format!(
        "{{\"unit_cents\":{unit},\"quantity\":{quantity},\"shipping_cents\":{shipping},\"in_stock\":true}}"
    )
}

struct Supplier<'a> {
    name: &'static str,
    kind: Kind,
    /// Attempts so far, by request id.
    attempts: Mutex<HashMap<String, u32>>,
    origin: Instant,
    log: &'a Log,
    stop: &'a AtomicBool,
}

impl Supplier<'_> {
    fn serve(&self, mut stream: TcpStream) {
        let _ = stream.set_nonblocking(false);
        let line = http::request_line(&mut stream);
        let id = query(&line, "id").unwrap_or_default();
        let quantity: u32 = query(&line, "quantity")
            .and_then(|q| q.parse().ok())
            .unwrap_or(1);
        let attempt = {
            let mut seen = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
            let n = seen.entry(id.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let name = self.name;
        self.log.push(
            self.origin,
            format!("{name}: request id {id}, attempt {attempt}"),
        );
        let (delay, status, body) = match (self.kind, attempt) {
            (Kind::Fast, _) => (50, 200, offer(1200, quantity, 300)),
            (Kind::Flaky, 1) => (30, 503, "busy\n".into()),
            (Kind::Flaky, _) => (50, 200, offer(1100, quantity, 500)),
            (Kind::Down, _) => (30, 503, "down\n".into()),
            (Kind::Slow, _) => (1200, 200, offer(900, quantity, 0)),
            (Kind::Silent, _) => {
                // Holds the connection, saying nothing, until the caller
                // hangs up or the demonstration ends.
                let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
                let mut buf = [0u8; 64];
                while !self.stop.load(Ordering::SeqCst) {
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            self.log.push(
                                self.origin,
                                format!("{name}: request id {id}, attempt {attempt}: the caller hung up"),
                            );
                            return;
                        }
                        Ok(_) => {}
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(_) => return,
                    }
                }
                return;
            }
        };
        std::thread::sleep(Duration::from_millis(delay));
        http::respond(
            &mut stream,
            status,
            &[("Content-Type", "application/json")],
            &body,
        );
        let what = if status == 200 {
            format!("200 {body}")
        } else {
            status.to_string()
        };
        self.log.push(
            self.origin,
            format!("{name}: request id {id}, attempt {attempt}: answered {what} after {delay} ms"),
        );
    }
}

/// One inbound request to the front; logs what went and what came back.
fn inbound(front: SocketAddr, id: &str, origin: Instant, log: &Log, stop: &AtomicBool) {
    let target = format!("/quotes?id={id}&item=widget&quantity=3");
    log.push(origin, format!("client: GET {target}"));
    let request = http::request("GET", &target, front);
    let raw = match http::exchange(front, &request, 20.0, &|| stop.load(Ordering::SeqCst)) {
        Ok(raw) => raw,
        Err(Failure::Connect(e)) => {
            return log.push(origin, format!("client: {id}: cannot connect: {e}"))
        }
        Err(Failure::Write(e)) => {
            return log.push(origin, format!("client: {id}: cannot send: {e}"))
        }
        Err(f) if f.timed_out() => return log.push(origin, format!("client: {id}: no answer")),
        Err(Failure::Read(e)) => return log.push(origin, format!("client: {id}: {e}")),
        Err(_) => return log.push(origin, format!("client: {id}: the answer is too long")),
    };
    let answer = Answer::parse(&raw);
    let status = answer
        .as_ref()
        .map_or_else(|| "?".to_string(), |a| a.status.to_string());
    let retry_after: String = answer
        .iter()
        .flat_map(|a| a.fields("retry-after"))
        .map(|v| format!(", Retry-After: {v}"))
        .collect();
    let body = answer.as_ref().map_or("", |a| a.body.as_str());
    let mut shown = format!("client: {id} <- {status}{retry_after}");
    for l in body.lines() {
        shown += &format!("\n            {l}");
    }
    log.push(origin, shown);
}

pub fn run(root: &Path, args: &TryArgs, limits: &Limits) -> u8 {
    // Holds the slot's lock (if any) until the demonstration is over.
    let (runners, runner) = match advanced_runner(root, args, limits) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut listeners: Vec<TcpListener> = Vec::new();
    for _ in 0..=SUPPLIERS.len() {
        match listen() {
            Ok(l) => listeners.push(l),
            Err(e) => return kit_error(e),
        }
    }
    let mut addrs = Vec::new();
    for l in &listeners {
        match l.local_addr() {
            Ok(a) => addrs.push(a),
            Err(e) => return kit_error(e),
        }
    }
    let front = listeners.remove(0);
    let front_addr = addrs.remove(0);
    // The runner takes the front's socket as it is; it accepts and never binds.
    if let Err(e) = front.set_nonblocking(false) {
        return kit_error(e);
    }
    let names: Vec<String> = SUPPLIERS
        .iter()
        .zip(&addrs)
        .map(|((name, _), a)| format!("{name} {a}"))
        .collect();
    println!(
        "{}",
        tr(
            "try.server13",
            &[("front", &front_addr), ("suppliers", &names.join(", "))]
        )
    );
    let log = Log::default();
    let stop = AtomicBool::new(false);
    let origin = Instant::now();
    let suppliers: Vec<Supplier<'_>> = SUPPLIERS
        .iter()
        .map(|&(name, kind)| Supplier {
            name,
            kind,
            attempts: Mutex::new(HashMap::new()),
            origin,
            log: &log,
            stop: &stop,
        })
        .collect();
    let mut runner_args = vec![
        "try".to_string(),
        args.step.into(),
        super::FRONT_FD.to_string(),
        (AT_ONCE + 1).to_string(),
    ];
    runner_args.extend(
        SUPPLIERS
            .iter()
            .zip(&addrs)
            .map(|((name, _), a)| format!("{name}={}", a.port())),
    );
    let ports: Vec<u16> = addrs.iter().map(SocketAddr::port).collect();
    let outcome = std::thread::scope(|scope| {
        for (supplier, listener) in suppliers.iter().zip(&listeners) {
            let stop = &stop;
            scope.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            scope.spawn(move || supplier.serve(stream));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        let (log, stop) = (&log, &stop);
        scope.spawn(move || {
            std::thread::scope(|inner| {
                for k in 1..=AT_ONCE {
                    inner.spawn(move || inbound(front_addr, &format!("q{k}"), origin, log, stop));
                    std::thread::sleep(Duration::from_millis(40));
                }
            });
            inbound(front_addr, &format!("q{}", AT_ONCE + 1), origin, log, stop);
        });
        let handed = front
            .try_clone()
            .ok()
            .and_then(|f| crate::platform::handed_socket(f).ok());
        let outcome = super::supervised(&runner, &runner_args, &ports, handed, limits);
        stop.store(true, Ordering::SeqCst);
        outcome
    });
    drop(front);
    drop(runners);
    let (exit, captured, _logs) = match outcome {
        Ok(x) => x,
        Err(code) => return code,
    };
    print!("{}", platform::excerpt(&captured.stdout, 64 << 10));
    println!("{}", t("try.server_view13"));
    log.print();
    ending(exit, &captured, args.step, "fan_out")
}
