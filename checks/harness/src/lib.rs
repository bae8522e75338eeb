//! The runners' shared loop: `RUNNER CASES OUTCOMES FROM [careful]`.
//!
//! Reads the cases file, calls the runner's dispatch function for cases
//! FROM.., and appends one outcome line per case (see `sink` for when lines
//! are flushed; `careful` flushes each one). It reports, it never judges:
//! every expectation lives in the judge, in another process. The core runner
//! and the advanced runner differ only in their dispatch functions.

mod sink;

use lab_wire::{self as wire, Call, Observed, Outcome, PROTOCOL};
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// Panic payload of a scripted world that stops a call which keeps going
/// far beyond anything its script needs; reported as a runaway.
pub struct Runaway(pub u32);

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Another way to run the binary (such as the core runner's `try`): `Some`
/// when it recognised its arguments.
pub type Mode = fn(&[String]) -> Option<Result<(), String>>;

/// The runner's `main`. The judge's secret for this runner is read and
/// deleted before any learner code runs: only the runner itself can then
/// sign its own failures, so a submission cannot pass its crash off as a
/// broken kit.
pub fn serve(name: &str, dispatch: fn(Call) -> Observed, mode: Mode) -> ExitCode {
    let token = std::env::var_os("LAB_RUNNER_TOKEN_FILE").map_or_else(String::new, |path| {
        let token = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        token
    });
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Learner code runs on a thread of the runner's own making, with the
    // main thread's usual 8 MiB of stack: the runner is jailed without
    // /proc, where the standard library would look up the main thread's
    // stack, and on its own thread a stack overflow is still named as one.
    let worker = std::thread::Builder::new()
        .name("main".into())
        .stack_size(8 << 20)
        .spawn(move || mode(&args).unwrap_or_else(|| run(&args, dispatch)));
    let result = match worker.map(|w| w.join()) {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err("the runner's thread panicked".to_string()),
        Err(e) => Err(format!("cannot start the runner's thread: {e}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name} {token}: {e}");
            ExitCode::from(70)
        }
    }
}

/// A mode for runners that have no other.
pub fn no_other_mode(_: &[String]) -> Option<Result<(), String>> {
    None
}

fn run(args: &[String], dispatch: fn(Call) -> Observed) -> Result<(), String> {
    let (cases, outcomes, from, careful) = match args {
        [cases, outcomes, from] => (cases, outcomes, from, false),
        [cases, outcomes, from, mode] if mode == "careful" => (cases, outcomes, from, true),
        _ => return Err("usage: RUNNER CASES OUTCOMES FROM [careful]".into()),
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
        let at = info
            .location()
            .map(|l| format!("{}:{}:{}", shown_path(l.file()), l.line(), l.column()));
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
    let mut streams = Streams::new();
    for line in lines.skip(from) {
        let line = line.map_err(|e| e.to_string())?;
        let case = wire::parse_case(&line).map_err(|e| format!("bad case: {e}"))?;
        let observed = observe(dispatch, case.call)?;
        let outcome = Outcome {
            id: case.id,
            observed,
            printed: streams.printed(),
        };
        let mut text = wire::to_line(&outcome);
        text.push('\n');
        out.line(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    out.finish().map_err(|e| e.to_string())
}

/// The runner's stdout and stderr, when they are files (as the judge
/// starts it): their offsets after each case tell what that case printed
/// (the harness itself prints nothing between cases). A duplicate
/// descriptor shares the offset, and only reads it.
struct Streams {
    out: Option<std::fs::File>,
    err: Option<std::fs::File>,
    /// The offsets after the last case (or at the start).
    last: [Option<u64>; 2],
}

impl Streams {
    fn new() -> Streams {
        use std::os::fd::AsFd;
        let dup =
            |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().ok().map(std::fs::File::from);
        let mut streams = Streams {
            out: dup(std::io::stdout().as_fd()),
            err: dup(std::io::stderr().as_fd()),
            last: [None, None],
        };
        streams.last = streams.at();
        streams
    }

    /// Both offsets, after flushing what Rust still buffers.
    fn at(&mut self) -> [Option<u64>; 2] {
        use std::io::{Seek, Write};
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        let pos = |f: &mut Option<std::fs::File>| f.as_mut().and_then(|f| f.stream_position().ok());
        [pos(&mut self.out), pos(&mut self.err)]
    }

    /// What the case just run printed, if anything.
    fn printed(&mut self) -> Option<wire::Printed> {
        let (before, after) = (self.last, self.at());
        self.last = after;
        let span = |i: usize| match (before[i], after[i]) {
            (Some(a), Some(b)) if b > a => [a, b],
            _ => [0, 0],
        };
        let (stdout, stderr) = (span(0), span(1));
        (stdout[1] > 0 || stderr[1] > 0).then_some(wire::Printed { stdout, stderr })
    }
}

/// Thrown (with `std::panic::panic_any`) by a dispatch function that was
/// handed a call it cannot serve: a kit error, not the learner's.
pub struct KitError(pub String);

fn observe(dispatch: fn(Call) -> Observed, call: Call) -> Result<Observed, String> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    PANIC_AT.with(|p| p.borrow_mut().take());
    match panic::catch_unwind(AssertUnwindSafe(|| dispatch(call))) {
        Ok(observed) => Ok(observed),
        Err(payload) => {
            if let Some(Runaway(events)) = payload.downcast_ref::<Runaway>() {
                return Ok(Observed::Runaway { events: *events });
            }
            if let Some(KitError(why)) = payload.downcast_ref::<KitError>() {
                return Err(why.clone());
            }
            Ok(panicked(
                LAST_PANIC.with(|p| p.borrow_mut().take()).as_deref(),
            ))
        }
    }
}

/// The outcome of a learner panic with this message (as caught by the
/// hook), and where the hook saw it happen.
pub fn panicked(message: Option<&str>) -> Observed {
    let message = message.unwrap_or("(a panic without a message)").to_string();
    let todo = message.starts_with("not yet implemented") || message.starts_with("not implemented");
    let at = PANIC_AT.with(|p| p.borrow_mut().take());
    Observed::Panicked { message, todo, at }
}

/// A source path as the learner knows it: from `student/` (the learner's
/// files, wherever the build copied them) or `checks/` (the kit's) on.
fn shown_path(file: &str) -> &str {
    file.rfind("student/")
        .or_else(|| file.rfind("checks/"))
        .map_or(file, |at| &file[at..])
}

/// The message of the last panic caught on this thread, if any (for
/// dispatch functions that catch panics themselves).
pub fn take_last_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

#[cfg(test)]
mod tests {
    use super::shown_path;

    #[test]
    fn panic_locations_read_from_the_learners_or_the_kits_folder() {
        assert_eq!(
            shown_path("/tmp/lab-slot-x/student/src/lib.rs"),
            "student/src/lib.rs"
        );
        assert_eq!(
            shown_path("checks/runner-advanced/src/../../../student/src/advanced.rs"),
            "student/src/advanced.rs"
        );
        assert_eq!(
            shown_path("/x/checks/api/src/lib.rs"),
            "checks/api/src/lib.rs"
        );
        assert_eq!(shown_path("src/main.rs"), "src/main.rs");
    }
}
