//! Amounts of money as reports print them: more decimals for small amounts, so that the cost
//! of one call (a fraction of a cent) still shows its digits; and every amount the engine
//! reports rounded to [`MONEY_DIGITS`] significant digits, so that a machine-read figure (JSON,
//! CSV, Parquet) is the decimal the prices make (`0.5513092`), not a binary sum's noise
//! (`0.5513091999999999`).

/// Significant digits of every amount of money the engine reports: a binary `f64` sum is
/// exact to about 15; its noise lies in the 16th and 17th.
pub const MONEY_DIGITS: usize = 12;

/// `x` rounded to [`MONEY_DIGITS`] significant digits: the `f64` nearest that decimal, which
/// prints (shortest round trip) as the decimal itself.
pub fn round_money(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.prec$e}", prec = MONEY_DIGITS - 1)
        .parse()
        .unwrap_or(x)
}

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

/// What a report prints for a cost that is not known although there are prices: some call
/// it sums has no price for its model. Never 0.
pub const UNPRICED: &str = "unpriced";

/// A cost cell: the amount, [`UNPRICED`] when a price file is in use (`priced`) but the cost
/// is unknown, `–` without prices.
pub fn money_or_unpriced(cost: Option<f64>, priced: bool) -> String {
    match cost {
        Some(x) => money(x),
        None if priced => UNPRICED.to_string(),
        None => "–".to_string(),
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
        assert_eq!(money_or_unpriced(Some(0.5), true), "0.500000");
        assert_eq!(money_or_unpriced(None, true), "unpriced");
        assert_eq!(money_or_unpriced(None, false), "–");
    }

    #[test]
    fn amounts_are_rounded_to_the_decimal_the_prices_make() {
        assert_eq!(round_money(0.1 + 0.2).to_string(), "0.3");
        assert_eq!(round_money(0.5513091999999999).to_string(), "0.5513092");
        assert_eq!(round_money(-0.000733 - 1e-19).to_string(), "-0.000733");
        assert_eq!(round_money(1234.56789012345).to_string(), "1234.56789012");
        assert_eq!(round_money(2.8e-8).to_string(), "0.000000028");
        assert_eq!(round_money(0.0), 0.0);
    }
}
