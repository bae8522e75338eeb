//! Types of the advanced steps 09–13, provided to the learner's
//! `student/src/advanced.rs` through `use lab_api::advanced::*;`.
//!
//! Every type the checker builds or matches on lives here; learners write
//! only behaviour. No name here equals one of the eight core functions, so
//! the glob import never clashes with them.

mod common;
// Step 09 needs only the common types.
mod s10;
mod s11;
mod s12;
mod s13;
mod s13_scripted;
mod s13_tally;
mod s13_tasks;
// Steps 11 and 12: the scripted world.
mod scripted;

pub use common::*;
pub use s10::*;
pub use s11::*;
pub use s12::*;
pub use s13::*;
pub use s13_tally::*;
pub use scripted::{ScriptedReply, ScriptedWake, ScriptedWorld};

#[cfg(test)]
mod tests {
    /// The sources whose public items the glob import brings in.
    const SOURCES: [&str; 9] = [
        include_str!("common.rs"),
        include_str!("s10.rs"),
        include_str!("s11.rs"),
        include_str!("s12.rs"),
        include_str!("s13.rs"),
        include_str!("s13_scripted.rs"),
        include_str!("s13_tally.rs"),
        include_str!("s13_tasks.rs"),
        include_str!("scripted.rs"),
    ];

    /// Names a provided item must not have (a learner's item of that name
    /// would hide it, or the prelude's would be hidden): the learner items
    /// of steps 09–13, the eight core functions, the Rust 2021 prelude.
    const LEARNER: &str = "Deadline parse_retry_after admit execute_admitted sleep_at_least \
        guarded_read Gate Pass fan_out to_http";
    const CORE: &str =
        "retryable replay_safe remaining backoff jitter wait_delay can_attempt execute";
    const PRELUDE: &str = "Copy Send Sized Sync Unpin Drop Fn FnMut FnOnce drop Box ToOwned \
        Clone PartialEq PartialOrd Eq Ord AsRef AsMut Into From Default Iterator Extend \
        IntoIterator DoubleEndedIterator ExactSizeIterator Option Some None Result Ok Err \
        String ToString Vec TryFrom TryInto FromIterator";

    /// The top-level public names a source declares or re-exports by name.
    fn provided(source: &str) -> Vec<String> {
        let mut names = Vec::new();
        for line in source.lines() {
            let Some(rest) = line.strip_prefix("pub ") else {
                continue;
            };
            let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let ident = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            };
            match kind {
                "struct" | "enum" | "trait" | "fn" | "const" | "type" => names.push(ident(rest)),
                "use" => {
                    let list = rest.trim_end_matches(';');
                    let list = match list.split_once('{') {
                        Some((_, inner)) => inner.trim_end_matches('}').to_string(),
                        None => list.rsplit("::").next().unwrap_or("").to_string(),
                    };
                    names.extend(list.split(',').map(|n| ident(n.trim())));
                }
                _ => {}
            }
        }
        names
    }

    #[test]
    fn no_provided_name_is_a_learner_item_a_core_function_or_a_prelude_item() {
        let names: Vec<String> = SOURCES.iter().flat_map(|s| provided(s)).collect();
        assert!(names.iter().any(|n| n == "ScriptedWorld"), "{names:?}");
        assert!(names.iter().any(|n| n == "InvalidArgument"), "{names:?}");
        let taken: Vec<&str> = [LEARNER, CORE, PRELUDE]
            .iter()
            .flat_map(|list| list.split_whitespace())
            .collect();
        assert_eq!(taken.len(), 10 + 8 + 39);
        let clashes: Vec<&String> = names
            .iter()
            .filter(|n| taken.contains(&n.as_str()))
            .collect();
        assert!(
            clashes.is_empty(),
            "provided names that are taken: {clashes:?}"
        );
    }
}
