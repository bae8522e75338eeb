//! The runners' shared loop: `RUNNER FROM [careful]`.
//!
//! Reads the cases from descriptor [`wire::CASES_FD`] (from its start),
//! calls the runner's dispatch function for cases FROM.., and appends one
//! outcome line per case to descriptor [`wire::OUTCOMES_FD`] (see `sink`
//! for when lines are flushed; `careful` flushes each one). The runner
//! opens no file by name: the judge hands it everything. It reports, it never judges:
//! every expectation lives in the judge, in another process. The core runner
//! and the advanced runner differ only in their dispatch functions.

pub mod live13;
mod platform;
mod sink;
pub mod so_far;

use lab_wire::{self as wire, Call, Observed, Outcome, PROTOCOL};
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// Panic payload of a scripted world that stops a call which keeps going
/// far beyond anything its script needs; reported as a runaway.
pub struct Runaway(pub u32, pub wire::Use);

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Another way to run the binary (such as the core runner's `try`): `Some`
/// when it recognised its arguments.
pub type Mode = fn(&[String]) -> Option<Result<(), String>>;

/// The runner's `main`. A runner that cannot go on (broken input, a call
/// it cannot serve) says why on stderr and exits 70; the judge treats that
/// like any other end of the process, as the submission's: code that runs
/// before `main` (a constructor) could say the same, so nothing the runner
/// says makes a fault of the kit.
pub fn serve(name: &str, dispatch: fn(Call) -> Observed, mode: Mode) -> ExitCode {
    platform::refuse_other_programs();
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
            eprintln!("{name}: {e}");
            ExitCode::from(70)
        }
    }
}

/// A mode for runners that have no other.
pub fn no_other_mode(_: &[String]) -> Option<Result<(), String>> {
    None
}

fn run(args: &[String], dispatch: fn(Call) -> Observed) -> Result<(), String> {
    let (from, careful) = match args {
        [from] => (from, false),
        [from, mode] if mode == "careful" => (from, true),
        _ => {
            return Err(
                "usage: RUNNER FROM [careful] (cases on descriptor 3, outcomes on 4)".into(),
            )
        }
    };
    let from: usize = from
        .parse()
        .map_err(|_| format!("bad start index {from:?}"))?;
    let mut cases = platform::handed(wire::CASES_FD).ok_or("no cases on descriptor 3")?;
    // The judge hands one sealed file to each runner of a suite in turn.
    std::io::Seek::rewind(&mut cases).map_err(|e| format!("cannot read the cases: {e}"))?;
    let mut lines = BufReader::new(cases).lines();
    let header = lines
        .next()
        .ok_or("empty cases file")?
        .map_err(|e| e.to_string())?;
    let header = wire::parse_header(&header).map_err(|e| format!("bad header: {e}"))?;
    if header.protocol != PROTOCOL {
        return Err(format!("protocol {} is not {PROTOCOL}", header.protocol));
    }
    let file = platform::handed(wire::OUTCOMES_FD).ok_or("no outcomes file on descriptor 4")?;
    let mut out = sink::Sink::new(file, careful).map_err(|e| e.to_string())?;
    so_far::watch(out.handle());
    platform::yield_to_the_flusher();
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
        so_far::begin(&case.id);
        let observed = observe(dispatch, case.call);
        so_far::end();
        let observed = observed?;
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
/// starts it: append-only, and never shrinking): their sizes after each
/// case tell what that case printed (the harness itself prints nothing
/// between cases). Sizes, not offsets: learner code may move an offset.
struct Streams {
    out: Option<std::fs::File>,
    err: Option<std::fs::File>,
    /// The offsets after the last case (or at the start).
    last: [Option<u64>; 2],
}

impl Streams {
    fn new() -> Streams {
        #[cfg(unix)]
        let (out, err) = {
            use std::os::fd::AsFd;
            let dup = |fd: std::os::fd::BorrowedFd<'_>| {
                fd.try_clone_to_owned().ok().map(std::fs::File::from)
            };
            (
                dup(std::io::stdout().as_fd()),
                dup(std::io::stderr().as_fd()),
            )
        };
        #[cfg(windows)]
        let (out, err) = {
            use std::os::windows::io::AsHandle;
            let dup = |h: std::os::windows::io::BorrowedHandle<'_>| {
                h.try_clone_to_owned().ok().map(std::fs::File::from)
            };
            (
                dup(std::io::stdout().as_handle()),
                dup(std::io::stderr().as_handle()),
            )
        };
        let mut streams = Streams {
            out,
            err,
            last: [None, None],
        };
        streams.last = streams.at();
        streams
    }

    /// Both sizes, after flushing what Rust still buffers.
    fn at(&mut self) -> [Option<u64>; 2] {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        let size = |f: &Option<std::fs::File>| {
            f.as_ref()
                .and_then(|f| f.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
        };
        [size(&self.out), size(&self.err)]
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
            if let Some(Runaway(events, of)) = payload.downcast_ref::<Runaway>() {
                return Ok(Observed::Runaway {
                    events: *events,
                    of: *of,
                });
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
    let message = capped(message.unwrap_or("(a panic without a message)"));
    let todo = message.starts_with("not yet implemented") || message.starts_with("not implemented");
    let at = PANIC_AT.with(|p| p.borrow_mut().take());
    Observed::Panicked { message, todo, at }
}

/// Most bytes of a panic message an outcome carries (the judge shows at
/// most 4 KiB of any message, and an outcome line has a cap of its own).
pub const MESSAGE_CAP: usize = 4096;

/// `message`, cut at a character boundary to at most [`MESSAGE_CAP`] bytes
/// and marked where cut.
fn capped(message: &str) -> String {
    if message.len() <= MESSAGE_CAP {
        return message.to_string();
    }
    let mut end = MESSAGE_CAP - '…'.len_utf8();
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
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
    fn a_long_panic_message_is_cut_to_the_cap_at_a_character() {
        use super::{capped, MESSAGE_CAP};
        assert_eq!(capped("short"), "short");
        let long = "é".repeat(MESSAGE_CAP);
        let cut = capped(&long);
        assert!(
            cut.len() <= MESSAGE_CAP && cut.ends_with('…'),
            "{}",
            cut.len()
        );
        assert!(cut.len() > MESSAGE_CAP - 8);
    }

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
