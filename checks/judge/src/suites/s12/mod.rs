//! Step 12 sleep_at_least: the table, then generated scripts per clause,
//! then random ones. A script fixes the arguments, the clock's first reading,
//! what each sleep does to the clock and when cancellation shows; the
//! judge's model below plays the contract's algorithm in the same world and
//! also says when a script makes two conditions hold whose order the
//! contract leaves open (such scripts are never sent).

use super::{fixture, show_answer, Builder, Observable};
use crate::rng::Gen;
use crate::show::float;
use lab_api::advanced::SLEEP_LIMIT;
use lab_wire::scripts::s12::{Ending, Observed, Script, Slept, Wake};
use lab_wire::F64;
use serde_json::Value;

const STEP: &str = "12";
const LIMIT: usize = SLEEP_LIMIT as usize;

/// What the model expects, and whether the script is one the checker must
/// not send (two conditions hold whose order the contract leaves open).
pub struct Modelled {
    pub observed: Observed,
    pub ambiguous: bool,
}

/// The judge's own model of a correct `sleep_at_least`, played in the
/// script's world.
pub fn model(s: &Script) -> Modelled {
    let (wait, deadline, t0) = (s.wait.0, s.deadline.0, s.start.0);
    let mut sleeps: Vec<Slept> = Vec::new();
    let done = |sleeps: Vec<Slept>, result: Ending, ambiguous: bool| Modelled {
        observed: Observed {
            start: s.start,
            sleeps,
            result,
        },
        ambiguous,
    };
    if !wait.is_finite() || wait < 0.0 || !deadline.is_finite() {
        // Unordered: validation against a non-finite first reading or a
        // cancellation visible from the start.
        let ambiguous = !t0.is_finite() || s.cancelled(0);
        return done(sleeps, Ending::InvalidArgument, ambiguous);
    }
    if !t0.is_finite() {
        return done(sleeps, Ending::NonFiniteReading, s.cancelled(0));
    }
    let target = t0 + wait;
    let mut now = t0;
    let mut previous: Option<f64> = None;
    loop {
        let n = sleeps.len();
        let cancelled = s.cancelled(n);
        let non_finite = previous.is_some() && !now.is_finite();
        let backwards = previous.is_some_and(|p| now < p);
        let frozen = previous == Some(now);
        let late = now >= deadline || target >= deadline;
        let reached = now >= target;
        let limit = n == LIMIT && !reached;
        let broken = non_finite || backwards || frozen;
        // Unordered pairs: cancellation against every other fault, and the
        // wake-up limit against a broken reading.
        let ambiguous = (cancelled && (broken || late || limit)) || (limit && broken);
        let end = if non_finite {
            Some(Ending::NonFiniteReading)
        } else if backwards {
            Some(Ending::ClockWentBackwards)
        } else if cancelled {
            Some(Ending::Cancelled)
        } else if late {
            Some(Ending::DeadlineReached)
        } else if reached {
            Some(Ending::Ok)
        } else if frozen {
            Some(Ending::NoProgress)
        } else if n == LIMIT {
            Some(Ending::TooManyWakeUps)
        } else {
            None
        };
        if let Some(result) = end {
            return done(sleeps, result, ambiguous);
        }
        let asked = target - now;
        let after = s.wake(n + 1).after(now, asked);
        sleeps.push(Slept {
            asked: F64(asked),
            after: F64(after),
        });
        previous = Some(now);
        now = after;
    }
}

/// One table wake: `exact`, `early X`, `frozen`, `late X`, `back X`, `reads X`.
fn table_wake(text: &str) -> Wake {
    let (name, arg) = text.split_once(' ').unwrap_or((text, ""));
    let num = || {
        F64(arg
            .parse()
            .unwrap_or_else(|_| panic!("12.json: bad number in {text:?}")))
    };
    match name {
        "exact" => Wake::Exact,
        "early" => Wake::Early { moved: num() },
        "frozen" => Wake::Frozen,
        "late" => Wake::Late { over: num() },
        "back" => Wake::Back { by: num() },
        "reads" => Wake::Reads { t: num() },
        _ => panic!("12.json: unknown wake {text:?}"),
    }
}

fn table_ending(text: &str) -> Ending {
    serde_json::from_value(Value::String(text.into()))
        .unwrap_or_else(|_| panic!("12.json: unknown result {text:?}"))
}

fn from_table(case: &Value) -> (Script, Observed) {
    let wakes = case["wakes"]
        .as_array()
        .expect("12.json: wakes is a list")
        .iter()
        .map(|w| table_wake(w.as_str().expect("12.json: wakes are strings")))
        .collect();
    let s = Script {
        wait: F64(fixture::float(case, "wait")),
        deadline: F64(fixture::float(case, "deadline")),
        start: F64(fixture::float(case, "start")),
        wakes,
        cancel_after_sleeps: case["cancel_after_sleeps"]
            .as_u64()
            .map(|k| u32::try_from(k).expect("12.json: cancel_after_sleeps fits in u32")),
    };
    let expect = &case["expect"];
    // The readings after each expected sleep follow from the world's rule.
    let mut now = s.start.0;
    let sleeps = expect["sleeps"]
        .as_array()
        .expect("12.json: expect.sleeps is a list")
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let asked: f64 = a
                .as_str()
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("12.json: bad sleep {a} in {case}"));
            now = s.wake(i + 1).after(now, asked);
            Slept {
                asked: F64(asked),
                after: F64(now),
            }
        })
        .collect();
    let result = table_ending(
        expect["result"]
            .as_str()
            .expect("12.json: expect.result is a string"),
    );
    let observed = Observed {
        start: s.start,
        sleeps,
        result,
    };
    (s, observed)
}

fn script(wait: f64, deadline: f64, start: f64, wakes: Vec<Wake>, cancel: Option<u32>) -> Script {
    Script {
        wait: F64(wait),
        deadline: F64(deadline),
        start: F64(start),
        wakes,
        cancel_after_sleeps: cancel,
    }
}

/// NaN, the infinities and negative waits, in turn.
const BAD_WAITS: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.015625, -1.0];
const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

/// A start, a wait of at least `min_wait` 64ths and a deadline strictly
/// after the target: `(start, wait, deadline, margin)`.
fn frame(g: &mut Gen, min_wait: i64) -> (f64, f64, f64, f64) {
    let start = g.sixty_fourths(0, 64 * 1000);
    let wait = g.sixty_fourths(min_wait, 64 * 16);
    let margin = g.sixty_fourths(1, 64 * 16);
    (start, wait, start + wait + margin, margin)
}

/// `k` early wake-ups for a target `wait` ahead: each moves the clock by at
/// most half of what is left, so every one is short of the request.
fn earlies(g: &mut Gen, wait: f64, k: usize) -> Vec<Wake> {
    let mut left = (wait * 64.0) as i64;
    (0..k)
        .map(|_| {
            let m = g.int(1, (left / 2).max(1));
            left -= m;
            Wake::Early {
                moved: F64(m as f64 / 64.0),
            }
        })
        .collect()
}

/// Between `lo` and `hi` early wake-ups, as [`earlies`].
fn some_earlies(g: &mut Gen, wait: f64, lo: i64, hi: i64) -> Vec<Wake> {
    let k = g.int(lo, hi) as usize;
    earlies(g, wait, k)
}

/// A wake that reaches the target before the deadline (`margin` after it).
fn reaching(g: &mut Gen, margin: f64) -> Wake {
    if g.chance(1, 2) {
        Wake::Exact
    } else {
        Wake::Late {
            over: F64(g.sixty_fourths(0, (margin * 64.0) as i64 - 1)),
        }
    }
}

/// Any wake at all, for random scripts.
fn any_wake(g: &mut Gen) -> Wake {
    match g.below(6) {
        0 => Wake::Exact,
        1 => Wake::Early {
            moved: F64(g.sixty_fourths(1, 64 * 4)),
        },
        2 => Wake::Frozen,
        3 => Wake::Late {
            over: F64(g.sixty_fourths(0, 64 * 8)),
        },
        4 => Wake::Back {
            by: F64(g.sixty_fourths(1, 64 * 4)),
        },
        _ => Wake::Reads {
            t: F64(*g.pick(&NON_FINITE)),
        },
    }
}

fn any_wakes(g: &mut Gen) -> Vec<Wake> {
    (0..g.int(0, 5)).map(|_| any_wake(g)).collect()
}

/// The generated scripts, clause by clause (random ones included; the
/// caller drops any the model calls ambiguous).
pub fn generated(g: &mut Gen) -> Vec<(&'static str, Script)> {
    let mut out = Vec::new();
    for _ in 0..16 {
        // invalid-arguments: a bad wait or a bad deadline, a finite start.
        let (start, wait, deadline, _) = frame(g, 1);
        let cancel = if g.chance(1, 2) {
            None
        } else {
            Some(g.int(1, 4) as u32)
        };
        let s = if g.chance(1, 2) {
            let bad = if g.chance(1, 2) {
                *g.pick(&BAD_WAITS)
            } else {
                g.sixty_fourths(-64 * 64, -1)
            };
            script(bad, deadline, start, any_wakes(g), cancel)
        } else {
            script(wait, *g.pick(&NON_FINITE), start, any_wakes(g), cancel)
        };
        out.push(("invalid-arguments", s));

        // zero-wait: returns at once, ok before the deadline.
        let start = g.sixty_fourths(0, 64 * 1000);
        let zero = if g.chance(1, 2) { 0.0 } else { -0.0 };
        let deadline = start
            + if g.chance(3, 4) {
                g.sixty_fourths(1, 64 * 16)
            } else {
                g.sixty_fourths(-64 * 4, 0)
            };
        out.push((
            "zero-wait",
            script(zero, deadline, start, any_wakes(g), None),
        ));

        // target-beyond-deadline: not slept at all; or just in time.
        let (start, wait, _, _) = frame(g, 1);
        let s = if g.chance(1, 4) {
            script(wait, start + wait + 0.015625, start, vec![], None)
        } else {
            let deadline = start + wait - g.sixty_fourths(0, 64 * 32);
            script(wait, deadline, start, any_wakes(g), None)
        };
        out.push(("target-beyond-deadline", s));

        // fixed-target: two or three early wake-ups, then the target.
        let (start, wait, deadline, margin) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 2, 3);
        wakes.push(reaching(g, margin));
        out.push(("fixed-target", script(wait, deadline, start, wakes, None)));

        // early-wake-up: one early wake-up, then the target.
        let (start, wait, deadline, margin) = frame(g, 2);
        let mut wakes = earlies(g, wait, 1);
        wakes.push(reaching(g, margin));
        out.push(("early-wake-up", script(wait, deadline, start, wakes, None)));

        // too-many-wake-ups: four early ones, or three and the target.
        let (start, wait, deadline, margin) = frame(g, 64);
        let wakes = if g.chance(1, 2) {
            earlies(g, wait, 4)
        } else {
            let mut w = earlies(g, wait, 3);
            w.push(reaching(g, margin));
            w
        };
        out.push((
            "too-many-wake-ups",
            script(wait, deadline, start, wakes, None),
        ));

        // no-progress: a frozen clock at sleep 1, 2 or 3.
        let (start, wait, deadline, _) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, 2);
        wakes.push(Wake::Frozen);
        out.push(("no-progress", script(wait, deadline, start, wakes, None)));

        // clock-backwards: the clock goes back at sleep 1, 2 or 3.
        let (start, wait, deadline, _) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, 2);
        wakes.push(Wake::Back {
            by: F64(g.sixty_fourths(1, 64 * 8)),
        });
        out.push((
            "clock-backwards",
            script(wait, deadline, start, wakes, None),
        ));

        // non-finite: at the first reading, or after sleep 1, 2 or 3.
        let (start, wait, deadline, _) = frame(g, 64);
        let s = if g.chance(1, 3) {
            script(wait, deadline, *g.pick(&NON_FINITE), any_wakes(g), None)
        } else {
            let mut wakes = some_earlies(g, wait, 0, 2);
            wakes.push(Wake::Reads {
                t: F64(*g.pick(&NON_FINITE)),
            });
            script(wait, deadline, start, wakes, None)
        };
        out.push(("non-finite", s));

        // deadline: a sleep (1st to 4th) that ends at or past the deadline.
        let (start, wait, deadline, margin) = frame(g, 64);
        let mut wakes = some_earlies(g, wait, 0, 3);
        let over = if g.chance(1, 4) {
            margin
        } else {
            margin + g.sixty_fourths(0, 64 * 8)
        };
        wakes.push(Wake::Late { over: F64(over) });
        out.push(("deadline", script(wait, deadline, start, wakes, None)));

        // cancel: visible from the start, or once sleep 1..4 has returned
        // (on a reading that is sound, before the deadline, and reaches the
        // target when it is the fourth).
        let (start, wait, deadline, margin) = frame(g, 64);
        let k = g.int(0, 4) as usize;
        let wakes = if k == 4 || (k > 0 && g.chance(1, 2)) {
            let mut w = earlies(g, wait, k - 1);
            w.push(reaching(g, margin));
            w
        } else {
            earlies(g, wait, k)
        };
        let zero = k == 0 && g.chance(1, 3);
        let s = script(
            if zero { 0.0 } else { wait },
            deadline,
            start,
            wakes,
            Some(k as u32),
        );
        out.push(("cancel", s));
    }
    for _ in 0..150 {
        let start = if g.chance(1, 20) {
            *g.pick(&NON_FINITE)
        } else {
            g.sixty_fourths(0, 64 * 1000)
        };
        let wait = if g.chance(1, 10) {
            *g.pick(&BAD_WAITS)
        } else {
            g.sixty_fourths(0, 64 * 16)
        };
        let base = if start.is_finite() { start } else { 0.0 };
        let deadline = if g.chance(1, 20) {
            *g.pick(&NON_FINITE)
        } else {
            base + g.sixty_fourths(-64 * 2, 64 * 24)
        };
        let cancel = if g.chance(3, 5) {
            None
        } else {
            Some(g.int(0, 5) as u32)
        };
        out.push((
            "random",
            script(wait, deadline, start, any_wakes(g), cancel),
        ));
    }
    out
}

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "invalid-arguments",
        "zero-wait",
        "target-beyond-deadline",
        "fixed-target",
        "early-wake-up",
        "too-many-wake-ups",
        "no-progress",
        "clock-backwards",
        "non-finite",
        "deadline",
        "cancel",
        "random",
    ];
    let mut b = Builder::new(STEP, &keys);
    for case in fixture::table(STEP) {
        let (s, expect) = from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    for (key, s) in generated(g) {
        let m = model(&s);
        if !m.ambiguous {
            b.add_script(key, &s, m.observed);
        }
    }
    b
}

impl Observable for Observed {
    /// The requested sleeps (floats with `==`: NaN never matches, -0.0
    /// equals 0.0) and the result; the clock readings are shown, never judged.
    fn same(&self, got: &Self) -> bool {
        self.result == got.result
            && self.sleeps.len() == got.sleeps.len()
            && self
                .sleeps
                .iter()
                .zip(&got.sleeps)
                .all(|(a, b)| a.asked.0 == b.asked.0)
    }

    /// A timeline: the first reading, each sleep requested → the clock
    /// after it, then the result.
    fn show(&self) -> String {
        let mut lines = vec![format!("clock {}", float(self.start.0))];
        for s in &self.sleeps {
            lines.push(format!(
                "sleep({}) → clock {}",
                float(s.asked.0),
                float(s.after.0)
            ));
        }
        lines.push(ending_text(self.result).into());
        lines.join("\n")
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn wake_text(w: Wake) -> String {
    match w {
        Wake::Exact => "clock.advance(s)".into(),
        Wake::Early { moved } => format!("clock.advance({})", float(moved.0)),
        Wake::Frozen => "{} // the clock does not move".into(),
        Wake::Late { over } => format!("clock.advance(s + {})", float(over.0)),
        Wake::Back { by } => format!("clock.advance(-{})", float(by.0)),
        Wake::Reads { t } => format!("clock.set({})", float(t.0)),
    }
}

/// The script as Rust-like lines: the clock, what each `sleep(s)` does to
/// it, the cancel flag, and the call.
pub fn show_input(input: &Value) -> String {
    let Some(s) = super::read::<Script>(input) else {
        return input.to_string();
    };
    let mut lines = vec![
        format!("let clock = ManualClock::new({});", float(s.start.0)),
        "// sleeper.sleep(s) moves the clock (sleeps of zero are ignored):".into(),
    ];
    for (i, w) in s.wakes.iter().enumerate() {
        lines.push(format!("//   {} sleep: {}", ordinal(i + 1), wake_text(*w)));
    }
    lines.push(if s.wakes.is_empty() {
        "//   every sleep: clock.advance(s)".into()
    } else {
        "//   later sleeps: clock.advance(s)".into()
    });
    lines.push(match s.cancel_after_sleeps {
        None => "// cancel.is_cancelled(): always false".into(),
        Some(0) => "// cancel.is_cancelled(): true from the start".into(),
        Some(k) => format!(
            "// cancel.is_cancelled(): true once {k} sleep{} returned",
            if k == 1 { " has" } else { "s have" }
        ),
    });
    lines.push(format!(
        "sleep_at_least({}, {}, &clock, &mut sleeper, &cancel)",
        float(s.wait.0),
        float(s.deadline.0)
    ));
    lines.join("\n")
}

fn ending_text(e: Ending) -> &'static str {
    match e {
        Ending::Ok => "Ok(())",
        Ending::InvalidArgument => "Err(SleepFault::InvalidArgument)",
        Ending::NonFiniteReading => "Err(SleepFault::NonFiniteReading)",
        Ending::ClockWentBackwards => "Err(SleepFault::ClockWentBackwards)",
        Ending::Cancelled => "Err(SleepFault::Cancelled)",
        Ending::DeadlineReached => "Err(SleepFault::DeadlineReached)",
        Ending::NoProgress => "Err(SleepFault::NoProgress)",
        Ending::TooManyWakeUps => "Err(SleepFault::TooManyWakeUps)",
    }
}

/// Step 12 in the registry.
pub struct ThisStep;

impl super::Step for ThisStep {
    fn build(&self, g: &mut Gen) -> Builder {
        build(g)
    }
    fn show_call(&self, call: &lab_wire::Call) -> String {
        match call {
            lab_wire::Call::Advanced { input, .. } => show_input(input),
            other => format!("{other:?}"),
        }
    }
    fn show_json(&self, value: &serde_json::Value) -> String {
        show_answer::<Observed>(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json<T: serde::Serialize>(x: &T) -> Value {
        serde_json::to_value(x).unwrap()
    }

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (s, expect) = from_table(&case);
            let m = model(&s);
            assert!(!m.ambiguous, "an ambiguous table case: {case}");
            assert!(expect.same(&m.observed), "{case}");
            assert_eq!(json(&expect), json(&m.observed), "readings: {case}");
        }
    }

    #[test]
    fn targeted_scripts_are_never_ambiguous_and_hit_their_clause() {
        for seed in 0..200 {
            let mut g = Gen::new(seed);
            for (key, s) in generated(&mut g) {
                let m = model(&s);
                if key == "random" {
                    continue;
                }
                assert!(!m.ambiguous, "{key}: {s:?}");
                let r = m.observed.result;
                let fits = match key {
                    "invalid-arguments" => r == Ending::InvalidArgument,
                    "zero-wait" => {
                        m.observed.sleeps.is_empty()
                            && matches!(r, Ending::Ok | Ending::DeadlineReached)
                    }
                    "target-beyond-deadline" => {
                        (r == Ending::DeadlineReached && m.observed.sleeps.is_empty())
                            || (r == Ending::Ok && m.observed.sleeps.len() == 1)
                    }
                    "fixed-target" => r == Ending::Ok && m.observed.sleeps.len() >= 3,
                    "early-wake-up" => r == Ending::Ok && m.observed.sleeps.len() == 2,
                    "too-many-wake-ups" => {
                        m.observed.sleeps.len() == LIMIT
                            && matches!(r, Ending::Ok | Ending::TooManyWakeUps)
                    }
                    "no-progress" => r == Ending::NoProgress,
                    "clock-backwards" => r == Ending::ClockWentBackwards,
                    "non-finite" => r == Ending::NonFiniteReading,
                    "deadline" => r == Ending::DeadlineReached && !m.observed.sleeps.is_empty(),
                    "cancel" => r == Ending::Cancelled,
                    _ => false,
                };
                assert!(fits, "{key} gave {r:?}: {s:?}");
            }
        }
    }

    #[test]
    fn every_clause_gets_generated_cases_and_random_ones_mostly_survive() {
        let mut g = Gen::new(7);
        let all = generated(&mut g);
        let kept = all
            .iter()
            .filter(|(k, s)| *k == "random" && !model(s).ambiguous)
            .count();
        assert!(kept >= 100, "only {kept} random scripts kept");
    }

    #[test]
    fn restarting_from_the_full_wait_is_told_apart() {
        let s = script(
            1.0,
            20.0,
            10.0,
            vec![
                Wake::Early { moved: F64(0.5) },
                Wake::Early { moved: F64(0.25) },
            ],
            None,
        );
        let expect = model(&s).observed;
        let restart = Observed {
            start: F64(10.0),
            sleeps: vec![
                Slept {
                    asked: F64(1.0),
                    after: F64(10.5),
                },
                Slept {
                    asked: F64(1.0),
                    after: F64(10.75),
                },
            ],
            result: Ending::Ok,
        };
        assert!(!expect.same(&restart));
        assert!(expect.same(&expect));
    }

    #[test]
    fn an_oversleep_past_the_deadline_is_not_ok() {
        let s = script(1.0, 13.0, 10.0, vec![Wake::Late { over: F64(5.0) }], None);
        let m = model(&s);
        assert_eq!(m.observed.result, Ending::DeadlineReached);
        let mut ok = m.observed.clone();
        ok.result = Ending::Ok;
        assert!(!m.observed.same(&ok));
    }

    #[test]
    fn the_timeline_reads_well() {
        let s = script(
            1.0,
            20.0,
            10.0,
            vec![Wake::Early { moved: F64(0.25) }],
            None,
        );
        let text = model(&s).observed.show();
        assert_eq!(
            text,
            "clock 10.0\nsleep(1.0) → clock 10.25\nsleep(0.75) → clock 11.0\nOk(())"
        );
        let input = show_input(&json(&s));
        assert!(input.contains("1st sleep: clock.advance(0.25)"), "{input}");
        assert!(input.contains("sleep_at_least(1.0, 20.0,"), "{input}");
    }
}
