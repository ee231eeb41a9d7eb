//! Small wording helpers shared by labels and tooltips.

/// `n` and a noun, plural when `n` is not 1: "1 node", "3 nodes".
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn singular_and_plural() {
        assert_eq!(super::count(1, "node"), "1 node");
        assert_eq!(super::count(0, "node"), "0 nodes");
        assert_eq!(super::count(7, "node"), "7 nodes");
    }
}
