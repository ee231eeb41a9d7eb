//! Amounts of money as reports print them: more decimals for small amounts, so that the cost
//! of one call (a fraction of a cent) still shows its digits.

/// An amount of money: two decimals from 100 up, four from 1, six below.
pub fn money(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.2}")
    } else if a >= 1.0 {
        format!("{x:.4}")
    } else {
        format!("{x:.6}")
    }
}

/// An amount with its sign: `+0.001200`, `-0.000340`.
pub fn signed_money(x: f64) -> String {
    if x >= 0.0 {
        format!("+{}", money(x))
    } else {
        money(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_follow_the_size_and_the_sign_is_always_shown() {
        assert_eq!(money(1234.5), "1234.50");
        assert_eq!(money(1.5), "1.5000");
        assert_eq!(money(0.000297), "0.000297");
        assert_eq!(money(-0.5), "-0.500000");
        assert_eq!(signed_money(0.0012), "+0.001200");
        assert_eq!(signed_money(-0.00034), "-0.000340");
        assert_eq!(signed_money(0.0), "+0.000000");
    }
}
