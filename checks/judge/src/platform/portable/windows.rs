//! The portable layer's calls on Windows: handles handed by value (made
//! inheritable, their numbers in `LAB_HANDLE_<n>`), `Child::kill`.

use super::super::{Handed, Rlimits};
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;
use windows_sys::Win32::Foundation::{SetHandleInformation, HANDLE, HANDLE_FLAG_INHERIT};
use windows_sys::Win32::Storage::FileSystem::{
    ReOpenFile, FILE_APPEND_DATA, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, SYNCHRONIZE,
};

/// The variables that name a program's folder for temporary files.
pub(super) const TMP_VARS: &[&str] = &["TEMP", "TMP"];

/// A runner's whole environment: its folder for temporary files, and what
/// Windows' own libraries need to start (sockets in `try` among them).
pub(super) fn runner_env(home: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = ["SystemRoot", "SYSTEMDRIVE", "windir"]
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| ((*k).into(), v)))
        .collect();
    for name in TMP_VARS {
        env.push(((*name).into(), home.as_os_str().to_os_string()));
    }
    env
}

/// Held while a child is started: a handle made inheritable for one child
/// is inherited by no other.
static SPAWNING: Mutex<()> = Mutex::new(());

/// A child this layer started.
pub(super) struct Started {
    pub(super) child: Child,
}

/// No signal ends a process on Windows.
pub(super) fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// Starts `cmd`, each of `handed` inherited and named by its number in
/// `LAB_HANDLE_<n>`. Windows has no rlimits and no argv[0] of its own.
pub(super) fn spawn(
    cmd: &mut Command,
    handed: Vec<(Handed, i32)>,
    _arg0: Option<OsString>,
    _limits: Option<Rlimits>,
) -> io::Result<Started> {
    for (handle, at) in &handed {
        let raw = handle.as_raw_handle();
        // SAFETY: a handle this process owns.
        if unsafe { SetHandleInformation(raw as HANDLE, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) }
            == 0
        {
            return Err(io::Error::last_os_error());
        }
        cmd.env(
            format!("{}{at}", lab_wire::HANDLE_VAR),
            (raw as usize).to_string(),
        );
    }
    let _guard = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    drop(handed);
    Ok(Started { child })
}

/// Kills the child, then reaps it.
pub(super) fn kill_tree(started: &mut Started) {
    let _ = started.child.kill();
    let _ = started.child.wait();
}

/// Nothing to kill beyond what each supervisor kills.
pub(crate) fn kill_all() {}

/// Nothing to set up: Ctrl-C reaches every process of the console.
pub(crate) fn start_up() {}

/// A second handle of one of the judge's files, opened again for appending
/// only (its own file pointer, so the judge's positioned reads never move
/// where the child writes).
pub(crate) fn appending(file: &File) -> io::Result<File> {
    // SAFETY: ReOpenFile on a handle this process owns; the new handle is
    // ours alone.
    let raw = unsafe {
        ReOpenFile(
            file.as_raw_handle() as HANDLE,
            FILE_APPEND_DATA | SYNCHRONIZE,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            0,
        )
    };
    if raw.is_null() || raw as isize == -1 {
        return file.try_clone();
    }
    // SAFETY: a fresh handle nothing else owns.
    Ok(unsafe { File::from_raw_handle(raw as _) })
}

/// A listening socket as a handle a runner can inherit (`try 13`).
pub(crate) fn socket_handle(listener: std::net::TcpListener) -> io::Result<Handed> {
    use std::os::windows::io::IntoRawSocket;
    // SAFETY: a socket is a kernel handle; this process owns it alone.
    Ok(unsafe { OwnedHandle::from_raw_handle(listener.into_raw_socket() as _) })
}
