//! Unit tests of building the runners: the build folders' lock files, the
//! compiler's first errors, and the judge's registry dependencies held to
//! checks/deps.

use super::*;

/// The crates a manifest's `[dependencies]` table names, sorted (for tests
/// that hold the kit's lists to its manifests).
fn dependency_names(manifest: &str) -> Vec<String> {
    let mut names: Vec<String> = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or("")
        .lines()
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| l.split(['.', ' ', '=']).next())
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn a_lock_file_is_taken_only_as_a_regular_file_of_its_own() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    // Two shared locks at once; then a third, exclusive, waits for
    // neither once they are gone.
    let a = lock_file(&dir.join("lock"), false).unwrap();
    let b = lock_file(&dir.join("lock"), false).unwrap();
    drop((a, b));
    let c = lock_file(&dir.join("lock"), true).unwrap();
    relock(&c, false).unwrap();
    // A link planted where the lock belongs is not followed, and the
    // file it points at is not made.
    std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("linked")).unwrap();
    assert!(lock_file(&dir.join("linked"), true).is_err());
    assert!(!dir.join("elsewhere").exists());
    // A FIFO neither blocks the open nor serves as a lock.
    let fifo = std::ffi::CString::new(dir.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    assert!(lock_file(&dir.join("fifo"), true).is_err());
    // A folder neither.
    std::fs::create_dir(dir.join("folder")).unwrap();
    assert!(lock_file(&dir.join("folder"), true).is_err());
}

/// The registry crates a manifest's `[dependencies]` names.
fn registry_dependencies(manifest: &str) -> Vec<String> {
    dependency_names(manifest)
        .into_iter()
        .filter(|n| !n.starts_with("lab-"))
        .collect()
}

#[test]
fn the_deps_crate_names_exactly_the_judges_registry_dependencies() {
    let read =
        |p: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap();
    let judge = registry_dependencies(&read("Cargo.toml"));
    let deps = registry_dependencies(&read("../deps/Cargo.toml"));
    assert!(judge.contains(&"serde".to_string()), "{judge:?}");
    assert_eq!(deps, judge);
}

#[test]
fn first_errors_keeps_error_blocks_and_drops_warnings() {
    let stderr = "warning: unused variable\n  --> a.rs\nerror[E0308]: mismatched types\n  --> src/lib.rs:3:5\nerror: could not compile `student`\n";
    let text = first_errors(stderr, 10);
    assert!(text.contains("E0308") && text.contains("src/lib.rs:3:5"));
    assert!(!text.contains("unused variable") && !text.contains("could not compile"));
}

/// Cargo stops at a configuration file it may not read, so a build's jail
/// reads every configuration file cargo reads: above the build's folder
/// (the kit's own, above a slot) and in cargo's home; the files alone.
#[test]
fn a_build_reads_the_cargo_configuration_files_above_it_and_in_cargo_s_home() {
    let outer = tempfile::tempdir().unwrap();
    let kit = outer.path().join("kit");
    let slot = kit.join("target/lab-slots-3/a/kit");
    let home = outer.path().join("cargo-home");
    for dir in [&slot.join(".cargo"), &kit.join(".cargo"), &home] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(kit.join(".cargo/config.toml"), "").unwrap();
    std::fs::write(home.join("config"), "").unwrap();
    std::fs::write(home.join("credentials.toml"), "").unwrap();
    std::fs::write(slot.join(".cargo/config.toml"), "").unwrap();
    let found = super::reads::cargo_configs(&slot, Some(&home));
    assert_eq!(found, [kit.join(".cargo/config.toml"), home.join("config")]);
    std::fs::remove_file(kit.join(".cargo/config.toml")).unwrap();
    assert_eq!(
        super::reads::cargo_configs(&slot, None),
        Vec::<std::path::PathBuf>::new()
    );
}
