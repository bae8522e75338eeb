//! What the learner's code printed during each case, read back from a
//! runner's captured streams by the spans its outcomes name.

use crate::platform;
use lab_wire as wire;

/// Most bytes of a check's own stdout (and as many of its stderr) kept to
/// show beside its failure.
pub const PRINTED_CAP: u64 = 1024;

/// What a case printed, read back from a runner's captured streams: its
/// stdout, then its stderr, each capped, each cut marked.
pub(super) fn printed_text(captured: &platform::Captured, p: &wire::Printed) -> Option<String> {
    let mut parts = Vec::new();
    for (file, [from, to]) in [(&captured.stdout, p.stdout), (&captured.stderr, p.stderr)] {
        if to > from {
            let (text, cut) = platform::slice(file, from, to, PRINTED_CAP);
            let mut text = text.trim_end().to_string();
            if cut {
                text += "\n…";
            }
            parts.push(text);
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// The runner's output (stdout and stderr together, counted from the
/// runner's start) after each case whose outcome says it printed: the
/// offsets the spans end at, in case order.
fn ends(spans: &[(usize, wire::Printed)]) -> impl Iterator<Item = (usize, [u64; 2])> + '_ {
    let mut last = [0, 0];
    spans.iter().map(move |(at, p)| {
        last = [last[0].max(p.stdout[1]), last[1].max(p.stderr[1])];
        (*at, last)
    })
}

/// The case during which a runner's output first grew past `cap`, read
/// from the outcomes that arrived: that case flooded, whether or not the
/// judge stopped the runner in time, and however many cases after it had
/// answered when the runner was stopped.
pub(super) fn flooded_at(spans: &[(usize, wire::Printed)], cap: u64) -> Option<usize> {
    ends(spans)
        .find(|(_, [out, err])| out + err > cap)
        .map(|(at, _)| at)
}

/// What the case a runner was stopped in printed: both streams from where
/// the last answered case left them.
pub(super) fn printed_since(
    captured: &platform::Captured,
    spans: &[(usize, wire::Printed)],
) -> Option<String> {
    let [out, err] = ends(spans).last().map_or([0, 0], |(_, e)| e);
    let p = wire::Printed {
        stdout: [out, platform::size(&captured.stdout).max(out)],
        stderr: [err, platform::size(&captured.stderr).max(err)],
    };
    printed_text(captured, &p)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::io::Write;

    /// Spans of the two streams, as an outcome names them.
    pub(in crate::session) fn printed(stdout: [u64; 2], stderr: [u64; 2]) -> wire::Printed {
        wire::Printed { stdout, stderr }
    }

    /// Captured streams that hold `stdout` and `stderr`.
    fn holding(stdout: &str, stderr: &str) -> platform::Captured {
        let file = |text: &str| {
            let mut f = platform::private_file().unwrap();
            f.write_all(text.as_bytes()).unwrap();
            f
        };
        platform::Captured {
            stdout: file(stdout),
            stderr: file(stderr),
        }
    }

    #[test]
    fn a_cases_output_is_its_spans_of_both_streams_capped_and_marked() {
        let long = "x".repeat(PRINTED_CAP as usize + 10);
        let captured = holding(&format!("before\nmine\n{long}"), "warned\n");
        let at = |from: usize, to: usize| [from as u64, to as u64];
        let p = wire::Printed {
            stdout: at(7, 12),
            stderr: at(0, 7),
        };
        assert_eq!(printed_text(&captured, &p).as_deref(), Some("mine\nwarned"));
        let cut = wire::Printed {
            stdout: at(12, 12 + long.len()),
            stderr: at(0, 0),
        };
        let text = printed_text(&captured, &cut).unwrap();
        assert!(
            text.ends_with("\n…") && text.len() < long.len(),
            "{}",
            text.len()
        );
        let nothing = wire::Printed {
            stdout: at(3, 3),
            stderr: at(0, 0),
        };
        assert_eq!(printed_text(&captured, &nothing), None);
    }

    #[test]
    fn what_a_stopped_case_printed_starts_where_the_last_answer_left_off() {
        let captured = holding(&format!("early\n{}", "x".repeat(3000)), "");
        let spans = [(0, printed([0, 6], [0, 0]))];
        let text = printed_since(&captured, &spans).unwrap();
        assert!(text.starts_with("xxx") && text.ends_with("\n…"), "{text}");
        assert_eq!(text.len(), PRINTED_CAP as usize + "\n…".len());
    }
}
