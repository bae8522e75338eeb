//! lab-judge, the retry lab's checker. It never links learner code: it builds
//! the runner, feeds it cases through files, and judges what comes back.
//!
//! Map: `cli` parses, `suites` (with `oracle` and fixtures/cases) says what to
//! expect, `session` drives runners through `spawn` (the one place that starts
//! processes), `verdict` judges, `render` and `catalog` word it, `console`
//! prints it, `build` compiles runners, `grade` grades a class (each
//! submission's report folder named by `folders`) and `report` writes its
//! machine formats, `handout` exports the learner's kit,
//! `selftest` proves the checker; `visible` makes names and the learner's
//! text safe to show.
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
pub mod pool;
pub mod render;
pub mod report;
pub mod rng;
pub mod sandbox;
pub mod scaffold;
pub mod screen;
pub mod sections;
pub mod selftest;
pub mod session;
pub mod show;
pub mod shrink;
pub mod signature;
pub mod simpler;
pub mod spawn;
pub mod state;
pub mod status;
pub mod suites;
pub mod timing;
pub mod verdict;
pub mod visible;
