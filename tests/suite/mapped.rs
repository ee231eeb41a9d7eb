//! Mapped reading (`store::open` with `Reading::Map`): the same log as a copy, small files still
//! copied; a file truncated while mapped is named on stderr with exit code 2 when the caller
//! said `OnTruncate::Exit` (the SIGBUS guard), checked in a child process: the test binary runs
//! itself again; with `OnTruncate::Report` (the viewer, `check DIR`, an export) it reads as
//! zeros and is marked lost, the process going on. The guard is installed by the program (here
//! each test), never by the library: without it nothing is mapped. It chains: a SIGBUS that is
//! not its own reaches the handler the process had before (checked in child processes too),
//! and `check DIR` reports a file truncated under its mapping as that session's error while
//! the others finish.

use crate::common;

use std::path::Path;
use std::process::Command;

use surface_engine::{EventIdx, EventLog, Surface, check};
use surface_store::{self as store, OnTruncate, Options, Reading};

/// `path` mapped, a truncation doing what `on_truncate` says.
fn open_mapped_with(path: &Path, on_truncate: OnTruncate) -> store::Opened {
    assert!(store::install_map_guard(), "the guard is in place");
    let options = Options {
        reading: Reading::Map(on_truncate),
        ..Options::default()
    };
    store::open(path, &options).unwrap()
}

/// The command line's mapping of `path` (one file: a truncation ends the process).
fn open_mapped(path: &Path) -> store::Opened {
    open_mapped_with(path, OnTruncate::Exit)
}

/// Every event's bytes (copies, for a mapping).
fn all_bytes(log: &EventLog) -> Vec<Vec<u8>> {
    log.indices()
        .map(|i| log.event_bytes(i).into_owned())
        .collect()
}

/// Set in the child process to the log it maps and truncates.
const CHILD_ENV: &str = "SURFACE_VIEWER_TEST_TRUNCATE_MAPPED";

#[test]
fn mapped_and_copied_logs_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    common::write_large_log(&path, 9 << 20);
    let copied = store::open(&path, &Options::default()).unwrap();
    let mapped = open_mapped(&path);
    assert!(!copied.log.text_is_shared());
    assert_eq!(mapped.log.text_is_shared(), cfg!(target_os = "linux"));
    assert_eq!(copied.log.text_len(), mapped.log.text_len());
    assert_eq!(all_bytes(&copied.log), all_bytes(&mapped.log));
    assert_eq!(copied.log.len(), mapped.log.len());
    assert!(mapped.log.len() > 10_000);
    for i in [0, 1, mapped.log.len() / 2, mapped.log.len() - 1] {
        let idx = EventIdx(i as u32);
        assert_eq!(copied.log.event_json(idx), mapped.log.event_json(idx));
    }
    let (a, b) = (Surface::at_end(&copied.log), Surface::at_end(&mapped.log));
    assert_eq!(a.nodes().collect::<Vec<_>>(), b.nodes().collect::<Vec<_>>());
    assert!(a.applied_replaces().len() >= 10, "the replaces took effect");
    assert_eq!(check(&copied.log, &a), check(&mapped.log, &b));
    assert_eq!(copied.session, mapped.session);
}

/// A generated log of the harness's shape with its deltas one line each (not packed), from
/// the generator's own seed unless `seed` picks another.
fn unpacked_harness_log(events: u64, seed: Option<u64>) -> Vec<u8> {
    let harness = surface_synth::SynthConfig::harness(events);
    let config = surface_synth::SynthConfig {
        seed: seed.unwrap_or(harness.seed),
        pack: false,
        ..harness
    };
    let mut text = Vec::new();
    surface_synth::generate(&config, &mut text).unwrap();
    text
}

/// The harness's shape (most lines streamed deltas), read in pieces on the pool.
#[test]
fn a_harness_shaped_mapping_reads_the_same_as_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("harness.jsonl");
    let text = unpacked_harness_log(60_000, None);
    assert!(
        text.len() > 8 << 20,
        "read in pieces on the pool: {} bytes",
        text.len()
    );
    std::fs::write(&path, &text).unwrap();
    let copied = store::open(&path, &Options::default()).unwrap();
    let mapped = open_mapped(&path);
    let log = &mapped.log;
    assert_eq!(log.text_is_shared(), cfg!(target_os = "linux"));
    assert_eq!(all_bytes(&copied.log), all_bytes(log));
    let (a, b) = (Surface::at_end(&copied.log), Surface::at_end(log));
    assert_eq!(a.nodes().collect::<Vec<_>>(), b.nodes().collect::<Vec<_>>());
    assert_eq!(check(&copied.log, &a), check(log, &b));
    let meter = |log: &EventLog, s: &Surface| surface_engine::Meter::build(log, s);
    let (ma, mb) = (meter(&copied.log, &a), meter(log, &b));
    for cursor in (0..=log.len()).step_by(97) {
        assert_eq!(ma.at(cursor), mb.at(cursor), "cursor {cursor}");
    }
    assert_eq!(copied.session, mapped.session);
}

#[test]
fn a_reported_file_truncated_under_its_mapping_reads_as_zeros_and_is_marked_lost() {
    if !cfg!(target_os = "linux") {
        return; // other platforms read files, they never map them
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.jsonl");
    common::write_large_log(&path, 9 << 20);
    let viewed = open_mapped_with(&path, OnTruncate::Report);
    let log = &viewed.log;
    assert!(log.text_is_shared() && !log.text_lost());
    let first = viewed.log.event_json(EventIdx(0)).to_string();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    // A read past the new end faults; the guard swaps in zero pages and the read goes on.
    let last = log.event_bytes(EventIdx(log.len() as u32 - 1));
    assert!(last.iter().all(|&b| b == 0), "zeros");
    assert!(log.text_lost(), "the log says its bytes are gone");
    assert_ne!(viewed.log.event_json(EventIdx(0)), first, "zeros now");
    // The engine still answers (from zeros) without panicking until the viewer reopens.
    let surface = Surface::at_end(&viewed.log);
    let _ = check(&viewed.log, &surface);
    drop(viewed);
}

#[test]
fn small_logs_are_copied_and_a_mapped_log_grows_into_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.jsonl");
    common::write_large_log(&small, 64 << 10);
    assert!(!open_mapped(&small).log.text_is_shared());

    let big = dir.path().join("big.jsonl");
    common::write_large_log(&big, 9 << 20);
    let mut log = open_mapped(&big).log;
    let (len, events) = (log.text_len(), log.len());
    let next = log.next_seq();
    let line = format!("{}\n", common::msg(next, "append", None));
    assert_eq!(log.append_text(line.as_bytes()), len);
    assert!(!log.text_is_shared(), "appending copied the mapped bytes");
    let batch = store::parse_body(log.stable_text().unwrap(), len, 0, None).unwrap();
    log.extend(batch);
    assert_eq!(log.len(), events + 1);
    assert!(
        log.event_json(EventIdx(events as u32))
            .contains(&format!("\"seq\":{next}"))
    );
    assert_eq!(
        std::fs::metadata(&big).unwrap().len() as usize,
        len,
        "the file is untouched"
    );
}

#[test]
fn a_file_truncated_while_mapped_is_named_and_the_process_exits_2() {
    let Some((out, _dir, path)) = in_a_child(
        "a_file_truncated_while_mapped_is_named_and_the_process_exits_2",
        CHILD_ENV,
        truncate_while_mapped,
    ) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "child status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let expected = format!(
        "surface-viewer: {} shrank while it was being read (another program truncated it); \
         nothing more can be read from it\n",
        path.display()
    );
    assert!(stderr.contains(&expected), "stderr:\n{stderr}");
    assert_eq!(stderr.matches("shrank").count(), 1, "one line: {stderr}");
    assert!(!stdout.contains("survived"), "stdout:\n{stdout}");
}

/// The child: maps `path` through the public API, truncates it to nothing, reads past the new
/// end through the arena from two threads. The guard must end the process before a read
/// returns.
fn truncate_while_mapped(path: &Path) {
    let opened = open_mapped(path);
    assert!(opened.log.text_is_shared(), "the log was not mapped");
    let len = opened.log.len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
    // Two threads read at once (as the reader's two threads would): still one line.
    let barrier = std::sync::Barrier::new(2);
    let read = |at: usize| {
        barrier.wait();
        opened.log.event_bytes(EventIdx(at as u32)).len()
    };
    let (a, b) = std::thread::scope(|scope| {
        let other = scope.spawn(|| read(len - 1));
        (read(len / 2), other.join().unwrap())
    });
    println!("the read past the end survived: {a} {b}");
    std::process::exit(0);
}

/// Set in the child process to the log it maps, is sent SIGBUS by a process, then truncates.
const KILL_CHILD_ENV: &str = "SURFACE_VIEWER_TEST_KILL_BUS";

/// A SIGBUS another process sends (`kill -BUS`) is not the guard's: where SIGBUS had the
/// default action before the guard, the default action happens — the process ends by SIGBUS —
/// instead of the guard swallowing the signal.
#[test]
fn kill_bus_ends_the_process_as_without_the_guard() {
    let Some((out, _dir, _path)) = in_a_child(
        "kill_bus_ends_the_process_as_without_the_guard",
        KILL_CHILD_ENV,
        killed_then_truncated,
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    use std::os::unix::process::ExitStatusExt as _;
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGBUS),
        "child status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(stdout.contains("mapped and guarded"), "stdout:\n{stdout}");
    assert!(!stdout.contains("survived"), "stdout:\n{stdout}");
    assert!(
        !stderr.contains("shrank"),
        "not reported as a truncation: {stderr}"
    );
}

/// Puts `action` in place for SIGBUS (before the guard is installed).
fn set_sigbus(handler: libc::sighandler_t, flags: libc::c_int) {
    // SAFETY: a zeroed, then filled, `sigaction`; the handlers the tests pass have the
    // signature their flags declare and only do async-signal-safe work (atomic stores,
    // `write`, `_exit`).
    let set = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler;
        action.sa_flags = flags;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut())
    };
    assert_eq!(set, 0);
}

/// Sends this process SIGBUS as `kill -BUS` would (`si_code` SI_USER) and gives it a moment.
fn kill_bus() {
    // SAFETY: `kill` and `getpid` have no memory preconditions.
    let sent = unsafe { libc::kill(libc::getpid(), libc::SIGBUS) };
    assert_eq!(sent, 0);
    // Delivered at once to this thread or soon to another.
    std::thread::sleep(std::time::Duration::from_millis(300));
}

/// Truncates `path` to nothing.
fn truncate(path: &Path) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
}

/// The child: SIGBUS has the default action, then the guard maps `path`; it is sent SIGBUS as
/// `kill -BUS` would send it, then truncates the file and reads past its end. Only the signal
/// may end it.
fn killed_then_truncated(path: &Path) {
    set_sigbus(libc::SIG_DFL, 0);
    let opened = open_mapped(path);
    assert!(opened.log.text_is_shared(), "the log was not mapped");
    println!("mapped and guarded");
    kill_bus();
    // A guard that swallowed the signal would let the process get here.
    println!("survived the signal");
    truncate(path);
    let last = opened
        .log
        .event_bytes(EventIdx(opened.log.len() as u32 - 1));
    println!("survived the signal and the truncation: {}", last.len());
    std::process::exit(0);
}

/// What the previous SIGBUS handler of the chaining tests saw: the `si_code` plus one.
static PREVIOUS_SAW: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// A previous `SA_SIGINFO` handler: notes the signal's `si_code` and returns.
extern "C" fn previous_with_info(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel (or the guard, chaining) passes a valid `siginfo_t`.
    let code = unsafe { (*info).si_code };
    PREVIOUS_SAW.store(code + 1000, std::sync::atomic::Ordering::SeqCst);
}

/// A previous plain handler: says so and ends the process with code 42 (returning would repeat
/// a fault forever).
extern "C" fn previous_plain_exits(_signal: libc::c_int) {
    let line = b"previous plain handler ran\n";
    // SAFETY: `write` and `_exit` are async-signal-safe.
    unsafe {
        libc::write(libc::STDOUT_FILENO, line.as_ptr().cast(), line.len());
        libc::_exit(42);
    }
}

const CHAIN_INFO_ENV: &str = "SURFACE_VIEWER_TEST_CHAIN_INFO";

/// `kill -BUS` with an `SA_SIGINFO` handler in place before the guard: the handler gets the
/// signal, with its `siginfo_t`, and the guard stays in place — a file truncated afterwards is
/// still named, exit 2.
#[test]
fn a_sigbus_not_ours_reaches_the_previous_siginfo_handler_and_the_guard_stays() {
    let Some((out, _dir, path)) = in_a_child(
        "a_sigbus_not_ours_reaches_the_previous_siginfo_handler_and_the_guard_stays",
        CHAIN_INFO_ENV,
        chained_with_info,
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(out.status.code(), Some(2), "{context}");
    assert!(
        stdout.contains(&format!("previous handler saw si_code {}", libc::SI_USER)),
        "{context}"
    );
    assert!(stdout.contains("guard in place: true"), "{context}");
    assert!(
        stderr.contains(&format!(
            "{} shrank while it was being read",
            path.display()
        )),
        "{context}"
    );
    assert!(!stdout.contains("survived the truncation"), "{context}");
}

fn chained_with_info(path: &Path) {
    set_sigbus(
        previous_with_info as *const () as libc::sighandler_t,
        libc::SA_SIGINFO,
    );
    let opened = open_mapped(path);
    assert!(opened.log.text_is_shared(), "the log was not mapped");
    kill_bus();
    let saw = PREVIOUS_SAW.load(std::sync::atomic::Ordering::SeqCst) - 1000;
    println!("previous handler saw si_code {saw}");
    println!("guard in place: {}", store::install_map_guard());
    truncate(path);
    let last = opened
        .log
        .event_bytes(EventIdx(opened.log.len() as u32 - 1));
    println!("survived the truncation: {}", last.len());
    std::process::exit(0);
}

const CHAIN_FAULT_ENV: &str = "SURFACE_VIEWER_TEST_CHAIN_FAULT";

/// A real fault that is not the guard's — a read past the end of a truncated file that the
/// process mapped itself, unguarded — reaches the plain handler in place before the guard.
#[test]
fn a_fault_not_ours_reaches_the_previous_plain_handler() {
    let Some((out, _dir, _path)) = in_a_child(
        "a_fault_not_ours_reaches_the_previous_plain_handler",
        CHAIN_FAULT_ENV,
        faulted_elsewhere,
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(out.status.code(), Some(42), "{context}");
    assert!(stdout.contains("previous plain handler ran"), "{context}");
    assert!(!stderr.contains("shrank"), "{context}");
}

fn faulted_elsewhere(path: &Path) {
    set_sigbus(previous_plain_exits as *const () as libc::sighandler_t, 0);
    // The guard in place, guarding the log…
    let opened = open_mapped(path);
    assert!(opened.log.text_is_shared(), "the log was not mapped");
    // …while the process maps another file itself.
    let other = path.with_extension("other");
    std::fs::write(&other, vec![7u8; 8 * 4096]).unwrap();
    let file = std::fs::File::open(&other).unwrap();
    use std::os::unix::io::AsRawFd as _;
    // SAFETY: a fresh read-only private mapping of a file this process holds open.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            8 * 4096,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(addr, libc::MAP_FAILED);
    truncate(&other);
    // SAFETY: inside the mapping just made; the page past the file's new end raises SIGBUS,
    // which is what the test is about (the previous handler ends the process).
    let byte = unsafe { std::ptr::read_volatile(addr.cast::<u8>().add(5 * 4096)) };
    println!("survived the fault: {byte}");
    std::process::exit(0);
}

const CHAIN_IGNORED_ENV: &str = "SURFACE_VIEWER_TEST_CHAIN_IGNORED";

/// SIGBUS ignored before the guard: a `kill -BUS` stays ignored (the process goes on), and the
/// guard stays in place.
#[test]
fn a_sigbus_sent_while_ignored_stays_ignored() {
    let Some((out, _dir, _path)) = in_a_child(
        "a_sigbus_sent_while_ignored_stays_ignored",
        CHAIN_IGNORED_ENV,
        ignored,
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let context = format!("status {:?}\nstdout:\n{stdout}", out.status);
    assert_eq!(out.status.code(), Some(0), "{context}");
    assert!(
        stdout.contains("survived the ignored signal, guard in place: true"),
        "{context}"
    );
}

fn ignored(path: &Path) {
    set_sigbus(libc::SIG_IGN, 0);
    let opened = open_mapped(path);
    assert!(opened.log.text_is_shared(), "the log was not mapped");
    kill_bus();
    println!(
        "survived the ignored signal, guard in place: {}",
        store::install_map_guard()
    );
    std::process::exit(0);
}

/// The two sides of a test whose outcome ends a process. In the child (`env` set) runs
/// `child` on the log `env` names and returns `None`; in the parent writes a 9 MiB log, runs
/// this test binary again on `test` alone as the child, and returns its output, the folder
/// holding the log and the log's path. `None` off Linux too, where files are never mapped.
fn in_a_child(
    test: &str,
    env: &str,
    child: fn(&Path),
) -> Option<(std::process::Output, tempfile::TempDir, std::path::PathBuf)> {
    if let Some(path) = std::env::var_os(env) {
        child(Path::new(&path));
        return None;
    }
    if !cfg!(target_os = "linux") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mapped.jsonl");
    common::write_large_log(&path, 9 << 20);
    // The test's full name: its module path inside the test binary, without the crate.
    let name = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{test}"),
        None => test.to_string(),
    };
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env(env, &path)
        .output()
        .unwrap();
    Some((out, dir, path))
}

const CHECK_DIR_ENV: &str = "SURFACE_VIEWER_TEST_CHECK_DIR_TRUNCATED";

/// `check DIR` maps each file with its own outcome: a file truncated under its mapping in the
/// middle of the run (by a hook the store calls right after mapping, before anything is read)
/// is that session's error — named, "unreadable" — while the other sessions are checked, and
/// the run exits 1 (some session cannot be read), not 2 (none can).
#[test]
fn check_dir_reports_a_file_truncated_under_its_mapping_and_finishes_the_others() {
    let Some((out, _dir, path)) = in_a_child(
        "check_dir_reports_a_file_truncated_under_its_mapping_and_finishes_the_others",
        CHECK_DIR_ENV,
        check_dir_with_one_truncated,
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(out.status.code(), Some(0), "{context}");
    assert!(stdout.contains("check DIR exited 1"), "{context}");
    let unreadable = format!(
        "{}: unreadable: {} shrank while it was being read",
        path.display(),
        path.display()
    );
    assert!(stdout.contains(&unreadable), "{context}");
    assert!(
        stdout.contains("2 sessions checked in 3 files") && stdout.contains("; 1 unreadable"),
        "{context}"
    );
}

/// The child: two small sessions beside the large `path`, which the hook truncates as soon as
/// it is mapped; runs `check DIR` through the command line's own entry point and prints its
/// exit code.
fn check_dir_with_one_truncated(path: &Path) {
    let dir = path.parent().unwrap();
    for name in ["a.jsonl", "b.jsonl"] {
        common::write_large_log(&dir.join(name), 4 << 10);
    }
    fn truncate_the_large_one(mapped: &Path) {
        if mapped.file_name().is_some_and(|n| n == "mapped.jsonl") {
            truncate(mapped);
        }
    }
    // As `main` does: without the guard nothing is mapped (and the hook never runs).
    assert!(store::install_map_guard());
    store::set_after_map_hook(Some(truncate_the_large_one));
    use clap::Parser as _;
    let args = [
        "surface-viewer",
        "check",
        dir.to_str().unwrap(),
        "--jobs",
        "2",
    ];
    let command = surface_cli::Cli::try_parse_from(args)
        .unwrap()
        .command
        .unwrap();
    let code = surface_cli::run(command).unwrap();
    store::set_after_map_hook(None);
    let code = (0..=2u8)
        .find(|&c| std::process::ExitCode::from(c) == code)
        .map_or("?".to_string(), |c| c.to_string());
    println!("check DIR exited {code}");
    std::process::exit(0);
}
