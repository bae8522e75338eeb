//! Single keys for `watch`: on a terminal, stdin is switched out of line
//! mode (no Enter needed, no echo) for as long as a [`Keys`] lives, and put
//! back when it is dropped or when the judge is stopped by a signal
//! (Ctrl-C included: the terminal's own signal keys keep working, and
//! `spawn`'s stop handler calls [`restore`] before the judge ends).
//!
//! On Windows the same holds for a console (Windows Terminal, PowerShell,
//! cmd): its input mode loses line input and echo, keeps Ctrl-C, and is
//! put back on drop and by a console control handler. Where standard input
//! is a terminal but no console (Git Bash's mintty), keys come a line at a
//! time: `q` then Enter.

use std::io::IsTerminal;
use std::sync::mpsc::{channel, Receiver};
#[cfg(unix)]
use std::sync::OnceLock;

/// Standard input's descriptor number.
pub const STDIN: i32 = 0;

/// What a key asks of `watch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Hint,
    Quit,
}

/// The key a byte stands for, if any (Enter and other keys are ignored, so
/// `h` followed by Enter, as typed in line mode, is still one hint).
pub fn decode(byte: u8) -> Option<Key> {
    match byte {
        b'h' | b'H' => Some(Key::Hint),
        b'q' | b'Q' => Some(Key::Quit),
        _ => None,
    }
}

/// The terminal settings found at start, restored on drop and on signals.
#[cfg(unix)]
static SAVED: OnceLock<libc::termios> = OnceLock::new();

/// Keys typed while it lives; none when stdin is not a terminal.
pub struct Keys {
    receive: Receiver<Key>,
    raw: bool,
}

impl Keys {
    pub fn start() -> Keys {
        let (send, receive) = channel();
        if !std::io::stdin().is_terminal() {
            return Keys {
                receive,
                raw: false,
            };
        }
        let raw = single_keys(STDIN);
        let _ = std::thread::Builder::new()
            .name("keys".into())
            .spawn(move || {
                let mut byte = 0u8;
                loop {
                    let n = read_byte(&mut byte);
                    if n < 0
                        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                    {
                        continue;
                    }
                    if n != 1 {
                        break;
                    }
                    if let Some(key) = decode(byte) {
                        if send.send(key).is_err() {
                            break;
                        }
                    }
                }
            });
        Keys { receive, raw }
    }

    /// The next key typed, if one is waiting.
    pub fn try_next(&self) -> Option<Key> {
        self.receive.try_recv().ok()
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        if self.raw {
            restore(STDIN);
        }
    }
}

/// Takes `fd` out of line mode and echo, keeping its signal keys, and saves
/// the old settings for [`restore`]. False when `fd` is not a terminal.
#[cfg(unix)]
pub fn single_keys(fd: i32) -> bool {
    // SAFETY: termios is plain data (integers and arrays of them), for
    // which all zeroes is a valid value.
    let mut old: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: tcgetattr writes only the termios it is given, a valid one
    // owned here; a bad or non-terminal `fd` is an error, not harm.
    if unsafe { libc::tcgetattr(fd, &mut old) } != 0 {
        return false;
    }
    let _ = SAVED.set(old);
    let mut new = old;
    new.c_lflag &= !(libc::ICANON | libc::ECHO);
    new.c_cc[libc::VMIN] = 1;
    new.c_cc[libc::VTIME] = 0;
    // SAFETY: `new` is a valid termios read from this terminal.
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &new) == 0 }
}

/// Puts back the settings [`single_keys`] found (nothing when it was never
/// called). Async-signal-safe: an atomic load and tcsetattr.
#[cfg(unix)]
pub fn restore(fd: i32) {
    if let Some(old) = SAVED.get() {
        // SAFETY: `old` was read from this terminal by tcgetattr.
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, old) };
    }
}

/// Single keys need a Unix terminal or a Windows console: elsewhere keys
/// come a line at a time.
#[cfg(not(any(unix, windows)))]
pub fn single_keys(_fd: i32) -> bool {
    false
}

/// Nothing to put back where [`single_keys`] changed nothing.
#[cfg(not(any(unix, windows)))]
pub fn restore(_fd: i32) {}

/// The console's input mode found at start (`u32::MAX`: none saved).
#[cfg(windows)]
static SAVED_MODE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(u32::MAX);

/// Standard input's console handle, if it is a console.
#[cfg(windows)]
fn console_input() -> Option<windows_sys::Win32::Foundation::HANDLE> {
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Console::{GetStdHandle, STD_INPUT_HANDLE};
    // SAFETY: GetStdHandle reads the process's standard handle; no memory
    // is handed to it.
    let handle = unsafe { GetStdHandle(STD_INPUT_HANDLE) };
    (!handle.is_null() && handle != INVALID_HANDLE_VALUE).then_some(handle)
}

/// Takes the console's input out of line mode and echo, keeping Ctrl-C
/// (processed input stays on), saves the old mode for [`restore`] and has
/// a console control handler put it back when Ctrl-C or closing the window
/// ends the judge. False when standard input is not a console.
#[cfg(windows)]
pub fn single_keys(_fd: i32) -> bool {
    use std::sync::atomic::Ordering;
    use windows_sys::Win32::System::Console::{
        GetConsoleMode, SetConsoleCtrlHandler, SetConsoleMode, ENABLE_ECHO_INPUT, ENABLE_LINE_INPUT,
    };
    let Some(handle) = console_input() else {
        return false;
    };
    let mut mode = 0u32;
    // SAFETY: GetConsoleMode writes only the u32 it is given, a live local;
    // a handle that is no console is an error, not harm.
    if unsafe { GetConsoleMode(handle, &mut mode) } == 0 {
        return false;
    }
    SAVED_MODE.store(mode, Ordering::SeqCst);
    // SAFETY: registers a handler with the signature the API asks for; it
    // only sets the console's mode and lets the default handler go on.
    unsafe { SetConsoleCtrlHandler(Some(on_console_stop), 1) };
    // SAFETY: a mode read from this console, less two of its flags.
    unsafe { SetConsoleMode(handle, mode & !(ENABLE_LINE_INPUT | ENABLE_ECHO_INPUT)) != 0 }
}

/// Puts the console's first input mode back and lets the next handler
/// (the default one, which ends the process) handle the event.
#[cfg(windows)]
unsafe extern "system" fn on_console_stop(_event: u32) -> windows_sys::core::BOOL {
    restore(STDIN);
    0
}

/// Puts back the input mode [`single_keys`] found (nothing when it was
/// never called).
#[cfg(windows)]
pub fn restore(_fd: i32) {
    let mode = SAVED_MODE.load(std::sync::atomic::Ordering::SeqCst);
    if mode == u32::MAX {
        return;
    }
    if let Some(handle) = console_input() {
        // SAFETY: a mode read from this console by GetConsoleMode.
        unsafe { windows_sys::Win32::System::Console::SetConsoleMode(handle, mode) };
    }
}

/// Reads one byte of standard input, unbuffered: 1, 0 at its end, or -1.
#[cfg(unix)]
fn read_byte(byte: &mut u8) -> isize {
    // SAFETY: reads one byte into a live local.
    unsafe { libc::read(libc::STDIN_FILENO, (byte as *mut u8).cast(), 1) }
}

/// Reads one byte of standard input: 1, 0 at its end, or -1.
#[cfg(not(unix))]
fn read_byte(byte: &mut u8) -> isize {
    use std::io::Read;
    match std::io::stdin().read(std::slice::from_mut(byte)) {
        Ok(n) => n as isize,
        Err(_) => -1,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn h_and_q_are_keys_and_enter_is_not() {
        assert_eq!(decode(b'h'), Some(Key::Hint));
        assert_eq!(decode(b'Q'), Some(Key::Quit));
        assert_eq!(decode(b'\n'), None);
        assert_eq!(decode(b'x'), None);
    }

    /// On a pseudo-terminal: line mode and echo go, signal keys stay, and
    /// restore brings the first settings back.
    #[test]
    fn a_terminal_leaves_line_mode_and_comes_back() {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors; the rest may be null.
        let opened = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(opened, 0, "openpty failed");
        let flags = |fd| {
            // SAFETY: termios is plain data; all zeroes is a valid value.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            // SAFETY: tcgetattr writes only the termios it is given.
            assert_eq!(unsafe { libc::tcgetattr(fd, &mut t) }, 0);
            t.c_lflag
        };
        let before = flags(slave);
        assert_ne!(before & libc::ICANON, 0, "a new pty starts in line mode");
        assert!(single_keys(slave));
        let during = flags(slave);
        assert_eq!(during & (libc::ICANON | libc::ECHO), 0);
        assert_ne!(during & libc::ISIG, 0, "Ctrl-C must still stop watch");
        restore(slave);
        assert_eq!(flags(slave), before);
        assert!(!single_keys(-1));
        // SAFETY: the two descriptors openpty made are this test's own and
        // closed once; nothing else holds them.
        unsafe {
            libc::close(master);
            libc::close(slave);
        }
    }
}
