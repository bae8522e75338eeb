use super::*;

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

#[test]
fn the_arguments_are_a_free_step_number_and_a_name() {
    let next = next_step();
    let good = NewStepArgs::read(&words(&format!("{next} parse_header"))).unwrap();
    assert_eq!(
        (good.step.as_str(), good.name.as_str()),
        (next.as_str(), "parse_header")
    );
    let first = REGISTRY[0].id;
    let past = format!("{:02}", next.parse::<u32>().unwrap() + 1);
    for (line, wanted) in [
        (String::new(), "takes a step number and a name"),
        (next.clone(), "takes a step number and a name"),
        (format!("{next} a b"), "takes a step number and a name"),
        ("4 x".to_string(), "two digits"),
        ("1a x".to_string(), "two digits"),
        ("123 x".to_string(), "two digits"),
        (format!("{first} x"), "already registered"),
        (format!("{past} x"), "not the next free step"),
        (format!("{next} Gate"), "lower-case Rust identifier"),
        (format!("{next} fn"), "lower-case Rust identifier"),
        (format!("{next} a-b"), "lower-case Rust identifier"),
        (format!("{next} 1x"), "lower-case Rust identifier"),
        (format!("{next} _x"), "lower-case Rust identifier"),
        (
            format!("{next} {}", "a".repeat(NAME_MAX + 1)),
            "lower-case Rust identifier",
        ),
    ] {
        let e = NewStepArgs::read(&words(&line)).unwrap_err();
        assert!(e.contains(wanted) && !e.contains('\n'), "{line:?}: {e}");
        if wanted.contains("digits") || wanted.contains("registered") || wanted.contains("next") {
            assert!(e.contains(&next), "{line:?} names the next step: {e}");
        }
    }
}

#[test]
fn a_handout_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("checks/judge/tests")).unwrap();
    let args = NewStepArgs::read(&words(&format!("{} echo", next_step()))).unwrap();
    assert_eq!(run(dir.path(), &args), status::USAGE);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "only what was there");
    assert!(tr("error.new_step_handout", &[]).contains("solutions/"));
}

fn kit() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_plan_for_the_kit_adds_every_file_of_a_step_and_writes_nothing() {
    let next = next_step();
    let files = plan(&kit(), &next, "echo_back").unwrap();
    for file in files.iter().filter(|f| f.new) {
        assert!(file.path.contains(&next), "{}", file.path);
        assert!(!kit().join(&file.path).exists(), "{}", file.path);
        assert!(!file.text.contains("{NN}") && !file.text.contains("{NAME}"));
        assert!(!file.text.contains("{WHAT}") && !file.text.contains("{BODY}"));
    }
    let new = |dir: &str| {
        files
            .iter()
            .filter(|f| f.new && f.path.starts_with(dir))
            .count()
    };
    let folder = format!("{SUITES}/s{next}/");
    assert_eq!(
        new(&format!("{folder}mutants/")),
        crate::audit::MUTANTS_PER_STEP
    );
    assert_eq!(
        new(&format!("{folder}alternatives/")),
        crate::audit::ALTERNATIVES_PER_STEP
    );
    // Its folder holds all of a step but the script types, the runner's
    // glue and the contract script.
    let outside: Vec<&str> = files
        .iter()
        .filter(|f| f.new && !f.path.starts_with(&folder))
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        outside,
        [
            format!("checks/scripts/src/s{next}.rs"),
            format!("checks/runner-advanced/src/glue/s{next}.rs"),
            format!("checks/{next}-contract.sh"),
        ]
    );
    assert_eq!(
        new(&folder),
        FOLDER.len() + MUTANTS.len() + ALTERNATIVES.len()
    );
    for file in ["cases.json", "words.en.json", "text.zh.md", "hints.en.md"] {
        assert!(
            files.iter().any(|f| f.path == format!("{folder}{file}")),
            "{file}"
        );
    }
    let edited: Vec<&str> = files
        .iter()
        .filter(|f| !f.new)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        edited,
        [
            "fixtures/pristine/advanced.rs",
            "solutions/advanced.rs",
            "checks/judge/src/suites/mod.rs",
            "checks/scripts/src/lib.rs",
            "fixtures/submissions/expected.json",
        ]
    );
    let mark = format!("// ===== step {next}: echo_back =====");
    let reference = files
        .iter()
        .find(|f| f.path == "solutions/advanced.rs")
        .unwrap();
    let section = lab_judge::sections::section(&reference.text, &next).unwrap();
    assert!(section.starts_with(&mark), "{section}");
    assert!(section.contains(&format!("todo!(\"step {next}: echo_back(")));
}

#[test]
fn a_name_the_advanced_file_has_or_a_file_in_the_way_is_refused() {
    let next = next_step();
    let e = plan(&kit(), &next, "to_http").err().unwrap();
    assert!(e.contains("to_http") && e.contains("advanced.rs"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("checks")).unwrap();
    std::fs::write(dir.path().join(format!("checks/{next}-contract.sh")), "").unwrap();
    let e = plan(dir.path(), &next, "echo_back").err().unwrap();
    assert!(e.contains(&format!("checks/{next}-contract.sh")), "{e}");
    assert!(plan(&kit(), REGISTRY[0].id, "echo_back").is_err());
}
