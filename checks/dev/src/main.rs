//! lab-dev: the retry lab's maintainers' tools (see the library's
//! documentation). The process is set up as the checker's is, and its
//! arguments are the checker's command line, with the tools answering the
//! maintainers' commands.

use std::process::ExitCode;

fn main() -> ExitCode {
    lab_judge::dispatch::main_with(lab_dev::tool)
}
