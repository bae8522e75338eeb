//! Who owns the standard output while `check` runs: the human report, or
//! (`--message-format json`) the event stream of [`crate::events`], with
//! the human report then on the standard error. [`human`] and `say!` are
//! where every line of the human report goes.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// What `check` writes to the standard output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Human,
    Json,
}

static JSON: AtomicBool = AtomicBool::new(false);

/// Turns the event stream on or off for the rest of the process.
pub fn set_format(format: Format) {
    JSON.store(format == Format::Json, Ordering::Relaxed);
}

/// Whether the events own the standard output.
pub fn on() -> bool {
    JSON.load(Ordering::Relaxed)
}

/// Where the human report goes: the standard error while events are on.
pub fn human() -> Box<dyn Write> {
    if on() {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    }
}

/// `println!` to [`human`].
#[macro_export]
macro_rules! say {
    () => { $crate::say!("") };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::stdout::human(), $($arg)*);
    }};
}
