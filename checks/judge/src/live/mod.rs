//! `lab.sh try [NN]`: a step's code against real HTTP servers that the
//! judge starts on 127.0.0.1, inside the same confined runner as the
//! checks, printing both sides' timelines. A demonstration, not a grading
//! path: nothing is judged. The registry says which step has which
//! demonstration (`lab_wire::Live`):
//! - `Execute` (this file, step 08): the learner's `execute` against
//!   scripted 503, 429, 200;
//! - `Admitted` (`s11`): `execute_admitted` against 503, 429 with an
//!   HTTP-date, a 200 after 300 ms (in time), then a malformed Retry-After;
//! - `QuoteFlow` (`s13`): an inbound front around `fan_out` and `to_http`
//!   in the runner, supplier servers and an inbound client here.

mod s11;
mod s13;

use crate::catalog::{t, tr};
use crate::compile::{self, BuildError};
use crate::limits::Limits;
use crate::platform::{self, Captured, Exit, Watch};
use crate::status;
use lab_wire::http::{request_line, respond};
use lab_wire::Live;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `lab.sh try`'s arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct TryArgs {
    /// A step with a demonstration (`suites::live_ids`); the first of them
    /// when none was named.
    pub step: &'static str,
    pub subject: Option<PathBuf>,
    /// The advanced.rs to run (advanced steps only).
    pub advanced: Option<PathBuf>,
}

/// Runs the demonstration the registry names for `args.step`; a step
/// without one is a kit bug (`cli` accepts only `suites::live_ids`).
pub fn run(root: &Path, args: &TryArgs) -> u8 {
    let entry = crate::suites::entry(args.step);
    // A check's limits: the builds get the same time, and a demonstration's
    // runner a step's (see `supervised`).
    let limits = Limits::default();
    match entry.live {
        Some(Live::Execute) => core(root, args, &limits),
        Some(Live::Admitted) => s11::run(root, args, &limits),
        Some(Live::QuoteFlow) => s13::run(root, args, &limits),
        None => panic!("step {} has no demonstration", entry.id),
    }
}

/// The server's script: status, Retry-After, and how long it takes to answer.
const SCRIPT: [(u16, Option<&str>, u64); 3] =
    [(503, Some("1"), 150), (429, None, 100), (200, None, 50)];

fn answer(mut stream: TcpStream, k: usize, started: Instant, log: &Mutex<Vec<String>>) {
    let line = request_line(&mut stream);
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
    let headers: Vec<(&str, &str)> = retry_after
        .map(|v| ("Retry-After", v))
        .into_iter()
        .collect();
    respond(&mut stream, status, &headers, body);
    if let Ok(mut l) = log.lock() {
        let ra = retry_after.map_or(String::new(), |v| format!(", Retry-After: {v}"));
        l.push(format!(
            "  t={:6.3}  answered {status}{ra} after {delay} ms",
            at(started)
        ));
    }
}

/// Prints a kit error in one line; the exit status of a kit error.
fn kit_error(e: impl std::fmt::Display) -> u8 {
    eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
    status::KIT_ERROR
}

/// A listening socket on 127.0.0.1 (a free port), accepting without blocking.
fn listen() -> std::io::Result<TcpListener> {
    let l = TcpListener::bind("127.0.0.1:0")?;
    l.set_nonblocking(true)?;
    Ok(l)
}

/// The descriptor number a runner gets the judge's listening socket under
/// (`try 13`).
pub const FRONT_FD: i32 = lab_wire::CASES_FD;

/// Runs `runner ARGS` in a fresh folder under the runner's jail (TCP only
/// to `ports`), with the same supervision as the checks. `front` is a
/// listening socket of the judge's that the runner gets as [`FRONT_FD`].
fn supervised(
    runner: &Path,
    args: &[String],
    ports: &[u16],
    front: Option<crate::platform::Handed>,
    limits: &Limits,
) -> Result<(Exit, Captured, crate::platform::RunnerHome), u8> {
    // A step's limits, as in a check, but for time: a demonstration reports
    // no progress, so it gets 30 s of its own time and 60 s in all.
    let home = crate::platform::RunnerHome::new(runner, limits.confinement).map_err(kit_error)?;
    let mut cmd = Command::new(&home.program);
    cmd.current_dir(&home.dir).args(args);
    let mut jail = crate::platform::runner(
        &home.program,
        &home,
        ports,
        crate::platform::runner_limits(limits.suite.as_secs() + 5),
    )
    .map_err(kit_error)?
    .named("lab-runner");
    if let Some(fd) = front {
        jail = jail.hand(fd, FRONT_FD);
    }
    let watch = Watch {
        idle: Duration::from_secs(30),
        deadline: Instant::now() + Duration::from_secs(60),
        output_cap: limits.output_cap,
    };
    let (exit, captured) =
        platform::supervise(&mut cmd, watch, Some(jail), || false).map_err(kit_error)?;
    Ok((exit, captured, home))
}

/// The step and function of the first `todo!("step NN: name…")` the runner
/// reported, when there is one.
fn todo_in(stderr: &str) -> Option<(String, String)> {
    let (_, rest) = stderr.split_once("not yet implemented: step ")?;
    let step: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let rest = rest.get(step.len()..)?.strip_prefix(": ")?;
    let function: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    (!step.is_empty() && !function.is_empty()).then_some((step, function))
}

/// How the runner ended, for the learner: nothing on success, the usual
/// "not implemented yet" for a stub (naming the step and function that
/// reached `todo!()`, or else `step` and `function`), otherwise the exit
/// and the runner's stderr.
fn ending(exit: Exit, captured: &Captured, step: &'static str, function: &str) -> u8 {
    let stderr = captured.stderr_excerpt(4096);
    match exit {
        Exit::Success => status::PASSED,
        _ if stderr.contains("not yet implemented") || stderr.contains("not implemented") => {
            let (step, function) = todo_in(&stderr)
                .and_then(|(s, f)| crate::suites::parse_step(&s).map(|s| (s, f)))
                .unwrap_or((step, function.to_string()));
            let file = crate::suites::file_of(step);
            println!(
                "{}",
                tr(
                    "fault.todo",
                    &[("step", &step), ("function", &function), ("file", &file)]
                )
            );
            status::FAILED
        }
        other => {
            println!(
                "{}",
                tr(
                    "try.failed",
                    &[
                        ("function", &function),
                        ("how", &format!("{other:?}")),
                        ("stderr", &stderr.trim())
                    ]
                )
            );
            status::FAILED
        }
    }
}

/// The advanced runner for an advanced step's demonstration: the kit's own
/// student/src/advanced.rs, or `--advanced`, or the subject's; with the
/// slot's lock (if any). `Err` is the exit status, already explained.
fn advanced_runner(
    root: &Path,
    args: &TryArgs,
    limits: &Limits,
) -> Result<(compile::Runners, std::path::PathBuf), u8> {
    let shown = match (&args.advanced, &args.subject) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(subject)) => compile::subject_advanced(subject),
        (None, None) => Some(root.join("student/src/advanced.rs")).filter(|p| p.is_file()),
    };
    let Some(path) = shown else {
        eprintln!("lab: {}", t("error.missing_advanced"));
        return Err(status::USAGE);
    };
    let sources = if args.subject.is_none() && args.advanced.is_none() {
        None
    } else {
        let read = || -> Result<compile::Sources, String> {
            if !path.is_file() {
                return Err(tr("error.missing_folder", &[("path", &path.display())]));
            }
            let lib = match &args.subject {
                Some(subject) => compile::subject_lib(subject)?,
                None => root.join("student/src/lib.rs"),
            };
            Ok(compile::Sources {
                lib: compile::read_source(&lib)?,
                advanced: Some(compile::read_source(&path)?),
            })
        };
        match read() {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("lab: {e}");
                return Err(status::USAGE);
            }
        }
    };
    let runners = compile::runners(
        root,
        limits,
        sources.as_ref().map(|s| ("try", s)),
        false,
        true,
    )
    .map_err(kit_error)?;
    let runner = match &runners.advanced {
        compile::Advanced::Built(runner) => runner.clone(),
        compile::Advanced::DoesNotCompile(errors) => {
            let shown = if args.subject.is_none() && args.advanced.is_none() {
                "student/src/advanced.rs".to_string()
            } else {
                path.display().to_string()
            };
            println!(
                "{}\n\n{errors}",
                crate::suites::tr_steps("run.advanced_build_failed", &[("path", &shown)])
            );
            return Err(status::DOES_NOT_COMPILE);
        }
        compile::Advanced::Absent | compile::Advanced::NotAsked => {
            eprintln!("lab: {}", t("error.missing_advanced"));
            return Err(status::USAGE);
        }
    };
    Ok((runners, runner))
}

/// Lines of the judge's side, each with its time, printed in time order.
#[derive(Default, Clone)]
struct Log(Arc<Mutex<Vec<(f64, String)>>>);

impl Log {
    fn push(&self, origin: Instant, text: String) {
        let at = origin.elapsed().as_secs_f64();
        if let Ok(mut l) = self.0.lock() {
            l.push((at, format!("  t={at:6.3}  {text}")));
        }
    }

    fn print(&self) {
        let mut lines = self.0.lock().map(|l| l.clone()).unwrap_or_default();
        lines.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (_, line) in lines {
            println!("{line}");
        }
    }
}

/// `lab.sh try` of a core step (`Live::Execute`).
fn core(root: &Path, args: &TryArgs, limits: &Limits) -> u8 {
    let subject = args.subject.as_deref();
    // Holds the slot's lock (if any) until the demonstration is over.
    let built = match compile::runner_for(root, limits, subject, "try") {
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
        Err(BuildError::Kit(e)) => return kit_error(e),
    };
    let listener = match listen() {
        Ok(l) => l,
        Err(e) => return kit_error(e),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return kit_error(e),
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
    let outcome = supervised(
        &built.runner,
        &["try".into(), addr.to_string()],
        &[addr.port()],
        None,
        limits,
    );
    stop.store(true, Ordering::SeqCst);
    if let Ok(s) = server {
        let _ = s.join();
    }
    let (exit, captured, _logs) = match outcome {
        Ok(x) => x,
        Err(code) => return code,
    };
    drop(built);
    print!("{}", platform::excerpt(&captured.stdout, 64 << 10));
    println!("{}", t("try.server_view"));
    for line in log.lock().map(|l| l.clone()).unwrap_or_default() {
        println!("{line}");
    }
    ending(exit, &captured, args.step, "execute")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_todo_names_its_step_and_function() {
        let stderr = "thread 'main' panicked at src/advanced.rs:9:5:\n\
                      not yet implemented: step 13: Gate::new(2)\nnote: …";
        assert_eq!(todo_in(stderr), Some(("13".into(), "Gate::new".into())));
        let stderr = "not yet implemented: step 11: execute_admitted(\"GET\", 8)";
        assert_eq!(
            todo_in(stderr),
            Some(("11".into(), "execute_admitted".into()))
        );
        assert_eq!(todo_in("not yet implemented"), None);
        assert_eq!(todo_in("not yet implemented: step x"), None);
    }
}
