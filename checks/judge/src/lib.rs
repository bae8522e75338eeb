//! lab-judge, the retry lab's checker. It never links learner code: it builds
//! the runner, feeds it cases through files, and judges what comes back.
//!
//! Map: `dispatch` runs one command line that `cli` parses; `check` is the
//! learner's check and `evaluate` one evaluation: `suites` (with `oracle`
//! and fixtures/cases) says what to expect, `compile` builds the runners,
//! `session` drives them through `platform` (the one place that starts
//! processes), `verdict` judges, `shrink` simplifies a failure, `render` and
//! `catalog` word it, `console` prints it. `grade` grades a class (each
//! submission's report folder named by `folders`) and `report` writes its
//! machine formats; `handout` exports the learner's kit, `autograder`
//! packages it for Gradescope, `live` runs `lab.sh try`; `selftest` proves
//! the checker, `bench` measures it, `scaffold` adds a step; `visible`
//! makes names and the learner's text safe to show.
//!
//! The binary (`main.rs`) sets up the process and hands its arguments
//! to [`dispatch::run`]. This file only declares the modules. The end-to-end and snapshot tests use the library directly.

pub mod audit;
pub mod autograder;
pub mod bench;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod compile;
pub mod console;
pub mod dispatch;
pub mod evaluate;
pub mod files;
pub mod folders;
pub mod frame;
pub mod grade;
pub mod handout;
pub mod hash;
pub mod keep;
pub mod keys;
pub mod learner;
pub mod limits;
pub mod live;
pub mod mistakes;
pub mod oracle;
pub mod platform;
pub mod pool;
pub mod render;
pub mod report;
pub mod rng;
pub mod scaffold;
pub mod screen;
pub mod sections;
pub mod selftest;
pub mod session;
pub mod show;
pub mod shrink;
pub mod signature;
pub mod simpler;
pub mod state;
pub mod status;
pub mod suites;
pub mod timing;
pub mod verdict;
pub mod visible;
