//! The limits one run of the judge puts on learner code, set from the
//! command line (`--case-timeout`, `--build-timeout`, …).

use std::time::Duration;

/// Time and output limits of one suite.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub case: Duration,
    pub suite: Duration,
    pub output_cap: u64,
    /// Longest a build of learner code may take (`--build-timeout`).
    pub build: Duration,
    /// Whether learner code is confined (`--unsandboxed`: it is not).
    pub confinement: Confinement,
}

/// Whether learner code runs in the jail (see `sandbox`): `Off` under
/// `--unsandboxed`, where only rlimits and the environment apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    Jail,
    Off,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            case: Duration::from_secs(2),
            suite: Duration::from_secs(45),
            output_cap: 4 << 20,
            build: Duration::from_secs(120),
            confinement: Confinement::Jail,
        }
    }
}
