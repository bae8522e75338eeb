//! How a runner ended, and which case its end is pinned on.

use crate::platform::Exit;

/// How one runner ended, as far as judging its cases goes.
#[derive(Debug, Clone)]
pub(super) struct Ended {
    pub(super) exit: Exit,
    /// The case whose answer shows the runner's output past the cap.
    pub(super) flooded: Option<usize>,
    /// The first outcome line that does not belong, and why.
    pub(super) forged: Option<(usize, String)>,
    /// The first case without an answer.
    pub(super) pos: usize,
    /// Cases in the file.
    pub(super) n: usize,
    /// The case the runner started at.
    pub(super) start: usize,
    pub(super) careful: bool,
}

/// What the case a runner was stopped in gets.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Bad {
    Forged(String),
    /// No answer within the per-case limit.
    TimedOut,
    /// The step's own time ran out while the case ran (before its own
    /// limit): it was not answered, and is told so, not as a hang.
    StepTimeUp,
    Flooded,
    Crashed(Exit),
}

/// Where the judge goes on after a runner ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Settled {
    /// Every case answered.
    Done,
    /// A fast runner died: a careful one runs the cases again from `from`.
    Careful { from: usize },
    /// Case `at` went wrong; nothing the runner said after it is trusted.
    Bad { at: usize, crashed: Bad },
}

/// Which case a runner's end is pinned on. Decided by what the runner
/// answered, never by when the judge looked: a case that answered yet took
/// the output past the cap flooded even when a later case was running when
/// the runner was stopped (or when nobody stopped it), and a careful runner
/// starts where the fast one did, so it counts the same output.
pub(super) fn settle(e: Ended) -> Settled {
    match (e.flooded, e.forged, e.exit) {
        (Some(at), _, _) => Settled::Bad {
            at,
            crashed: Bad::Flooded,
        },
        (None, None, Exit::Success) if e.pos == e.n => Settled::Done,
        (None, Some((at, why)), _) => Settled::Bad {
            at,
            crashed: Bad::Forged(why),
        },
        // Every case answered before the runner died, hung or overflowed on
        // its way out: every outcome is in, the rest is not a case's doing.
        (None, None, _) if e.pos >= e.n => Settled::Done,
        (None, None, Exit::Failure(_) | Exit::Signalled(_) | Exit::Success | Exit::Flood)
            if !e.careful =>
        {
            Settled::Careful { from: e.start }
        }
        (None, None, exit) => Settled::Bad {
            at: e.pos,
            crashed: match exit {
                Exit::CaseTimeLimit => Bad::TimedOut,
                Exit::OverallTimeLimit => Bad::StepTimeUp,
                Exit::Flood => Bad::Flooded,
                other => Bad::Crashed(other),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::printed::flooded_at;
    use super::super::printed::tests::printed;
    use super::*;
    use lab_wire as wire;

    fn ended(exit: Exit, spans: &[(usize, wire::Printed)], pos: usize, careful: bool) -> Ended {
        Ended {
            exit,
            flooded: flooded_at(spans, 100),
            forged: None,
            pos,
            n: 10,
            start: 2,
            careful,
        }
    }

    #[test]
    fn a_flood_is_the_answered_case_that_took_the_output_past_the_cap() {
        // Case 3 printed 60 bytes to stdout, case 4 nothing, case 5 50 bytes
        // to stderr: the runner's output passes 100 bytes in case 5.
        let spans = [
            (3, printed([0, 60], [0, 0])),
            (5, printed([0, 0], [0, 50])),
            (6, printed([60, 70], [0, 0])),
        ];
        assert_eq!(flooded_at(&spans, 100), Some(5));
        assert_eq!(flooded_at(&spans, 110), Some(6));
        assert_eq!(flooded_at(&spans, 120), None);
        let flood = Settled::Bad {
            at: 5,
            crashed: Bad::Flooded,
        };
        // However far the runner got before the judge stopped it, and
        // whether it was stopped at all, the flood is case 5's.
        for (exit, pos, careful) in [
            (Exit::Flood, 6, false),
            (Exit::Flood, 9, true),
            (Exit::Success, 10, false),
            (Exit::CaseTimeLimit, 8, true),
        ] {
            assert_eq!(settle(ended(exit, &spans, pos, careful)), flood);
        }
    }

    #[test]
    fn a_case_cut_by_the_step_s_time_is_not_told_as_a_hang() {
        let quiet = [(3, printed([0, 10], [0, 0]))];
        let bad = |exit: Exit| match settle(ended(exit, &quiet, 3, true)) {
            Settled::Bad { at, crashed } => (at, crashed),
            other => panic!("{other:?}"),
        };
        assert_eq!(bad(Exit::CaseTimeLimit), (3, Bad::TimedOut));
        assert_eq!(bad(Exit::OverallTimeLimit), (3, Bad::StepTimeUp));
    }

    #[test]
    fn a_runner_that_answered_every_case_is_done_however_it_then_ends() {
        let quiet = [(3, printed([0, 10], [0, 0]))];
        for careful in [false, true] {
            for exit in [
                Exit::CaseTimeLimit,
                Exit::OverallTimeLimit,
                Exit::FolderFull,
                Exit::Signalled(6),
                Exit::Failure(1),
            ] {
                assert_eq!(
                    settle(ended(exit.clone(), &quiet, 10, careful)),
                    Settled::Done,
                    "{exit:?}, careful: {careful}"
                );
            }
        }
    }

    #[test]
    fn a_careful_runner_starts_where_the_fast_one_did() {
        let quiet = [(3, printed([0, 10], [0, 0]))];
        for exit in [Exit::Flood, Exit::Signalled(9), Exit::Failure(1)] {
            assert_eq!(
                settle(ended(exit, &quiet, 7, false)),
                Settled::Careful { from: 2 }
            );
        }
        assert_eq!(
            settle(ended(Exit::Flood, &quiet, 7, true)),
            Settled::Bad {
                at: 7,
                crashed: Bad::Flooded
            }
        );
        assert_eq!(
            settle(ended(Exit::Success, &quiet, 10, false)),
            Settled::Done
        );
        assert_eq!(
            settle(ended(Exit::Signalled(6), &quiet, 10, true)),
            Settled::Done
        );
    }
}
