//! lab-judge: the retry lab's checker (see the library's documentation for
//! its map). This binary sets up the process and hands over its arguments.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when a reader such as
    // `head` closes the pipe, instead of panicking on the next print.
    // SAFETY: restoring the default action of a signal at start-up.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    lab_judge::frame::mark_start();
    lab_judge::platform::bounded_heap();
    lab_judge::platform::start_up();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = lab_judge::dispatch::run(&args);
    lab_judge::platform::shut_down();
    ExitCode::from(code)
}
