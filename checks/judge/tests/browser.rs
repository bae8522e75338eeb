//! summary.html in a real browser: headless Chromium loads the page that
//! `lab.sh grade` wrote for the sample class (fixtures/submissions, plus a
//! copy of one under a Chinese name), and the page `lab.sh grade --merge`
//! wrote for a made-up class of 300 in three shards, each in English and in
//! Chinese. The browser must report no script or console error, its DOM
//! must hold every section, and the histogram's bars and the tables' counts
//! must equal summary.json's; a screenshot of each page (wide and phone
//! sized) and its print (PDF) are left in target/browser/ for a person to
//! look at.
//!
//! `.ci/run` installs chromium and fonts-noto-cjk. Without a browser the
//! test fails when `CI` is set, and otherwise says on stderr that it
//! skipped. Every browser and lab.sh run is under an outer time limit.

use lab_judge::report::summary::{read_summary, SummaryFile, SummaryStep, SummarySubmission};
use lab_judge::report::{AdvancedBuild, Build, FaultKind, StepStatus, GRADE_SCHEMA};
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{kit_root, run_program, wait_within, Run};

/// Grading the sample class: its builds, its endless loop and its sleeper.
const GRADE: Duration = Duration::from_secs(900);
const QUICK: Duration = Duration::from_secs(120);
const BROWSER: Duration = Duration::from_secs(120);

/// The browser: $LAB_CHROMIUM, else the first of the usual names on PATH;
/// `None` after saying why the test skips (a failure when `CI` is set).
fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("LAB_CHROMIUM").map(PathBuf::from);
    let found = named.into_iter().chain(
        [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .iter()
        .filter_map(|name| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        }),
    );
    let found = found.into_iter().find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no Chromium was found: install it as .ci/run does \
             (apt-get install chromium fonts-noto-cjk) or name it in $LAB_CHROMIUM"
        );
        // Straight to the process's stderr: the harness hides what a
        // passing test prints.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no Chromium (chromium, chromium-browser or google-chrome on PATH, or \
             $LAB_CHROMIUM); summary.html was not checked in a browser"
        );
    }
    found
}

/// This test's output folder, under the kit's target/.
fn out_dir(name: &str) -> PathBuf {
    let dir = kit_root().join("target/browser").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs lab.sh in the kit with `args`, in `lang`; its builds in target/e2e,
/// which the end-to-end tests share.
fn lab(args: &[&str], lang: &str, limit: Duration) -> Run {
    common::seed_e2e();
    let mut all = vec!["lab.sh"];
    all.extend_from_slice(args);
    run_program(
        &kit_root(),
        "bash",
        &all,
        "e2e",
        &[("LAB_LANG", lang)],
        limit,
    )
}

/// What the browser made of a page: its DOM after scripts ran, and what it
/// logged.
struct Loaded {
    dom: String,
    log: String,
}

/// Runs the browser on `page` with `extra` arguments, under [`BROWSER`].
fn browse(browser: &Path, page: &Path, extra: &[String], work: &Path) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let (o, e) = (work.join("browser.out"), work.join("browser.err"));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .env("HOME", profile.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let status = wait_within(
        &mut child,
        BROWSER,
        &format!("{} {extra:?}", browser.display()),
    );
    let (out, err) = (
        std::fs::read_to_string(&o).unwrap(),
        std::fs::read_to_string(&e).unwrap(),
    );
    assert!(status.success(), "{status}: {err}");
    (out, err)
}

/// Loads `page` (dumping its DOM), takes a wide and a phone-sized
/// screenshot of it into `shots` as `name.png` and `name-phone.png`, and
/// prints it to `name.pdf`.
fn load(browser: &Path, page: &Path, shots: &Path, name: &str) -> Loaded {
    let work = tempfile::tempdir().unwrap();
    let (dom, log) = browse(browser, page, &["--dump-dom".to_string()], work.path());
    for (suffix, size) in [("", "1280,2000"), ("-phone", "390,1600")] {
        let png = shots.join(format!("{name}{suffix}.png"));
        let args = [
            format!("--screenshot={}", png.display()),
            format!("--window-size={size}"),
            "--hide-scrollbars".to_string(),
        ];
        browse(browser, page, &args, work.path());
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 5_000,
            "{png:?}"
        );
    }
    // Printed, with the page's print style.
    let pdf = shots.join(format!("{name}.pdf"));
    let args = [
        format!("--print-to-pdf={}", pdf.display()),
        "--no-pdf-header-footer".to_string(),
    ];
    browse(browser, page, &args, work.path());
    let bytes = std::fs::read(&pdf).unwrap_or_else(|e| panic!("{}: {e}", pdf.display()));
    assert!(
        bytes.starts_with(b"%PDF-") && bytes.len() > 5_000,
        "{pdf:?}"
    );
    Loaded { dom, log }
}

fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

fn attr<'a>(e: &ElementRef<'a>, name: &str) -> &'a str {
    e.value().attr(name).unwrap_or_else(|| panic!("no {name}"))
}

fn count(e: &ElementRef) -> u64 {
    attr(e, "data-count").parse().unwrap()
}

/// The step statuses of summary.json, as the page names them.
fn kind(build: &str, status: &str, fault: bool) -> &'static str {
    match (status, build) {
        ("passed", _) => "passed",
        ("failed", _) if fault => "faulted",
        ("failed", _) => "failed",
        ("not-built", "error") => "faulted",
        ("not-built", _) => "not_built",
        ("not-started", _) => "not_started",
        ("not-attempted", _) => "not_attempted",
        other => panic!("{other:?}"),
    }
}

/// Whether the browser's log shows a script error or a console message.
fn logged_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("Uncaught") || l.contains(":CONSOLE"))
        .collect()
}

/// The check for errors sees them: a page whose script logs an error and
/// calls what does not exist.
#[test]
fn a_script_error_shows_in_the_browsers_log() {
    let Some(browser) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let page = work.path().join("broken.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html lang=\"en\"><title>x</title><p>x</p>\
         <script>console.error(\"boom\"); notThere();</script></html>",
    )
    .unwrap();
    let (dom, log) = browse(&browser, &page, &["--dump-dom".to_string()], work.path());
    assert!(dom.contains("<p>x</p>"), "{dom}");
    let errors = logged_errors(&log);
    assert!(
        errors.iter().any(|l| l.contains("boom")) && errors.iter().any(|l| l.contains("notThere")),
        "{log}"
    );
}

/// Checks what the browser made of a page against summary.json: no error
/// logged, every section, and every figure. `lang` is the page's language.
fn check(loaded: &Loaded, summary: &Value, lang: &str, chinese_name: &str) {
    let errors = logged_errors(&loaded.log);
    assert!(errors.is_empty(), "the browser logged: {errors:?}");
    let doc = Html::parse_document(&loaded.dom);
    let html = doc.select(&sel("html")).next().unwrap();
    assert_eq!(attr(&html, "lang"), lang);
    let mut ids: Vec<&str> = doc
        .select(&sel("main > section"))
        .map(|s| attr(&s, "id"))
        .collect();
    // The private similarity section, when grade wrote one, comes last.
    if ids.last() == Some(&"similarity") {
        ids.pop();
    }
    assert_eq!(
        ids,
        ["distribution", "steps", "rules", "mistakes", "students"]
    );
    // The sorting script ran: each sortable heading holds its button.
    assert!(doc.select(&sel("table.sortable th > button")).count() >= 2);

    let subs = summary["submissions"].as_array().unwrap();
    let score = |s: &Value| s["score"].as_u64().unwrap();
    let bars: Vec<ElementRef> = doc.select(&sel("#distribution svg g.bar")).collect();
    assert!(!bars.is_empty());
    for bar in &bars {
        let from: u64 = attr(bar, "data-from").parse().unwrap();
        let to: u64 = attr(bar, "data-to").parse().unwrap();
        let want = subs
            .iter()
            .filter(|s| (from..=to).contains(&score(s)))
            .count() as u64;
        assert_eq!(count(bar), want, "bar {from}..={to}");
    }
    assert_eq!(bars.iter().map(count).sum::<u64>(), subs.len() as u64);

    for row in doc.select(&sel("#steps tbody tr")) {
        let step = attr(&row, "data-step");
        for cell in row.select(&sel("td[data-kind]")) {
            let want = subs
                .iter()
                .filter(|s| {
                    s["steps"].as_array().unwrap().iter().any(|x| {
                        x["step"] == step
                            && kind(
                                s["build"].as_str().unwrap(),
                                x["status"].as_str().unwrap(),
                                x.get("fault").is_some(),
                            ) == attr(&cell, "data-kind")
                    })
                })
                .count() as u64;
            assert_eq!(count(&cell), want, "step {step} {:?}", cell.value());
        }
    }

    let mut rules: BTreeMap<&str, u64> = BTreeMap::new();
    let mut mistakes: BTreeMap<&str, u64> = BTreeMap::new();
    for s in subs {
        for x in s["steps"].as_array().unwrap() {
            for c in x["failed"].as_array().into_iter().flatten() {
                *rules.entry(c.as_str().unwrap()).or_default() += 1;
            }
            if let Some(m) = x["mistake"].as_str() {
                *mistakes.entry(m).or_default() += 1;
            }
        }
    }
    let shown: BTreeMap<&str, u64> = doc
        .select(&sel("#rules tbody tr"))
        .map(|r| (attr(&r, "data-clause"), count(&r)))
        .collect();
    assert_eq!(shown, rules);
    let shown: BTreeMap<&str, u64> = doc
        .select(&sel("#mistakes tbody tr"))
        .map(|r| (attr(&r, "data-mistake"), count(&r)))
        .collect();
    assert_eq!(shown, mistakes);

    let rows: Vec<ElementRef> = doc.select(&sel("#students tbody tr")).collect();
    assert_eq!(rows.len(), subs.len());
    let names: Vec<String> = rows
        .iter()
        .map(|r| r.select(&sel("th bdi")).next().unwrap().text().collect())
        .collect();
    assert!(names.iter().any(|n| n == chinese_name), "{names:?}");
    for s in subs {
        let name = lab_judge::visible::line(s["name"].as_str().unwrap()).into_owned();
        let row = rows
            .iter()
            .find(|r| attr(r, "data-name") == name)
            .unwrap_or_else(|| panic!("no row for {name}"));
        assert_eq!(attr(row, "data-points"), score(s).to_string());
        let cells: Vec<ElementRef> = row.select(&sel("td[data-status]")).collect();
        for cell in cells {
            let x = s["steps"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["step"] == attr(&cell, "data-step"))
                .unwrap();
            let want = kind(
                s["build"].as_str().unwrap(),
                x["status"].as_str().unwrap(),
                x.get("fault").is_some(),
            );
            assert_eq!(attr(&cell, "data-status"), want, "{name}");
        }
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The sample class, graded by lab.sh, then the same summary merged in
/// Chinese: both pages checked in the browser.
#[test]
fn the_sample_class_page_reads_in_a_browser_in_both_languages() {
    let Some(browser) = chromium() else { return };
    let out = out_dir("sample");
    let class = tempfile::tempdir().unwrap();
    let samples = kit_root().join("fixtures/submissions");
    let mut folders: Vec<String> = std::fs::read_dir(&samples)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.path().display().to_string())
        .collect();
    folders.sort();
    // One submission under a Chinese name: a copy of "partial".
    let chinese = class.path().join("王小明");
    std::fs::create_dir_all(chinese.join("src")).unwrap();
    std::fs::copy(
        samples.join("partial/src/lib.rs"),
        chinese.join("src/lib.rs"),
    )
    .unwrap();
    folders.push(chinese.display().to_string());
    let graded = out.join("class");
    let graded_arg = graded.display().to_string();
    let mut args = vec!["grade", "--jobs", "2", "--seed", "7", "--out", &graded_arg];
    args.extend(folders.iter().map(String::as_str));
    let r = lab(&args, "en", GRADE);
    // no-lib-rs needs review (5).
    assert_eq!(r.code, 5, "{}{}", r.stdout, r.stderr);
    let page = graded.join("summary.html");
    let text = std::fs::read_to_string(graded.join("summary.json")).unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    // The English catalog with the steps' words (the rules), as lab.sh has.
    lab_judge::catalog::select(lab_judge::catalog::Lang::En, &lab_judge::suites::words(0));
    let similar = std::fs::read_to_string(graded.join("similarity.json"))
        .map(|t| lab_judge::report::similarity::read_similarity(&t).unwrap())
        .unwrap();
    let again =
        lab_judge::report::html::summary_html_with(&read_summary(&text).unwrap(), Some(&similar));
    if html != again {
        std::fs::write(out.join("summary.expected.html"), &again).unwrap();
        panic!("grade's summary.html is not the page of its summary.json: see {out:?}");
    }
    let summary: Value = serde_json::from_str(&text).unwrap();
    let loaded = load(&browser, &page, &out, "sample-en");
    check(&loaded, &summary, "en", "王小明");
    assert!(loaded.dom.contains("Score distribution"));
    assert!(loaded.dom.contains("<section id=\"similarity\""));

    let zh = out.join("class-zh");
    let r = lab(
        &[
            "grade",
            "--merge",
            &graded_arg,
            "--out",
            &zh.display().to_string(),
        ],
        "zh",
        QUICK,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        std::fs::read_to_string(zh.join("summary.json")).unwrap(),
        text
    );
    let loaded = load(&browser, &zh.join("summary.html"), &out, "sample-zh");
    check(&loaded, &summary, "zh-Hans", "王小明");
    assert!(loaded.dom.contains("分数分布"));
    // --merge carries the graded folder's similarity section over.
    assert!(loaded.dom.contains("<section id=\"similarity\""));
}

/// Step ids, each with a few real clause ids and a known mistake.
const FAILS: [(&str, [&str; 2], &str); 4] = [
    (
        "01",
        ["01/false-for-others", "01/random"],
        "01-429-forgotten",
    ),
    ("02", ["02/safe-methods", "02/random"], "02-head-forgotten"),
    ("03", ["03/nan", "03/random"], "03-nan-passes-through"),
    ("04", ["04/attempt-above-30", "04/random"], "04-no-cap"),
];

/// A made-up class of `n` (summary.json's own types, so its schema),
/// with Chinese and hostile names, failed clauses and known mistakes.
fn synthetic(n: usize) -> SummaryFile {
    let surnames = ["王", "李", "张", "刘", "陈", "Émile", "<b>O'Neil</b> & co"];
    let steps: Vec<(String, bool)> = lab_judge::suites::all_steps()
        .map(|(id, _)| (id.to_string(), lab_judge::suites::is_advanced(id)))
        .collect();
    let core = steps.iter().filter(|s| !s.1).count() as u32;
    let mut submissions: Vec<SummarySubmission> = (0..n)
        .map(|i| {
            let build = match i % 37 {
                3 => Build::Failed,
                11 => Build::Error,
                _ => Build::Ok,
            };
            let advanced = i % 6 == 0;
            let steps: Vec<SummaryStep> = steps
                .iter()
                .enumerate()
                .map(|(k, (id, bonus))| {
                    // A learner of skill s passes the first s steps of a
                    // track, fails the next, and has started some after it.
                    let skill = if *bonus { (i / 6) % 6 } else { (i * 7) % 9 };
                    let at = if *bonus { k - core as usize } else { k };
                    let status = match (build, *bonus, advanced) {
                        (_, true, false) => StepStatus::NotAttempted,
                        (Build::Ok, _, _) | (_, true, true) if at < skill => StepStatus::Passed,
                        (Build::Ok, _, _) | (_, true, true) if at == skill || (i + k) % 4 == 0 => {
                            StepStatus::Failed
                        }
                        (Build::Ok, _, _) | (_, true, true) => StepStatus::NotStarted,
                        _ => StepStatus::NotBuilt,
                    };
                    let fails = FAILS.iter().find(|f| f.0 == id);
                    let failed = match (status, fails) {
                        (StepStatus::Failed, Some(f)) => {
                            f.1[..1 + i % 2].iter().map(|c| c.to_string()).collect()
                        }
                        (StepStatus::Failed, None) => vec![format!("{id}/random")],
                        _ => Vec::new(),
                    };
                    let fault = (status == StepStatus::Failed && (i + k) % 5 == 1).then_some(
                        [FaultKind::TimedOut, FaultKind::Crashed, FaultKind::Flooded][i % 3],
                    );
                    let mistake = match (status, fails) {
                        (StepStatus::Failed, Some(f)) if i % 3 == 0 => Some(f.2.to_string()),
                        _ => None,
                    };
                    SummaryStep {
                        step: id.clone(),
                        passed: status == StepStatus::Passed,
                        status,
                        weight: 1,
                        score: Some(u32::from(status == StepStatus::Passed)),
                        bonus: *bonus,
                        failed,
                        fault,
                        mistake,
                    }
                })
                .collect();
            let points = |b: bool| steps.iter().filter(|s| s.passed && s.bonus == b).count() as u32;
            SummarySubmission {
                name: format!(
                    "{}{}{i:03}",
                    surnames[i % surnames.len()],
                    ["小明", "红", ""][i % 3]
                ),
                folder: Some(format!("student-{i:03}")),
                build,
                review: (build == Build::Error).then(|| "no lib.rs found".to_string()),
                score: points(false),
                max_score: core,
                bonus: points(true),
                advanced_build: if advanced {
                    AdvancedBuild::Ok
                } else {
                    AdvancedBuild::Absent
                },
                steps,
                seconds: 1.25,
                late: None,
            }
        })
        .collect();
    submissions.sort_by(|a, b| a.name.cmp(&b.name));
    SummaryFile {
        schema: GRADE_SCHEMA.to_string(),
        seed: "20261202".to_string(),
        run: None,
        roster: None,
        submissions,
    }
}

/// 300 submissions written as three shards, merged by lab.sh in English
/// and in Chinese: the merged page equals the page of the class merged
/// whole (one shard), is under 1 MiB, and reads in the browser.
#[test]
fn a_class_of_300_merged_from_shards_reads_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let out = out_dir("merged");
    let class = synthetic(300);
    let mut shards = Vec::new();
    for i in 0..3 {
        let mut part = class.clone();
        part.submissions = class
            .submissions
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 3 == i)
            .map(|(_, s)| s.clone())
            .collect();
        let dir = out.join(format!("shard-{}", i + 1));
        std::fs::create_dir_all(&dir).unwrap();
        let text = lab_judge::report::summary::summary_json_from(&part);
        std::fs::write(dir.join("summary.json"), text).unwrap();
        shards.push(dir.display().to_string());
    }
    let whole = out.join("whole");
    std::fs::create_dir_all(&whole).unwrap();
    std::fs::write(
        whole.join("summary.json"),
        lab_judge::report::summary::summary_json_from(&class),
    )
    .unwrap();
    let merge = |from: &[String], to: &Path, lang: &str| {
        let to = to.display().to_string();
        let mut args = vec!["grade", "--merge"];
        args.extend(from.iter().map(String::as_str));
        args.extend(["--out", &to]);
        let r = lab(&args, lang, QUICK);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    };
    let (en, zh, one) = (out.join("class"), out.join("class-zh"), out.join("one"));
    merge(&shards, &en, "en");
    merge(&shards, &zh, "zh");
    merge(&[whole.display().to_string()], &one, "en");
    let page = std::fs::read(en.join("summary.html")).unwrap();
    assert!(page.len() < 1 << 20, "{} bytes", page.len());
    assert_eq!(
        page,
        std::fs::read(one.join("summary.html")).unwrap(),
        "shards merged give the page of the class merged whole"
    );
    let summary = read_json(&en.join("summary.json"));
    assert_eq!(summary["submissions"].as_array().unwrap().len(), 300);
    let chinese = lab_judge::visible::line(
        &class
            .submissions
            .iter()
            .find(|s| s.name.starts_with('王'))
            .unwrap()
            .name,
    )
    .into_owned();
    let loaded = load(&browser, &en.join("summary.html"), &out, "merged-en");
    check(&loaded, &summary, "en", &chinese);
    let loaded = load(&browser, &zh.join("summary.html"), &out, "merged-zh");
    check(&loaded, &summary, "zh-Hans", &chinese);
    // A rule's words and a known mistake's id are shown.
    assert!(loaded.dom.contains("02/safe-methods") && loaded.dom.contains("02-head-forgotten"));
}
