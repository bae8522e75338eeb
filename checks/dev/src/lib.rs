//! lab-dev, the retry lab's maintainers' tools, in a crate of their own so
//! that a learner's `./lab.sh check` never compiles them: `selftest` proves
//! the checker (after `audit`, the registry check), `bench` measures it and
//! `scaffold` adds a step (`new-step`). lab.sh builds this crate only for
//! those commands.
//!
//! They use the checker (`lab_judge`) as a library: its command line (the
//! maintainers' commands are parsed there with the others, so that
//! `./lab.sh help` and `COMMAND --help` stay one text), its dispatch, and
//! the modules a check is made of. The binary is the checker's command
//! line with [`tool`] answering the maintainers' commands.

pub mod audit;
pub mod bench;
pub mod scaffold;
pub mod selftest;

use lab_judge::cli::Tool;
use std::path::Path;

/// One of the maintainers' commands, in the kit at `root`: what
/// `lab_judge::dispatch::run_with` hands over.
pub fn tool(root: &Path, tool: &Tool) -> u8 {
    match tool {
        Tool::Selftest(args) => selftest::run(root, args),
        Tool::Bench(args) => bench::run(root, args),
        // The words are checked here, and a bad one is answered as a bad
        // option is: one line, status 2.
        Tool::NewStep(words) => match scaffold::NewStepArgs::read(words) {
            Ok(args) => scaffold::run(root, &args),
            Err(e) => {
                eprintln!("lab: {e}");
                lab_judge::status::USAGE
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bad step number or name for new-step is a one-line usage error,
    /// and nothing is written.
    #[test]
    fn new_step_s_words_are_checked_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        for words in [&[][..], &["99", "x"], &["1", "x"], &["09", "x"], &["x"]] {
            let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            assert_eq!(
                tool(dir.path(), &Tool::NewStep(words.clone())),
                lab_judge::status::USAGE,
                "{words:?}"
            );
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
