//! Confinement of learner code. Every build of a learner's crate and every
//! runner is started inside a jail that the kernel enforces from before the
//! first instruction of the new program (learner code placed in
//! `.init_array` included):
//!
//! - Landlock: the files it may read and execute, the one folder it may
//!   write, no TCP (a port for `try`), and no signal or abstract socket
//!   outside its own domain, so it cannot stop or kill the judge;
//! - rlimits: address space, file size, CPU time, threads, no core files;
//! - an empty environment plus only what the program needs;
//! - for a runner: a seccomp filter (no process, no other program, no
//!   socket but TCP in `try`, no io_uring, …), a user (or user namespace)
//!   of its own, the descriptors it is handed and no other, and a fresh
//!   folder of its own with a quota ([`RunnerHome`]).
//!
//! The ruleset is built in the judge before the child starts; the child
//! only makes system calls between its start and its exec (it shares the
//! judge's memory until then: see `spawn::launch`). `--unsandboxed`
//! (or a kernel without Landlock) leaves the filesystem, network and signal
//! rules off; rlimits and the environment are always applied.

mod home;
mod jail;
mod kernel;
mod policy;
mod rules;
mod runner;
mod seccomp;
mod toolchain;

pub use home::{remove_stage, Identity, RunnerHome};
pub use jail::{Jail, Rlimits, RUNNER_THREADS};
pub use kernel::{abi, has_filter, missing, missing_in};
pub use policy::{Filter, Policy, Sockets};
pub use runner::{runner, runner_limits, RUNNER_FOLDER_BYTES};
pub use toolchain::build;

#[cfg(test)]
mod tests;
