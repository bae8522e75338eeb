//! Declarations of the learner's functions compared with the stubs': a
//! changed signature breaks the checker's calls, and the compiler then
//! blames the checker's code. This names the learner's line instead.

/// One of the learner's functions whose declaration differs from the
/// contract's (as the stubs give it) in more than its parameters' names.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub function: String,
    /// 1-based line of the learner's `pub fn`.
    pub line: usize,
    pub got: String,
    pub want: String,
}

/// The declarations of `learner` that differ from those of `stubs`. Only
/// names declared once in the stubs are compared (not, say, two `new`s).
pub fn mismatches(learner: &str, stubs: &str) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (name, want) in declarations(stubs) {
        let head = format!("pub fn {name}");
        let declared = stubs
            .match_indices(&head)
            .filter(|(i, _)| matches!(stubs.as_bytes().get(i + head.len()), Some(b'(' | b'<')))
            .count();
        if declared != 1 {
            continue;
        }
        let Some((at, got)) = find(learner, name) else {
            continue;
        };
        if shape(&got) != shape(&want) {
            out.push(Mismatch {
                function: name.to_string(),
                line: learner[..at].matches('\n').count() + 1,
                got: spaced(&got),
                want: spaced(&want),
            });
        }
    }
    out
}

/// Every `pub fn` of `source`: its name and its declaration.
fn declarations(source: &str) -> Vec<(&str, String)> {
    source
        .match_indices("pub fn ")
        .filter_map(|(at, _)| {
            let rest = &source[at + 7..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            let name = &rest[..end];
            find(source, name)
                .filter(|(a, _)| *a == at)
                .map(|(_, d)| (name, d))
        })
        .collect()
}

/// The first `pub fn name` of `source` (not `name_longer`): its byte
/// offset and its declaration up to the body's `{`.
fn find(source: &str, name: &str) -> Option<(usize, String)> {
    let head = format!("pub fn {name}");
    let at = source
        .match_indices(&head)
        .map(|(i, _)| i)
        .find(|i| matches!(source.as_bytes().get(i + head.len()), Some(b'(' | b'<')))?;
    let end = at + source[at..].find('{')?;
    Some((at, source[at..end].to_string()))
}

/// A declaration with the parameters' names left out and no spaces: two
/// declarations of one shape take the same arguments and return the same.
fn shape(declaration: &str) -> String {
    let (Some(open), Some(close)) = (declaration.find('('), declaration.rfind(')')) else {
        return declaration.split_whitespace().collect();
    };
    let mut params = Vec::new();
    let (mut depth, mut from) = (0i32, open + 1);
    let inside = &declaration[..close];
    for (i, c) in inside.char_indices().skip(open + 1) {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                params.push(&inside[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    params.push(&inside[from..]);
    let types: Vec<String> = params
        .iter()
        .map(|p| p.split_once(':').map_or(*p, |(_, t)| t))
        .map(|t| t.split_whitespace().collect())
        .filter(|t: &String| !t.is_empty())
        .collect();
    let head: String = declaration[..open].split_whitespace().collect();
    let tail: String = declaration[close + 1..].split_whitespace().collect();
    format!("{head}({}){tail}", types.join(","))
}

/// A declaration on one line, its runs of white space made one space.
fn spaced(declaration: &str) -> String {
    let one: Vec<&str> = declaration.split_whitespace().collect();
    // A trailing comma before `)` goes with the line breaks it ended.
    one.join(" ")
        .replace("( ", "(")
        .replace(", )", ")")
        .replace(" )", ")")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_over_several_lines_reads_as_one_without_its_trailing_comma() {
        assert_eq!(
            spaced("pub fn execute(\n    send: u8,\n    options: Options<'_>,\n) -> bool "),
            "pub fn execute(send: u8, options: Options<'_>) -> bool"
        );
        // A one-element tuple keeps its comma.
        assert_eq!(spaced("pub fn f(a: (u8,)) "), "pub fn f(a: (u8,))");
    }

    const STUBS: &str = "pub fn retryable(status: u16) -> bool {\n    todo!()\n}\n\n\
        pub fn retryable_twice(x: u8) {}\n\
        pub fn backoff(\n    attempt: u32,\n    base: f64,\n) -> Result<f64, InvalidArgument> {\n    todo!()\n}\n\
        impl A { pub fn new(x: u8) -> A {} }\nimpl B { pub fn new(y: u16) -> B {} }\n";

    #[test]
    fn a_changed_type_is_named_with_its_line_and_renamed_parameters_are_not() {
        let learner = "use x;\n\npub fn retryable(code: u16) -> bool {\n    true\n}\n\
            pub fn retryable_twice(y: u8) {}\n\
            pub fn backoff(attempt: u64, base: f64) -> Result<f64, InvalidArgument> { Ok(1.0) }\n\
            impl A { pub fn new(x: u32) -> A {} }\n";
        let found = mismatches(learner, STUBS);
        assert_eq!(
            found,
            [Mismatch {
                function: "backoff".into(),
                line: 7,
                got: "pub fn backoff(attempt: u64, base: f64) -> Result<f64, InvalidArgument>"
                    .into(),
                want: "pub fn backoff(attempt: u32, base: f64) -> Result<f64, InvalidArgument>"
                    .into(),
            }]
        );
    }

    #[test]
    fn a_changed_return_type_or_a_missing_parameter_is_a_mismatch() {
        let learner = "pub fn retryable(status: u16) -> u8 {}\npub fn backoff(attempt: u32) -> Result<f64, InvalidArgument> {}\n";
        let names: Vec<String> = mismatches(learner, STUBS)
            .into_iter()
            .map(|m| m.function)
            .collect();
        assert_eq!(names, ["retryable", "backoff"]);
    }
}
