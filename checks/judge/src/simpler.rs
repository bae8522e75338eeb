//! Simpler values than a failing one, for the steps' shrinkers. A leaf.

/// Simpler floats than `x`: zero, one, a half, `x` rounded (kept finite and
/// not negative when asked).
pub fn floats(x: f64, non_negative: bool) -> Vec<f64> {
    let mut out = vec![
        0.0,
        1.0,
        0.5,
        x.trunc(),
        x.round(),
        (x * 32.0).round() / 64.0,
        x.abs(),
    ];
    if !non_negative {
        out.push(-1.0);
    }
    out.retain(|c| c.to_bits() != x.to_bits() && (!non_negative || (c.is_finite() && *c >= 0.0)));
    out
}

/// Simpler counts than `n`.
pub fn ints(n: u32) -> Vec<u32> {
    let mut out = vec![0, 1, 2, n / 2, n.saturating_sub(1)];
    out.retain(|c| *c != n);
    out
}

/// Simpler texts: trimmed, upper-cased, one character fewer.
pub fn texts(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![text.trim().to_string(), text.to_ascii_uppercase()];
    for i in 0..chars.len().min(48) {
        let mut shorter = chars.clone();
        shorter.remove(i);
        out.push(shorter.into_iter().collect());
    }
    out.retain(|c| c != text);
    out
}
