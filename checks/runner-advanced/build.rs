//! Sets `cfg(lab_advanced)` exactly when the learner's advanced file exists,
//! so the workspace (fmt, clippy, tests, editors) builds without it. With
//! `LAB_ADVANCED_REFERENCE=1` in an instructor's kit it compiles the
//! reference instead (`cfg(lab_reference)`), so the self-test can lint the
//! glue code.

fn main() {
    // Read when the script runs, not when it was compiled: a target folder
    // that moved with its kit (or a slot's) must look at the kit it builds.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let root = std::path::Path::new(&manifest).join("../..");
    let dir = root.join("student/src");
    // A directory: cargo reruns this script when any entry in it changes.
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-env-changed=LAB_ADVANCED_REFERENCE");
    println!("cargo:rustc-check-cfg=cfg(lab_advanced, lab_reference)");
    let reference = root.join("solutions/advanced.rs");
    if std::env::var_os("LAB_ADVANCED_REFERENCE").is_some_and(|v| v == "1") && reference.is_file() {
        println!("cargo:rustc-cfg=lab_reference");
    } else if dir.join("advanced.rs").is_file() {
        println!("cargo:rustc-cfg=lab_advanced");
    }
}
