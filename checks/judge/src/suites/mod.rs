//! The steps' registry and their contract suites. A suite is a list of
//! clauses (one trial each);
//! a clause is a list of checks: the hand-written table's cases first, then
//! the generated ones, so the smallest failing input is shown first.
//!
//! Each step lives in one folder, `suites/sNN/`: its model (Rust) and all
//! of its data (see [`Entry::dir`]).

pub(crate) mod fixture;

use crate::rng::Gen;
use lab_wire::{Call, Ending, Event, Live};
use std::sync::Arc;

/// Which of the learner's files a step lives in, and how it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Track {
    /// Steps of `student/src/lib.rs`, scored.
    Core,
    /// Bonus steps of `student/src/advanced.rs`, checked once that file exists.
    Advanced,
}

impl Track {
    /// The learner's file the track's steps live in.
    pub fn file(self) -> &'static str {
        match self {
            Track::Core => "student/src/lib.rs",
            Track::Advanced => "student/src/advanced.rs",
        }
    }
}

/// One step of the lab: what the judge checks of it, and how it shows a
/// case to a learner. Each step's folder implements it; [`REGISTRY`] lists
/// them. Rendering, verdicts and shrinking reach a step only through here.
pub trait Step: Sync {
    /// The step's clauses and checks for one run: the hand-written table's
    /// cases first, then the generated ones. `step` is the step's number,
    /// from its registry line.
    fn build(&self, step: &'static str, g: &mut Gen) -> Builder;
    /// A call of this step as the learner reads it (Rust source; an
    /// advanced script may take several lines).
    fn show_call(&self, call: &Call) -> String;
    /// An advanced step: a runner's answer, as the learner reads it (see
    /// [`show_answer`]).
    fn show_json(&self, value: &serde_json::Value) -> String {
        value.to_string()
    }
    /// Simpler calls to try in place of a failing generated one, each
    /// differing in one argument (none: shown as generated).
    fn shrink(&self, _call: &Call) -> Vec<Call> {
        Vec::new()
    }
    /// The clause whose rule decides this call (its key without the step,
    /// e.g. `attempt-above-30`): the special case a call falls in, else the
    /// step's general rule. Every check of a named clause lies in that
    /// clause's domain (tested below), and a shrink never leaves the domain
    /// of the input it started from, so a failure reads under the rule that
    /// explains it. `None`: the step does not classify its calls.
    fn domain(&self, _call: &Call) -> Option<&'static str> {
        None
    }
    /// What the oracle expects of a call that [`Step::shrink`] made.
    fn expect(&self, _call: &Call) -> Option<Expect> {
        None
    }
    /// The times of a timeline's expected events, for steps that have one.
    fn times(&self, _call: &Call) -> Vec<f64> {
        Vec::new()
    }
    /// Whether the step plays scripted worlds (a retry loop against a fake
    /// clock, transport or suppliers), where one mistake fails many clauses
    /// at once; the console then tells it as one story.
    fn scripted_world(&self) -> bool {
        false
    }
}

/// Where the steps' folders are, from the kit's root.
pub const SUITES: &str = "checks/judge/src/suites";

/// A registered step: its number, the learner items it checks, its track,
/// its code, its live demonstration if it has one, its folder, and the
/// data files of it that the judge embeds at build time.
pub struct Entry {
    pub id: &'static str,
    pub items: &'static str,
    pub track: Track,
    pub step: &'static dyn Step,
    /// What `lab.sh try NN` shows of the step, if anything.
    pub live: Option<Live>,
    /// The step's folder under [`SUITES`] (its module's name, `sNN`).
    pub folder: &'static str,
    /// `cases.json` of the step's folder: the hand-written table.
    pub table: &'static str,
    /// `words.{en,zh}.json` of the step's folder: the step's words (clause
    /// names…), merged into the catalogs.
    pub words: [&'static str; 2],
}

impl Entry {
    /// The step's folder, from the kit's root (`checks/judge/src/suites/sNN`):
    /// its model, and every file of its own. Embedded at build time:
    /// `cases.json` (the hand table) and `words.{en,zh}.json`. Read at run
    /// time: `text.{en,zh}.md` and `hints.{en,zh}.md` (`show`, `hint`), and,
    /// by the maintainers' self-test only, `mutants/` (wrong solutions that
    /// must fail) and `alternatives/` (an advanced step's correct ones that
    /// must pass), which a handout leaves out.
    pub fn dir(&self) -> String {
        format!("{SUITES}/{}", self.folder)
    }
}

/// The file of a step's folder holding its text (`"text"`) or its hints
/// (`"hints"`) in the language whose code is `lang` (`en`, `zh`).
pub fn text_file(kind: &str, lang: &str) -> String {
    format!("{kind}.{lang}.md")
}

/// The `ThisStep` of a core step's folder: `build(step, g)` in its `mod.rs`
/// (`step` from the registry), how a call reads in `view::show_call`; with
/// `shrinks`, also `view::shrink` and `view::expect`; with `domains`,
/// `view::domain` (see [`Step::domain`]); with `times`, `view::times` (a
/// timeline's event times).
macro_rules! core_step {
    ($($what:ident),*) => {
        /// This step in the registry.
        pub struct ThisStep;

        impl super::Step for ThisStep {
            fn build(&self, step: &'static str, g: &mut crate::rng::Gen) -> super::Builder {
                build(step, g)
            }
            fn show_call(&self, call: &lab_wire::Call) -> String {
                view::show_call(call)
            }
            $(core_step!(@$what);)*
        }
    };
    (@shrinks) => {
        fn shrink(&self, call: &lab_wire::Call) -> Vec<lab_wire::Call> {
            view::shrink(call)
        }
        fn expect(&self, call: &lab_wire::Call) -> Option<super::Expect> {
            view::expect(call)
        }
    };
    (@domains) => {
        fn domain(&self, call: &lab_wire::Call) -> Option<&'static str> {
            view::domain(call)
        }
    };
    (@times) => {
        fn times(&self, call: &lab_wire::Call) -> Vec<f64> {
            view::times(call)
        }
        fn scripted_world(&self) -> bool {
            true
        }
    };
}

/// The `ThisStep` of an advanced step's folder: `build(step, g)` in its
/// `mod.rs` (`step` from the registry), a script read by `view::show_input`,
/// and the runner's answers read as `$observed` (the step's [`Observable`]
/// type).
/// `advanced_step!(Observed, world)` marks a step that plays scripted
/// worlds ([`Step::scripted_world`]).
macro_rules! advanced_step {
    ($observed:ty $(, $world:ident)?) => {
        /// This step in the registry.
        pub struct ThisStep;

        impl super::Step for ThisStep {
            fn build(&self, step: &'static str, g: &mut crate::rng::Gen) -> super::Builder {
                build(step, g)
            }
            fn show_call(&self, call: &lab_wire::Call) -> String {
                match call {
                    lab_wire::Call::Advanced { input, .. } => view::show_input(input),
                    other => format!("{other:?}"),
                }
            }
            fn show_json(&self, value: &serde_json::Value) -> String {
                super::show_answer::<$observed>(value)
            }
            $(
                fn scripted_world(&self) -> bool {
                    stringify!($world) == "world"
                }
            )?
        }
    };
}

/// One registry line: `(id, items, track, module)`, or
/// `(id, items, track, module, live: Mode)` for a step with a demonstration
/// (`lab.sh try`; `Mode` a variant of [`Live`]). The module is the step's
/// folder, `suites/sNN/`, whose `ThisStep` implements [`Step`] and whose
/// `cases.json` and `words.{en,zh}.json` the line embeds (a missing one
/// fails the build); its `build` gets `id` from here, and its tests read it
/// as `ThisStep::ID`.
macro_rules! steps {
    (@live) => { None };
    (@live $live:ident) => { Some(Live::$live) };
    ($(($id:literal, $items:literal, $track:ident, $module:ident $(, live: $live:ident)?),)*) => {
        $(
            mod $module;
            // Not every step's tests need it.
            #[cfg(test)]
            #[allow(dead_code)]
            impl $module::ThisStep {
                /// The step's number, from its registry line, for its tests.
                pub const ID: &'static str = $id;
            }
        )*
        /// Every step of the lab, in order. Nothing else in the judge names
        /// a step, counts them or writes a range of them.
        pub static REGISTRY: &[Entry] = &[$(Entry {
            id: $id,
            items: $items,
            track: Track::$track,
            step: &$module::ThisStep,
            live: steps!(@live $($live)?),
            folder: stringify!($module),
            table: include_str!(concat!(stringify!($module), "/cases.json")),
            words: [
                include_str!(concat!(stringify!($module), "/words.en.json")),
                include_str!(concat!(stringify!($module), "/words.zh.json")),
            ],
        },)*];
    };
}

steps! {
    ("01", "retryable", Core, s01),
    ("02", "replay_safe", Core, s02),
    ("03", "remaining", Core, s03),
    ("04", "backoff", Core, s04),
    ("05", "jitter", Core, s05),
    ("06", "wait_delay", Core, s06),
    ("07", "can_attempt", Core, s07),
    ("08", "execute", Core, s08, live: Execute),
    ("09", "Deadline", Advanced, s09),
    ("10", "parse_retry_after", Advanced, s10),
    ("11", "admit, execute_admitted", Advanced, s11, live: Admitted),
    ("12", "sleep_at_least, guarded_read", Advanced, s12),
    ("13", "Gate, fan_out, to_http", Advanced, s13, live: QuoteFlow),
}

/// The registered step `id`; an id that is not registered is a kit bug
/// (every id comes from [`parse_step`] or the registry itself).
pub fn entry(id: &str) -> &'static Entry {
    find(id).unwrap_or_else(|| panic!("step {id} is not registered"))
}

/// The registered step `id`, if there is one.
pub fn find(id: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.id == id)
}

/// The code of step `id`.
pub fn step(id: &str) -> &'static dyn Step {
    entry(id).step
}

/// The steps of one track, with the learner items each checks.
pub fn track(track: Track) -> impl Iterator<Item = (&'static str, &'static str)> {
    REGISTRY
        .iter()
        .filter(move |e| e.track == track)
        .map(|e| (e.id, e.items))
}

/// The steps that have a live demonstration (`lab.sh try`), in order; the
/// first is the one `try` shows when no step is named.
pub fn live_ids() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|e| e.live.is_some())
        .map(|e| e.id)
        .collect()
}

/// The core steps' numbers, in order.
pub fn core_ids() -> Vec<&'static str> {
    track(Track::Core).map(|(s, _)| s).collect()
}

/// The advanced steps' numbers, in order.
pub fn advanced_ids() -> Vec<&'static str> {
    track(Track::Advanced).map(|(s, _)| s).collect()
}

/// A track's steps as a range for a learner to read, such as "01–08".
pub fn range(t: Track) -> String {
    span(&track(t).map(|(s, _)| s).collect::<Vec<_>>())
}

/// Consecutive steps as a range: the first and the last, or the one.
pub fn span(steps: &[&str]) -> String {
    match (steps.first(), steps.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    }
}

/// The registry's figures that messages speak of: `core` and `advanced`
/// (ranges such as "01–08"), `first` and `last` (step numbers), `count`
/// (advanced steps) and `first_advanced` (as a learner types it: "9").
pub fn figures() -> Vec<(&'static str, String)> {
    let first = REGISTRY.first().map_or("", |e| e.id);
    let last = REGISTRY.last().map_or("", |e| e.id);
    let advanced = advanced_ids();
    let typed = advanced
        .first()
        .map_or(String::new(), |s| s.trim_start_matches('0').to_string());
    vec![
        ("core", range(Track::Core)),
        ("advanced", range(Track::Advanced)),
        ("first", first.to_string()),
        ("last", last.to_string()),
        ("count", advanced.len().to_string()),
        ("first_advanced", typed),
    ]
}

/// The message `key` with the registry's [`figures`] and `args` filled in.
pub fn tr_steps(key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let figures = figures();
    let mut all: Vec<(&str, &dyn std::fmt::Display)> = args.to_vec();
    all.extend(
        figures
            .iter()
            .map(|(k, v)| (*k, v as &dyn std::fmt::Display)),
    );
    crate::catalog::tr(key, &all)
}

/// Every step's words in `lang` (0: English, 1: Chinese), for the catalog.
pub fn words(lang: usize) -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.words[lang]).collect()
}

pub fn is_advanced(step: &str) -> bool {
    find(step).is_some_and(|e| e.track == Track::Advanced)
}

/// Every step, core then advanced.
pub fn all_steps() -> impl Iterator<Item = (&'static str, &'static str)> {
    REGISTRY.iter().map(|e| (e.id, e.items))
}

/// The learner items a step checks, as shown in trial names.
pub fn function_of(step: &str) -> &'static str {
    find(step).map_or("?", |e| e.items)
}

/// The learner's file a step lives in.
pub fn file_of(step: &str) -> &'static str {
    entry(step).track.file()
}

/// What the judge expects of one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Bool(bool),
    /// Compared with `==`: -0.0 equals 0.0, NaN equals nothing.
    Float(f64),
    /// Any value at least 2^53 (a huge Retry-After).
    Huge,
    /// `Ok(x)` or, for `None`, `Err(InvalidArgument)`.
    Checked(Option<f64>),
    /// The ending boxed, so that every expectation (step 01 holds tens of
    /// thousands) stays small.
    Trace {
        events: Vec<Event>,
        ending: Box<Ending>,
        /// Whether each send's timeout is judged (not in `final-response`,
        /// whose rule is the response alone: the timeouts are
        /// `exact-timeouts`').
        timeouts: bool,
    },
    /// What an advanced step's script must observe, in the step's own type.
    Script(Arc<dyn Expectation>),
}

/// An advanced step's observation type: how an expected one compares with
/// a runner's answer, and how one reads. Expectations keep this type from
/// the model to the verdict; JSON is only the runner's answer, read once.
pub trait Observable:
    serde::de::DeserializeOwned + std::fmt::Debug + Send + Sync + 'static
{
    /// Whether `got` is this expected observation.
    fn same(&self, got: &Self) -> bool;
    /// As the learner reads it.
    fn show(&self) -> String;
}

/// An [`Observable`] with its type erased, so that [`Expect`] is one type.
pub trait Expectation: std::fmt::Debug + Send + Sync {
    /// Whether the runner's answer, as it came over the wire, is this one.
    fn matches(&self, got: &serde_json::Value) -> bool;
    fn show(&self) -> String;
    /// The typed observation, for a step's own tests.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: Observable> Expectation for T {
    fn matches(&self, got: &serde_json::Value) -> bool {
        read::<T>(got).is_some_and(|g| self.same(&g))
    }
    fn show(&self) -> String {
        Observable::show(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl PartialEq for dyn Expectation {
    fn eq(&self, other: &Self) -> bool {
        self.show() == other.show()
    }
}

/// A runner's answer read as a step's observation type: the one place where
/// an advanced step's JSON becomes typed data.
pub fn read<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// A runner's answer as the learner reads it: through its type when it reads
/// as one, else as the JSON it is.
pub fn show_answer<T: Observable>(value: &serde_json::Value) -> String {
    read::<T>(value).map_or_else(|| value.to_string(), |o| o.show())
}

#[derive(Debug, Clone)]
pub struct Check {
    /// The step whose call this is.
    pub step: &'static str,
    pub call: Call,
    pub expect: Expect,
}

#[derive(Debug, Clone)]
pub struct Clause {
    /// Stable key such as `04/attempt-above-30`; its words live in the catalog.
    pub key: String,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone)]
pub struct Suite {
    pub step: &'static str,
    pub function: &'static str,
    pub clauses: Vec<Clause>,
}

/// Collects checks under their clause keys, keeping the declared order.
pub struct Builder {
    step: &'static str,
    clauses: Vec<Clause>,
}

impl Builder {
    pub fn new(step: &'static str, keys: &[&str]) -> Builder {
        let clauses = keys
            .iter()
            .map(|k| Clause {
                key: format!("{step}/{k}"),
                checks: Vec::new(),
            })
            .collect();
        Builder { step, clauses }
    }

    /// The step whose checks these are.
    pub fn step(&self) -> &'static str {
        self.step
    }

    /// Adds a check to a clause; an unknown key is a kit bug, caught by tests.
    pub fn add(&mut self, key: &str, call: Call, expect: Expect) {
        let full = format!("{}/{key}", self.step);
        match self.clauses.iter_mut().find(|c| c.key == full) {
            Some(clause) => clause.checks.push(Check {
                step: self.step,
                call,
                expect,
            }),
            None => panic!("clause {full} is not declared"),
        }
    }

    /// Adds a check of an advanced step: its script (typed, so it can only
    /// be one of this step's; serialised for the runner) and what the
    /// script must observe (kept in its type).
    pub fn add_script(
        &mut self,
        key: &str,
        script: &(impl Clone + Into<lab_scripts::Script>),
        expected: impl Observable,
    ) {
        let script: lab_scripts::Script = script.clone().into();
        assert_eq!(script.step(), self.step, "a script of another step");
        self.add(key, script.call(), Expect::Script(Arc::new(expected)));
    }

    /// Leaves the send timeouts of `key`'s timelines unjudged (see
    /// [`Expect::Trace`]).
    pub fn timeouts_unjudged(&mut self, key: &str) {
        let full = format!("{}/{key}", self.step);
        for clause in self.clauses.iter_mut().filter(|c| c.key == full) {
            for check in &mut clause.checks {
                if let Expect::Trace { timeouts, .. } = &mut check.expect {
                    *timeouts = false;
                }
            }
        }
    }

    fn finish(self, function: &'static str) -> Suite {
        Suite {
            step: self.step,
            function,
            clauses: self.clauses,
        }
    }
}

/// Normalises a step argument: "4", "04" → "04".
pub fn parse_step(text: &str) -> Option<&'static str> {
    let n: u8 = text.parse().ok()?;
    all_steps()
        .map(|(s, _)| s)
        .find(|s| s.parse::<u8>().ok() == Some(n))
}

/// How many of the hand-written table's cases each clause of `step` holds
/// (by key, `NN/clause`): a clause's checks begin with them, one per row.
/// Read once per step.
pub fn fixture_counts(step: &str) -> &'static std::collections::BTreeMap<String, usize> {
    type Counts = std::collections::BTreeMap<String, usize>;
    static COUNTS: std::sync::OnceLock<Vec<Counts>> = std::sync::OnceLock::new();
    let all = COUNTS.get_or_init(|| {
        REGISTRY
            .iter()
            .map(|e| {
                let mut counts = Counts::new();
                for case in fixture::table(e.id) {
                    *counts
                        .entry(format!("{}/{}", e.id, fixture::clause(&case)))
                        .or_default() += 1;
                }
                counts
            })
            .collect()
    });
    let at = REGISTRY
        .iter()
        .position(|e| e.id == step)
        .unwrap_or_else(|| panic!("step {step} is not registered"));
    &all[at]
}

/// Builds one step's suite for a run's seed.
pub fn build(step: &str, seed: u64) -> Suite {
    let entry = entry(step);
    let mut g = Gen::fork(seed, step);
    entry.step.build(entry.id, &mut g).finish(entry.items)
}

#[cfg(test)]
mod tests;
