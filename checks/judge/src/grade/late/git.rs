//! A submission's last commit time, from git, run so that nothing in the
//! submission can make it do more than read: only when the folder's `.git`
//! is a real folder (not a link, not a `gitdir:` file), with `GIT_DIR`
//! set to it (git never looks above it), no system or global config,
//! command-line settings that turn off what a repository's own config
//! could start (hooks, fsmonitor, signature checks and their programs, a
//! pager), no optional locks, no replace refs, stdin closed, and killed
//! after [`LIMIT`]. Without git, or on any failure, the time is unknown.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long git may take for one submission.
pub(crate) const LIMIT: Duration = Duration::from_secs(10);

/// `(time as git wrote it, seconds since the epoch)` of HEAD's commit.
pub(crate) fn git_time(dir: &Path) -> Option<(String, i64)> {
    let git_dir = dir.join(".git");
    if !std::fs::symlink_metadata(&git_dir).ok()?.is_dir() {
        return None;
    }
    let null = if cfg!(windows) { "NUL" } else { "/dev/null" };
    let out_file = tempfile::tempfile().ok()?;
    let mut cmd = Command::new("git");
    cmd.args([
        "--no-pager",
        "-c",
        &format!("core.hooksPath={null}"),
        "-c",
        "core.fsmonitor=false",
        "-c",
        "log.showSignature=false",
        "-c",
        "gpg.program=false",
        "-c",
        "safe.directory=*",
        "log",
        "-1",
        "--no-show-signature",
        "--no-mailmap",
        "--format=%cI",
        "HEAD",
        "--",
    ])
    .env("GIT_DIR", &git_dir)
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .env("GIT_CONFIG_GLOBAL", null)
    .env("GIT_OPTIONAL_LOCKS", "0")
    .env("GIT_NO_REPLACE_OBJECTS", "1")
    .env("GIT_TERMINAL_PROMPT", "0")
    .env("GIT_PAGER", "cat")
    .env_remove("GIT_WORK_TREE")
    .env_remove("GIT_INDEX_FILE")
    .env_remove("GIT_CONFIG_PARAMETERS")
    .env_remove("GIT_CONFIG_COUNT")
    .current_dir(dir)
    .stdout(out_file.try_clone().ok()?)
    .stderr(Stdio::null());
    // Registered as the judge's own child: the Linux layer's collector of
    // orphans, running while a class is graded, would reap it otherwise
    // (and the time would silently be unknown).
    let status = crate::platform::plain_status_within(&mut cmd, LIMIT).ok()??;
    if !status.success() {
        return None;
    }
    let mut out = String::new();
    use std::io::{Read, Seek};
    let mut file = out_file;
    file.rewind().ok()?;
    file.take(256).read_to_string(&mut out).ok()?;
    let text = out.trim().to_string();
    let at = super::parse_rfc3339(&text)?;
    Some((text, at))
}
