//! Mapped reading. The CLI's (`store::open_mapped`): the same log as a copy, small files still
//! copied, and a file truncated while mapped named on stderr with exit code 2 (the SIGBUS
//! guard), checked in a child process: the test binary runs itself again. The viewer's
//! (`store::open_for_viewer`): the same log as a copy however often its pages are let go, and
//! a file truncated under it reads as zeros and is marked lost, the process going on.

use crate::common;

use std::path::Path;
use std::process::Command;

use surface_engine::{EventIdx, Surface, check};
use surface_store as store;

/// Set in the child process to the log it maps and truncates.
const CHILD_ENV: &str = "SURFACE_VIEWER_TEST_TRUNCATE_MAPPED";

#[test]
fn mapped_and_copied_logs_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    common::write_large_log(&path, 9 << 20);
    let copied = store::open(&path, None).unwrap();
    let mapped = store::open_mapped(&path, None).unwrap();
    assert!(!copied.log.text.is_shared());
    assert_eq!(mapped.log.text.is_shared(), cfg!(target_os = "linux"));
    assert_eq!(&copied.log.text[..], &mapped.log.text[..]);
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

#[test]
fn the_viewers_mapping_reads_the_same_as_a_copy_while_its_pages_are_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    common::write_large_log(&path, 9 << 20);
    let copied = store::open(&path, None).unwrap();
    let viewed = store::open_for_viewer(&path, None, None).unwrap();
    assert_eq!(viewed.log.text.is_shared(), cfg!(target_os = "linux"));
    let text = &viewed.log.text;
    // Let go of pages from another thread the whole time the surface is built and checked.
    let done = std::sync::atomic::AtomicBool::new(false);
    let (surface, findings) = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                text.release_resident(0..text.len());
                std::thread::yield_now();
            }
        });
        let surface = Surface::at_end(&viewed.log);
        let findings = check(&viewed.log, &surface);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (surface, findings)
    });
    let copied_surface = Surface::at_end(&copied.log);
    assert_eq!(&copied.log.text[..], &text[..]);
    assert_eq!(copied.log.len(), viewed.log.len());
    assert_eq!(
        copied_surface.nodes().collect::<Vec<_>>(),
        surface.nodes().collect::<Vec<_>>()
    );
    assert_eq!(check(&copied.log, &copied_surface), findings);
    assert!(!text.lost());
}

#[test]
fn a_file_truncated_under_the_viewer_reads_as_zeros_and_is_marked_lost() {
    if !cfg!(target_os = "linux") {
        return; // other platforms read files, they never map them
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.jsonl");
    common::write_large_log(&path, 9 << 20);
    let viewed = store::open_for_viewer(&path, None, None).unwrap();
    let text = &viewed.log.text;
    assert!(text.is_shared() && !text.lost());
    let first = viewed.log.event_json(EventIdx(0)).to_string();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    // A read past the new end faults; the guard swaps in zero pages and the read goes on.
    let last = std::hint::black_box(text)[text.len() - 1];
    assert_eq!(last, 0);
    assert!(text.lost(), "the arena says its bytes are gone");
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
    assert!(
        !store::open_mapped(&small, None)
            .unwrap()
            .log
            .text
            .is_shared()
    );

    let big = dir.path().join("big.jsonl");
    common::write_large_log(&big, 9 << 20);
    let mut log = store::open_mapped(&big, None).unwrap().log;
    let (len, events) = (log.text.len(), log.len());
    let next = log.next_seq();
    let line = format!("{}\n", common::msg(next, "append", None));
    log.text.extend_from_slice(line.as_bytes());
    assert!(!log.text.is_shared(), "appending copied the mapped bytes");
    let batch = store::parse_body(&log.text, len, 0, None).unwrap();
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
    let opened = store::open_mapped(path, None).unwrap();
    assert!(opened.log.text.is_shared(), "the log was not mapped");
    let len = opened.log.text.len();
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
        std::hint::black_box(&opened.log.text)[at]
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

/// A SIGBUS another process sends (`kill -BUS`) is not the guard's: the default action
/// happens — the process ends by SIGBUS — instead of the guard uninstalling itself and the
/// process living on with mappings that believe they are guarded.
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

/// The child: maps `path` (guarded), is sent SIGBUS as `kill -BUS` would send it, then
/// truncates the file and reads past its end. Only the signal may end it.
fn killed_then_truncated(path: &Path) {
    let opened = store::open_mapped(path, None).unwrap();
    assert!(opened.log.text.is_shared(), "the log was not mapped");
    println!("mapped and guarded");
    // SAFETY: `kill` and `getpid` have no memory preconditions; the signal, sent by a process
    // (`si_code` SI_USER, as from `kill -BUS`), is what the test is about.
    let sent = unsafe { libc::kill(libc::getpid(), libc::SIGBUS) };
    assert_eq!(sent, 0);
    // Delivered at once to this thread or soon to another: give it a moment.
    std::thread::sleep(std::time::Duration::from_millis(500));
    // The old guard swallowed the signal and uninstalled itself: the process got here.
    println!("survived the signal");
    let len = opened.log.text.len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let last = std::hint::black_box(&opened.log.text)[len - 1];
    println!("survived the signal and the truncation: {last}");
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
