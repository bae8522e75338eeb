//! The core runner, rebuilt at every save: it hands the learner's eight
//! functions to `lab_runner_core`, which does the rest. Kept this small
//! so that a check compiles little besides the learner's crate. A
//! signature that differs from the contract fails to compile here.

fn main() -> std::process::ExitCode {
    lab_runner_core::main(lab_runner_core::Functions {
        retryable: student::retryable,
        replay_safe: student::replay_safe,
        remaining: student::remaining,
        backoff: student::backoff,
        jitter: student::jitter,
        wait_delay: student::wait_delay,
        can_attempt: student::can_attempt,
        execute: student::execute,
    })
}
