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
    lab_judge::frame::mark_start();
    bounded_heap();
    lab_judge::spawn::reserve_handed_numbers();
    lab_judge::spawn::kill_children_on_stop();
    lab_judge::spawn::become_subreaper();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = lab_judge::dispatch::run(&args);
    lab_judge::sandbox::remove_stage();
    ExitCode::from(code)
}

/// Keeps the judge's memory near what it holds. glibc's allocator raises
/// its threshold for serving large blocks from the heap each time one is
/// freed, and gives each thread an arena of its own, so the outcome buffers
/// of steps graded side by side stay resident after they are dropped: the
/// hostile class with `--jobs 2` peaked at 120 MiB, 70 MiB with a fixed
/// 128 KiB threshold (large blocks mapped, and unmapped when freed) and
/// two arenas.
fn bounded_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: allocator settings at start-up, before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
