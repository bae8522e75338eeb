//! lab-judge: the retry lab's checker (see the library's documentation for
//! its map). This binary sets up the process and hands over its arguments;
//! the maintainers' commands are lab-dev's (checks/dev), not its own.

use std::process::ExitCode;

fn main() -> ExitCode {
    lab_judge::dispatch::main_with(lab_judge::dispatch::no_tools)
}
