//! lab-judge, the retry lab's checker. It never links learner code: it builds
//! the runner, feeds it cases through files, and judges what comes back.
//!
//! Map: `dispatch` runs one command line that `cli` parses; `check` is the
//! learner's check and `evaluate` one evaluation: `suites` (with `oracle`
//! and fixtures/cases) says what to expect, `compile` builds the runners,
//! `session` drives them through `platform` (the one place that starts
//! processes), `verdict` judges, `shrink` simplifies a failure, `render` and
//! `catalog` word it, `console` prints it; for editors and CI, `locate`
//! finds the learner's function, `events` streams the verdicts as JSON
//! lines and `github` writes annotations and a step summary. `grade` grades a class (each
//! submission's report folder named by `folders`) and `report` writes its
//! machine formats; `handout` exports the learner's kit, `autograder`
//! packages it for Gradescope, `prairielearn` writes a PrairieLearn
//! question and grades for its image, `live` runs `lab.sh try`; `visible` makes
//! names and the learner's text safe to show. The maintainers' tools
//! (selftest, bench, new-step and the registry check) are a crate of their
//! own, lab-dev (checks/dev), which uses this one as a library: a learner's
//! check never compiles them. `cli` still parses their commands and
//! `dispatch::run_with` hands them over.
//!
//! The binary (`main.rs`) hands its process to [`dispatch::main_with`],
//! which sets it up and runs its arguments. This file only declares the modules. The end-to-end and snapshot tests use the library directly.

pub mod autograder;
pub mod calendar;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod compile;
pub mod console;
pub mod dispatch;
pub mod evaluate;
pub mod events;
pub mod files;
pub mod folders;
pub mod frame;
pub mod github;
pub mod grade;
pub mod handout;
pub mod hash;
pub mod keep;
pub mod keys;
pub mod learner;
pub mod limits;
pub mod live;
pub mod locate;
pub mod mistakes;
pub mod oracle;
pub mod platform;
pub mod pool;
pub mod prairielearn;
pub mod render;
pub mod report;
pub mod rng;
pub mod screen;
pub mod sections;
pub mod session;
pub mod show;
pub mod shrink;
pub mod signature;
pub mod similarity;
pub mod simpler;
pub mod state;
pub mod status;
pub mod stdout;
pub mod suites;
pub mod timing;
pub mod verdict;
pub mod visible;
