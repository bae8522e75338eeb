//! Unit tests of the PrairieLearn question: its info.json, its scripts, the
//! options baked into the entrypoint and its fallback result.

use super::*;
use crate::report::schema_check::violations;

fn kit_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn schema() -> serde_json::Value {
    let text =
        std::fs::read_to_string(kit_root().join("fixtures/prairielearn/results.schema.json"))
            .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn info_json_asks_for_external_grading_without_network() {
    let v: serde_json::Value = serde_json::from_str(&info_json("me/grader:1")).unwrap();
    let options = &v["externalGradingOptions"];
    assert_eq!(options["enabled"], true);
    assert_eq!(options["image"], "me/grader:1");
    assert_eq!(options["entrypoint"], ENTRYPOINT_PATH);
    assert_eq!(options["enableNetworking"], false);
    let timeout = options["timeout"].as_u64().unwrap();
    assert!(timeout > 0 && timeout <= 600, "{timeout}");
    assert_eq!(v["gradingMethod"], "External");
    let uuid = v["uuid"].as_str().unwrap();
    assert_eq!(uuid.len(), 36, "{uuid}");
    assert_eq!(&uuid[14..15], "4", "{uuid}");
    let other: serde_json::Value = serde_json::from_str(&info_json("x")).unwrap();
    assert_ne!(other["uuid"], v["uuid"], "each question its own uuid");
}

#[test]
fn the_entrypoint_parses_and_carries_the_options() {
    let policy = Policy {
        credit: policy::Credit::Rules,
        detail: vec![("04".into(), "verdict".into())],
        ungradable: crate::report::prairielearn::Ungradable::Zero,
        ..Policy::default()
    };
    let script = entrypoint(&policy);
    for word in [
        "'--credit' 'rules'",
        "'--detail' '04=verdict'",
        "'--prairielearn-ungradable' 'zero'",
    ] {
        assert!(script.contains(word), "{word} missing: {script}");
    }
    assert!(!script.contains("{options}") && !script.contains("{no_kit}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grade.sh");
    std::fs::write(&path, &script).unwrap();
    let out =
        crate::platform::plain_output(std::process::Command::new("bash").arg("-n").arg(&path))
            .unwrap();
    assert!(out.status.success(), "grade.sh does not parse");
    // Its fallback, between single quotes, is a valid not-gradable result.
    let start = script.find("printf '%s\\n' '").unwrap() + "printf '%s\\n' '".len();
    let json = &script[start..start + script[start..].find('\'').unwrap()];
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert!(violations(&schema(), &v).is_empty(), "{json}");
    assert_eq!(v["gradable"], false);
}

#[test]
fn quoting_keeps_a_word_whole() {
    assert_eq!(quoted("a b"), "'a b'");
    assert_eq!(quoted("it's"), "'it'\\''s'");
}

#[test]
fn the_question_folder_has_its_files_and_refuses_a_full_folder() {
    let dir = tempfile::tempdir().unwrap();
    let args = QuestionArgs {
        dir: dir.path().join("q"),
        image: IMAGE.into(),
        policy: Policy::default(),
    };
    assert_eq!(question(&kit_root(), &args), status::PASSED);
    for file in [
        "info.json",
        "question.html",
        "image/Dockerfile",
        "image/grade.sh",
        "image/kit/lab.sh",
    ] {
        assert!(args.dir.join(file).is_file(), "{file} missing");
    }
    assert!(!args.dir.join("image/kit/solutions").exists());
    let docker = std::fs::read_to_string(args.dir.join("image/Dockerfile")).unwrap();
    assert!(docker.contains(&format!("FROM rust:{}", crate::autograder::TOOLCHAIN)));
    assert!(docker.contains("cargo fetch") && docker.contains("COPY kit"));
    let html = std::fs::read_to_string(args.dir.join("question.html")).unwrap();
    assert!(html.contains("<pl-file-upload") && html.contains("<pl-external-grader-results>"));
    assert_eq!(question(&kit_root(), &args), status::USAGE, "not empty");
    let bad = QuestionArgs {
        dir: dir.path().join("r"),
        image: "a b".into(),
        ..args.clone()
    };
    assert_eq!(question(&kit_root(), &bad), status::USAGE);
    assert!(!bad.dir.exists());
}
