//! The live demonstrations of `lab.sh try`, one variant each. The judge's
//! registry names the step that has each one, the judge dispatches on it,
//! and the advanced runner reads it back from its argv (`try STEP ...`), so
//! both sides match on this one type: a demonstration that either side
//! lacks does not compile.

/// One live demonstration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// The core runner's `execute` against one scripted server
    /// (`lab-runner try ADDRESS`).
    Execute,
    /// The advanced runner's `execute_admitted` against one scripted server
    /// (`lab-runner-advanced try STEP ADDRESS`).
    Admitted,
    /// QuoteFlow: the advanced runner's front around `fan_out` and
    /// `to_http`, against supplier servers
    /// (`lab-runner-advanced try STEP FD COUNT NAME=PORT...`).
    QuoteFlow,
}

impl Live {
    /// Every demonstration.
    pub const ALL: [Live; 3] = [Live::Execute, Live::Admitted, Live::QuoteFlow];

    /// The step a runner's `try STEP ...` names this demonstration by: the
    /// one place outside the judge's registry that pairs a demonstration
    /// with its step, because a runner cannot read the registry. The
    /// registry's tests check that the two agree.
    pub fn step(self) -> &'static str {
        match self {
            Live::Execute => "08",
            Live::Admitted => "11",
            Live::QuoteFlow => "13",
        }
    }

    /// The demonstration a runner's `try STEP ...` asks for.
    pub fn of_step(step: &str) -> Option<Live> {
        Live::ALL.into_iter().find(|live| live.step() == step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_demonstration_is_read_back_from_its_step_and_no_other() {
        for live in Live::ALL {
            assert_eq!(Live::of_step(live.step()), Some(live));
        }
        let mut steps: Vec<_> = Live::ALL.iter().map(|l| l.step()).collect();
        steps.sort_unstable();
        steps.dedup();
        assert_eq!(
            steps.len(),
            Live::ALL.len(),
            "two demonstrations share a step"
        );
        assert_eq!(
            Live::of_step("8"),
            None,
            "argv carries the registry's spelling"
        );
        assert_eq!(Live::of_step("12"), None);
    }
}
