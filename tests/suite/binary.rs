//! The binary run as a user would, from the repository's root, and what it printed: the
//! helpers every subject that runs `surface-viewer` shares.

use std::process::{Command, Output};

use serde_json::Value;

/// The binary, to be run from the repository's root (fixture paths are relative to it).
pub fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_surface-viewer"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Runs the binary with `args` and waits for it.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// Runs the binary with `args`: its exit code, stdout and stderr (each must be UTF-8).
pub fn run_texts(args: &[&str]) -> (Option<i32>, String, String) {
    let out = run(args);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// What the run printed on stdout.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the run printed on stderr.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Stdout as one JSON document (the test fails, showing stdout, when it is not one).
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Asserts the exit code, showing both streams when it differs.
pub fn expect_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}
