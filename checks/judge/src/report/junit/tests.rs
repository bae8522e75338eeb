//! The JUnit file read back as its consumers read it: roxmltree (an
//! independent XML 1.0 parser) checks the elements and attributes Jenkins,
//! Surefire, GitLab and GitHub's reporters take from it, what the model says
//! they hold, and that hostile text stays text.

use super::super::snapshot::compare;
use super::super::test_support::{
    assert_capped, class, hostile_build, hostile_submission, long_message, long_submission,
    raw_hidden, HOSTILE, HOSTILE_SHOWN, NASTY, SEED,
};
use super::super::ClauseReport;
use super::*;
use crate::catalog::Lang;
use roxmltree::{Document, Node};

/// What `junit_xml` wrote, read back by roxmltree (an independent XML
/// 1.0 parser: one root, matching tags, known entities, no character
/// XML forbids), after the XML declaration.
fn read(xml: &str) -> Document<'_> {
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
        "no declaration in\n{xml}"
    );
    Document::parse(xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"))
}

fn kids<'a>(n: Node<'a, 'a>, name: &str) -> Vec<Node<'a, 'a>> {
    n.children().filter(|c| c.has_tag_name(name)).collect()
}

fn at<'a>(n: Node<'a, '_>, key: &str) -> &'a str {
    n.attribute(key)
        .unwrap_or_else(|| panic!("<{}> has no {key}", n.tag_name().name()))
}

/// An element's text, entities resolved.
fn text_of(n: Node) -> String {
    n.children().filter_map(|c| c.text()).collect()
}

fn counted(n: Node) -> (usize, usize, usize) {
    let count = |key| at(n, key).parse().unwrap();
    (count("tests"), count("failures"), count("errors"))
}

/// The elements the kit writes with the attributes Jenkins'
/// `junit-10.xsd` and Surefire's `surefire-test-report.xsd` both
/// declare for them, those both require marked `true`.
const ALLOWED: &[(&str, &[(&str, bool)])] = &[
    (
        "testsuites",
        &[
            ("name", true),
            ("tests", true),
            ("failures", true),
            ("errors", true),
            ("time", true),
        ],
    ),
    (
        "testsuite",
        &[
            ("name", true),
            ("tests", true),
            ("failures", true),
            ("errors", true),
            ("skipped", true),
            ("time", true),
        ],
    ),
    ("properties", &[]),
    ("property", &[("name", true), ("value", true)]),
    (
        "testcase",
        &[("name", true), ("classname", true), ("time", true)],
    ),
    ("failure", &[("message", true), ("type", true)]),
    ("error", &[("message", true), ("type", true)]),
    ("skipped", &[("message", true)]),
];

/// What a consumer needs of the document's shape: only the elements and
/// attributes above, every one they require, times with three decimals,
/// one `properties` first in a suite, at most one outcome in a case, and
/// no raw tab or line break in an attribute (a reader turns them into
/// spaces).
fn shaped(xml: &str) -> Result<(), String> {
    let doc = Document::parse(xml).map_err(|e| e.to_string())?;
    if doc.root_element().tag_name().name() != "testsuites" {
        return Err("the root is not <testsuites>".into());
    }
    for n in doc.descendants().filter(|n| n.is_element()) {
        let name = n.tag_name().name();
        let (_, attrs) = ALLOWED
            .iter()
            .find(|(e, _)| *e == name)
            .ok_or(format!("<{name}> is not expected"))?;
        for a in n.attributes() {
            if !attrs.iter().any(|(k, _)| *k == a.name()) {
                return Err(format!("<{name}> may not have {}", a.name()));
            }
            if xml[a.range_value()].contains(['\t', '\n', '\r']) {
                return Err(format!("raw white space in {}", &xml[a.range_value()]));
            }
        }
        if let Some((k, _)) = attrs
            .iter()
            .find(|(k, req)| *req && n.attribute(*k).is_none())
        {
            return Err(format!("<{name}> lacks {k}"));
        }
        if let Some(time) = n.attribute("time") {
            let (whole, decimals) = time.split_once('.').unwrap_or((time, ""));
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !(digits(whole) && digits(decimals) && decimals.len() == 3) {
                return Err(format!("<{name} time={time:?}>"));
            }
        }
        let elements: Vec<&str> = n
            .children()
            .filter(|c| c.is_element())
            .map(|c| c.tag_name().name())
            .collect();
        let properties = elements.iter().filter(|e| **e == "properties").count();
        if name == "testsuite" && (properties != 1 || elements[0] != "properties") {
            return Err("a suite's properties are not first and alone".into());
        }
        if name == "testcase" && elements.len() > 1 {
            return Err("a case with more than one outcome".into());
        }
    }
    Ok(())
}

/// (tests, failures, errors) the model says `clauses` amount to.
fn expected<'a>(clauses: impl Iterator<Item = &'a ClauseReport>) -> (usize, usize, usize) {
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for c in clauses {
        tests += 1;
        match c.status {
            ClauseStatus::Failed if c.fault.is_some_and(|f| f.is_runtime_error()) => errors += 1,
            ClauseStatus::Failed | ClauseStatus::NotImplemented => failures += 1,
            ClauseStatus::NotBuilt => errors += 1,
            ClauseStatus::Passed | ClauseStatus::NotAttempted => {}
        }
    }
    (tests, failures, errors)
}

/// `BOB` with the failed clause's first failing input panicking.
fn panicking() -> SubmissionReport {
    let mut bob = class().submissions[1].clone();
    bob.steps[1].clauses[1].fault = Some(FaultKind::Panicked);
    bob
}

/// Every kind of test case the file holds: the class, a long message,
/// a runtime error, and a submission that needs review.
fn every_kind() -> Vec<SubmissionReport> {
    let mut all = class().submissions;
    all.push(long_submission());
    all.push(panicking());
    let mut review = all[2].clone();
    review.build = Build::Error;
    review.review = Some("the runner reported a fault of the kit".into());
    all.push(review);
    all
}

#[test]
fn matches_the_snapshots() {
    let c = class();
    let out: Vec<String> = c.submissions.iter().map(|s| junit_xml(s, SEED)).collect();
    compare("src/report/snapshots/junit-alice.xml", &out[0]);
    compare("src/report/snapshots/junit-bob.xml", &out[1]);
    compare("src/report/snapshots/junit-carol.xml", &out[2]);
}

#[test]
fn consumers_read_what_the_model_says() {
    for s in &every_kind() {
        let xml = junit_xml(s, SEED);
        shaped(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
        // Steps that were not attempted are left out of the file.
        let s = &s.attempted();
        assert!(s.steps.len() < class().submissions[0].steps.len());
        let doc = read(&xml);
        let root = doc.root_element();
        assert_eq!(at(root, "name"), "retry-lab");
        assert_eq!(at(root, "time"), format!("{:.3}", s.seconds));
        let all = s.steps.iter().flat_map(|step| &step.clauses);
        assert_eq!(counted(root), expected(all));
        let suites = kids(root, "testsuite");
        assert_eq!(suites.len(), s.steps.len());
        for (suite, step) in suites.into_iter().zip(&s.steps) {
            let name = format!("{} {}", step.step, step.function);
            assert_eq!(at(suite, "name"), name);
            assert_eq!(counted(suite), expected(step.clauses.iter()));
            assert_eq!(at(suite, "skipped"), "0");
            assert_eq!(at(suite, "time"), format!("{:.3}", step.seconds));
            let props: Vec<(&str, &str)> = kids(kids(suite, "properties")[0], "property")
                .into_iter()
                .map(|p| (at(p, "name"), at(p, "value")))
                .collect();
            let mut want = vec![("seed", SEED), ("submission", s.name.as_str())];
            want.extend(step.mistake.as_deref().map(|id| ("mistake", id)));
            assert_eq!(props, want);
            let cases = kids(suite, "testcase");
            assert_eq!(cases.len(), step.clauses.len());
            for (case, clause) in cases.into_iter().zip(&step.clauses) {
                assert_eq!(at(case, "name"), clause.name);
                assert_eq!(at(case, "time"), format!("{:.3}", clause.seconds));
                assert_eq!(at(case, "classname"), format!("retry-lab.{}", step.step));
                let got: Vec<(&str, &str)> = case
                    .children()
                    .filter(|c| c.is_element())
                    .map(|c| (c.tag_name().name(), at(c, "type")))
                    .collect();
                let want: &[(&str, &str)] = match clause.status {
                    ClauseStatus::Passed => &[],
                    ClauseStatus::Failed if clause.fault == Some(FaultKind::Panicked) => {
                        &[("error", "panicked")]
                    }
                    ClauseStatus::Failed => &[("failure", "contract")],
                    ClauseStatus::NotImplemented => &[("failure", "not-implemented")],
                    ClauseStatus::NotBuilt if s.build == Build::Error => &[("error", "review")],
                    ClauseStatus::NotBuilt => &[("error", "build")],
                    ClauseStatus::NotAttempted => unreachable!("left out"),
                };
                assert_eq!(got, want, "{}", clause.name);
            }
        }
    }
}

#[test]
fn the_shape_check_refuses_what_consumers_refuse() {
    let ok = junit_xml(&class().submissions[1], SEED);
    shaped(&ok).unwrap();
    let suite = "<testsuite name=\"01 retryable\"";
    for (from, to) in [
        // Jenkins' junit-10.xsd declares no skipped on the root.
        ("<testsuites ", "<testsuites skipped=\"0\" "),
        // Surefire requires a time on every test case, with a dot.
        (" time=\"0.125\"/>", "/>"),
        ("time=\"0.125\"", "time=\"0,125\""),
        // Jenkins' times have at most three decimals.
        ("time=\"2.250\"", "time=\"2.2500\""),
        // Attributes and elements neither schema declares.
        ("<testcase ", "<testcase line=\"1\" "),
        ("<properties>", "<properties><note/>"),
        (suite, &format!("{suite} disabled=\"0\"")),
        // Surefire: properties come first, once.
        ("<properties>", "<properties/><properties>"),
        // A reader turns a raw tab in a value into a space.
        ("value=\"18446744073709551615\"", "value=\"1\t8\""),
    ] {
        assert!(ok.contains(from), "{from}");
        let bad = ok.replacen(from, to, 1);
        assert!(shaped(&bad).is_err(), "accepted {to:?} for {from:?}");
    }
}

/// A step not attempted is left out of the document; where a report keeps
/// one, each of its cases is `skipped` with the message (Surefire's
/// `skipped` has a message and no type).
#[test]
fn a_step_not_attempted_is_skipped_with_a_message_and_no_type() {
    let alice = &class().submissions[0];
    let step = &alice.steps[3];
    assert_eq!(step.status, super::super::StepStatus::NotAttempted);
    let doc_text = junit_xml(alice, SEED);
    let doc = read(&doc_text);
    let names: Vec<&str> = kids(doc.root_element(), "testsuite")
        .into_iter()
        .map(|s| at(s, "name"))
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(&step.step)),
        "{names:?}"
    );
    let kept = cases(step, alice);
    assert!(!kept.is_empty());
    for case in kept {
        let p = case.problem.expect("a problem");
        assert_eq!(p.element, "skipped");
        assert_eq!(p.message, t("report.not_attempted"));
    }
}

#[test]
fn times_are_the_measured_seconds_with_three_decimals() {
    let mut bob = class().submissions[1].clone();
    bob.steps[1].seconds = 0.1 + 0.2;
    bob.steps[1].clauses[0].seconds = 1.0 / 3.0;
    bob.steps[1].clauses[1].seconds = f64::NAN;
    bob.steps[2].clauses[0].seconds = 0.0005;
    bob.seconds = 12.3456;
    let xml = junit_xml(&bob, SEED);
    let doc = read(&xml);
    let root = doc.root_element();
    assert_eq!(at(root, "time"), "12.346");
    let suite = kids(root, "testsuite")[1];
    assert_eq!(at(suite, "time"), "0.300");
    let cases = kids(suite, "testcase");
    assert_eq!(at(cases[0], "time"), "0.333");
    assert_eq!(at(cases[1], "time"), "0.000");
    let case = kids(kids(root, "testsuite")[2], "testcase")[0];
    assert_eq!(at(case, "time"), "0.001");
}

/// Markup, quotes, a CDATA end, tabs, a control character and the
/// two characters XML 1.0 forbids (U+FFFE, U+FFFF), in
/// a message's first line and in its text: read back as shown.
#[test]
fn hostile_text_reads_back_as_shown() {
    let mut bob = class().submissions[1].clone();
    let clause = &mut bob.steps[1].clauses[1];
    let nasty = "a\tb <x>&amp; \"q\" 'a' ]]> \u{1}\u{FFFE}\u{FFFF}\n\tthen ]]>\t<![CDATA[x]]>";
    clause.message = Some(nasty.into());
    clause.name = "tab\there ]]> \"<&>\"".into();
    let xml = junit_xml(&bob, SEED);
    shaped(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
    assert!(!xml.contains("]]>") && !xml.contains("<x>"), "{xml}");
    assert!(!xml.contains(['\u{1}', '\u{FFFE}', '\u{FFFF}']), "{xml}");
    let doc = read(&xml);
    let case = kids(kids(doc.root_element(), "testsuite")[1], "testcase")[1];
    assert_eq!(at(case, "name"), "tab\\there ]]> \"<&>\"");
    let failure = kids(case, "failure")[0];
    let shown = "a\tb <x>&amp; \"q\" 'a' ]]> \\u{1}\u{FFFD}\u{FFFD}\n\tthen ]]>\t<![CDATA[x]]>";
    assert_eq!(at(failure, "message"), shown.lines().next().unwrap());
    assert_eq!(text_of(failure), shown);
}

#[test]
fn messages_are_escaped_and_control_characters_shown() {
    let bob = &class().submissions[1];
    let xml = junit_xml(bob, SEED);
    assert!(!xml.contains('\u{1}') && !xml.contains('\u{FFFD}'));
    let doc = read(&xml);
    let suite = kids(doc.root_element(), "testsuite")[1];
    let failure = kids(kids(suite, "testcase")[1], "failure")[0];
    let shown = NASTY.replace('\u{1}', "\\u{1}");
    assert_eq!(at(failure, "message"), "replay_safe(\"<&>\"'\\u{1}中文\")");
    assert_eq!(text_of(failure), shown);
    let todo = kids(kids(doc.root_element(), "testsuite")[2], "testcase")[0];
    let todo = kids(todo, "failure")[0];
    assert_eq!(at(todo, "message"), "not implemented yet");
    assert!(text_of(todo).contains("todo!()"));
}

/// The submission's name and what its code printed (or its compiler
/// quoted) show their control and bidirectional characters escaped,
/// while result.json keeps the name exactly.
#[test]
fn control_and_bidi_characters_are_shown_escaped() {
    let bob = hostile_submission();
    let xml = junit_xml(&bob, SEED);
    assert_eq!(raw_hidden(&xml), [], "{xml}");
    assert!(!xml.contains('\u{FFFD}') && !xml.contains("&#13;"), "{xml}");
    shaped(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
    let doc = read(&xml);
    for suite in kids(doc.root_element(), "testsuite") {
        let submission = kids(kids(suite, "properties")[0], "property")[1];
        assert_eq!(at(submission, "value"), HOSTILE_SHOWN);
    }
    let case = kids(kids(doc.root_element(), "testsuite")[1], "testcase")[1];
    let failure = kids(case, "failure")[0];
    assert_eq!(at(failure, "message"), "\\u{1b}[31mred\\u{7}\\r");
    assert_eq!(
        text_of(failure),
        "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}\n  expected: true"
    );
    let result: serde_json::Value =
        serde_json::from_str(&crate::report::kit::result_json(&bob, SEED)).unwrap();
    assert_eq!(result["name"], HOSTILE);

    let xml = junit_xml(&hostile_build(), SEED);
    assert_eq!(raw_hidden(&xml), [], "{xml}");
    let doc = read(&xml);
    let case = kids(kids(doc.root_element(), "testsuite")[0], "testcase")[0];
    assert_eq!(
        text_of(kids(case, "error")[0]),
        "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}"
    );
}

#[test]
fn a_runtime_error_is_an_error_and_a_wrong_answer_a_failure() {
    let xml = junit_xml(&panicking(), SEED);
    let doc = read(&xml);
    assert_eq!(counted(doc.root_element()), (6, 2, 1));
    let suite = kids(doc.root_element(), "testsuite")[1];
    assert_eq!(counted(suite), (2, 0, 1));
    let error = kids(kids(suite, "testcase")[1], "error")[0];
    assert_eq!(at(error, "type"), "panicked");
    let shown = NASTY.replace('\u{1}', "\\u{1}");
    assert_eq!(at(error, "message"), shown.lines().next().unwrap());
    assert_eq!(text_of(error), shown);

    // Every runtime error alike; a wrong answer and a stub stay failures.
    let mut bob = panicking();
    for kind in [
        FaultKind::Wrong,
        FaultKind::NotImplemented,
        FaultKind::Panicked,
        FaultKind::TimedOut,
        FaultKind::Crashed,
        FaultKind::Flooded,
        FaultKind::Runaway,
        FaultKind::Forged,
        FaultKind::NotRun,
    ] {
        bob.steps[1].clauses[1].fault = Some(kind);
        let xml = junit_xml(&bob, SEED);
        let doc = read(&xml);
        let case = kids(kids(doc.root_element(), "testsuite")[1], "testcase")[1];
        let (element, ty) = if kind.is_runtime_error() {
            ("error", fault_name(kind))
        } else {
            ("failure", "contract".to_string())
        };
        let got: Vec<_> = case.children().filter(|c| c.is_element()).collect();
        assert_eq!(got.len(), 1, "{kind:?}");
        assert_eq!(got[0].tag_name().name(), element, "{kind:?}");
        assert_eq!(at(got[0], "type"), ty, "{kind:?}");
        let errors = usize::from(kind.is_runtime_error());
        assert_eq!(
            counted(doc.root_element()),
            (6, 3 - errors, errors),
            "{kind:?}"
        );
    }
    assert_eq!(fault_name(FaultKind::TimedOut), "timed-out");
    assert_eq!(fault_name(FaultKind::NotRun), "not-run");
}

#[test]
fn messages_follow_the_chosen_language() {
    let zh = crate::catalog::scoped(Lang::Zh, || junit_xml(&class().submissions[1], SEED));
    let todo = crate::catalog::whole(Lang::Zh, &[])["report.junit.not_implemented"].clone();
    assert_ne!(todo, "not implemented yet");
    let doc = read(&zh);
    let case = kids(kids(doc.root_element(), "testsuite")[2], "testcase")[0];
    assert_eq!(at(kids(case, "failure")[0], "message"), todo);
}

#[test]
fn compiler_errors_and_reviews_are_errors() {
    let carol = &class().submissions[2];
    assert_eq!(carol.build, Build::Failed);
    let xml = junit_xml(carol, SEED);
    let doc = read(&xml);
    let case = kids(kids(doc.root_element(), "testsuite")[0], "testcase")[0];
    let error = kids(case, "error")[0];
    assert_eq!(at(error, "message"), "does not compile");
    assert_eq!(Some(text_of(error).as_str()), carol.build_errors.as_deref());

    let review = every_kind().pop().unwrap();
    let xml = junit_xml(&review, SEED);
    let doc = read(&xml);
    let case = kids(kids(doc.root_element(), "testsuite")[0], "testcase")[0];
    let error = kids(case, "error")[0];
    assert_eq!(at(error, "message"), t("report.junit.needs_review"));
    assert_eq!(text_of(error), "the runner reported a fault of the kit");
}

#[test]
fn long_messages_are_capped_on_a_char_boundary() {
    let xml = junit_xml(&long_submission(), SEED);
    let doc = read(&xml);
    let case = kids(kids(doc.root_element(), "testsuite")[1], "testcase")[1];
    let failure = kids(case, "failure")[0];
    assert_capped(&text_of(failure), &long_message());
    assert_eq!(
        at(failure, "message"),
        text_of(failure).lines().next().unwrap()
    );
}

#[test]
fn a_step_without_clauses_still_shows_its_status() {
    let mut carol = class().submissions[2].clone();
    carol.steps[0].clauses.clear();
    let xml = junit_xml(&carol, SEED);
    let doc = read(&xml);
    let suite = kids(doc.root_element(), "testsuite")[0];
    assert_eq!(counted(suite), (1, 0, 1));
    let case = kids(suite, "testcase")[0];
    assert_eq!(at(case, "name"), "01 retryable");
    assert_eq!(at(kids(case, "error")[0], "type"), "build");
    assert_eq!(counted(doc.root_element()), (5, 0, 5));
}
