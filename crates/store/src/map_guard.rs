//! The SIGBUS guard of mapped files (Linux): a file truncated by another program while it is
//! mapped makes every later read past its new end raise SIGBUS, which would kill the process
//! with no word of why. The guard does what the mapping's [`OnShrink`] says: the command line
//! prints one line naming the file and exits 2; the desktop viewer and `check DIR` have the
//! whole mapping replaced by zero pages (one `mmap(MAP_FIXED)` in the handler), mark it
//! *shrank* and let the read go on — the reader then reports or reopens the file
//! ([`Guard::shrank`]).
//!
//! The handler is installed explicitly, once, by the program ([`install`], from `main` and the
//! viewer's `run`), never by the library on its own: a library that changes a process's signal
//! handling behind its back is a trap. Until it is installed nothing is guarded, and the store
//! reads files instead of mapping them. Installing keeps the previous `sigaction`: the handler
//! acts only on `BUS_ADRERR` inside a guarded mapping, and hands every other SIGBUS — a fault
//! elsewhere, or `kill -BUS` from another process — to the previous disposition, as if the
//! guard were not there (`sigbus_chain.rs`): a previous handler is called (with its own mask,
//! `SA_SIGINFO` or plain), `SIG_IGN` ignores a signal a process sent (a fault cannot be
//! ignored: the kernel takes the default action), and `SIG_DFL` ends the process. A previous
//! handler that puts something else in place (Rust's own resets SIGBUS to the default)
//! uninstalls the guard: from then on nothing new is mapped.
//!
//! The handler consults a fixed table of the live mappings, lock-free: 64 slots of atomics
//! (state, start, end, and the path's bytes, kept alive by the
//! [`super::mapped_file::MappedFile`] that registered them). In the handler only
//! async-signal-safe work happens: atomic loads and stores, `write(2)`, `_exit(2)`,
//! `sigaction(2)`, `pthread_sigmask(3)`, `raise(3)`, the previous handler, and the `mmap(2)`
//! system call (not on POSIX's list, but on Linux a bare system call that takes no user-space
//! lock).
//!
//! A full table, or no handler installed, means no guard: the caller reads the file instead of
//! mapping it.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering};

use super::sigbus_chain::{self, Chained};
use std::sync::Once;

/// How many mappings can be guarded at once (`check DIR` maps one file per worker thread).
const SLOTS: usize = 64;

/// The first part of the line written when a guarded mapping faults; the path follows.
const MESSAGE_HEAD: &[u8] = b"surface-viewer: ";
/// The rest of that line.
const MESSAGE_TAIL: &[u8] = b" shrank while it was being read (another program truncated it); \
nothing more can be read from it\n";
/// The exit code after such a fault: the file could not be read.
const EXIT_UNREADABLE: libc::c_int = 2;

/// A slot nobody uses.
const FREE: u8 = 0;
/// A slot being filled in or emptied (the handler skips it).
const BUSY: u8 = 1;
/// A slot holding a live mapping.
const LIVE: u8 = 2;

/// What happens when a guarded mapping's file shrinks under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnShrink {
    /// Name the file on stderr and exit 2 (the command line: a short process).
    Exit,
    /// Replace the mapping by zero pages, mark it shrank and go on (the desktop viewer, which
    /// reopens the file when it sees the mark).
    ZeroAndMark,
}

/// One guarded mapping: the bytes `[start, end)`, the path to name, what to do on a fault
/// and whether one happened.
struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    end: AtomicUsize,
    path: AtomicPtr<u8>,
    path_len: AtomicUsize,
    /// True for [`OnShrink::ZeroAndMark`].
    zero: AtomicBool,
    /// Set by the handler once the mapping was replaced by zero pages.
    shrank: AtomicBool,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            state: AtomicU8::new(FREE),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            path: AtomicPtr::new(std::ptr::null_mut()),
            path_len: AtomicUsize::new(0),
            zero: AtomicBool::new(false),
            shrank: AtomicBool::new(false),
        }
    }
}

/// A fixed table of guarded mappings.
struct Table<const N: usize> {
    slots: [Slot; N],
}

impl<const N: usize> Table<N> {
    const fn new() -> Self {
        Table {
            slots: [const { Slot::new() }; N],
        }
    }

    /// Records `range` as belonging to `path`; `None` when every slot is taken. `path` must
    /// stay alive and unmoved until [`Table::unregister`] of the returned slot.
    fn register(
        &self,
        range: std::ops::Range<usize>,
        path: &[u8],
        on_shrink: OnShrink,
    ) -> Option<usize> {
        let index = self.slots.iter().position(|slot| {
            slot.state
                .compare_exchange(FREE, BUSY, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })?;
        let slot = &self.slots[index];
        slot.start.store(range.start, Ordering::Relaxed);
        slot.end.store(range.end, Ordering::Relaxed);
        slot.path.store(path.as_ptr().cast_mut(), Ordering::Relaxed);
        slot.path_len.store(path.len(), Ordering::Relaxed);
        slot.zero
            .store(on_shrink == OnShrink::ZeroAndMark, Ordering::Relaxed);
        slot.shrank.store(false, Ordering::Relaxed);
        slot.state.store(LIVE, Ordering::Release);
        Some(index)
    }

    /// Frees the slot `register` returned.
    fn unregister(&self, index: usize) {
        let slot = &self.slots[index];
        slot.state.store(BUSY, Ordering::Release);
        slot.path.store(std::ptr::null_mut(), Ordering::Relaxed);
        slot.path_len.store(0, Ordering::Relaxed);
        slot.state.store(FREE, Ordering::Release);
    }

    /// The live slot whose mapping holds `addr`. Async-signal-safe (atomic loads only).
    fn slot_at(&self, addr: usize) -> Option<&Slot> {
        self.slots.iter().find(|slot| {
            slot.state.load(Ordering::Acquire) == LIVE
                && (slot.start.load(Ordering::Relaxed)..slot.end.load(Ordering::Relaxed))
                    .contains(&addr)
        })
    }

    /// The path of the live mapping holding `addr`. Async-signal-safe (atomic loads only).
    fn path_at(&self, addr: usize) -> Option<&[u8]> {
        self.slot_at(addr).and_then(|slot| {
            let (ptr, len) = (
                slot.path.load(Ordering::Relaxed),
                slot.path_len.load(Ordering::Relaxed),
            );
            if ptr.is_null() {
                return None;
            }
            // SAFETY: a live slot's path bytes are owned by the `MappedFile` that registered
            // them, which unregisters the slot before it lets them go; and a fault inside its
            // mapping means someone is reading the mapping, so it has not been dropped.
            Some(unsafe { std::slice::from_raw_parts(ptr.cast_const(), len) })
        })
    }
}

/// The live mappings of the process.
static TABLE: Table<SLOTS> = Table::new();
/// Installs the handler once ([`install`]).
static INSTALL: Once = Once::new();
/// True while the handler is in place (only then is anything guarded).
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// Set by the first thread whose guarded read faulted (it writes the line and exits).
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Installs the SIGBUS handler, keeping the previous disposition to chain to; idempotent.
/// Returns whether the guard is in place (false when `sigaction` refused, or after a previous
/// handler uninstalled it). Without it the store reads files instead of mapping them.
pub fn install() -> bool {
    INSTALL.call_once(|| INSTALLED.store(install_handler(), Ordering::Release));
    installed()
}

/// True while the handler is in place.
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Acquire)
}

/// A registered mapping; unregister it with [`Guard::release`] before unmapping.
#[derive(Debug)]
pub(super) struct Guard {
    slot: usize,
}

impl Guard {
    /// Guards `range` (a mapping of the file at `path`). `None` when the handler is not
    /// installed ([`install`]) or the table is full: then the file must not be mapped. `path` must stay
    /// alive and unmoved until [`Guard::release`].
    pub(super) fn register(
        range: std::ops::Range<usize>,
        path: &[u8],
        on_shrink: OnShrink,
    ) -> Option<Guard> {
        if !installed() {
            return None;
        }
        TABLE
            .register(range, path, on_shrink)
            .map(|slot| Guard { slot })
    }

    /// True once the file shrank under an [`OnShrink::ZeroAndMark`] mapping (its bytes now
    /// read as zeros).
    pub(super) fn shrank(&self) -> bool {
        TABLE.slots[self.slot].shrank.load(Ordering::Acquire)
    }

    /// Stops guarding the mapping (before it is unmapped and its path freed).
    pub(super) fn release(self) {
        TABLE.unregister(self.slot);
    }
}

/// Keeps the current disposition of SIGBUS in [`PREVIOUS`] and installs [`on_sigbus`]. False
/// when `sigaction` refused.
fn install_handler() -> bool {
    // SAFETY: `sigaction` reads the current disposition into a zeroed struct, then installs
    // a zeroed, then filled, one; the handler has the `SA_SIGINFO` signature and does only
    // async-signal-safe work.
    unsafe {
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) != 0 {
            return false;
        }
        sigbus_chain::remember(previous);
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut ours.sa_mask);
        libc::sigaction(libc::SIGBUS, &ours, std::ptr::null_mut()) == 0
    }
}

/// `si_code` of a SIGBUS the kernel raised for an access to a mapped page past the end of its
/// file (`BUS_ADRERR`, from `<asm-generic/siginfo.h>`).
const BUS_ADRERR: libc::c_int = 2;

/// The SIGBUS handler. It acts only on `BUS_ADRERR` at an address inside a guarded mapping:
/// it names the file and exits 2, or swaps in zero pages (the viewer, `check DIR`). Any other
/// SIGBUS — a fault elsewhere, another `si_code`, or one sent by a process (`kill -BUS`, whose
/// `si_code` is not positive) — is not ours: it goes to the previous disposition
/// ([`not_ours`]).
extern "C" fn on_sigbus(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
    let code = unsafe { (*info).si_code };
    // SAFETY: as above; `si_addr` is meaningful for the kernel's own faults (checked next).
    let addr = unsafe { (*info).si_addr() } as usize;
    if code == BUS_ADRERR
        && let Some(slot) = TABLE.slot_at(addr)
    {
        if slot.zero.load(Ordering::Relaxed) {
            // The interrupted code may be reading `errno`: the `mmap` must not change it.
            // SAFETY: `__errno_location` returns this thread's `errno`, valid for the thread.
            let errno = unsafe { *libc::__errno_location() };
            let filled = zero_fill(slot);
            // SAFETY: as above.
            unsafe { *libc::__errno_location() = errno };
            if filled {
                // Returning repeats the read, which now finds a zero page.
                return;
            }
        }
        if let Some(path) = TABLE.path_at(addr) {
            report_and_exit(path);
        }
    }
    not_ours(signal, info, context, code);
}

/// Names the file on stderr and ends the process with exit code 2. Both reader threads may
/// fault at once: one names the file and ends the process, the others wait for that (one line,
/// not two interleaved).
fn report_and_exit(path: &[u8]) -> ! {
    if REPORTING.swap(true, Ordering::AcqRel) {
        loop {
            // SAFETY: `pause` is async-signal-safe; `_exit` in the reporting thread ends this
            // one too.
            unsafe { libc::pause() };
        }
    }
    write_stderr(MESSAGE_HEAD);
    write_stderr(path);
    write_stderr(MESSAGE_TAIL);
    // SAFETY: `_exit` is async-signal-safe and ends the process at once.
    unsafe { libc::_exit(EXIT_UNREADABLE) }
}

/// A SIGBUS the guard does not own, handed to the disposition SIGBUS had before the guard
/// was installed ([`sigbus_chain::chain`]). Where that is the default action, it is restored
/// (process-wide) and nothing more is guarded; where a previous handler ran and changed the
/// disposition (Rust's runtime resets SIGBUS to the default), the guard is no longer in place
/// and says so.
fn not_ours(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
    code: libc::c_int,
) {
    match sigbus_chain::chain(signal, info, context, code) {
        Chained::Ignored => {}
        Chained::Default => INSTALLED.store(false, Ordering::Release),
        Chained::Handled => {
            if !ours_in_place() {
                INSTALLED.store(false, Ordering::Release);
            }
        }
    }
}

/// True while SIGBUS still goes to [`on_sigbus`]. Async-signal-safe (`sigaction` reads).
fn ours_in_place() -> bool {
    // SAFETY: `sigaction` reading the current disposition into a zeroed struct.
    unsafe {
        let mut now: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut now) == 0
            && now.sa_sigaction == on_sigbus as *const () as libc::sighandler_t
    }
}

/// Replaces the whole mapping of `slot` by private zero pages at the same address and marks
/// it shrank. False when the kernel refused (then the fault is reported as for the command
/// line). Async-signal-safe on Linux (one `mmap` system call, atomic stores).
fn zero_fill(slot: &Slot) -> bool {
    let start = slot.start.load(Ordering::Relaxed);
    let len = slot.end.load(Ordering::Relaxed) - start;
    // SAFETY: `[start, start + len)` is the live mapping this slot guards (registered before
    // any read and unregistered before the unmap); replacing it in place keeps every pointer
    // into it valid, reading zeros.
    let addr = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if addr as usize != start {
        return false;
    }
    slot.shrank.store(true, Ordering::Release);
    true
}

/// Writes all of `bytes` to stderr with `write(2)` (async-signal-safe), giving up on an error.
fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid slice for the call.
        let n = unsafe { libc::write(libc::STDERR_FILENO, bytes.as_ptr().cast(), bytes.len()) };
        if n > 0 {
            bytes = &bytes[n as usize..];
        } else if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        } else {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_finds_the_mapping_holding_an_address() {
        let table: Table<2> = Table::new();
        let (a, b) = (b"/logs/a.jsonl".to_vec(), b"/logs/b.jsonl".to_vec());
        let first = table.register(0x1000..0x3000, &a, OnShrink::Exit).unwrap();
        let second = table.register(0x8000..0x9000, &b, OnShrink::Exit).unwrap();
        assert_ne!(first, second);
        assert_eq!(table.path_at(0x1000), Some(&a[..]));
        assert_eq!(table.path_at(0x2fff), Some(&a[..]));
        assert_eq!(
            table.path_at(0x3000),
            None,
            "the end is not part of the mapping"
        );
        assert_eq!(table.path_at(0x8800), Some(&b[..]));
        assert_eq!(table.path_at(0x0fff), None);
        table.unregister(first);
        assert_eq!(
            table.path_at(0x1000),
            None,
            "a released mapping is not guarded"
        );
        assert_eq!(table.path_at(0x8800), Some(&b[..]));
    }

    #[test]
    fn a_full_table_refuses_and_a_freed_slot_is_reused() {
        let table: Table<2> = Table::new();
        let path = b"p".to_vec();
        let first = table.register(0..10, &path, OnShrink::Exit).unwrap();
        table.register(10..20, &path, OnShrink::Exit).unwrap();
        assert_eq!(
            table.register(20..30, &path, OnShrink::Exit),
            None,
            "every slot is taken"
        );
        table.unregister(first);
        assert_eq!(table.register(20..30, &path, OnShrink::Exit), Some(first));
        assert_eq!(table.path_at(25), Some(&path[..]));
        assert_eq!(table.path_at(5), None);
    }

    #[test]
    fn the_message_names_the_path_on_one_line() {
        let line = [MESSAGE_HEAD, b"/tmp/x.jsonl", MESSAGE_TAIL].concat();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "surface-viewer: /tmp/x.jsonl shrank while it was being read (another program \
             truncated it); nothing more can be read from it\n"
        );
    }
}
