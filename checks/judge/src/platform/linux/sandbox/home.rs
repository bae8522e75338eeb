//! A runner's user (or user namespace) of its own and its fresh home
//! folder with a quota; the stage a runner is started from when others
//! cannot reach the kit's target folder.

use super::jail::Becomes;
use super::kernel::others_may_enter;
use crate::limits::Confinement;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// A user id of the judge's own for one runner while it lives (the judge
/// runs as root). Ids are taken from a block this judge chose at random far
/// above the system's users, one per runner alive at once, and given back
/// when dropped (after the runner and every thread of it are gone).
pub struct Identity {
    pub uid: libc::uid_t,
    pub(super) slot: usize,
}

pub(super) static IDENTITIES: [AtomicBool; 256] = [const { AtomicBool::new(false) }; 256];

pub(super) fn identity_base() -> libc::uid_t {
    static BASE: OnceLock<libc::uid_t> = OnceLock::new();
    *BASE.get_or_init(|| {
        // 0x2000_0000 to 0x6000_0000, a multiple of 256: no system user
        // and no container's mapped range lives there.
        0x2000_0000 + (crate::rng::fresh_seed() % 0x40_0000) as libc::uid_t * 256
    })
}

impl Identity {
    fn take() -> Option<Identity> {
        let slot = IDENTITIES.iter().position(|s| {
            s.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })?;
        Some(Identity {
            uid: identity_base() + slot as libc::uid_t,
            slot,
        })
    }
}

impl Drop for Identity {
    fn drop(&mut self) {
        IDENTITIES[self.slot].store(false, Ordering::SeqCst);
    }
}

/// Whether every folder above `path` lets others through and `path` lets
/// others read and run it: what a runner with a user of its own needs to
/// start `path`.
pub(super) fn others_may_run(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o005 == 0o005)
        && path.parent().is_some_and(others_may_enter)
}

/// Where runner binaries are staged for runners with users of their own
/// when the kit's folders do not let other users through: a folder of the
/// judge's that others may pass through but not list (0711), removed by
/// [`remove_stage`].
pub(super) static STAGE: std::sync::Mutex<Option<Stage>> = std::sync::Mutex::new(None);

/// The stage folder and what it holds: each binary, its [`StageKey`] and
/// where it is staged.
pub(super) type Stage = (PathBuf, Vec<(PathBuf, StageKey, PathBuf)>);

/// A built binary, as staged: its length and modification time.
pub(super) type StageKey = (u64, Option<std::time::SystemTime>);

/// `exe` at a path that other users may reach and run: a hard link to it
/// (or, across file systems, a copy) in the judge's stage folder, made
/// once per built binary.
pub(super) fn staged(exe: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(exe)?;
    let key: StageKey = (meta.len(), meta.modified().ok());
    let mut stage = STAGE.lock().unwrap_or_else(|e| e.into_inner());
    if stage.is_none() {
        let dir = tempfile::Builder::new()
            .prefix("retry-lab-stage-")
            .tempdir()?
            .keep();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        *stage = Some((dir, Vec::new()));
    }
    let Some((dir, known)) = stage.as_mut() else {
        return Err(io::Error::other("no stage folder"));
    };
    if let Some((_, _, at)) = known.iter().find(|(p, k, _)| p == exe && *k == key) {
        return Ok(at.clone());
    }
    let at = dir.join(format!("runner-{}", known.len()));
    if std::fs::hard_link(exe, &at).is_err() {
        std::fs::copy(exe, &at)?;
    }
    std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755))?;
    known.push((exe.to_path_buf(), key, at.clone()));
    Ok(at)
}

/// Removes the stage folder, if this judge made one (at its end).
pub fn remove_stage() {
    let mut stage = STAGE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((dir, _)) = stage.take() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A runner's own folder: fresh and empty, its current directory and
/// TMPDIR, the only place it may write. It sits inside a folder of the
/// judge's that only the judge may enter, and, where the runner gets a user
/// of its own, belongs to that user. Dropped (and removed) after the runner.
pub struct RunnerHome {
    pub dir: PathBuf,
    /// The binary to start: the runner itself, or its staged link.
    pub program: PathBuf,
    pub(super) becomes: Option<Becomes>,
    /// Whether the runner's jail is on (its home is made for it either way).
    pub(super) confinement: Confinement,
    pub(super) _identity: Option<Identity>,
    pub(super) _top: tempfile::TempDir,
}

impl RunnerHome {
    /// A home for a runner that will start `exe`, jailed or not.
    pub fn new(exe: &Path, confinement: Confinement) -> io::Result<RunnerHome> {
        let top = tempfile::Builder::new()
            .prefix("retry-lab-run-")
            .tempdir()?;
        let dir = top.path().join("home");
        std::fs::create_dir(&dir)?;
        // SAFETY: geteuid only returns a number.
        let root = unsafe { libc::geteuid() } == 0;
        let mut program = exe.to_path_buf();
        let identity = if root && confinement == Confinement::Jail {
            if !others_may_run(&program) {
                program = staged(exe)?;
            }
            others_may_run(&program).then(Identity::take).flatten()
        } else {
            None
        };
        let becomes = match &identity {
            Some(id) => {
                std::os::unix::fs::chown(&dir, Some(id.uid), Some(id.uid))?;
                Some(Becomes::User(id.uid))
            }
            // Root without a usable user still loses its capabilities in a
            // namespace of its own (its threads are then not counted apart).
            None if confinement == Confinement::Jail => Some(Becomes::Namespace),
            None => None,
        };
        Ok(RunnerHome {
            dir,
            program,
            becomes,
            confinement,
            _identity: identity,
            _top: top,
        })
    }
}
