//! lab-judge: the retry lab's checker (see the library's documentation for
//! its map). This binary sets up the process and hands over its arguments.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when a reader such as
    // `head` closes the pipe, instead of panicking on the next print.
    // SAFETY: restoring the default action of a signal at start-up.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    lab_judge::spawn::reserve_handed_numbers();
    lab_judge::spawn::kill_children_on_stop();
    lab_judge::spawn::become_subreaper();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = lab_judge::dispatch::run(&args);
    lab_judge::sandbox::remove_stage();
    ExitCode::from(code)
}
