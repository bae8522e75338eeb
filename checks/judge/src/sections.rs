//! The advanced file's sections. `student/src/advanced.rs` (and the
//! reference and the stubs) hold one section per advanced step, each opened
//! by a marker line such as `// ===== step 10: parse_retry_after =====` and
//! running to the next marker or the end of the file. `reset N` puts one
//! section of the stubs back; the self-test builds an advanced mutant or
//! alternative by putting its one section into the reference.

/// The marker line that opens a step's section of an advanced.rs, e.g.
/// `// ===== step 10: parse_retry_after =====`; returns the step.
pub fn section_mark(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("// ===== step ")?;
    let step = rest.get(..2)?;
    step.bytes().all(|b| b.is_ascii_digit()).then_some(step)
}

/// `base` with the section of `part` put in place of the same step's
/// section. `part` is a mutant or alternative file: header comments, then
/// a marker line, then the section; a section runs to the next marker line
/// or the end of the file.
pub fn splice(base: &str, part: &str) -> Result<String, String> {
    let start = part
        .lines()
        .position(|l| section_mark(l).is_some())
        .ok_or("no `// ===== step NN: … =====` line")?;
    let section: Vec<&str> = part.lines().skip(start).collect();
    let step = section_mark(section[0]).unwrap_or_default();
    let lines: Vec<&str> = base.lines().collect();
    let from = lines
        .iter()
        .position(|l| section_mark(l) == Some(step))
        .ok_or_else(|| format!("the reference has no section {step}"))?;
    let to = lines[from + 1..]
        .iter()
        .position(|l| section_mark(l).is_some())
        .map_or(lines.len(), |k| from + 1 + k);
    let mut out: Vec<&str> = lines[..from].to_vec();
    out.extend(section.iter().copied());
    if to < lines.len() {
        if out.last().is_some_and(|l| !l.trim().is_empty()) {
            out.push("");
        }
        out.extend(&lines[to..]);
    }
    Ok(out.join("\n") + "\n")
}

/// Step `step`'s section of `text`, marker line included.
pub fn section(text: &str, step: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.iter().position(|l| section_mark(l) == Some(step))?;
    let to = lines[from + 1..]
        .iter()
        .position(|l| section_mark(l).is_some())
        .map_or(lines.len(), |k| from + 1 + k);
    Some(lines[from..to].join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_exactly_one_section() {
        let base = "//! top\nuse x;\n\n// ===== step 09: A =====\nfn a() {}\n\n// ===== step 10: B =====\nfn b() {}\n";
        let part = "// mutant: m\n// caught-by: 09/x\n// ===== step 09: A =====\nfn a() { 1 }\n";
        let out = splice(base, part).unwrap();
        assert_eq!(
            out,
            "//! top\nuse x;\n\n// ===== step 09: A =====\nfn a() { 1 }\n\n// ===== step 10: B =====\nfn b() {}\n"
        );
        let last = "// ===== step 10: B =====\nfn c() {}\n";
        assert!(splice(base, last)
            .unwrap()
            .ends_with("fn a() {}\n\n// ===== step 10: B =====\nfn c() {}\n"));
        assert!(splice(base, "fn x() {}").is_err());
        let ten = section(base, "10").unwrap();
        assert_eq!(ten, "// ===== step 10: B =====\nfn b() {}\n");
        assert_eq!(splice(base, &section(base, "09").unwrap()).unwrap(), base);
        assert_eq!(section(base, "11"), None);
        assert!(splice(base, "// ===== step 12: C =====\n").is_err());
    }
}
