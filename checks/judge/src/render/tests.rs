//! Unit tests of `render`: calls as pasteable Rust, expectations, faults
//! and step 08's timelines in the learner's words.

use super::*;

#[test]
fn the_first_differing_line_of_a_long_block_is_marked() {
    let want = "Ok([])\n  task 0\n    0.0 call 1.0\n    1.0 end";
    let got = "Ok([])\n  task 0\n    0.0 call 0.5\n    1.0 end";
    let m = marked(want, got);
    let lines: Vec<&str> = m.lines().collect();
    assert!(lines[2].starts_with("    0.0 call 0.5  <- "), "{m}");
    assert_eq!(m.matches("<-").count(), 1, "{m}");
    // One line each: nothing to mark.
    assert_eq!(marked("Ok(1)", "Ok(2)"), "Ok(2)");
}

#[test]
fn a_zero_is_expected_without_a_sign_the_contract_never_judges() {
    assert_eq!(expected(&Expect::Checked(Some(-0.0))), "Ok(0.0)");
    assert_eq!(expected(&Expect::Float(-0.0)), "0.0");
    assert_eq!(expected(&Expect::Checked(Some(-0.5))), "Ok(-0.5)");
    assert_eq!(
        expected(&Expect::Float(f64::NEG_INFINITY)),
        float(f64::NEG_INFINITY)
    );
}
use lab_wire::F64;

#[test]
fn wide_characters_take_two_columns_and_punctuation_one() {
    assert_eq!(display_width("abc"), 3);
    assert_eq!(display_width("步骤"), 4);
    assert_eq!(display_width("（通过）"), 8);
    assert_eq!(right_aligned("n/a", 4), " n/a");
    assert_eq!(right_aligned("未试", 4), "未试");
    assert_eq!(padded("王小明", 8), "王小明  ");
    assert_eq!(padded("toolong", 4), "toolong");
    assert_eq!(display_width("–…—"), 3);
}

/// A padded cell is one visible line: controls and bidirectional
/// controls are shown escaped, and count as the columns they show.
#[test]
fn padded_cells_show_controls_escaped() {
    assert_eq!(
        padded("\u{1b}[2Jx\u{202e}y", 24),
        "\\u{1b}[2Jx\\u{202e}y     "
    );
    assert_eq!(right_aligned("a\u{7}", 8), "  a\\u{7}");
    assert_eq!(padded("王小明\n", 10), "王小明\\n  ");
}

/// Both help texts list the same commands, in the same order.
#[test]
fn both_help_texts_list_the_same_commands() {
    let commands = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                l.starts_with("  ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_lowercase)
            })
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                // The second word too when it is an option ("grade
                // --merge"), not an argument or a description.
                let second = words
                    .get(1)
                    .filter(|w| w.starts_with("--"))
                    .copied()
                    .unwrap_or("");
                format!("{} {second}", words[0])
            })
            .collect()
    };
    let (en, zh) = (
        commands(include_str!("../usage.txt")),
        commands(include_str!("../usage.zh.txt")),
    );
    assert!(en.len() >= 12, "{en:?}");
    assert_eq!(en, zh);
}

/// Every description of both help texts starts in the same column.
#[test]
fn help_columns_line_up_in_both_languages() {
    for text in [
        include_str!("../usage.txt"),
        include_str!("../usage.zh.txt"),
    ] {
        for line in text.lines().filter(|l| l.starts_with("  ")) {
            let body = line.trim_start();
            let Some(gap) = body.find("  ") else { continue };
            let rest = body[gap..].trim_start();
            let column = display_width(line) - display_width(rest);
            assert_eq!(column, 33, "{line:?}");
        }
    }
}

#[test]
fn inputs_read_as_rust_calls() {
    let c = Call::Backoff {
        attempt: 31,
        base: F64(0.5),
        cap: F64(f64::NAN),
    };
    assert_eq!(call("04", &c), "backoff(31, 0.5, f64::NAN)");
    let w = Call::WaitDelay {
        local: F64(-0.0),
        retry_after: Some("5\n".into()),
    };
    assert_eq!(call("06", &w), "wait_delay(-0.0, Some(\"5\\n\"))");
}

#[test]
fn a_runaway_names_what_it_kept_using() {
    use lab_wire::Use;
    let limits = Limits::default();
    let told = |of| {
        fault(
            &Fault::Runaway(1_000_001, of),
            "12",
            "guarded_read",
            &limits,
        )
    };
    assert!(told(Use::ClockReadings).contains("reading the clock"));
    assert!(told(Use::CancelChecks).contains("cancellation"));
    assert!(told(Use::Sleeps).contains("sleeping"));
    assert!(told(Use::Sends).contains("sending"));
    // A world that counts every use together names none of them.
    assert!(!told(Use::World).contains("reading the clock"));
    assert!(told(Use::World).contains("1000001"));
}

#[test]
fn timeline_marks_the_first_difference() {
    let expected = vec![
        Event::Send { timeout: F64(5.0) },
        Event::Sleep { seconds: F64(0.25) },
    ];
    let got = Trace {
        events: vec![
            Event::Send { timeout: F64(5.0) },
            Event::Sleep { seconds: F64(0.5) },
        ],
        times: vec![F64(0.0), F64(0.25)],
        ending: Ending::Timeout,
        draws: 1,
        clock_reads: 3,
    };
    let text = timeline(&expected, &Ending::Timeout, &got, &[0.0, 0.25], true);
    let marked: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("first difference"))
        .collect();
    assert_eq!(marked.len(), 1);
    assert!(marked[0].contains("sleep(0.25)") && marked[0].contains("sleep(0.5)"));
}

/// A call that hung after two events: its timeline runs to its last
/// event, marks where it first left the expected one, and says it
/// stopped answering there; one that hung before any event says so.
#[test]
fn a_hung_calls_timeline_stops_where_it_stopped_answering() {
    let expected = vec![
        Event::Send { timeout: F64(5.0) },
        Event::Sleep { seconds: F64(0.25) },
        Event::Send { timeout: F64(4.5) },
    ];
    let so_far = SoFar {
        events: vec![
            Event::Send { timeout: F64(5.0) },
            Event::Sleep { seconds: F64(0.25) },
        ],
        times: vec![F64(0.0), F64(0.25)],
        more: 0,
        draws: 1,
        clock_reads: 4,
    };
    let ending = Ending::Timeout;
    let text = timeline_so_far(&expected, &ending, &so_far, &[0.0, 0.25, 0.5], true);
    let marked: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("first difference"))
        .collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(
        marked[0].contains("send(4.5)") && marked[0].trim_start().starts_with('3'),
        "{text}"
    );
    assert!(text.contains("after the last row above"), "{text}");
    assert!(text.contains("read the clock 4 times"), "{text}");
    // Nothing at all before the hang.
    let nothing = SoFar::default();
    let text = timeline_so_far(&[], &Ending::InvalidArgument, &nothing, &[], true);
    assert!(text.contains("before any send or sleep"), "{text}");
    assert!(!text.contains("expected  "), "{text}");
    let marked = text.lines().filter(|l| l.contains("first difference"));
    assert_eq!(marked.count(), 1, "{text}");
    // Events past the listed ones are counted.
    let long = SoFar { more: 7, ..so_far };
    let text = timeline_so_far(&expected, &ending, &long, &[], true);
    assert!(text.contains("7 more sends and sleeps"), "{text}");
}

/// A timeline that differs only in a send's timeout: the brief line
/// names that event, and the full text never prints the same result
/// twice as if expected and got were equal.
#[test]
fn a_same_result_by_another_timeline_reads_as_such() {
    let ending = Ending::Timeout;
    let check = Check {
        step: "08",
        call: Call::Retryable { status: 1 },
        expect: Expect::Trace {
            events: vec![
                Event::Send { timeout: F64(5.0) },
                Event::Send { timeout: F64(4.5) },
            ],
            ending: Box::new(ending.clone()),
            timeouts: true,
        },
    };
    let trace = Trace {
        events: vec![
            Event::Send { timeout: F64(5.0) },
            Event::Send { timeout: F64(5.0) },
        ],
        times: vec![F64(0.0), F64(0.5)],
        ending,
        draws: 0,
        clock_reads: 2,
    };
    let fault = Fault::Wrong(Value::Trace { trace });
    let limits = Limits::default();
    assert_eq!(
        brief(&check, &fault, "08", "execute", &limits),
        "event #2: expected send(4.5), yours send(5.0)"
    );
    let text = failure(&check, &fault, "08", "execute", &limits);
    let line = |label: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or("")
            .split_once(':')
            .map_or(String::new(), |(_, v)| v.trim().to_string())
    };
    assert_eq!(line("expected:"), "Err(ExecuteError::Timeout)");
    assert_eq!(
        line("got:"),
        "the same result, reached by a different timeline (below)"
    );
    assert!(!text.contains("never read the injected clock"), "{text}");
    // The same timeline from a call that never read the clock.
    let Fault::Wrong(Value::Trace { mut trace }) = fault else {
        unreachable!()
    };
    trace.clock_reads = 0;
    let fault = Fault::Wrong(Value::Trace { trace });
    let text = failure(&check, &fault, "08", "execute", &limits);
    assert!(text.contains("never read the injected clock"), "{text}");
}
