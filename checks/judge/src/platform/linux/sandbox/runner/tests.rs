//! Unit tests of a runner's jail, played by python3 (or bash) as a
//! runner would be run: no socket but TCP in `try`, no other program,
//! its share of threads, its folder's quota, and as root a user of its own.

use super::super::home::others_may_run;
use super::super::tests::{captured, limits};
use super::super::*;
use crate::limits::Confinement;
use std::path::Path;
use std::process::Command;

/// Runs `script` with `python3 -S -c` as a runner would be run: the
/// runner's jail for `/usr/bin/python3` (its binary and loader
/// executable, the libraries readable), in a fresh home.
fn as_runner(
    script: &str,
    sockets: &[u16],
    threads: bool,
) -> (crate::platform::linux::spawn::Exit, String) {
    as_runner_with(script, sockets, threads, true)
}

/// [`as_runner`], with the folder's quota watched or not.
fn as_runner_with(
    script: &str,
    sockets: &[u16],
    threads: bool,
    quota: bool,
) -> (crate::platform::linux::spawn::Exit, String) {
    let python = Path::new("/usr/bin/python3");
    let home = RunnerHome::new(python, Confinement::Jail).unwrap();
    // Room for 200 threads' stacks and arenas.
    let room = Rlimits {
        address_space: 16 << 30,
        ..limits()
    };
    let mut jail = runner(python, &home, sockets, room).unwrap();
    if !threads {
        jail.threads = None;
        jail.identity = None;
    }
    if !quota {
        jail.quota = None;
    }
    let mut cmd = Command::new(python);
    cmd.args(["-S", "-c", script]).current_dir(&home.dir);
    captured(&mut cmd, Some(jail))
}

fn has_python() -> bool {
    let there = Path::new("/usr/bin/python3").exists();
    if !there {
        eprintln!("skipped: no /usr/bin/python3 to play the runner");
    }
    there
}

#[test]
fn a_runner_opens_no_socket_in_a_check_and_only_tcp_in_try() {
    if !has_python() {
        return;
    }
    let script = "import socket\nfor f, t in [(socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_STREAM)]:\n    try:\n        socket.socket(f, t).close(); print('open', t)\n    except OSError as e:\n        print('refused', t, e.errno)";
    let (_, text) = as_runner(script, &[], true);
    assert_eq!(text.matches("refused").count(), 3, "{text}");
    // try: TCP only.
    let (_, text) = as_runner(script, &[9], true);
    assert_eq!(text.matches("refused").count(), 2, "{text}");
    assert!(
        text.contains("open 1") || text.contains("open SocketKind.SOCK_STREAM"),
        "{text}"
    );
    // Outside the jail all three open: the test can tell.
    let (_, text) = unjailed(script);
    assert_eq!(text.matches("open").count(), 3, "{text}");
}

/// Runs `script` with `python3 -S -c` in a fresh folder, with no jail.
fn unjailed(script: &str) -> (crate::platform::linux::spawn::Exit, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("/usr/bin/python3");
    cmd.args(["-S", "-c", script]).current_dir(dir.path());
    captured(&mut cmd, None)
}

#[test]
fn a_runner_starts_no_other_program_and_keeps_no_descriptor_of_the_judges() {
    if !has_python() || abi() < 1 {
        eprintln!("skipped: needs python3 and Landlock");
        return;
    }
    // A descriptor the judge holds open (not close-on-exec), as a
    // grader's environment may leave one: the runner must not get it.
    // SAFETY: dup of stdin onto a high number this test owns.
    let leaked = unsafe { libc::fcntl(0, libc::F_DUPFD, 900) };
    assert!(leaked >= 900);
    let script = format!(
            "import os\nopen('mine.sh','w').write('#!/bin/sh\\n')\nfor p in ['/bin/true', './mine.sh']:\n    try:\n        os.execv(p, [p])\n    except OSError as e:\n        print('refused', p, e.errno)\ntry:\n    os.fstat({leaked}); print('leaked open')\nexcept OSError:\n    print('leaked closed')\ntry:\n    os.memfd_create('x'); print('memfd open')\nexcept OSError:\n    print('memfd refused')\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall(425, 1, None)\nprint('io_uring errno', ctypes.get_errno())"
        );
    let (_, text) = as_runner(&script, &[], true);
    // SAFETY: closing the number this test opened.
    unsafe {
        libc::close(leaked);
    }
    assert!(text.contains("refused /bin/true"), "{text}");
    assert!(text.contains("refused ./mine.sh"), "{text}");
    assert!(text.contains("leaked closed"), "{text}");
    assert!(text.contains("memfd refused"), "{text}");
    assert!(text.contains("io_uring errno 1\n"), "EPERM: {text}");
    // Outside the jail the descriptor arrives, memfd works and the
    // program starts (replacing python, so nothing after it prints).
    // SAFETY: as above.
    let leaked = unsafe { libc::fcntl(0, libc::F_DUPFD, 900) };
    let (exit, text) = unjailed(&script.replace("{leaked}", &leaked.to_string()));
    let (_, more) = unjailed(&format!(
            "import os\ntry:\n    os.fstat({leaked}); print('leaked open')\nexcept OSError:\n    print('leaked closed')\nos.memfd_create('x'); print('memfd open')\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall(425, 1, None)\nprint('io_uring errno', ctypes.get_errno())"
        ));
    // SAFETY: closing the number this test opened.
    unsafe {
        libc::close(leaked);
    }
    assert_eq!(exit, crate::platform::linux::spawn::Exit::Success, "{text}");
    assert!(!text.contains("refused"), "{text}");
    assert!(
        more.contains("leaked open") && more.contains("memfd open"),
        "{more}"
    );
    // There io_uring_setup reaches the kernel, which finds no
    // parameters (EFAULT), not the filter's EPERM.
    assert!(!more.contains("io_uring errno 1\n"), "{more}");
}

#[test]
fn a_runner_has_at_most_its_share_of_threads() {
    if !has_python() {
        return;
    }
    // SAFETY: geteuid only returns a number.
    if unsafe { libc::geteuid() } != 0 && !user_namespaces() {
        eprintln!("skipped: an ordinary user without user namespaces");
        return;
    }
    let script = "import threading, time\nn = 0\ntry:\n    for _ in range(200):\n        threading.Thread(target=time.sleep, args=(2,), daemon=True).start(); n += 1\nexcept RuntimeError:\n    pass\nprint('threads', n)";
    let count = |text: &str| -> u64 {
        text.split_whitespace()
            .skip_while(|w| *w != "threads")
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{text}"))
    };
    let (_, text) = as_runner(script, &[], true);
    assert!(count(&text) < RUNNER_THREADS, "{text}");
    // Without the cap the same program starts them all: the test can tell.
    let (_, text) = as_runner(script, &[], false);
    assert_eq!(count(&text), 200, "{text}");
}

#[test]
fn a_runner_that_fills_its_folder_past_the_quota_is_stopped() {
    if !has_python() {
        return;
    }
    // 300 files of just under 1 MiB each (the test's per-file limit).
    let script = "import time\nfor i in range(300):\n    open(f'f{i}', 'wb').write(b'x' * 1000000)\nprint('wrote all')\ntime.sleep(0.5)";
    let (exit, text) = as_runner(script, &[], true);
    assert_eq!(
        exit,
        crate::platform::linux::spawn::Exit::FolderFull,
        "{text}"
    );
    assert!(!text.contains("wrote all"), "{text}");
    // Unwatched, the same program writes it all: the test can tell.
    let (exit, text) = as_runner_with(script, &[], true, false);
    assert_eq!(exit, crate::platform::linux::spawn::Exit::Success, "{text}");
}

/// Whether this system lets an ordinary user make a user namespace.
fn user_namespaces() -> bool {
    std::fs::read_to_string("/proc/sys/user/max_user_namespaces").is_ok_and(|n| n.trim() != "0")
}

#[test]
fn as_root_a_runner_others_cannot_reach_is_staged_and_runs_as_a_user_of_its_own() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid only returns a number.
    if unsafe { libc::geteuid() } != 0 || !Path::new("/bin/bash").exists() {
        eprintln!("skipped: needs root and /bin/bash");
        return;
    }
    let top = tempfile::tempdir().unwrap();
    std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let exe = top.path().join("bash");
    std::fs::copy("/bin/bash", &exe).unwrap();
    let home = RunnerHome::new(&exe, Confinement::Jail).unwrap();
    assert_ne!(home.program, exe);
    assert!(others_may_run(&home.program));
    let jail = runner(&home.program, &home, &[], limits()).unwrap();
    let mut cmd = Command::new(&home.program);
    cmd.args(["-c", "echo uid=$EUID"]).current_dir(&home.dir);
    let (exit, text) = captured(&mut cmd, Some(jail));
    assert_eq!(exit, crate::platform::linux::spawn::Exit::Success, "{text}");
    let uid: u32 = text
        .trim()
        .trim_start_matches("uid=")
        .parse()
        .unwrap_or_else(|_| panic!("{text}"));
    assert!(uid >= 0x2000_0000, "{text}");
    // Staged once per built binary.
    assert_eq!(
        RunnerHome::new(&exe, Confinement::Jail).unwrap().program,
        home.program
    );
}
