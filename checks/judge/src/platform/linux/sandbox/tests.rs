//! Unit tests of the confinement: what a jailed program may read, write,
//! connect to and signal under every Landlock ABI, what a build may read,
//! and what a kernel that lacks a protection is told.

use super::kernel::missing_at;
use super::kernel::reachable;
use super::rules::build_ruleset;
use super::toolchain::toolchain_for;
use super::*;
use crate::limits::Confinement;
use std::ffi::OsString;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// Runs `cmd` under `jail` (or none) with a 20 s watch; returns how it
/// ended and its stdout followed by its stderr.
pub(super) fn captured(
    cmd: &mut Command,
    jail: Option<Jail>,
) -> (crate::platform::linux::spawn::Exit, String) {
    use crate::platform::linux::spawn::{self, Watch};
    let watch = Watch {
        idle: std::time::Duration::from_secs(20),
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(20),
        output_cap: 1 << 20,
    };
    let (exit, captured) = spawn::supervise(cmd, watch, jail, || false).unwrap();
    let text = spawn::excerpt(&captured.stdout, 4096) + &captured.stderr_excerpt(4096);
    (exit, text)
}

pub(super) fn limits() -> Rlimits {
    Rlimits {
        address_space: 1 << 30,
        file_size: 1 << 20,
        cpu_seconds: 20,
    }
}

/// Runs `script` in sh inside a jail that may read /bin, /usr and `read`,
/// and write `write`; returns (exit code or -signal, stdout+stderr).
/// Runs `script` in sh inside `jail`; returns how it ended and its
/// stdout followed by its stderr.
fn in_jail(script: &str, jail: Jail) -> (crate::platform::linux::spawn::Exit, String) {
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", script]);
    captured(&mut cmd, Some(jail))
}

/// Runs `script` in a jail that may read /bin, /usr and `read`, and
/// write `write`; returns (exit code, stdout+stderr).
fn jailed(script: &str, read: &Path, write: &Path, no_fork: bool) -> (i32, String) {
    use crate::platform::linux::spawn::Exit;
    let policy = Policy {
        read: vec!["/bin".into(), "/usr".into(), read.to_path_buf()],
        write: vec![write.to_path_buf()],
        connect: Vec::new(),
        execute_only_read: false,
    };
    let mut jail = Jail::new(&policy, limits(), Vec::new(), Confinement::Jail).unwrap();
    if no_fork {
        jail = jail.without_new_processes(Sockets::None);
    }
    match in_jail(script, jail) {
        (Exit::Success, text) => (0, text),
        (Exit::Failure(code), text) => (code, text),
        (other, text) => panic!("{other:?}: {text}"),
    }
}

fn folders() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let (open, own, secret) = (
        top.path().join("open"),
        top.path().join("own"),
        top.path().join("secret"),
    );
    for d in [&open, &own, &secret] {
        std::fs::create_dir(d).unwrap();
        std::fs::write(d.join("f"), "words").unwrap();
    }
    (top, open, own, secret)
}

#[test]
fn a_jailed_program_reads_and_writes_only_what_its_policy_names() {
    if abi() < 1 {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let (_top, open, own, secret) = folders();
    let (code, text) = jailed(
        &format!(
            "cat {0}/f && echo new > {1}/g && cat {1}/g",
            open.display(),
            own.display()
        ),
        &open,
        &own,
        false,
    );
    assert_eq!((code, text.as_str()), (0, "wordsnew\n"));
    let (code, _) = jailed(&format!("cat {}/f", secret.display()), &open, &own, false);
    assert_ne!(code, 0, "read a folder outside the policy");
    let (code, _) = jailed(
        &format!("echo x > {}/f", open.display()),
        &open,
        &own,
        false,
    );
    assert_ne!(code, 0, "wrote into a read-only folder");
    assert_eq!(std::fs::read_to_string(open.join("f")).unwrap(), "words");
    let (code, _) = jailed("cat /proc/1/cmdline", &open, &own, false);
    assert_ne!(code, 0, "read /proc");
}

/// A jail whose ruleset is built for Landlock ABI `abi`.
fn jail_at(abi: i32, policy: &Policy) -> Jail {
    Jail {
        ruleset: Some(build_ruleset(policy, abi).unwrap()),
        limits: limits(),
        env: Vec::new(),
        no_fork: None,
        handed: Vec::new(),
        identity: None,
        threads: None,
        quota: None,
        arg0: None,
    }
}

#[test]
fn a_ruleset_for_every_older_abi_is_accepted_and_still_confines() {
    use crate::platform::linux::spawn::Exit;
    let (_top, open, own, secret) = folders();
    let policy = Policy {
        read: vec!["/bin".into(), "/usr".into(), open.clone()],
        write: vec![own.clone()],
        connect: Vec::new(),
        execute_only_read: false,
    };
    for abi in 1..=abi() {
        let script = format!("cat {}/f > {}/g", open.display(), own.display());
        let (exit, text) = in_jail(&script, jail_at(abi, &policy));
        assert_eq!(exit, Exit::Success, "ABI {abi}: {text}");
        let script = format!("cat {}/f", secret.display());
        let (exit, _) = in_jail(&script, jail_at(abi, &policy));
        assert_ne!(exit, Exit::Success, "ABI {abi}: read outside the policy");
    }
}

#[test]
fn a_jailed_program_connects_only_to_the_ports_it_was_given() {
    use crate::platform::linux::spawn::Exit;
    if abi() < 4 {
        eprintln!("skipped: this kernel has no Landlock TCP rules");
        return;
    }
    if !Path::new("/usr/bin/python3").exists() {
        eprintln!("skipped: no /usr/bin/python3 to make the connections");
        return;
    }
    let given = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = |l: &std::net::TcpListener| l.local_addr().unwrap().port();
    let (_top, open, own, _) = folders();
    let policy = Policy {
        read: vec!["/bin".into(), "/usr".into(), open],
        write: vec![own],
        connect: vec![port(&given)],
        execute_only_read: false,
    };
    let connect = |p: u16| {
        let script = format!(
            "/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', {p}))\""
        );
        in_jail(
            &script,
            Jail::new(&policy, limits(), Vec::new(), Confinement::Jail).unwrap(),
        )
    };
    let (exit, text) = connect(port(&given));
    assert_eq!(exit, Exit::Success, "{text}");
    let (exit, text) = connect(port(&other));
    assert_ne!(exit, Exit::Success, "connected to a port not given");
    assert!(text.contains("Permission"), "{text}");
}

#[test]
fn a_jailed_program_cannot_signal_outside_its_domain() {
    if abi() < 6 {
        eprintln!("skipped: this kernel has no Landlock signal scoping");
        return;
    }
    let (_top, open, own, _) = folders();
    // Its parent is this test: kill -0 only asks whether signalling works.
    let (code, text) = jailed("kill -0 $PPID && echo reached", &open, &own, false);
    assert_ne!(code, 0, "{text}");
    assert!(!text.contains("reached"));
    let (code, _) = jailed("kill -0 $$ && echo self", &open, &own, false);
    assert_eq!(code, 0);
}

#[test]
fn the_seccomp_filter_alone_lets_a_runner_signal_only_itself() {
    use crate::platform::linux::spawn::Exit;
    // No Landlock here: only the filter, as on a kernel without scoping.
    let run = |script: &str, filter: bool| {
        let mut jail = Jail {
            ruleset: None,
            limits: limits(),
            env: Vec::new(),
            no_fork: None,
            handed: Vec::new(),
            identity: None,
            threads: None,
            quota: None,
            arg0: None,
        };
        if filter {
            jail = jail.without_new_processes(Sockets::None);
        }
        in_jail(script, jail).0
    };
    // `exec kill`: the shell becomes kill, so no new process is needed;
    // $$ is then kill's own pid, $PPID this test.
    assert_ne!(run("exec kill -0 $PPID", true), Exit::Success);
    assert_eq!(run("exec kill -0 $$", true), Exit::Success);
    // Without the filter the same signal goes through: the test can tell.
    assert_eq!(run("exec kill -0 $PPID", false), Exit::Success);
}

#[test]
fn a_jailed_program_starts_no_process_but_keeps_its_threads() {
    let (_top, open, own, _) = folders();
    let (code, text) = jailed("/bin/true && echo forked", &open, &own, true);
    assert_ne!(code, 0);
    assert!(!text.contains("forked"), "{text}");
    // Without the filter the same line runs: the test can tell.
    let (code, text) = jailed("/bin/true && echo forked", &open, &own, false);
    assert_eq!((code, text.trim()), (0, "forked"));
}

#[test]
fn a_jailed_runner_cannot_change_the_times_or_mode_of_a_file_it_may_not_write() {
    let (_top, open, own, _) = folders();
    let f = open.join("f");
    let meta = || std::fs::metadata(&f).unwrap();
    let before = meta();
    // `exec`: the shell becomes the tool, no new process is needed.
    for script in [
        format!("exec touch -d 2099-01-01 {}", f.display()),
        format!("exec chmod 000 {}", f.display()),
    ] {
        let (code, text) = jailed(&script, &open, &own, true);
        assert_ne!(code, 0, "{script}: {text}");
    }
    assert_eq!(before.modified().unwrap(), meta().modified().unwrap());
    assert_eq!(before.permissions(), meta().permissions());
    // Landlock alone lets both through: the filter is what stops them.
    let (code, text) = jailed(
        &format!("exec touch -d 2099-01-01 {}", f.display()),
        &open,
        &own,
        false,
    );
    assert_eq!(code, 0, "{text}");
    assert_ne!(before.modified().unwrap(), meta().modified().unwrap());
}

#[test]
fn a_jailed_runner_cannot_shrink_a_file_even_its_own() {
    let (_top, open, own, _) = folders();
    let f = own.join("f");
    let script = format!("exec truncate -s 0 {}", f.display());
    let (code, text) = jailed(&script, &open, &own, true);
    assert_ne!(code, 0, "{text}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "words");
    // Landlock alone lets it through: the filter is what stops it.
    let (code, text) = jailed(&script, &open, &own, false);
    assert_eq!(code, 0, "{text}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "");
}

#[test]
fn a_file_past_the_size_limit_stops_the_writer() {
    let (_top, open, own, _) = folders();
    let (code, _) = jailed(
        &format!("yes | head -c 2000000 > {}/big", own.display()),
        &open,
        &own,
        false,
    );
    // head was killed by SIGXFSZ (25): sh says 128 + 25.
    assert_eq!(code, 128 + libc::SIGXFSZ);
    assert_eq!(std::fs::metadata(own.join("big")).unwrap().len(), 1 << 20);
}

#[test]
fn a_build_reads_the_linker_cache_but_no_other_file_of_etc_nor_a_folder_not_given() {
    if abi() < 1 {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let (_top, open, own, secret) = folders();
    let tmp = own.join("lab-tmp");
    std::fs::create_dir(&tmp).unwrap();
    let jail = build(
        std::slice::from_ref(&open),
        &own,
        &tmp,
        &[],
        Confinement::Jail,
    )
    .unwrap();
    let mut files = vec![
        "/etc/ld.so.cache".to_string(),
        format!("{}/f", open.display()),
        format!("{}/f", secret.display()),
    ];
    // Whichever of these this machine has: none may be read.
    let refused = ["/etc/passwd", "/etc/hostname", "/etc/shadow", "/etc/hosts"];
    files.extend(
        refused
            .iter()
            .filter(|f| Path::new(f).is_file())
            .map(|f| f.to_string()),
    );
    let script = files
        .iter()
        .map(|f| format!("if cat {f} >/dev/null; then echo read {f}; else echo refused {f}; fi"))
        .collect::<Vec<_>>()
        .join("; ");
    let (exit, text) = in_jail(&script, jail);
    assert_eq!(exit, crate::platform::linux::spawn::Exit::Success, "{text}");
    assert!(text.contains("read /etc/ld.so.cache\n"), "{text}");
    assert!(
        text.contains(&format!("read {}/f\n", open.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("refused {}/f\n", secret.display())),
        "{text}"
    );
    for f in &files[3..] {
        assert!(text.contains(&format!("refused {f}\n")), "{text}");
    }
    assert!(files.len() > 3, "no file of /etc to try");
}

#[test]
fn a_path_of_wide_folders_grants_none_of_them() {
    let top = tempfile::tempdir().unwrap();
    let home = top.path().canonicalize().unwrap().join("home");
    for d in ["bin", ".cargo/bin", ".cargo/registry", "shims"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    // A build's programs, and a folder of others.
    std::fs::write(home.join("bin/cc"), "").unwrap();
    std::fs::write(home.join(".cargo/bin/cargo"), "").unwrap();
    std::fs::write(home.join("shims/python"), "").unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token").unwrap();
    // A name for `/` that only resolving it shows.
    std::os::unix::fs::symlink("/", home.join("root-link")).unwrap();
    let entry = |p: &str| home.join(p).display().to_string();
    let path = [
        "/".to_string(),
        "/etc".into(),
        "/etc/alternatives".into(),
        "/usr".into(),
        "/opt".into(),
        "/proc/self".into(),
        top.path().display().to_string(),
        home.display().to_string(),
        entry(".cargo"),
        entry("root-link"),
        "relative/bin".into(),
        entry("shims"),
        entry("bin"),
        entry(".cargo/bin"),
        "/usr/bin".into(),
    ]
    .join(":");
    let env = |name: &str| match name {
        "HOME" => Some(home.clone().into_os_string()),
        "PATH" => Some(OsString::from(&path)),
        _ => None,
    };
    let tc = toolchain_for(&env);
    for wide in ["/", "/etc", "/etc/alternatives", "/usr", "/opt", "/proc"] {
        assert!(
            !tc.read.iter().any(|r| r == Path::new(wide)),
            "{wide} granted: {:?}",
            tc.read
        );
    }
    for granted in &tc.read {
        let real = granted.canonicalize().unwrap_or(granted.clone());
        assert!(
            !home.starts_with(&real) && !home.join(".cargo").starts_with(&real),
            "{} holds the home or CARGO_HOME: {:?}",
            granted.display(),
            tc.read
        );
    }
    for given in [home.join("bin"), home.join(".cargo/bin")] {
        assert!(tc.read.contains(&given), "{:?}", tc.read);
    }
    assert!(!tc.read.contains(&home.join("shims")), "{:?}", tc.read);
    let passed = tc.env.iter().find(|(k, _)| k == "PATH").unwrap();
    assert_eq!(
        passed.1,
        OsString::from(format!("{}:{}:/usr/bin", entry("bin"), entry(".cargo/bin")))
    );
}

#[test]
fn a_kit_and_a_tmpdir_that_others_cannot_enter_lose_the_thread_cap() {
    use std::os::unix::fs::PermissionsExt;
    let top = tempfile::tempdir().unwrap();
    let (target, tmp) = (top.path().join("kit/target"), top.path().join("tmp"));
    std::fs::create_dir_all(&target).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    mode(top.path(), 0o755);
    assert!(reachable(&target, &tmp));
    mode(&target, 0o700);
    assert!(reachable(&target, &tmp), "staged in tmp");
    mode(&tmp, 0o700);
    assert!(!reachable(&target, &tmp));
    mode(&target, 0o755);
    mode(&tmp, 0o755);
    mode(top.path(), 0o700);
    assert!(!reachable(&target, &tmp), "a folder above both");
}

#[test]
fn each_missing_protection_is_named_with_the_linux_release_that_brings_it() {
    assert_eq!(missing_at(0, false).len(), 3);
    let first = &missing_at(0, false)[0];
    assert!(first.contains("filesystem") && first.contains("5.13"));
    assert_eq!(
        missing_at(4, false),
        vec!["signal scoping (Landlock, Linux 6.12)".to_string()]
    );
    // The runners' seccomp filter stands in for signal scoping.
    assert!(missing_at(4, true).is_empty());
    assert_eq!(
        missing_at(3, true),
        vec!["TCP rules (Landlock, Linux 6.7)".to_string()]
    );
    assert!(missing_at(6, false).is_empty() && missing_at(7, false).is_empty());
}
