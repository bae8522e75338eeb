//! Step 13's `Tally`: the one count a learner's gate keeps, an atomic
//! `u32` that the checker can pause at every operation (see
//! `install_tally_hook`) to play the threads' steps in every order.

/// The count a step-13 `Gate` keeps of its live passes: an atomic `u32`
/// with the few operations a gate needs, each sequentially consistent.
///
/// Step 13's gate keeps its count in one `Tally` and decides with nothing
/// else that threads share (no other atomic, no lock). In your own tests
/// and in `./lab.sh try` it is a plain `AtomicU32`. Under the checker,
/// every operation is also a point where the checker may stop the calling
/// thread and let another thread run: it plays the threads' steps in every
/// order, so a race shows every time, on any machine.
///
/// ```
/// use lab_api::advanced::Tally;
/// let used = Tally::new(0);
/// assert_eq!(used.fetch_add(1), 0);
/// assert_eq!(used.compare_exchange(1, 2), Ok(1));
/// assert_eq!(used.compare_exchange(1, 3), Err(2));
/// assert_eq!(used.fetch_update(|n| n.checked_sub(2)), Ok(2));
/// assert_eq!(used.load(), 0);
/// ```
#[derive(Debug, Default)]
pub struct Tally {
    value: std::sync::atomic::AtomicU32,
}

impl Tally {
    pub const fn new(value: u32) -> Tally {
        Tally {
            value: std::sync::atomic::AtomicU32::new(value),
        }
    }

    /// The value now.
    pub fn load(&self) -> u32 {
        tally_turn();
        self.value.load(SEQ)
    }

    /// Sets the value.
    pub fn store(&self, value: u32) {
        tally_turn();
        self.value.store(value, SEQ)
    }

    /// Adds `n` (wrapping around on overflow); returns the value before.
    pub fn fetch_add(&self, n: u32) -> u32 {
        tally_turn();
        self.value.fetch_add(n, SEQ)
    }

    /// Subtracts `n` (wrapping around on overflow); returns the value
    /// before.
    pub fn fetch_sub(&self, n: u32) -> u32 {
        tally_turn();
        self.value.fetch_sub(n, SEQ)
    }

    /// Sets the value to `new` if it is `current`, in one step: `Ok` with
    /// the value before when it was `current`, else `Err` with the value
    /// seen (and nothing changes).
    pub fn compare_exchange(&self, current: u32, new: u32) -> Result<u32, u32> {
        tally_turn();
        self.value.compare_exchange(current, new, SEQ, SEQ)
    }

    /// Replaces the value `n` by `f(n)` in one step while `f` returns
    /// `Some` (`Ok` with the value before); `Err` with the value seen when
    /// `f` returns `None` (and nothing changes). `f` may be called more
    /// than once.
    pub fn fetch_update(&self, f: impl FnMut(u32) -> Option<u32>) -> Result<u32, u32> {
        tally_turn();
        self.value.fetch_update(SEQ, SEQ, f)
    }
}

const SEQ: std::sync::atomic::Ordering = std::sync::atomic::Ordering::SeqCst;

/// Whether a hook is installed: one relaxed load before every operation of
/// a [`Tally`] when none is.
static TALLY_HOOKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static TALLY_HOOK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

fn tally_turn() {
    if TALLY_HOOKED.load(std::sync::atomic::Ordering::Relaxed) {
        if let Some(hook) = TALLY_HOOK.get() {
            hook();
        }
    }
}

/// The checker's: `hook` runs before every operation of every [`Tally`]
/// in this process, from the thread that makes it. Installed once; `false`
/// when a hook was installed already.
#[doc(hidden)]
pub fn install_tally_hook(hook: fn()) -> bool {
    let first = TALLY_HOOK.set(hook).is_ok();
    TALLY_HOOKED.store(true, std::sync::atomic::Ordering::SeqCst);
    first
}
