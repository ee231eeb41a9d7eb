//! The four token columns of one model call (docs/cost.md), in the contract's names:
//! `uncached` = `inputTokens`, `cache_read`, `cache_write`, `output` (reasoning tokens are part
//! of output and never added twice), and the prompt they make.

use serde::Serialize;

use surface_engine::meter::Usage;

/// A call's tokens, or a sum of calls' tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// `inputTokens`: prompt tokens sent at the uncached price.
    pub uncached: u64,
    /// `cacheReadTokens`: prompt tokens read from the provider's cache.
    pub cache_read: u64,
    /// `cacheWriteTokens`: prompt tokens written to the cache.
    pub cache_write: u64,
    /// `outputTokens`.
    pub output: u64,
}

impl Tokens {
    /// `uncached + cache_read + cache_write`: the prompt the provider counted.
    pub fn prompt(&self) -> u64 {
        self.uncached + self.cache_read + self.cache_write
    }

    /// Adds another call's tokens.
    pub fn add(&mut self, other: &Tokens) {
        self.uncached += other.uncached;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.output += other.output;
    }
}

impl From<Usage> for Tokens {
    fn from(u: Usage) -> Self {
        Tokens {
            uncached: u.input,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            output: u.output,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_leaves_output_out_and_reasoning_is_never_added() {
        let usage = Usage::from_value(&serde_json::json!({
            "inputTokens": 100, "cacheReadTokens": 900, "cacheWriteTokens": 20,
            "outputTokens": 50, "reasoningTokens": 30
        }))
        .unwrap();
        let t = Tokens::from(usage);
        assert_eq!(
            (t.uncached, t.cache_read, t.cache_write, t.output),
            (100, 900, 20, 50)
        );
        assert_eq!(t.prompt(), 1020);
        let mut sum = t;
        sum.add(&t);
        assert_eq!(sum.prompt(), 2040);
        assert_eq!(sum.output, 100);
    }
}
