//! Unit tests of `learner`: `show`, `hint`, `status`, `watch` and `reset`.

use super::*;

const SOURCE: &str = "pub use x::*;\n\n/// Doc.\n/// More.\npub fn a(s: &str) -> bool {\n    let c = '}';\n    let t = \"}{\";\n    // }\n    /* { */\n    if s.is_empty() { return true; }\n    false\n}\n\npub fn b<'a>(x: &'a str) -> &'a str {\n    x\n}\n";

/// A kit root in a temporary directory with the real stubs and
/// `advanced` as the learner's advanced.rs.
fn kit_with_advanced(advanced: &str) -> tempfile::TempDir {
    let kit = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::create_dir_all(kit.path().join("fixtures/pristine")).unwrap();
    std::fs::create_dir_all(kit.path().join("student/src")).unwrap();
    std::fs::copy(
        repo.join("fixtures/pristine/advanced.rs"),
        kit.path().join("fixtures/pristine/advanced.rs"),
    )
    .unwrap();
    std::fs::write(kit.path().join("student/src/advanced.rs"), advanced).unwrap();
    kit
}

fn reference() -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(repo.join("solutions/advanced.rs")).unwrap()
}

#[test]
fn resetting_a_section_keeps_the_helpers_other_sections_call() {
    // Step 11 grows a private helper and a type of its own; step 12
    // calls the helper.
    let file = reference()
            .replacen(
                "// ===== step 12:",
                "/// Seconds from `now` to `deadline`.\nfn time_left(deadline: f64, now: f64) -> f64 {\n    Span(deadline - now).0\n}\n\nstruct Span(f64);\n\n// ===== step 12:",
                1,
            )
            .replacen(
                "sleeper.sleep(target - now);",
                "sleeper.sleep(time_left(target, now));",
                1,
            );
    let kit = kit_with_advanced(&file);
    assert_eq!(reset_section(kit.path(), "11"), status::PASSED);
    let after = std::fs::read_to_string(kit.path().join("student/src/advanced.rs")).unwrap();
    let eleven = crate::sections::section(&after, "11").unwrap();
    let stubs = crate::sections::section(&pristine_advanced(kit.path()).unwrap(), "11").unwrap();
    assert!(eleven.starts_with(stubs.trim_end()), "{eleven}");
    assert!(
        eleven.contains("fn time_left(deadline: f64, now: f64) -> f64 {"),
        "{eleven}"
    );
    assert!(eleven.contains("struct Span(f64);"), "{eleven}");
    assert!(
        eleven.contains("/// Seconds from `now` to `deadline`."),
        "{eleven}"
    );
    // What nothing else uses goes, as before.
    assert!(!eleven.contains("if wait + reserve <= left"), "{eleven}");
    // The rest of the file is untouched.
    for other in ["09", "10", "12", "13"] {
        assert_eq!(
            crate::sections::section(&after, other),
            crate::sections::section(&file, other)
        );
    }
}

#[test]
fn a_reset_that_would_break_another_section_changes_nothing() {
    // Step 12 calls a method step 09 added to its own Deadline, which
    // the stubs replace.
    let file = reference()
            .replacen(
                "    /// True once nothing remains",
                "    pub fn at(&self) -> f64 {\n        self.deadline\n    }\n\n    /// True once nothing remains",
                1,
            )
            .replacen(
                "// ===== step 13:",
                "fn _uses_at(d: &Deadline) -> f64 {\n    d.at()\n}\n\n// ===== step 13:",
                1,
            );
    let kit = kit_with_advanced(&file);
    assert_eq!(reset_section(kit.path(), "09"), status::USAGE);
    let after = std::fs::read_to_string(kit.path().join("student/src/advanced.rs")).unwrap();
    assert_eq!(after, file);
}

#[test]
fn reset_advanced_replaces_work_only_when_forced() {
    let kit = kit_with_advanced(&reference());
    let file = kit.path().join("student/src/advanced.rs");
    assert_eq!(reset_advanced(kit.path(), false), status::USAGE);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), reference());
    assert_eq!(reset_advanced(kit.path(), true), status::PASSED);
    let stubs = pristine_advanced(kit.path()).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stubs);
    // The stubs themselves, or no file at all: nothing to lose.
    assert_eq!(reset_advanced(kit.path(), false), status::PASSED);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(reset_advanced(kit.path(), false), status::PASSED);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stubs);
}

#[test]
fn reset_all_says_it_resets_lib_rs_only() {
    let all = crate::suites::tr_steps("reset.all", &[]);
    assert!(
        all.contains("lib.rs") && all.contains("advanced.rs"),
        "{all}"
    );
    assert!(!all.contains("every step"), "{all}");
}

#[test]
fn watch_moves_on_to_the_next_step_not_passed_wrapping_round() {
    let mut st = State::default();
    for (step, last) in [("01", "passed"), ("02", "failing"), ("03", "passed")] {
        st.steps.entry(step.into()).or_default().last = Some(last.into());
    }
    assert_eq!(next_unfinished(&st, false, None), Some("02"));
    assert_eq!(next_unfinished(&st, false, Some("02")), Some("04"));
    let core = suites::core_ids();
    for step in &core {
        st.steps.entry(step.to_string()).or_default().last = Some("passed".into());
    }
    st.steps.get_mut("02").unwrap().last = Some("failing".into());
    let last = *core.last().unwrap();
    assert_eq!(next_unfinished(&st, false, Some(last)), Some("02"));
    st.steps.get_mut("02").unwrap().last = Some("passed".into());
    assert_eq!(next_unfinished(&st, false, Some(last)), None);
    let first_advanced = suites::advanced_ids()[0];
    assert_eq!(next_unfinished(&st, true, Some(last)), Some(first_advanced));
}

#[test]
fn the_last_hint_names_the_step_to_show() {
    let last = hint_footer("04", 3, 3, false);
    assert!(last.contains("./lab.sh show 04"), "{last}");
    assert!(!last.contains(" N)"), "{last}");
    let more = hint_footer("04", 1, 3, false);
    assert!(more.contains("./lab.sh hint 04"), "{more}");
    // In watch, the footer names the key, not a command.
    let key = hint_footer("04", 1, 3, true);
    assert!(
        key.contains("press h") && !key.contains("./lab.sh"),
        "{key}"
    );
}

#[test]
fn a_function_span_covers_docs_and_body_and_skips_braces_in_literals() {
    let (s, e) = fn_span(SOURCE, "a").unwrap();
    assert!(SOURCE[s..].starts_with("/// Doc."));
    assert!(SOURCE[..e].ends_with("false\n}"));
    let (s, e) = fn_span(SOURCE, "b").unwrap();
    assert_eq!(
        &SOURCE[s..e],
        "pub fn b<'a>(x: &'a str) -> &'a str {\n    x\n}"
    );
    assert_eq!(fn_span(SOURCE, "c"), None);
}

#[test]
fn every_stub_is_found_in_the_pristine_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pristine = std::fs::read_to_string(root.join("fixtures/pristine/lib.rs")).unwrap();
    for (_, f) in suites::track(Track::Core) {
        let (s, e) = fn_span(&pristine, f).unwrap_or_else(|| panic!("{f}"));
        assert!(pristine[s..e].contains("todo!("), "{f}");
    }
}

#[test]
fn hints_are_split_on_rule_lines() {
    assert_eq!(
        hints("one\n---\ntwo\n---\n\nthree\n"),
        ["one", "two", "three"]
    );
}

#[test]
fn status_says_when_and_whether_the_file_changed() {
    let mut st = State::default();
    let e = st.steps.entry("02".into()).or_default();
    e.last = Some("passed".into());
    e.checked_at = Some(1_000);
    e.source_hash = Some("abc".into());
    let lines = status_lines(&st, "abc", None, 1_000 + 180);
    let core = suites::core_ids().len();
    assert_eq!(lines.len(), core);
    let advanced = status_lines(&st, "abc", Some("def"), 1_000 + 180);
    assert_eq!(advanced.len(), suites::REGISTRY.len());
    let first = &suites::REGISTRY[core];
    assert!(advanced[core].starts_with(&format!("{} {}", first.id, first.items)));
    assert!(
        lines[1].contains("passed") && lines[1].contains("3 min") && !lines[1].contains("changed"),
        "{}",
        lines[1]
    );
    assert!(status_lines(&st, "xyz", None, 1_180)[1].contains("changed"));
    assert!(lines[0].contains("not started"));
    // Every verdict starts in the same column, advanced steps included.
    let column = |l: &String| {
        let word = ["passed", "failing", "not started"]
            .iter()
            .find_map(|w| l.find(w))
            .expect("a verdict");
        crate::render::display_width(&l[..word])
    };
    let columns: Vec<usize> = advanced.iter().map(column).collect();
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{advanced:#?}");
    // An advanced step names its own file when that file changed.
    let first_advanced = first.id.to_string();
    let e = st.steps.entry(first_advanced).or_default();
    e.last = Some("failing".into());
    e.checked_at = Some(1_000);
    e.source_hash = Some("old".into());
    let advanced = status_lines(&st, "abc", Some("def"), 1_000 + 180);
    assert!(
        advanced[core].contains("student/src/advanced.rs changed"),
        "{}",
        advanced[core]
    );
}
