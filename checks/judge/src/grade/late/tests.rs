//! Times, the policy grammar, penalties and where a submission's time
//! comes from; every expected value worked out by hand.

use super::*;
use std::process::Command;

#[test]
fn rfc3339_times_read_to_epoch_seconds() {
    assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(parse_rfc3339("2000-03-01T00:00:00Z"), Some(951_868_800));
    // 2026-03-02T04:59:00Z: 20514 days and 4 h 59 min.
    let want = Some(20_514 * 86_400 + 4 * 3600 + 59 * 60);
    assert_eq!(parse_rfc3339("2026-03-01T23:59:00-05:00"), want);
    assert_eq!(parse_rfc3339("2026-03-02T04:59:00.75Z"), want);
    assert_eq!(parse_rfc3339("2026-03-02 04:59:00z"), want);
    assert_eq!(parse_rfc3339("2026-03-02T10:29:00+05:30"), want);
    assert!(parse_rfc3339("2024-02-29T00:00:00Z").is_some());
    assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(
        format_rfc3339(20_514 * 86_400 + 4 * 3600 + 59 * 60),
        "2026-03-02T04:59:00Z"
    );
    assert_eq!(format_rfc3339(951_868_800 - 1), "2000-02-29T23:59:59Z");
    for t in [-86_401, 1_709_164_800, 4_102_444_799] {
        assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t), "{t}");
    }
    for bad in [
        "2023-02-29T00:00:00Z",
        "2026-03-01",
        "2026-03-01T23:59:00",
        "2026-13-01T00:00:00Z",
        "2026-03-01T24:00:00Z",
        "2026-03-01T23:59:00+5:00",
        "2026-03-01T23:59:00.Z",
        "tomorrow",
        "",
        "２026-03-01T23:59:00Z",
    ] {
        assert_eq!(parse_rfc3339(bad), None, "{bad:?}");
    }
}

#[test]
fn the_policy_grammar_reads_and_refuses() {
    let p = parse_policy("linear:10%/day,cap:40%,grace:2h").unwrap();
    assert_eq!(
        p,
        Policy {
            rate: Rate::Linear {
                percent: 10.0,
                unit: 86_400
            },
            cap: 40.0,
            grace: 7200
        }
    );
    let p = parse_policy("step:25%/12h").unwrap();
    assert_eq!(
        p.rate,
        Rate::Step {
            percent: 25.0,
            unit: 43_200
        }
    );
    assert_eq!(parse_policy("none").unwrap(), Policy::default());
    assert_eq!(duration("1.5d"), Some(129_600));
    assert_eq!(duration("30m"), Some(1800));
    for bad in [
        "linear:10/day",
        "linear:10%",
        "linear:10%/0d",
        "cap:140%",
        "grace:soon",
        "linear:10%/day,step:5%/day",
        "bogus:1",
        "linear",
        "",
    ] {
        let e = parse_policy(bad).unwrap_err();
        assert!(
            !e.contains('\n') && e.contains("late policy"),
            "{bad:?}: {e}"
        );
    }
}

#[test]
fn penalties_are_percents_of_the_score_rounded_to_points() {
    let p = parse_policy("linear:10%/day,cap:40%,grace:2h").unwrap();
    assert_eq!(p.penalty(8, 3600), 0, "within the grace");
    assert_eq!(p.penalty(8, 7200), 0, "at the grace's end");
    // 26 h late, 24 h charged: 10% of 8 = 0.8, one point.
    assert_eq!(p.penalty(8, 26 * 3600), 1);
    // Ten days: capped at 40% of 8 = 3.2, three points.
    assert_eq!(p.penalty(8, 10 * 86_400), 3);
    // 14 h: 12 h charged, 5% of 30 = 1.5, rounded up to 2.
    assert_eq!(p.penalty(30, 14 * 3600), 2);
    assert_eq!(p.penalty(0, 10 * 86_400), 0);
    let step = parse_policy("step:10%/day,grace:2h").unwrap();
    // One second charged starts a day: 10% of 30.
    assert_eq!(step.penalty(30, 7201), 3);
    assert_eq!(step.penalty(30, 7200 + 86_401), 6);
    let all = parse_policy("linear:50%/hour").unwrap();
    assert_eq!(all.penalty(8, 86_400), 8, "never more than the score");
}

#[test]
fn a_policy_file_holds_the_same_items_and_a_due_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("late.json");
    std::fs::write(
        &file,
        r#"{"due": "1970-01-02T00:00:00Z", "linear": "10%/day", "cap": "40%", "grace": "2h"}"#,
    )
    .unwrap();
    let (p, due) = read_policy_file(&file).unwrap();
    assert_eq!(p, parse_policy("linear:10%/day,cap:40%,grace:2h").unwrap());
    assert_eq!(due, Some(86_400));
    for bad in [
        r#"{"due": "soon"}"#,
        r#"{"rate": "10%/day"}"#,
        r#"{"cap": "400%"}"#,
        "not json",
    ] {
        std::fs::write(&file, bad).unwrap();
        let e = read_policy_file(&file).unwrap_err();
        assert!(e.contains("late.json") && !e.contains('\n'), "{bad}: {e}");
    }
}

fn git(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_COMMITTER_DATE", "2026-03-02T06:00:00+00:00")
        .env("GIT_AUTHOR_DATE", "2026-03-01T06:00:00+00:00")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.org")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.org")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_submission_time_comes_from_the_csv_then_its_file_then_git() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("alice");
    std::fs::create_dir(&sub).unwrap();
    let none = BTreeMap::new();
    let s = stamp(&sub, "alice", &none).unwrap();
    assert_eq!((s.time, s.source), (None, "unknown"));

    // A git repository: its last commit's committer time.
    let have_git =
        git(&sub, &["init", "-q"]) && git(&sub, &["commit", "-q", "--allow-empty", "-m", "x"]);
    if have_git {
        let s = stamp(&sub, "alice", &none).unwrap();
        assert_eq!(s.source, "git");
        assert_eq!(s.time.map(|t| t.1), parse_rfc3339("2026-03-02T06:00:00Z"));
    }
    // Its submitted_at file comes before git.
    std::fs::write(sub.join("submitted_at"), "2026-03-01T00:00:00Z\n").unwrap();
    let s = stamp(&sub, "alice", &none).unwrap();
    assert_eq!(s.source, "file");
    assert_eq!(
        s.time,
        Some(("2026-03-01T00:00:00Z".into(), 20_513 * 86_400))
    );
    // The CSV before both.
    let mut csv = BTreeMap::new();
    csv.insert("alice".to_string(), ("1970-01-01T00:00:00Z".into(), 0));
    assert_eq!(stamp(&sub, "alice", &csv).unwrap().source, "csv");

    // A malformed or oversized file is an error naming it.
    std::fs::write(sub.join("submitted_at"), "yesterday").unwrap();
    let e = stamp(&sub, "alice", &none).unwrap_err();
    assert!(e.contains("submitted_at") && !e.contains('\n'), "{e}");
    std::fs::write(sub.join("submitted_at"), "x".repeat(300)).unwrap();
    assert!(stamp(&sub, "alice", &none).is_err());
}

#[cfg(unix)]
#[test]
fn links_and_fifos_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("bob");
    std::fs::create_dir(&sub).unwrap();
    let target = dir.path().join("time");
    std::fs::write(&target, "2026-03-01T00:00:00Z").unwrap();
    std::os::unix::fs::symlink(&target, sub.join("submitted_at")).unwrap();
    let e = stamp(&sub, "bob", &BTreeMap::new()).unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
    std::fs::remove_file(sub.join("submitted_at")).unwrap();
    let made = Command::new("mkfifo")
        .arg(sub.join("submitted_at"))
        .status()
        .is_ok_and(|s| s.success());
    if made {
        assert!(stamp(&sub, "bob", &BTreeMap::new()).is_err());
        std::fs::remove_file(sub.join("submitted_at")).unwrap();
    }
    // A .git that is a link to a repository elsewhere is not read.
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    if git(&repo, &["init", "-q"]) && git(&repo, &["commit", "-q", "--allow-empty", "-m", "x"]) {
        assert!(git_time(&repo).is_some());
        std::os::unix::fs::symlink(repo.join(".git"), sub.join(".git")).unwrap();
        assert_eq!(git_time(&sub), None);
    }
}

#[test]
fn a_penalty_is_applied_once_and_recorded() {
    let mut r = crate::report::test_support::class().submissions[0].clone();
    r.score = 8;
    let p = parse_policy("linear:10%/day,cap:40%,grace:2h").unwrap();
    let stamp = Stamp {
        time: Some(("t".into(), 26 * 3600)),
        source: "csv",
    };
    let once = apply(&r, &p, 0, &stamp);
    assert_eq!(once.score, 7);
    let late = once.late.clone().unwrap();
    assert_eq!(
        (late.late_by, late.penalty, late.score_before_penalty),
        (Some(26 * 3600), 1, 8)
    );
    assert_eq!(apply(&once, &p, 0, &stamp), once);
    let early = Stamp {
        time: Some(("t".into(), -50)),
        source: "file",
    };
    let on_time = apply(&r, &p, 0, &early);
    assert_eq!(on_time.score, 8);
    assert_eq!(on_time.late.unwrap().late_by, Some(0));
    let unknown = Stamp {
        time: None,
        source: "unknown",
    };
    let l = apply(&r, &p, 0, &unknown).late.unwrap();
    assert_eq!((l.late_by, l.penalty, l.submitted_at), (None, 0, None));
}

/// A repository's own config that would start programs (a pager, an
/// fsmonitor, signature checking, hooks) starts none of them.
#[cfg(unix)]
#[test]
fn a_repository_config_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("mallory");
    std::fs::create_dir(&sub).unwrap();
    if !git(&sub, &["init", "-q"]) {
        return;
    }
    // A commit that carries a signature, so that a log which checks
    // signatures would run the gpg program.
    let out = |args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(&sub)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}");
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let tree = out(&["hash-object", "-t", "tree", "-w", "/dev/null"]);
    let at = parse_rfc3339("2026-03-02T06:00:00Z").unwrap();
    let commit = dir.path().join("commit");
    std::fs::write(
        &commit,
        format!(
            "tree {tree}\nauthor a <a@example.org> {at} +0000\n\
             committer a <a@example.org> {at} +0000\n\
             gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nx\n"
        ),
    )
    .unwrap();
    let sha = out(&[
        "hash-object",
        "-t",
        "commit",
        "-w",
        &commit.display().to_string(),
    ]);
    out(&["update-ref", "HEAD", &sha]);
    let marker = dir.path().join("ran");
    let script = dir.path().join("run.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hooks = sub.join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-checkout",
        "reference-transaction",
        "post-index-change",
    ] {
        std::fs::copy(&script, hooks.join(hook)).unwrap();
    }
    let s = script.display();
    let config = sub.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text += &format!(
        "[core]\n\tpager = {s}\n\tfsmonitor = {s}\n\thooksPath = {}\n\
         [log]\n\tshowSignature = true\n[gpg]\n\tprogram = {s}\n\
         [pager]\n\tlog = {s}\n",
        hooks.display()
    );
    std::fs::write(&config, text).unwrap();
    let got = git_time(&sub).map(|t| t.1);
    assert_eq!(got, parse_rfc3339("2026-03-02T06:00:00Z"));
    assert!(!marker.exists(), "the repository's config ran a program");
}
