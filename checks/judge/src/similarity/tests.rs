//! Unit tests of the similarity stage: a disguised copy is found, the kit's
//! independent alternatives are not, hostile files are bounded and told,
//! and a class of 300 is compared in about its size's time.

use super::*;
use crate::report::similarity::SimilarityFile;
use std::time::Instant;

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(p: &str) -> Vec<u8> {
    std::fs::read(root().join(p)).unwrap()
}

fn expected() -> serde_json::Value {
    serde_json::from_slice(&read("fixtures/similarity/expected.json")).unwrap()
}

fn handout() -> [Vec<u8>; 2] {
    [
        read("fixtures/pristine/lib.rs"),
        read("fixtures/pristine/advanced.rs"),
    ]
}

/// One submission's lib.rs and advanced.rs.
type Files = [Option<Vec<u8>>; 2];

fn class(names: &[&str], files: &[Files], opts: &Options) -> SimilarityFile {
    let [l, a] = handout();
    compare_bytes(names, files, &[&l, &a], opts)
}

fn flagged_steps(f: &SimilarityFile) -> Vec<String> {
    f.pairs.iter().map(|p| p.step.clone()).collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_copy_with_renamed_names_moved_helpers_and_new_layout_is_found() {
    let files = [
        [Some(read("solutions/src/lib.rs")), None],
        [
            Some(read(
                "fixtures/similarity/disguised-copy/student/src/lib.rs",
            )),
            None,
        ],
    ];
    let f = class(&["reference", "copy"], &files, &Options::default());
    let want = &expected()["disguised_copy"];
    let steps = flagged_steps(&f);
    assert_eq!(steps, strings(&want["flagged"]), "{f:#?}");
    for p in &f.pairs {
        assert_eq!((p.a.as_str(), p.b.as_str()), ("copy", "reference"));
        assert!(p.score >= 0.8 && !p.matches.is_empty(), "{p:#?}");
        // The matched lines are the step's own, on both sides.
        for m in &p.matches {
            assert!(m.a_lines[0] >= 1 && m.a_lines[0] <= m.a_lines[1], "{m:?}");
            assert!(!m.a_text.is_empty() && !m.b_text.is_empty(), "{m:?}");
        }
    }
    // The copy's step 08 lines are where its execute is.
    let copy = String::from_utf8(read(
        "fixtures/similarity/disguised-copy/student/src/lib.rs",
    ))
    .unwrap();
    let execute = copy
        .lines()
        .position(|l| l.starts_with("pub fn execute"))
        .unwrap() as u32
        + 1;
    let p08 = f.pairs.iter().find(|p| p.step == "08").unwrap();
    assert!(
        p08.matches.iter().all(|m| m.a_lines[0] >= execute),
        "{p08:#?}"
    );
    // Tiny steps are below the least size, however alike.
    let all = class(
        &["reference", "copy"],
        &files,
        &Options {
            threshold: 0.8,
            min_tokens: 0,
        },
    );
    for step in strings(&want["too_small"]) {
        assert!(
            flagged_steps(&all).contains(&step),
            "step {step} is alike but small: {all:#?}"
        );
        assert!(!steps.contains(&step));
    }
    // The disguised copy holds the reference answers: its folder is never
    // in a handout (the handout's walk does not go into a withheld one).
    assert!(crate::handout::withheld(Path::new("fixtures/similarity")));
    // Two learners who kept the stubs are no copy of each other.
    let stub = [
        [Some(read("fixtures/pristine/lib.rs")), None],
        [Some(read("fixtures/pristine/lib.rs")), None],
    ];
    assert_eq!(class(&["x", "y"], &stub, &Options::default()).pairs, []);
}

/// Whether `a` and `b` hold one of `items`' functions word for word
/// (layout aside): the test's own reading, by `learner::fn_span`.
fn share_a_function(a: &str, b: &str, items: &str) -> bool {
    let body = |text: &str, name: &str| {
        crate::learner::fn_span(text, name).map(|(s, e)| {
            text[s..e]
                .lines()
                .map(str::trim)
                .filter(|l| !l.starts_with("//"))
                .collect::<String>()
        })
    };
    items
        .split(',')
        .map(str::trim)
        .any(|name| matches!((body(a, name), body(b, name)), (Some(x), Some(y)) if x == y))
}

#[test]
fn the_kits_independent_alternatives_are_not_flagged() {
    let mut names = vec!["reference".to_string()];
    let mut files = vec![[
        Some(read("solutions/src/lib.rs")),
        Some(read("solutions/advanced.rs")),
    ]];
    let mut listed = |dir: &Path, core: bool| {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            names.push(p.file_name().unwrap().to_string_lossy().into_owned());
            let text = Some(std::fs::read(&p).unwrap());
            files.push(if core { [text, None] } else { [None, text] });
        }
    };
    listed(&root().join("fixtures/alternatives"), true);
    for e in crate::suites::REGISTRY
        .iter()
        .filter(|e| e.track == Track::Advanced)
    {
        let dir = root().join(e.dir()).join("alternatives");
        if dir.is_dir() {
            listed(&dir, false);
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let f = class(&refs, &files, &Options::default());
    let text = |name: &str, step: &str| {
        let i = refs.iter().position(|n| *n == name).unwrap();
        let k = usize::from(crate::suites::is_advanced(step));
        String::from_utf8_lossy(files[i][k].as_deref().unwrap_or_default()).into_owned()
    };
    for p in &f.pairs {
        let items = crate::suites::function_of(&p.step);
        assert!(
            share_a_function(&text(&p.a, &p.step), &text(&p.b, &p.step), items),
            "independent alternatives flagged: {} {} {} ({})",
            p.step,
            p.a,
            p.b,
            p.score
        );
    }
    assert!(f
        .pairs
        .iter()
        .all(|p| !crate::suites::core_ids().contains(&p.step.as_str())));
    for v in expected()["one_line_variants"].as_array().unwrap() {
        let v = strings(v);
        let (a, b) = if v[1] <= v[2] {
            (&v[1], &v[2])
        } else {
            (&v[2], &v[1])
        };
        assert!(
            f.pairs
                .iter()
                .any(|p| p.step == v[0] && &p.a == a && &p.b == b),
            "one-line variant not flagged: {v:?}"
        );
    }
}

#[test]
fn odd_text_tokenizes_and_yields_items_without_panicking() {
    let odd: Vec<Vec<u8>> = vec![
        b"pub fn execute() { { {".to_vec(),
        b"}}}} pub fn backoff() -> u32 { 1 }} }".to_vec(),
        b"pub fn retryable(s: u16) -> bool { \"unclosed string".to_vec(),
        b"/* unclosed /* nested comment pub fn jitter() {}".to_vec(),
        b"pub fn remaining() { r#\"raw never closed".to_vec(),
        b"pub fn wait_delay() { ' ' 'a '\\u{1F600}' 'lifetime }".to_vec(),
        vec![0xff, 0xfe, b'f', b'n', b' ', 0xc3, b'(', b'{', 0x80],
        b"fn".to_vec(),
        b"impl".to_vec(),
        b"pub fn can_attempt".to_vec(),
        b"impl Deadline".to_vec(),
        "pub fn retryable(x: u16) -> bool { { "
            .repeat(50_000)
            .into_bytes(),
        "fn a() { b() } fn b() { a() } ".repeat(2000).into_bytes(),
        "((((((((([[[[[[".repeat(10_000).into_bytes(),
    ];
    let files: Vec<[Option<Vec<u8>>; 2]> = odd
        .iter()
        .map(|b| [Some(b.clone()), Some(b.clone())])
        .collect();
    let names: Vec<String> = (0..files.len()).map(|i| format!("s{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let f = class(
        &refs,
        &files,
        &Options {
            threshold: 0.0,
            min_tokens: 0,
        },
    );
    assert_eq!(f.compared as usize, odd.len());
    // An unclosed function runs to the end of its file: it is still read.
    let toks = tokens::tokenize(&odd[0]);
    let found = items::Items::of(&toks);
    let name = crate::hash::fnv1a(b"execute");
    assert_eq!(
        found.step_text(&toks, &[name], &Set::default()),
        vec![std::ops::Range {
            start: 1,
            end: toks.len()
        }]
    );
    // Random text over the characters that matter to the scan.
    let alphabet = b"fn impl struct Deadline execute{}()[];'\"\\/*#r b'\n\xff\xc3<>:.0";
    let steps = registry_steps();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..2000 {
        let mut text = Vec::new();
        for _ in 0..(state % 200) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        for track in [Track::Core, Track::Advanced] {
            let _ = prints_of(&text, track, &steps, &Set::default());
        }
    }
    // A step's text is cut.
    let long = tokens::tokenize(&odd[11]);
    assert!(long.len() > MAX_STEP_TOKENS);
}

#[cfg(unix)]
#[test]
fn hostile_files_are_bounded_and_named_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let sub = |name: &str| {
        let d = dir.path().join(name).join("student/src");
        std::fs::create_dir_all(&d).unwrap();
        d.join("lib.rs")
    };
    let reference = read("solutions/src/lib.rs");
    let (big, link, odd, fine) = (sub("big"), sub("link"), sub("odd"), sub("fine"));
    // 10 MB: one line of the reference, then padding.
    let mut huge = reference.clone();
    huge.resize(10 * 1024 * 1024, b' ');
    std::fs::write(&big, &huge).unwrap();
    std::fs::write(&fine, &reference).unwrap();
    std::os::unix::fs::symlink(&fine, &link).unwrap();
    let mut bytes = reference.clone();
    bytes.extend_from_slice(b"\n}}}{{ \xff\xfe pub fn x( { \"");
    std::fs::write(&odd, &bytes).unwrap();
    let sources: Vec<Source> = [
        ("big", &big),
        ("link", &link),
        ("odd", &odd),
        ("fine", &fine),
    ]
    .iter()
    .map(|(n, p)| Source {
        name: n,
        lib: Some(p.as_path()),
        advanced: None,
    })
    .collect();
    let f = compare(&root(), &sources, &Options::default());
    let skipped: Vec<(&str, &str)> = f
        .skipped
        .iter()
        .map(|s| (s.submission.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped, [("big", "too-large"), ("link", "not-a-file")]);
    assert!(f.handout_removed);
    // The odd file is the reference with junk after it: still found.
    assert!(
        f.pairs.iter().any(|p| p.a == "fine" && p.b == "odd"),
        "{f:#?}"
    );
    assert!(f
        .pairs
        .iter()
        .all(|p| p.a != "link" && p.b != "link" && p.a != "big"));
}

/// One submission's own version of a function's text: a line left out
/// and a line of its own (operators picked by `seed`) after the first, so
/// that every submission has fingerprints of its own and pairs overlap
/// in part.
fn varied(text: &str, seed: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let ops = ["+", "-", "*", "/", "%", "&", "|", "^"];
    let mut own = String::from("    let _ = 1");
    for k in 0..6 {
        own += &format!(" {} {}", ops[(seed >> (3 * k)) % 8], k + 2);
    }
    own += ";";
    let drop = if lines.len() > 6 {
        2 + seed % (lines.len() - 4)
    } else {
        usize::MAX
    };
    let mut out = String::new();
    for (k, l) in lines.iter().enumerate() {
        if k != drop {
            out += l;
            out.push('\n');
        }
        if k == 0 && l.trim_end().ends_with('{') {
            out += &own;
            out.push('\n');
        }
    }
    out
}

/// A class of `n` made from the kit's correct solutions: each submission
/// takes each core step from one of the six (the reference and the five
/// alternatives), [`varied`], and the reference's advanced file (its
/// functions varied too) with, for two thirds, one alternative section.
fn synthetic_class(n: usize) -> (Vec<String>, Vec<Files>) {
    let mut bases = vec![String::from_utf8(read("solutions/src/lib.rs")).unwrap()];
    let mut paths: Vec<_> = std::fs::read_dir(root().join("fixtures/alternatives"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    bases.extend(paths.iter().map(|p| std::fs::read_to_string(p).unwrap()));
    let advanced = String::from_utf8(read("solutions/advanced.rs")).unwrap();
    let sections: Vec<String> = [
        "s11/alternatives/11-recursive.rs",
        "s12/alternatives/12-try-fold.rs",
    ]
    .iter()
    .map(|p| String::from_utf8(read(&format!("checks/judge/src/suites/{p}"))).unwrap())
    .collect();
    let mut names = Vec::new();
    let mut files = Vec::new();
    for i in 0..n {
        let seed = |s: usize| (i * 2_654_435_761 + s * 40_503) % (1 << 20);
        let mut lib = String::from("pub use lab_api::*;\n");
        for (s, step) in crate::suites::core_ids().iter().enumerate() {
            let base = &bases[(i * 7 + s * 3 + i / 6) % bases.len()];
            let name = crate::suites::function_of(step);
            if let Some((a, b)) = crate::learner::fn_span(base, name) {
                lib += &varied(&base[a..b], seed(s));
            }
        }
        let mut adv = advanced.clone();
        for (s, name) in [
            "parse_retry_after",
            "admit",
            "sleep_at_least",
            "guarded_read",
            "fan_out",
        ]
        .iter()
        .enumerate()
        {
            if let Some((a, b)) = crate::learner::fn_span(&advanced, name) {
                adv = adv.replacen(&advanced[a..b], &varied(&advanced[a..b], seed(s + 20)), 1);
            }
        }
        if i % 3 > 0 {
            adv = format!("{adv}\n{}", sections[i % 3 - 1]);
        }
        names.push(format!("student-{i:03}"));
        files.push([Some(lib.into_bytes()), Some(adv.into_bytes())]);
    }
    (names, files)
}

/// Prints the time of comparing a class of 300 (the figure of
/// docs/maintainers/performance.md); the bound is generous, for a loaded
/// machine: grading 300 takes at least 45 s (0.15 s each).
#[test]
fn a_class_of_300_is_compared_in_well_under_a_tenth_of_its_grading() {
    let (names, files) = synthetic_class(300);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let bytes: usize = files.iter().flatten().flatten().map(Vec::len).sum();
    let start = Instant::now();
    let f = class(&refs, &files, &Options::default());
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "similarity of 300 synthetic submissions ({} KiB): {secs:.2} s, {} pairs",
        bytes / 1024,
        f.pairs.len()
    );
    assert_eq!(f.compared, 300);
    assert!(secs < 30.0, "{secs} s");
}
