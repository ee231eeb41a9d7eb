//! How much a reader takes in from one session file: a per-event limit (a JSONL line, a packed
//! row, an SQLite row; 512 MiB by default) and a total limit on the session's text once
//! decompressed (by default the smaller of 16 GiB and three quarters of physical memory).
//!
//! An event past its limit is skipped with a `line.too-long` finding and the rest of the file
//! is read; a session past the total is not read at all ([`crate::StoreError::TooLarge`]; a
//! reader stops with [`ReadStop::TooLarge`]).
//! Zstandard files are decoded in a stream into a bounded buffer, so a small file that claims —
//! or holds — gigabytes costs at most the limits, never an allocation of what it claims.

/// The per-event limit by default: 512 MiB, V8's longest string (the harness can neither write
/// nor read a longer line).
pub const DEFAULT_EVENT_BYTES: u64 = 512 << 20;

/// The total limit never defaults to more than this, however much memory the machine has.
pub const TOTAL_CEILING: u64 = 16 << 30;

/// Why decoding stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStop {
    /// The load was cancelled.
    Cancelled,
    /// The decoded text passed the total limit of `limit` bytes.
    TooLarge {
        /// The total limit, in bytes.
        limit: u64,
    },
}

/// The limits a reader holds a session file to. `Default` gives the documented defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    event_bytes: u64,
    total_bytes: u64,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            event_bytes: DEFAULT_EVENT_BYTES,
            total_bytes: default_total_bytes(),
        }
    }
}

impl ReadLimits {
    /// The limits with the total set to `bytes` (at least 1).
    pub fn with_total_bytes(self, bytes: u64) -> Self {
        ReadLimits {
            total_bytes: bytes.max(1),
            ..self
        }
    }

    /// The limits with the per-event limit set to `bytes`, kept between 1 and `u32::MAX` (an
    /// event's length is stored in 32 bits).
    pub fn with_event_bytes(self, bytes: u64) -> Self {
        ReadLimits {
            event_bytes: bytes.clamp(1, u64::from(u32::MAX)),
            ..self
        }
    }

    /// The default limits, with the total replaced by `total` when given (`--max-bytes`).
    pub fn with_max_bytes(total: Option<u64>) -> Self {
        let limits = ReadLimits::default();
        match total {
            Some(bytes) => limits.with_total_bytes(bytes),
            None => limits,
        }
    }

    /// The longest event, in bytes (never more than `u32::MAX`).
    pub fn event_bytes(&self) -> u64 {
        self.event_bytes
    }

    /// [`ReadLimits::event_bytes`] as a `usize`.
    pub(crate) fn event_len(&self) -> usize {
        usize::try_from(self.event_bytes).unwrap_or(usize::MAX)
    }

    /// The most text one session may hold once decompressed, in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
}

/// The smaller of [`TOTAL_CEILING`] and three quarters of physical memory (the ceiling when
/// the memory cannot be told).
pub fn default_total_bytes() -> u64 {
    physical_memory().map_or(TOTAL_CEILING, |m| (m / 4 * 3).clamp(1, TOTAL_CEILING))
}

/// The machine's physical memory in bytes (`sysconf`, Unix), `None` when it cannot be told.
#[cfg(unix)]
pub fn physical_memory() -> Option<u64> {
    // SAFETY: `sysconf` reads a system setting; it has no memory preconditions.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    let (pages, page) = (u64::try_from(pages).ok()?, page_bytes()?);
    pages.checked_mul(page).filter(|&m| m > 0)
}

/// The size of a memory page in bytes (`sysconf`, Unix), `None` when it cannot be told.
#[cfg(unix)]
pub(crate) fn page_bytes() -> Option<u64> {
    // SAFETY: `sysconf` reads a system setting; it has no memory preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(page).ok().filter(|&p| p > 0)
}

/// The machine's physical memory: not told off Unix.
#[cfg(not(unix))]
pub fn physical_memory() -> Option<u64> {
    None
}

/// A byte count as people write it: `1000`, `512K`, `512M`, `2G`, `1T`, with or without `B`,
/// `iB` or a space (`2 GiB`); the units are binary (`1K` is 1024 bytes), case does not matter,
/// and a decimal part is taken (`1.5G`). Zero is refused.
pub fn parse_byte_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad_size(text)),
    };
    let bytes = if let Ok(whole) = number.parse::<u64>() {
        whole
            .checked_mul(1 << shift)
            .ok_or_else(|| bad_size(text))?
    } else {
        let value: f64 = number.parse().map_err(|_| bad_size(text))?;
        let bytes = (value * (1u64 << shift) as f64).round();
        if !bytes.is_finite() || bytes >= u64::MAX as f64 {
            return Err(bad_size(text));
        }
        bytes as u64
    };
    if bytes == 0 {
        return Err(format!("{text:?}: the limit must be at least one byte"));
    }
    Ok(bytes)
}

fn bad_size(text: &str) -> String {
    format!("{text:?} is not a byte count (e.g. 4000000000, 512M, 2G)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_suffixes() {
        assert_eq!(parse_byte_size("1000"), Ok(1000));
        assert_eq!(parse_byte_size("512M"), Ok(512 << 20));
        assert_eq!(parse_byte_size("2G"), Ok(2 << 30));
        assert_eq!(parse_byte_size("2 GiB"), Ok(2 << 30));
        assert_eq!(parse_byte_size("64kb"), Ok(64 << 10));
        assert_eq!(parse_byte_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_byte_size("1T"), Ok(1 << 40));
        for bad in [
            "",
            "0",
            "G",
            "12X",
            "-1",
            "1.2.3M",
            "99999999999999999999",
            "20000000T",
        ] {
            assert!(parse_byte_size(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_default_total_is_bounded_by_memory_and_the_ceiling() {
        let total = ReadLimits::default().total_bytes();
        assert!(total <= TOTAL_CEILING);
        if let Some(memory) = physical_memory() {
            assert!(total <= memory / 4 * 3, "{total} of {memory}");
        }
        assert_eq!(ReadLimits::default().event_bytes(), 512 << 20);
    }

    #[test]
    fn limits_stay_in_range() {
        let l = ReadLimits::default()
            .with_event_bytes(0)
            .with_total_bytes(0);
        assert_eq!((l.event_bytes(), l.total_bytes()), (1, 1));
        let l = ReadLimits::default().with_event_bytes(u64::MAX);
        assert_eq!(l.event_bytes(), u64::from(u32::MAX));
        assert_eq!(ReadLimits::with_max_bytes(Some(7)).total_bytes(), 7);
        assert_eq!(ReadLimits::with_max_bytes(None), ReadLimits::default());
    }
}
