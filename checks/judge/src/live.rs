//! `lab.sh try`: runs the learner's `execute` (step 08) against a real HTTP
//! server that this module starts on 127.0.0.1 — scripted 503 and 429
//! answers, then 200 — and prints both sides' timelines. A demonstration,
//! not a grading path: nothing is judged.

use crate::build::{self, BuildError};
use crate::catalog::{t, tr};
use crate::spawn::{self, Exit, Watch};
use crate::status;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The server's script: status, Retry-After, and how long it takes to answer.
const SCRIPT: [(u16, Option<&str>, u64); 3] =
    [(503, Some("1"), 150), (429, None, 100), (200, None, 50)];

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn answer(mut stream: TcpStream, k: usize, started: Instant, log: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 64 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let line = String::from_utf8_lossy(&request)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let (status, retry_after, delay) = SCRIPT.get(k).copied().unwrap_or((200, None, 50));
    let at = |s: Instant| s.elapsed().as_secs_f64();
    if let Ok(mut l) = log.lock() {
        l.push(format!(
            "  t={:6.3}  request #{}: {line}",
            at(started),
            k + 1
        ));
    }
    std::thread::sleep(Duration::from_millis(delay));
    let body = if status == 200 {
        "hello from the lab server\n"
    } else {
        "try again later\n"
    };
    let header = retry_after.map_or(String::new(), |v| format!("Retry-After: {v}\r\n"));
    let response = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n{header}\r\n{body}",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    if let Ok(mut l) = log.lock() {
        let ra = retry_after.map_or(String::new(), |v| format!(", Retry-After: {v}"));
        l.push(format!(
            "  t={:6.3}  answered {status}{ra} after {delay} ms",
            at(started)
        ));
    }
}

pub fn run(root: &Path, subject: Option<&Path>) -> u8 {
    // Holds the slot's lock (if any) until the demonstration is over.
    let built = match build::runner_for(root, subject, "try") {
        Ok(b) => b,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let built = match built {
        Ok(b) => b,
        Err(BuildError::DoesNotCompile(errors)) => {
            println!(
                "{}\n\n{errors}",
                tr(
                    "run.build_failed",
                    &[(
                        "path",
                        &subject.map_or("student/src/lib.rs".into(), |p| p.display().to_string())
                    )]
                )
            );
            return status::DOES_NOT_COMPILE;
        }
        Err(BuildError::Kit(e)) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let listener =
        match TcpListener::bind("127.0.0.1:0").and_then(|l| l.set_nonblocking(true).map(|()| l)) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
                return status::KIT_ERROR;
            }
        };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    println!("{}", tr("try.server", &[("addr", &addr)]));
    let log = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let server = {
        let (log, stop) = (Arc::clone(&log), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("lab-server".into())
            .spawn(move || {
                let mut k = 0;
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let _ = stream.set_nonblocking(false);
                            answer(stream, k, started, &log);
                            k += 1;
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
    };
    let logs = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let mut cmd = Command::new(&built.runner);
    cmd.arg0("lab-runner")
        .current_dir(logs.path())
        .arg("try")
        .arg(addr.to_string());
    let jail = match crate::sandbox::runner(
        &built.runner,
        logs.path(),
        Some(addr.port()),
        crate::sandbox::runner_limits(120),
    ) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let watch = Watch {
        idle: Duration::from_secs(30),
        deadline: Instant::now() + Duration::from_secs(60),
        output_cap: 1 << 20,
    };
    let outcome = spawn::supervise(&mut cmd, logs.path(), "try", watch, Some(jail), || false);
    stop.store(true, Ordering::SeqCst);
    if let Ok(s) = server {
        let _ = s.join();
    }
    let (exit, captured) = match outcome {
        Ok(x) => x,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    drop(built);
    print!("{}", spawn::excerpt(&captured.stdout, 64 << 10));
    println!("{}", t("try.server_view"));
    for line in log.lock().map(|l| l.clone()).unwrap_or_default() {
        println!("{line}");
    }
    let stderr = captured.stderr_excerpt(4096);
    match exit {
        Exit::Success => status::PASSED,
        _ if stderr.contains("not yet implemented") || stderr.contains("not implemented") => {
            // `try` runs the core step whose item is `execute`.
            let step = crate::suites::REGISTRY
                .iter()
                .find(|e| e.items == "execute")
                .expect("a step checks execute");
            println!(
                "{}",
                tr(
                    "fault.todo",
                    &[
                        ("step", &step.id),
                        ("function", &step.items),
                        ("file", &step.track.file())
                    ]
                )
            );
            status::FAILED
        }
        other => {
            println!(
                "{}",
                tr(
                    "try.failed",
                    &[("how", &format!("{other:?}")), ("stderr", &stderr.trim())]
                )
            );
            status::FAILED
        }
    }
}
