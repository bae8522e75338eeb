//! The runner: `lab-runner CASES OUTCOMES FROM`.
//!
//! Reads the cases file, calls the learner's functions for cases FROM.., and
//! appends one outcome line per case (see `sink` for when lines are flushed;
//! `careful` flushes each one). It reports, it never judges:
//! every expectation lives in the judge, in another process.

mod call;
mod live;
mod sink;
mod world;

use lab_api::wire::{self, Observed, Outcome, PROTOCOL};
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn main() -> ExitCode {
    // The judge's secret for this runner, read and deleted before any learner
    // code runs: only the runner itself can then sign its own failures, so a
    // submission cannot pass its crash off as a broken kit.
    let token = std::env::var_os("LAB_RUNNER_TOKEN_FILE").map_or_else(String::new, |path| {
        let token = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        token
    });
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab-runner {token}: {e}");
            ExitCode::from(70)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, address] = args.as_slice() {
        if mode == "try" {
            return live::run(address);
        }
    }
    let (cases, outcomes, from, careful) = match args.as_slice() {
        [cases, outcomes, from] => (cases, outcomes, from, false),
        [cases, outcomes, from, mode] if mode == "careful" => (cases, outcomes, from, true),
        _ => return Err("usage: lab-runner CASES OUTCOMES FROM [careful]".into()),
    };
    let from: usize = from
        .parse()
        .map_err(|_| format!("bad start index {from:?}"))?;
    let file = std::fs::File::open(cases).map_err(|e| format!("cannot open {cases}: {e}"))?;
    let mut lines = BufReader::new(file).lines();
    let header = lines
        .next()
        .ok_or("empty cases file")?
        .map_err(|e| e.to_string())?;
    let header = wire::parse_header(&header).map_err(|e| format!("bad header: {e}"))?;
    if header.protocol != PROTOCOL {
        return Err(format!("protocol {} is not {PROTOCOL}", header.protocol));
    }
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(outcomes)
        .map_err(|e| format!("cannot open {outcomes}: {e}"))?;
    let mut out = sink::Sink::new(file, careful).map_err(|e| e.to_string())?;
    // Panics are reported as outcomes; the default hook would only add noise.
    panic::set_hook(Box::new(|info| {
        let message = match info.payload().downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => match info.payload().downcast_ref::<String>() {
                Some(s) => s.clone(),
                None => "(a panic without a message)".to_string(),
            },
        };
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
    }));
    for line in lines.skip(from) {
        let line = line.map_err(|e| e.to_string())?;
        let case = wire::parse_case(&line).map_err(|e| format!("bad case: {e}"))?;
        let observed = observe(case.call);
        let outcome = Outcome {
            id: case.id,
            observed,
        };
        let mut text = wire::to_line(&outcome);
        text.push('\n');
        out.line(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    out.finish().map_err(|e| e.to_string())
}

fn observe(call: lab_api::wire::Call) -> Observed {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    match panic::catch_unwind(AssertUnwindSafe(|| call::dispatch(call))) {
        Ok(observed) => observed,
        Err(payload) => {
            if let Some(world::Runaway(events)) = payload.downcast_ref::<world::Runaway>() {
                return Observed::Runaway { events: *events };
            }
            let message = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "(a panic without a message)".into());
            let todo = message.starts_with("not yet implemented")
                || message.starts_with("not implemented");
            Observed::Panicked { message, todo }
        }
    }
}
