//! For editors only; nothing to edit here. rust-analyzer reads a file only
//! inside a crate of its own folder, so this example of the `student`
//! package (see student/Cargo.toml) holds your `src/advanced.rs` as its
//! module `advanced`, as the checker's advanced runner does: completion and
//! errors then work there too. Cargo never builds it, and without
//! src/advanced.rs nothing changes.

// Out of rustfmt's way (it follows `mod` items and fails on a missing
// file; it does not expand macros).
macro_rules! unseen_by_rustfmt { ($($i:item)*) => { $($i)* } }

unseen_by_rustfmt! {
    #[allow(dead_code)]
    #[path = "../src/advanced.rs"]
    mod advanced;
}
