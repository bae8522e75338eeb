//! Unit tests of `runners`: the runner processes that answer a cases file.

use super::*;
use std::io::Write;

fn tail_of(bytes: &[u8], limit: u64) -> Tail {
    let mut file = platform::private_file().unwrap();
    file.write_all(bytes).unwrap();
    Tail {
        file,
        read_to: 0,
        limit,
        pending: Vec::new(),
    }
}

fn outcome(id: &str) -> String {
    let o = wire::Outcome {
        id: id.to_string(),
        observed: wire::Observed::Returned {
            value: wire::Value::Bool { value: true },
        },
        printed: None,
    };
    wire::to_line(&o) + "\n"
}

#[test]
fn a_flood_of_lines_is_read_in_bounded_pieces_and_stops_at_the_first_line_refused() {
    let mut tail = tail_of(&vec![b'\n'; 8 << 20], OUTCOMES_CAP);
    let mut seen = 0;
    let heard = tail.poll(|_| {
        seen += 1;
        Heard::Stop
    });
    assert_eq!((heard, seen), (Heard::Stop, 1));
    assert!(tail.read_to <= 64 << 10, "{}", tail.read_to);
    // A poll that refuses nothing still reads at most one poll's worth.
    let mut tail = tail_of(&vec![b'\n'; 8 << 20], OUTCOMES_CAP);
    let mut seen = 0;
    tail.poll(|_| {
        seen += 1;
        Heard::Nothing
    });
    assert!(tail.read_to as usize <= READ_PER_POLL + (64 << 10));
    assert_eq!(seen, tail.read_to as usize);
    assert!(tail.pending.is_empty());
}

fn empty_run(n: usize) -> CasesRun {
    CasesRun {
        got: vec![None; n],
        output: vec![None; n],
        spent: vec![Duration::ZERO; n],
        printed: 0,
        hung: Hung::default(),
    }
}

fn answers_for(ids: &[String]) -> Answers<'_> {
    Answers {
        ids,
        pos: 0,
        forged: None,
        spans: Vec::new(),
        last: Instant::now(),
        too_much: false,
        so_far: None,
    }
}

#[test]
fn an_ended_runners_outcomes_are_read_to_the_last_however_far_behind_the_judge_was() {
    // Far more than the judge reads in a poll: every case is answered.
    let n = 20_000;
    let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
    let text: String = ids.iter().map(|id| outcome(id)).collect();
    assert!(text.len() > 4 * READ_PER_POLL, "{}", text.len());
    let mut tail = tail_of(text.as_bytes(), OUTCOMES_CAP);
    let (mut run, mut answers) = (empty_run(n), answers_for(&ids));
    tail.drain(|line| answers.take(line, &mut run));
    assert_eq!(answers.pos, n);
    assert!(answers.forged.is_none());
    assert_eq!(tail.read_to, text.len() as u64);
    // Still bounded: past the limit it stops at the overrun.
    let mut tail = tail_of(text.as_bytes(), 1 << 20);
    let mut overruns = 0;
    tail.drain(|line| match line {
        Ok(_) => Heard::Progress,
        Err(_) => {
            overruns += 1;
            Heard::Stop
        }
    });
    assert_eq!(overruns, 1);
    assert!(tail.read_to <= (1 << 20) + 1, "{}", tail.read_to);
}

#[test]
fn a_line_past_its_cap_and_bytes_past_the_total_are_overruns() {
    let mut long = vec![b'x'; LINE_CAP + 10];
    long.push(b'\n');
    let mut tail = tail_of(&long, OUTCOMES_CAP);
    let mut got = Vec::new();
    for _ in 0..20 {
        if tail.poll(|l| {
            got.push(l.map(str::len));
            Heard::Stop
        }) == Heard::Stop
        {
            break;
        }
    }
    assert_eq!(got, vec![Err(Overrun::LongLine)]);
    assert!(tail.pending.len() <= LINE_CAP + (64 << 10));
    let mut tail = tail_of(&outcome("c1").repeat(10).into_bytes(), 100);
    let mut got = Vec::new();
    tail.poll(|l| {
        got.push(l.is_ok());
        Heard::Nothing
    });
    assert_eq!(got.last(), Some(&false), "{got:?}");
    assert!(tail.read_to <= 101);
}

#[test]
fn only_the_current_cases_well_formed_outcome_is_progress() {
    let ids = ["c1".to_string(), "c2".to_string()];
    let (mut run, mut answers) = (empty_run(2), answers_for(&ids));
    let c1 = outcome("c1");
    assert_eq!(answers.take(Ok(c1.trim_end()), &mut run), Heard::Progress);
    assert_eq!(answers.pos, 1);
    // The same answer again is not the current case's: it stops the runner.
    assert_eq!(answers.take(Ok(c1.trim_end()), &mut run), Heard::Stop);
    assert_eq!(answers.pos, 1);
    assert_eq!(answers.forged.as_ref().map(|f| f.0), Some(1));
    assert!(run.got[1].is_none());
    let mut fresh = Answers {
        forged: None,
        pos: 1,
        ..answers
    };
    assert_eq!(fresh.take(Ok(""), &mut run), Heard::Stop);
    assert!(fresh.forged.is_some());
}

/// A case's story so far is kept for it and is never progress; one for
/// another case is forged; an outcome moves on and forgets it.
#[test]
fn a_partial_line_is_kept_for_the_current_case_and_is_not_progress() {
    let ids = ["c1".to_string(), "c2".to_string()];
    let (mut run, mut answers) = (empty_run(2), answers_for(&ids));
    let partial = |id: &str, reads: u32| {
        wire::to_line(&wire::Partial {
            partial: id.into(),
            so_far: wire::SoFar {
                clock_reads: reads,
                ..Default::default()
            },
        })
    };
    assert_eq!(
        answers.take(Ok(&partial("c1", 2)), &mut run),
        Heard::Nothing
    );
    assert_eq!(
        answers.take(Ok(&partial("c1", 5)), &mut run),
        Heard::Nothing
    );
    assert_eq!(answers.so_far.as_ref().map(|s| s.clock_reads), Some(5));
    assert_eq!(answers.pos, 0);
    assert!(run.got[0].is_none());
    let c1 = outcome("c1");
    assert_eq!(answers.take(Ok(c1.trim_end()), &mut run), Heard::Progress);
    assert!(answers.so_far.is_none());
    assert_eq!(answers.take(Ok(&partial("c1", 6)), &mut run), Heard::Stop);
    assert_eq!(answers.forged.as_ref().map(|f| f.0), Some(1));
}
