//! The maintainers' commands (`selftest`, `bench`, `new-step`) as the
//! command line gives them. They are parsed here with every other command,
//! so that `./lab.sh help`, `COMMAND --help` and a bad option read alike;
//! their code is in lab-dev (checks/dev), which lab.sh builds only for
//! them, so a learner's check never compiles it.

use std::path::PathBuf;

/// One of the maintainers' commands, for the dispatch's `tools` (see
/// `dispatch::run_with`).
#[derive(Debug, Clone)]
pub enum Tool {
    Selftest(SelftestArgs),
    Bench(BenchArgs),
    /// `new-step NN NAME`: a new advanced step's files. The words after
    /// the command, as given: lab-dev's scaffold checks them.
    NewStep(Vec<String>),
}

impl Tool {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Tool::Selftest(_) => "selftest",
            Tool::Bench(_) => "bench",
            Tool::NewStep(_) => "new-step",
        }
    }
}

#[derive(Debug, Clone)]
pub struct SelftestArgs {
    pub seed: Option<u64>,
    pub seeds: u32,
    pub jobs: usize,
    pub only: Option<String>,
    /// Rewrite `fixtures/mistakes.json` from the mutants run, instead of
    /// failing when it is stale.
    pub write_mistakes: bool,
}

#[derive(Debug, Clone)]
pub struct BenchArgs {
    /// One run per figure, 4 submissions, no cold start: proves it works.
    pub quick: bool,
    pub runs: usize,
    /// Target directory for the copy (default: target/bench).
    pub target: Option<PathBuf>,
    /// A git commit whose kit is measured beside this one, run for run.
    pub baseline: Option<String>,
}
