//! What `watch` puts on a terminal: a check's report cut to the screen's
//! height, its first failure first and its last lines kept, so that the
//! result and the keys stay in sight.

#[cfg(unix)]
use std::io::{Read, Seek, Write};

/// The rows of the terminal on standard output, if it is one.
#[cfg(unix)]
pub fn rows() -> Option<usize> {
    // SAFETY: winsize is four integers; all zeroes is a valid value.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ fills the winsize it is given and nothing else.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_row > 0).then_some(usize::from(size.ws_row))
}

/// The rows of the terminal on standard output: not asked for on this
/// system (the report is then shown whole).
#[cfg(not(unix))]
pub fn rows() -> Option<usize> {
    None
}

/// Runs `f` once, on this system without capturing what it prints (the
/// report is then shown whole).
#[cfg(not(unix))]
pub fn captured<R>(f: impl FnOnce() -> R) -> (R, Option<String>) {
    (f(), None)
}

/// Runs `f` once, with standard output going to an unnamed file of the
/// judge's, and gives back what it printed. Standard error is left alone,
/// so lines said while a step runs (a case that hit its limit) appear at
/// once. `None` in place of the text: it could not be captured (then `f`
/// printed as usual, or its text could not be read back).
#[cfg(unix)]
pub fn captured<R>(f: impl FnOnce() -> R) -> (R, Option<String>) {
    let Some((mut file, saved)) = redirect() else {
        return (f(), None);
    };
    let result = f();
    let _ = std::io::stdout().flush();
    // SAFETY: puts back the standard output `redirect` saved, and closes
    // the copy; both descriptors are this process's own.
    unsafe {
        libc::dup2(saved, libc::STDOUT_FILENO);
        libc::close(saved);
    }
    let mut bytes = Vec::new();
    let text = file
        .rewind()
        .and_then(|()| file.read_to_end(&mut bytes))
        .ok()
        .map(|_| String::from_utf8_lossy(&bytes).into_owned());
    (result, text)
}

/// Points standard output at a new unnamed file; returns it and a copy of
/// the standard output it replaced.
#[cfg(unix)]
fn redirect() -> Option<(std::fs::File, i32)> {
    use std::os::fd::AsRawFd;
    let file = tempfile::tempfile().ok()?;
    std::io::stdout().flush().ok()?;
    // SAFETY: plain descriptor calls on descriptors this process owns.
    let saved = unsafe { libc::dup(libc::STDOUT_FILENO) };
    if saved < 0 {
        return None;
    }
    // SAFETY: both descriptors are open (the file lives on); dup2 only
    // replaces this process's standard output.
    if unsafe { libc::dup2(file.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
        // SAFETY: `saved` is the copy made above, closed once, here.
        unsafe { libc::close(saved) };
        return None;
    }
    Some((file, saved))
}

/// `text` cut to `rows` lines: its first lines, a line `cut` saying how
/// many were left out (from `cut(count)`), then its last `keep` lines.
/// Text that fits is returned whole.
pub fn fit(text: &str, rows: usize, keep: usize, cut: impl Fn(usize) -> String) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= rows {
        return text.to_string();
    }
    let keep = keep.min(lines.len());
    let head = rows.saturating_sub(keep + 1);
    let left_out = lines.len() - keep - head;
    let mut out: Vec<String> = lines[..head].iter().map(|l| l.to_string()).collect();
    out.push(cut(left_out));
    out.extend(lines[lines.len() - keep..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_long_report_keeps_its_head_and_its_last_lines_within_the_rows() {
        let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
        let fitted = fit(&text, 10, 3, |n| format!("[{n} more]"));
        let lines: Vec<&str> = fitted.lines().collect();
        assert_eq!(lines.len(), 10, "{fitted}");
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[5], "line 6");
        assert_eq!(lines[6], "[41 more]");
        assert_eq!(&lines[7..], ["line 48", "line 49", "line 50"]);
    }

    #[test]
    fn a_report_that_fits_is_left_whole() {
        let text = "a\nb\nc\n";
        assert_eq!(fit(text, 3, 1, |_| "cut".into()), text);
        assert_eq!(fit(text, 2, 1, |n| format!("{n}")), "2\nc\n");
    }

    #[test]
    fn what_is_printed_while_captured_is_given_back() {
        // Through the handle: the test harness captures print! itself.
        let (value, text) = captured(|| {
            let mut out = std::io::stdout();
            writeln!(out, "first").unwrap();
            write!(out, "second").unwrap();
            7
        });
        assert_eq!((value, text.as_deref()), (7, Some("first\nsecond")));
    }
}
