//! Where a SIGBUS that is not the guard's goes (Linux): to the disposition SIGBUS had before
//! the guard was installed (`map_guard.rs`), as if the guard were not there. A previous handler
//! is called — `SA_SIGINFO` or plain, with its own mask added, once only if it was installed
//! with `SA_RESETHAND` — `SIG_IGN` ignores a signal a process sent (a fault cannot be ignored:
//! the kernel takes the default action, and so does the guard), and `SIG_DFL` is restored and
//! let happen. Everything here runs inside the signal handler: async-signal-safe only.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The disposition SIGBUS had before the guard: every signal that is not the guard's goes
/// there.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
/// Set once a previous handler installed with `SA_RESETHAND` has run: it was one-shot, so
/// from then on the default action stands in for it.
static PREVIOUS_SPENT: AtomicBool = AtomicBool::new(false);

/// Keeps `previous`, the disposition SIGBUS had before the guard (the first one given counts).
pub(super) fn remember(previous: libc::sigaction) {
    let _ = PREVIOUS.set(previous);
}

/// What the previous disposition does with a SIGBUS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chain {
    /// The default action: the process ends.
    Default,
    /// Nothing: a signal a process sent while SIGBUS was ignored.
    Ignore,
    /// Call this handler (`SA_SIGINFO` when `siginfo`), with this mask added.
    Handler {
        handler: libc::sighandler_t,
        siginfo: bool,
        one_shot: bool,
    },
}

/// Where a SIGBUS with `si_code` `code` goes under the disposition `previous` (`None`: none
/// known, or a one-shot handler already spent). A fault cannot be ignored: for it `SIG_IGN`
/// means the default action, as the kernel does.
fn chain_for(previous: Option<&libc::sigaction>, code: libc::c_int) -> Chain {
    let Some(previous) = previous else {
        return Chain::Default;
    };
    match previous.sa_sigaction {
        libc::SIG_DFL => Chain::Default,
        libc::SIG_IGN if code <= 0 => Chain::Ignore,
        libc::SIG_IGN => Chain::Default,
        handler => Chain::Handler {
            handler,
            siginfo: previous.sa_flags & libc::SA_SIGINFO != 0,
            one_shot: previous.sa_flags & libc::SA_RESETHAND as libc::c_int != 0,
        },
    }
}

/// What became of a SIGBUS handed to the previous disposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chained {
    /// Ignored (a signal a process sent while SIGBUS was ignored).
    Ignored,
    /// The default action was restored, process-wide: a fault repeats when the handler
    /// returns and ends the process; a signal a process sent was raised again (SIGBUS is
    /// blocked while its handler runs, so it is delivered as the handler returns).
    Default,
    /// The previous handler ran and returned.
    Handled,
}

/// Hands a SIGBUS with `si_code` `code` to the disposition SIGBUS had before the guard
/// ([`remember`]): a previous handler is called with its own mask added, with the signature its
/// flags declare. Async-signal-safe.
pub(super) fn chain(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
    code: libc::c_int,
) -> Chained {
    let previous = PREVIOUS
        .get()
        .filter(|_| !PREVIOUS_SPENT.load(Ordering::Acquire));
    match chain_for(previous, code) {
        Chain::Ignore => Chained::Ignored,
        Chain::Default => {
            // SAFETY: `signal` and `raise` are async-signal-safe.
            unsafe {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                if code <= 0 {
                    libc::raise(libc::SIGBUS);
                }
            }
            Chained::Default
        }
        Chain::Handler {
            handler,
            siginfo,
            one_shot,
        } => {
            if one_shot {
                PREVIOUS_SPENT.store(true, Ordering::Release);
            }
            let mask = previous.map(|p| p.sa_mask);
            // SAFETY: `pthread_sigmask` with valid sets (the previous action's mask, and a
            // zeroed set it fills with the old mask) is async-signal-safe; the handler is the
            // one the process had installed for SIGBUS, called with the signature its flags
            // declare, as the kernel would have called it.
            unsafe {
                let mut old: libc::sigset_t = std::mem::zeroed();
                if let Some(mask) = &mask {
                    libc::pthread_sigmask(libc::SIG_BLOCK, mask, &mut old);
                }
                if siginfo {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(handler);
                    f(signal, info, context);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                    f(signal);
                }
                if mask.is_some() {
                    libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
                }
            }
            Chained::Handled
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `si_code` of a fault past the end of a mapped file.
    const BUS_ADRERR: libc::c_int = 2;

    #[test]
    fn signals_not_ours_go_where_the_previous_disposition_says() {
        let with = |handler: libc::sighandler_t, flags: libc::c_int| {
            // SAFETY: a zeroed `sigaction` is a valid value (no handler, empty mask).
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = handler;
            action.sa_flags = flags;
            action
        };
        let (sent, fault) = (libc::SI_USER, BUS_ADRERR);
        assert_eq!(chain_for(None, fault), Chain::Default);
        for code in [sent, fault] {
            assert_eq!(
                chain_for(Some(&with(libc::SIG_DFL, 0)), code),
                Chain::Default
            );
        }
        let ignored = with(libc::SIG_IGN, 0);
        assert_eq!(chain_for(Some(&ignored), sent), Chain::Ignore);
        assert_eq!(
            chain_for(Some(&ignored), fault),
            Chain::Default,
            "a fault cannot be ignored"
        );
        let plain = with(0x1234, libc::SA_RESETHAND as libc::c_int);
        assert_eq!(
            chain_for(Some(&plain), fault),
            Chain::Handler {
                handler: 0x1234,
                siginfo: false,
                one_shot: true
            }
        );
        let full = with(0x5678, libc::SA_SIGINFO);
        assert_eq!(
            chain_for(Some(&full), sent),
            Chain::Handler {
                handler: 0x5678,
                siginfo: true,
                one_shot: false
            }
        );
    }
}
