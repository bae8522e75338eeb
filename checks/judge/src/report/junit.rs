//! JUnit XML for CI dashboards, one document per submission: a `testsuite`
//! per step (in step order), a `testcase` per clause.
//!
//! - failed clause (a wrong answer): `<failure type="contract">` with the
//!   message's first line as `message` and the whole message as text;
//! - runtime error (the clause's first failing input panicked, timed out,
//!   crashed, flooded its output, ran away, forged an outcome or was not run
//!   for want of time; see `FaultKind::is_runtime_error`): `<error>` with the
//!   same `message` and text, its `type` the fault (`panicked`, `timed-out`,
//!   …), counted in `errors`, as Ant, Surefire and Jenkins count an
//!   unexpected error apart from a wrong answer;
//! - not implemented: `<failure type="not-implemented">` (a failure, not a
//!   skip, so `skipped` is always 0: an unfinished step costs points);
//! - not built: `<error type="build">` with the compiler's errors.
//!
//! `properties` (the seed and the submission's name) go inside every
//! `testsuite`, where the common JUnit schema allows them. A step without
//! clauses still gets one `testcase`, named after the step and carrying the
//! step's status, so a broken step can never look green.
//!
//! Every `testcase` has the `time` Maven Surefire's schema requires: the
//! clause's measured seconds; every `testsuite` the step's, and
//! `testsuites` the submission's. Times have three decimals, which both
//! Surefire (`xs:float`) and Jenkins' xunit schema (at most three decimals)
//! accept. The document is valid against Jenkins' `junit-10.xsd`, and each
//! `testsuite` in it, taken alone, against Surefire's
//! `surefire-test-report.xsd` (which declares no `testsuites`): the tests
//! below check the rules of both schemas.
//!
//! Text is escaped for XML 1.0: `& < > " '` always; tab, newline and carriage
//! return as character references inside attributes (and carriage return in
//! text too, so parsers keep it); characters XML 1.0 forbids (C0 controls
//! other than tab, newline and carriage return; U+FFFE, U+FFFF) become U+FFFD.
//! Messages are capped again with [`capped`] before escaping.
//!
//! Before either, what a person reads is made visible ([`crate::visible`]):
//! the submission's name and each test case's name as one line, messages
//! keeping their line feeds and tabs; every other control character (C0,
//! DEL, C1) and every bidirectional control becomes a Rust escape
//! (`\u{1b}`, `\u{202e}`, `\r`). So no such character reaches the
//! document, and the U+FFFD fallback is left for U+FFFE and U+FFFF.

use super::{capped, Build, ClauseStatus, FaultKind, StepReport, SubmissionReport, MESSAGE_CAP};
use crate::catalog::{t, tr};
use crate::visible;
use std::fmt::Write as _;

/// What a non-passing test case carries.
struct Problem {
    /// `failure` or `error`.
    element: &'static str,
    kind: String,
    message: String,
    body: String,
}

struct Case {
    name: String,
    problem: Option<Problem>,
    /// Seconds.
    time: f64,
}

/// The JUnit XML document for one submission.
pub fn junit_xml(s: &SubmissionReport, seed: &str) -> String {
    let s = &s.attempted();
    let suites: Vec<(&StepReport, Vec<Case>)> =
        s.steps.iter().map(|step| (step, cases(step, s))).collect();
    let all = suites.iter().flat_map(|(_, cases)| cases);
    let (tests, failures, errors) = counts(all);

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"retry-lab\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" time=\"{}\">",
        time(s.seconds)
    );
    for (step, cases) in &suites {
        let (tests, failures, errors) = counts(cases.iter());
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"{errors}\" skipped=\"0\" time=\"{}\">",
            attr(&format!("{} {}", step.step, step.function)),
            time(step.seconds)
        );
        out.push_str("    <properties>\n");
        let _ = writeln!(
            out,
            "      <property name=\"seed\" value=\"{}\"/>",
            attr(seed)
        );
        let _ = writeln!(
            out,
            "      <property name=\"submission\" value=\"{}\"/>",
            attr(&visible::line(&s.name))
        );
        if let Some(id) = &step.mistake {
            let _ = writeln!(
                out,
                "      <property name=\"mistake\" value=\"{}\"/>",
                attr(id)
            );
        }
        out.push_str("    </properties>\n");
        let classname = attr(&format!("retry-lab.{}", step.step));
        for case in cases {
            let open = format!(
                "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{}\"",
                attr(&visible::line(&case.name)),
                time(case.time)
            );
            match &case.problem {
                None => {
                    let _ = writeln!(out, "{open}/>");
                }
                Some(p) => {
                    // Surefire's `skipped` has a message and no type.
                    let kind = if p.element == "skipped" {
                        String::new()
                    } else {
                        format!(" type=\"{}\"", p.kind)
                    };
                    let _ = writeln!(
                        out,
                        "{open}>\n      <{el} message=\"{}\"{kind}>{}</{el}>\n    </testcase>",
                        attr(&p.message),
                        text(&p.body),
                        el = p.element,
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// (tests, failures, errors).
fn counts<'a>(cases: impl Iterator<Item = &'a Case>) -> (usize, usize, usize) {
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for case in cases {
        tests += 1;
        match case.problem.as_ref().map(|p| p.element) {
            Some("error") => errors += 1,
            Some("skipped") => {}
            Some(_) => failures += 1,
            None => {}
        }
    }
    (tests, failures, errors)
}

fn cases(step: &StepReport, s: &SubmissionReport) -> Vec<Case> {
    if step.clauses.is_empty() {
        let status = step.status.as_clause();
        return vec![Case {
            name: format!("{} {}", step.step, step.function),
            problem: problem(status, None, None, step, s),
            time: step.seconds,
        }];
    }
    step.clauses
        .iter()
        .map(|c| Case {
            name: c.name.clone(),
            problem: problem(c.status, c.message.as_deref(), c.fault, step, s),
            time: c.seconds,
        })
        .collect()
}

fn problem(
    status: ClauseStatus,
    message: Option<&str>,
    fault: Option<FaultKind>,
    step: &StepReport,
    s: &SubmissionReport,
) -> Option<Problem> {
    match status {
        ClauseStatus::Passed => None,
        ClauseStatus::Failed => {
            let body = shown(&message.map_or_else(|| t("report.junit.failed"), str::to_string));
            // A runtime error is an `error`, a wrong answer a `failure`.
            let (element, kind) = match fault.filter(|f| f.is_runtime_error()) {
                Some(f) => ("error", fault_name(f)),
                None => ("failure", "contract".to_string()),
            };
            Some(Problem {
                element,
                kind,
                message: body.lines().next().unwrap_or_default().to_string(),
                body,
            })
        }
        ClauseStatus::NotImplemented => {
            let todo = || {
                tr(
                    "report.junit.not_started",
                    &[("step", &step.step), ("function", &step.function)],
                )
            };
            Some(Problem {
                element: "failure",
                kind: "not-implemented".to_string(),
                message: t("report.junit.not_implemented"),
                body: shown(&message.map_or_else(todo, str::to_string)),
            })
        }
        // Left out of the file (see `SubmissionReport::attempted`); kept
        // total for a report that was filtered some other way.
        ClauseStatus::NotAttempted => Some(Problem {
            element: "skipped",
            kind: "not-attempted".to_string(),
            message: t("report.not_attempted"),
            body: String::new(),
        }),
        ClauseStatus::NotBuilt if s.build == Build::Error => Some(Problem {
            element: "error",
            kind: "review".to_string(),
            message: t("report.junit.needs_review"),
            body: shown(s.review.as_deref().unwrap_or("")),
        }),
        ClauseStatus::NotBuilt => {
            let errors = s
                .build_errors
                .clone()
                .unwrap_or_else(|| t("report.submission_does_not_compile"));
            Some(Problem {
                element: "error",
                kind: "build".to_string(),
                message: t("report.does_not_compile"),
                body: shown(&errors),
            })
        }
    }
}

/// A message's text as a person reads it: made visible, then capped.
fn shown(text: &str) -> String {
    capped(&visible::text(text), MESSAGE_CAP)
}

/// A fault's name as the kit's reports spell it (`timed-out`).
fn fault_name(f: FaultKind) -> String {
    match serde_json::to_value(f) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{f:?}"),
    }
}

/// Seconds with three decimals ("0.000" when unknown): an `xs:float` for
/// Surefire, and no more decimals than Jenkins' xunit schema allows.
fn time(seconds: f64) -> String {
    format!("{:.3}", super::milliseconds(seconds))
}

/// Whether XML 1.0 allows `c` at all.
fn allowed(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r'
        | '\u{20}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FFFD}'
        | '\u{10000}'..='\u{10FFFF}')
}

fn escape(raw: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            c if allowed(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

fn attr(raw: &str) -> String {
    escape(raw, true)
}

fn text(raw: &str) -> String {
    escape(raw, false)
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::compare;
    use super::super::test_support::{
        assert_capped, class, hostile_build, hostile_submission, long_message, long_submission,
        raw_hidden, HOSTILE, HOSTILE_SHOWN, NASTY, SEED,
    };
    use super::super::{Build, ClauseReport};
    use super::*;
    use crate::catalog::Lang;

    /// An element as roxmltree read it: its name, attributes, child
    /// elements and text, entities resolved.
    #[derive(Debug, Default)]
    struct Node {
        name: String,
        attrs: Vec<(String, String)>,
        children: Vec<Node>,
        text: String,
    }

    impl Node {
        fn of(n: roxmltree::Node) -> Node {
            Node {
                name: n.tag_name().name().to_string(),
                attrs: n
                    .attributes()
                    .map(|a| (a.name().to_string(), a.value().to_string()))
                    .collect(),
                children: n
                    .children()
                    .filter(|c| c.is_element())
                    .map(Node::of)
                    .collect(),
                text: n
                    .children()
                    .filter(|c| c.is_text())
                    .filter_map(|c| c.text())
                    .collect(),
            }
        }

        fn attr(&self, key: &str) -> &str {
            self.attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("<{}> has no {key}", self.name))
        }

        fn count(&self, key: &str) -> usize {
            self.attr(key).parse().unwrap()
        }

        fn kids(&self, name: &str) -> Vec<&Node> {
            self.children.iter().filter(|n| n.name == name).collect()
        }
    }

    /// What `junit_xml` writes, read by roxmltree (well-formed XML 1.0:
    /// one root, matching tags, quoted attributes, known entities, no
    /// character XML forbids), after the kit's own declaration. Raw
    /// characters a reader would change or that the kit always escapes are
    /// refused too: `>` anywhere, a carriage return in text, and a tab,
    /// line break or `'` in an attribute's value (XML turns those into
    /// spaces).
    fn parse(xml: &str) -> Result<Node, String> {
        if !xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") {
            return Err("no XML declaration".into());
        }
        let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
        for node in doc.descendants() {
            let raw: Vec<(&str, &[char])> = if node.is_text() {
                vec![(&xml[node.range()], &['>', '\r'])]
            } else {
                node.attributes()
                    .map(|a| (&xml[a.range_value()], &['>', '\t', '\n', '\r', '\''][..]))
                    .collect()
            };
            for (text, forbidden) in raw {
                if let Some(c) = text.chars().find(|c| forbidden.contains(c)) {
                    return Err(format!("raw {c:?} in {text:?}"));
                }
            }
        }
        Ok(Node::of(doc.root_element()))
    }

    /// How an attribute's value is typed in a schema.
    #[derive(Clone, Copy)]
    enum Ty {
        Text,
        /// `xs:float`.
        Float,
        /// Jenkins' `SUREFIRE_TIME`: digits, then at most three decimals.
        Time,
    }

    const MANY: usize = usize::MAX;

    /// One element's rules in a schema.
    struct Rule {
        name: &'static str,
        /// (attribute, type, required); no other attribute is allowed.
        attrs: &'static [(&'static str, Ty, bool)],
        /// The child elements allowed, each with its most occurrences.
        children: &'static [(&'static str, usize)],
        /// The children form a sequence in this order (else a choice,
        /// repeated at will).
        ordered: bool,
        /// Text allowed besides whitespace.
        text: bool,
    }

    const fn leaf(name: &'static str, attrs: &'static [(&'static str, Ty, bool)]) -> Rule {
        Rule {
            name,
            attrs,
            children: &[],
            ordered: true,
            text: true,
        }
    }

    const PROPERTIES: Rule = Rule {
        name: "properties",
        attrs: &[],
        children: &[("property", MANY)],
        ordered: true,
        text: false,
    };

    const PROPERTY: Rule = Rule {
        name: "property",
        attrs: &[("name", Ty::Text, true), ("value", Ty::Text, true)],
        children: &[],
        ordered: true,
        text: false,
    };

    /// Jenkins xunit-plugin's `junit-10.xsd` (the elements this kit can write).
    const JENKINS: &[Rule] = &[
        Rule {
            name: "testsuites",
            attrs: &[
                ("name", Ty::Text, false),
                ("time", Ty::Time, false),
                ("tests", Ty::Text, false),
                ("failures", Ty::Text, false),
                ("errors", Ty::Text, false),
            ],
            children: &[("testsuite", MANY)],
            ordered: true,
            text: false,
        },
        Rule {
            name: "testsuite",
            attrs: &[
                ("name", Ty::Text, true),
                ("tests", Ty::Text, true),
                ("failures", Ty::Text, true),
                ("errors", Ty::Text, true),
                ("group", Ty::Text, false),
                ("time", Ty::Time, false),
                ("skipped", Ty::Text, false),
                ("timestamp", Ty::Text, false),
                ("hostname", Ty::Text, false),
                ("id", Ty::Text, false),
                ("package", Ty::Text, false),
                ("file", Ty::Text, false),
                ("log", Ty::Text, false),
                ("url", Ty::Text, false),
                ("version", Ty::Text, false),
            ],
            children: &[
                ("testsuite", MANY),
                ("properties", MANY),
                ("testcase", MANY),
                ("system-out", MANY),
                ("system-err", MANY),
            ],
            ordered: false,
            text: false,
        },
        PROPERTIES,
        PROPERTY,
        Rule {
            name: "testcase",
            attrs: &[
                ("name", Ty::Text, true),
                ("time", Ty::Text, false),
                ("classname", Ty::Text, false),
                ("group", Ty::Text, false),
            ],
            children: &[
                ("skipped", MANY),
                ("error", MANY),
                ("failure", MANY),
                ("system-out", MANY),
                ("system-err", MANY),
            ],
            ordered: false,
            text: false,
        },
        leaf(
            "failure",
            &[("type", Ty::Text, false), ("message", Ty::Text, false)],
        ),
        leaf(
            "error",
            &[("type", Ty::Text, false), ("message", Ty::Text, false)],
        ),
        leaf(
            "skipped",
            &[("type", Ty::Text, false), ("message", Ty::Text, false)],
        ),
        leaf("system-out", &[]),
        leaf("system-err", &[]),
    ];

    /// Maven Surefire's `surefire-test-report.xsd` (3.0.2), whose root is
    /// one `testsuite` (the elements this kit can write).
    const SUREFIRE: &[Rule] = &[
        Rule {
            name: "testsuite",
            attrs: &[
                ("version", Ty::Text, false),
                ("name", Ty::Text, true),
                ("time", Ty::Float, false),
                ("tests", Ty::Text, true),
                ("errors", Ty::Text, true),
                ("skipped", Ty::Text, true),
                ("failures", Ty::Text, true),
                ("flakes", Ty::Text, false),
                ("group", Ty::Text, false),
            ],
            children: &[("properties", 1), ("testcase", MANY)],
            ordered: true,
            text: false,
        },
        PROPERTIES,
        PROPERTY,
        Rule {
            name: "testcase",
            attrs: &[
                ("name", Ty::Text, true),
                ("classname", Ty::Text, false),
                ("group", Ty::Text, false),
                ("time", Ty::Float, true),
            ],
            children: &[
                ("failure", MANY),
                ("skipped", 1),
                ("error", 1),
                ("system-out", 1),
                ("system-err", 1),
            ],
            ordered: true,
            text: false,
        },
        leaf(
            "failure",
            &[("message", Ty::Text, false), ("type", Ty::Text, false)],
        ),
        leaf("skipped", &[("message", Ty::Text, false)]),
        leaf(
            "error",
            &[("message", Ty::Text, false), ("type", Ty::Text, false)],
        ),
        leaf("system-out", &[]),
        leaf("system-err", &[]),
    ];

    fn digits(s: &str) -> bool {
        s.bytes().all(|b| b.is_ascii_digit())
    }

    /// `xs:float`'s lexical space.
    fn is_float(v: &str) -> bool {
        if matches!(v, "INF" | "-INF" | "+INF" | "NaN") {
            return true;
        }
        let v = v.strip_prefix(['+', '-']).unwrap_or(v);
        let (mantissa, exponent) = match v.split_once(['e', 'E']) {
            Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
            None => (v, None),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        exponent.is_none_or(|e| !e.is_empty() && digits(e))
            && digits(whole)
            && digits(fraction)
            && !(whole.is_empty() && fraction.is_empty())
    }

    /// Jenkins' `SUREFIRE_TIME` as this kit writes it (no thousands commas).
    fn is_jenkins_time(v: &str) -> bool {
        let (whole, fraction) = v.split_once('.').unwrap_or((v, ""));
        digits(whole) && digits(fraction) && fraction.len() <= 3
    }

    /// Whether `node` and everything in it follow `schema`'s rules: only
    /// declared elements and attributes, every required attribute, typed
    /// values, children where and as often as allowed, text only where
    /// allowed.
    fn conforms(node: &Node, schema: &[Rule]) -> Result<(), String> {
        let here = &node.name;
        let rule = schema
            .iter()
            .find(|r| r.name == here)
            .ok_or(format!("<{here}> is not declared"))?;
        for (key, value) in &node.attrs {
            let (_, ty, _) = rule
                .attrs
                .iter()
                .find(|(k, ..)| k == key)
                .ok_or(format!("<{here}> may not have {key}"))?;
            let typed = match ty {
                Ty::Text => true,
                Ty::Float => is_float(value),
                Ty::Time => is_jenkins_time(value),
            };
            if !typed {
                return Err(format!("<{here} {key}={value:?}> has the wrong type"));
            }
        }
        for (key, _, required) in rule.attrs {
            if *required && !node.attrs.iter().any(|(k, _)| k == key) {
                return Err(format!("<{here}> lacks the required {key}"));
            }
        }
        if !rule.text && !node.text.trim().is_empty() {
            return Err(format!("<{here}> may not hold text"));
        }
        let (mut at, mut count) = (0, 0);
        for child in &node.children {
            let name = child.name.as_str();
            if rule.ordered {
                if rule.children.get(at).is_some_and(|(n, _)| *n != name) {
                    count = 0;
                }
                while rule.children.get(at).is_some_and(|(n, _)| *n != name) {
                    at += 1;
                }
            } else {
                at = rule
                    .children
                    .iter()
                    .position(|(n, _)| *n == name)
                    .unwrap_or(MANY);
                count = 0;
            }
            let (_, most) = rule
                .children
                .get(at)
                .ok_or(format!("<{name}> is not allowed there in <{here}>"))?;
            count += 1;
            if count > *most {
                return Err(format!("too many <{name}> in <{here}>"));
            }
            conforms(child, schema)?;
        }
        Ok(())
    }

    /// The document against Jenkins' schema, each suite against Surefire's.
    fn valid_for_both(xml: &str) -> Result<(), String> {
        let root = parse(xml)?;
        conforms(&root, JENKINS).map_err(|e| format!("Jenkins: {e}"))?;
        for suite in root.kids("testsuite") {
            conforms(suite, SUREFIRE).map_err(|e| format!("Surefire: {e}"))?;
        }
        Ok(())
    }

    /// (tests, failures, errors) the model says `clauses` amount to.
    fn expected<'a>(clauses: impl Iterator<Item = &'a ClauseReport>) -> (usize, usize, usize) {
        let (mut tests, mut failures, mut errors) = (0, 0, 0);
        for c in clauses {
            tests += 1;
            match c.status {
                ClauseStatus::Passed => {}
                ClauseStatus::Failed if c.fault.is_some_and(|f| f.is_runtime_error()) => {
                    errors += 1
                }
                ClauseStatus::Failed | ClauseStatus::NotImplemented => failures += 1,
                ClauseStatus::NotBuilt => errors += 1,
                ClauseStatus::NotAttempted => {}
            }
        }
        (tests, failures, errors)
    }

    fn counted(n: &Node) -> (usize, usize, usize) {
        (n.count("tests"), n.count("failures"), n.count("errors"))
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
    fn the_checker_rejects_broken_xml() {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        for bad in [
            "<a><b></a></b>",
            "<a>",
            "<a/><b/>",
            "<a x=\"1\"y=\"2\"/>",
            "<a x=\"<\"/>",
            "<a>&nbsp;</a>",
            "<a>a & b</a>",
            "<a>\u{1}</a>",
            "<a x=\"line\nbreak\"/>",
        ] {
            assert!(parse(&format!("{head}{bad}")).is_err(), "accepted {bad:?}");
        }
        let good = parse(&format!("{head}<a x=\"&lt;&#10;\"><b/>t&amp;&#13;</a>\n")).unwrap();
        assert_eq!(good.attr("x"), "<\n");
        assert_eq!(good.text, "t&\r");
    }

    #[test]
    fn is_well_formed_and_counts_agree_with_the_model() {
        let mut submissions = class().submissions;
        submissions.push(long_submission());
        submissions.push(panicking());
        for s in &submissions {
            let xml = junit_xml(s, SEED);
            // Steps that were not attempted are left out of the file.
            let s = &s.attempted();
            assert!(s.steps.len() < class().submissions[0].steps.len());
            let root = parse(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
            assert_eq!(root.name, "testsuites");
            assert_eq!(root.attr("name"), "retry-lab");
            let all = s.steps.iter().flat_map(|step| &step.clauses);
            assert_eq!(counted(&root), expected(all));
            let suites = root.kids("testsuite");
            assert_eq!(suites.len(), s.steps.len());
            for (suite, step) in suites.iter().zip(&s.steps) {
                assert_eq!(
                    suite.attr("name"),
                    format!("{} {}", step.step, step.function)
                );
                assert_eq!(counted(suite), expected(step.clauses.iter()));
                assert_eq!(suite.attr("skipped"), "0");
                assert_eq!(suite.attr("time"), format!("{:.3}", step.seconds));
                let props = suite.kids("properties");
                assert_eq!(props.len(), 1);
                let seed = &props[0].kids("property")[0];
                assert_eq!((seed.attr("name"), seed.attr("value")), ("seed", SEED));
                let cases = suite.kids("testcase");
                assert_eq!(cases.len(), step.clauses.len());
                for (case, clause) in cases.iter().zip(&step.clauses) {
                    assert_eq!(case.attr("name"), clause.name);
                    assert_eq!(case.attr("time"), format!("{:.3}", clause.seconds));
                    assert_eq!(case.attr("classname"), format!("retry-lab.{}", step.step));
                    let kinds: Vec<(&str, &str)> = case
                        .children
                        .iter()
                        .map(|n| (n.name.as_str(), n.attr("type")))
                        .collect();
                    let want: &[(&str, &str)] = match clause.status {
                        ClauseStatus::Passed => &[],
                        ClauseStatus::Failed if clause.fault == Some(FaultKind::Panicked) => {
                            &[("error", "panicked")]
                        }
                        ClauseStatus::Failed => &[("failure", "contract")],
                        ClauseStatus::NotImplemented => &[("failure", "not-implemented")],
                        ClauseStatus::NotBuilt => &[("error", "build")],
                        ClauseStatus::NotAttempted => &[("skipped", "not-attempted")],
                    };
                    assert_eq!(kinds, want);
                }
            }
        }
    }

    /// `BOB` with the failed clause's first failing input panicking.
    fn panicking() -> SubmissionReport {
        let mut bob = class().submissions[1].clone();
        bob.steps[1].clauses[1].fault = Some(FaultKind::Panicked);
        bob
    }

    /// Every kind of test case the file can hold: the class, a long
    /// message, a runtime error, a submission that needs review, and an
    /// advanced step kept.
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
    fn every_suite_is_valid_for_jenkins_and_surefire() {
        for s in every_kind() {
            let xml = junit_xml(&s, SEED);
            valid_for_both(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
        }
        // A step not attempted is `skipped` when a report keeps it: that
        // element, too, follows both schemas.
        let alice = &class().submissions[0];
        let mut kept = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
        let step = &alice.steps[3];
        for case in cases(step, alice) {
            let p = case.problem.unwrap();
            assert_eq!(p.element, "skipped");
            let _ = writeln!(
                kept,
                "<testsuite name=\"x\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\
                 <testcase name=\"x\" time=\"{}\"><skipped message=\"{}\"/></testcase></testsuite>",
                time(case.time),
                attr(&p.message)
            );
        }
        kept.push_str("</testsuites>\n");
        valid_for_both(&kept).unwrap_or_else(|e| panic!("{e} in\n{kept}"));
    }

    #[test]
    fn the_schema_checks_refuse_what_the_schemas_refuse() {
        let ok = junit_xml(&class().submissions[1], SEED);
        valid_for_both(&ok).unwrap();
        let broken = [
            // Surefire requires a time on every test case.
            (" time=\"0.125\"/>", "/>"),
            // Surefire's times are xs:float, Jenkins' at most three decimals.
            ("time=\"0.125\"", "time=\"0,125\""),
            ("time=\"2.250\"", "time=\"2.2500\""),
            ("time=\"2.250\"", "time=\"2.25e0\""),
            // Surefire's testsuite needs skipped; Jenkins' testsuites has none.
            (" skipped=\"0\"", ""),
            ("<testsuites ", "<testsuites skipped=\"0\" "),
            // Attributes and elements neither schema declares.
            ("<testcase ", "<testcase line=\"1\" "),
            ("<properties>", "<properties><note/>"),
            // Surefire: properties come first, once.
            ("    <properties>", "    <properties/>\n    <properties>"),
        ];
        for (from, to) in broken {
            assert!(ok.contains(from), "{from}");
            let bad = ok.replacen(from, to, 1);
            assert!(
                valid_for_both(&bad).is_err(),
                "accepted {to:?} for {from:?}"
            );
        }
        assert!(is_float("0.000") && is_float("1.5E3") && is_float(".5") && is_float("INF"));
        assert!(!is_float("") && !is_float("1,5") && !is_float("e3") && !is_float("0x1"));
        assert!(is_jenkins_time("12.345") && is_jenkins_time("0") && !is_jenkins_time("1.2345"));
    }

    #[test]
    fn times_are_the_measured_seconds_with_three_decimals() {
        let mut bob = class().submissions[1].clone();
        bob.steps[1].seconds = 0.1 + 0.2;
        bob.steps[1].clauses[0].seconds = 1.0 / 3.0;
        bob.steps[1].clauses[1].seconds = f64::NAN;
        bob.seconds = 12.3456;
        let root = parse(&junit_xml(&bob, SEED)).unwrap();
        assert_eq!(root.attr("time"), "12.346");
        let suite = root.kids("testsuite")[1];
        assert_eq!(suite.attr("time"), "0.300");
        let cases = suite.kids("testcase");
        assert_eq!(cases[0].attr("time"), "0.333");
        assert_eq!(cases[1].attr("time"), "0.000");
    }

    #[test]
    fn messages_are_escaped_and_control_characters_shown() {
        let bob = &class().submissions[1];
        let xml = junit_xml(bob, SEED);
        assert!(!xml.contains('\u{1}') && !xml.contains('\u{FFFD}'));
        let root = parse(&xml).unwrap();
        let suite = root.kids("testsuite")[1];
        let failure = suite.kids("testcase")[1].kids("failure")[0];
        let shown = NASTY.replace('\u{1}', "\\u{1}");
        assert_eq!(failure.attr("message"), shown.lines().next().unwrap());
        assert_eq!(failure.attr("message"), "replay_safe(\"<&>\"'\\u{1}中文\")");
        assert_eq!(failure.text, shown);
        assert_eq!(
            suite.kids("properties")[0].kids("property")[1].attr("value"),
            bob.name
        );
        let todo = root.kids("testsuite")[2].kids("testcase")[0].kids("failure")[0];
        assert_eq!(todo.attr("message"), "not implemented yet");
        assert!(todo.text.contains("todo!()"));

        assert_eq!(
            attr("a&b<c>d\"e'f\tg\nh\ri\u{0}j\u{FFFE}k\u{FFFF}l\u{7F}m"),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f&#9;g&#10;h&#13;i\u{FFFD}j\u{FFFD}k\u{FFFD}l\u{7F}m"
        );
        assert_eq!(text("\t\n\r\u{1B}"), "\t\n&#13;\u{FFFD}");
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
        valid_for_both(&xml).unwrap_or_else(|e| panic!("{e} in\n{xml}"));
        let root = parse(&xml).unwrap();
        for suite in root.kids("testsuite") {
            let submission = suite.kids("properties")[0].kids("property")[1];
            assert_eq!(submission.attr("value"), HOSTILE_SHOWN);
        }
        assert!(xml.contains(
            "<property name=\"submission\" value=\"\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil\"/>"
        ));
        let failure = root.kids("testsuite")[1].kids("testcase")[1].kids("failure")[0];
        assert_eq!(failure.attr("message"), "\\u{1b}[31mred\\u{7}\\r");
        assert_eq!(
            failure.text,
            "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}\n  expected: true"
        );
        let result: serde_json::Value =
            serde_json::from_str(&crate::report::kit::result_json(&bob, SEED)).unwrap();
        assert_eq!(result["name"], HOSTILE);

        let carol = hostile_build();
        let xml = junit_xml(&carol, SEED);
        assert_eq!(raw_hidden(&xml), [], "{xml}");
        let root = parse(&xml).unwrap();
        let error = root.kids("testsuite")[0].kids("testcase")[0].kids("error")[0];
        assert_eq!(
            error.text,
            "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}"
        );
    }

    #[test]
    fn a_runtime_error_is_an_error_and_a_wrong_answer_a_failure() {
        let xml = junit_xml(&panicking(), SEED);
        let root = parse(&xml).unwrap();
        assert_eq!(counted(&root), (6, 2, 1));
        let suite = root.kids("testsuite")[1];
        assert_eq!(counted(suite), (2, 0, 1));
        let case = suite.kids("testcase")[1];
        assert!(case.kids("failure").is_empty());
        let error = case.kids("error")[0];
        assert_eq!(error.attr("type"), "panicked");
        let shown = NASTY.replace('\u{1}', "\\u{1}");
        assert_eq!(error.attr("message"), shown.lines().next().unwrap());
        assert_eq!(error.text, shown);
        assert!(xml.contains("<error message=\"replay_safe("), "{xml}");
        assert!(xml.contains("failures=\"0\" errors=\"1\""), "{xml}");

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
            let root = parse(&junit_xml(&bob, SEED)).unwrap();
            let case = root.kids("testsuite")[1].kids("testcase")[1];
            let element = if kind.is_runtime_error() {
                "error"
            } else {
                "failure"
            };
            assert_eq!(case.children.len(), 1, "{kind:?}");
            assert_eq!(case.children[0].name, element, "{kind:?}");
            let errors = usize::from(kind.is_runtime_error());
            assert_eq!(counted(&root), (6, 3 - errors, errors), "{kind:?}");
        }
        assert_eq!(fault_name(FaultKind::TimedOut), "timed-out");
        assert_eq!(fault_name(FaultKind::NotRun), "not-run");
    }

    #[test]
    fn messages_follow_the_chosen_language() {
        let en = junit_xml(&class().submissions[1], SEED);
        let zh = crate::catalog::scoped(Lang::Zh, || junit_xml(&class().submissions[1], SEED));
        assert!(en.contains("message=\"not implemented yet\""), "{en}");
        let todo = crate::catalog::whole(Lang::Zh, &[])["report.junit.not_implemented"].clone();
        assert!(zh.contains(&format!("message=\"{todo}\"")), "{zh}");
        valid_for_both(&zh).unwrap();
    }

    #[test]
    fn compiler_errors_appear_as_build_errors() {
        let carol = &class().submissions[2];
        assert_eq!(carol.build, Build::Failed);
        let root = parse(&junit_xml(carol, SEED)).unwrap();
        let error = root.kids("testsuite")[0].kids("testcase")[0].kids("error")[0];
        assert_eq!(error.attr("message"), "does not compile");
        assert_eq!(Some(error.text.as_str()), carol.build_errors.as_deref());
    }

    #[test]
    fn long_messages_are_capped_on_a_char_boundary() {
        let root = parse(&junit_xml(&long_submission(), SEED)).unwrap();
        let failure = root.kids("testsuite")[1].kids("testcase")[1].kids("failure")[0];
        assert_capped(&failure.text, &long_message());
        assert_eq!(
            failure.attr("message"),
            failure.text.lines().next().unwrap()
        );
    }

    #[test]
    fn a_step_without_clauses_still_shows_its_status() {
        let mut carol = class().submissions[2].clone();
        carol.steps[0].clauses.clear();
        let root = parse(&junit_xml(&carol, SEED)).unwrap();
        let suite = root.kids("testsuite")[0];
        assert_eq!(counted(suite), (1, 0, 1));
        let case = suite.kids("testcase")[0];
        assert_eq!(case.attr("name"), "01 retryable");
        assert_eq!(case.kids("error")[0].attr("type"), "build");
        assert_eq!(counted(&root), (5, 0, 5));
    }
}
