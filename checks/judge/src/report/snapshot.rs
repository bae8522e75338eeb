//! The kit's one snapshot mechanism (test builds only), shared by the
//! report formats' unit tests (declared in `report/mod.rs`) and by what a
//! learner reads (`tests/snapshots.rs`, which includes this file). A
//! snapshot is a checked-in file, compared byte for byte with what the test
//! got; with `UPDATE_SNAPSHOTS=1` the test writes what it got instead, and
//! the diff is read by hand before committing.

use std::path::Path;

/// Whether this run rewrites the snapshots (`UPDATE_SNAPSHOTS=1`).
pub fn updating() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1")
}

/// Compares `actual` with the snapshot `name` (a path from the judge's crate
/// folder, `checks/judge`), or writes it there when [`updating`].
pub fn compare(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    if updating() {
        std::fs::create_dir_all(path.parent().expect("a snapshot is in a folder"))
            .and_then(|()| std::fs::write(&path, actual))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        eprintln!("updated snapshot {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing snapshot {} ({e}): write it with UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "snapshot {name} differs from line {}:\n  expected: {:?}\n    actual: {:?}\n\
             --- actual output ---\n{actual}\n---\n\
             If the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff.",
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line),
        );
    }
}
