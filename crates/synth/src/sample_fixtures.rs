//! The bank-statement test table of the sample's `src/parse.rs`: a test that parses a year
//! of statement lines, long enough that reading the whole file passes the harness pruner's
//! threshold (8,192 code points), so the default policy prunes that read.

use std::fmt::Write;

/// Payees of the statement lines, with a typical amount in cents (negative: money out).
const PAYEES: &[(&str, i64)] = &[
    ("Rent", -125_000),
    ("Groceries", -4_370),
    ("Salary", 412_500),
    ("Electricity", -8_940),
    ("Coffee", -350),
    ("Refund Hardware Store", 2_999),
    ("Internet", -3_990),
    ("Pharmacy", -1_275),
    ("Train pass", -8_600),
    ("Interest", 12),
    ("Books", -2_450),
];

/// Statement lines per month in the table.
const PER_MONTH: usize = 11;

/// The test, indented for the `tests` module, ending with a newline.
pub(super) fn statement_test() -> String {
    let mut out = String::from(
        "    #[test]\n    fn parses_a_year_of_statement_lines() {\n        let lines = [\n",
    );
    for month in 1..=12 {
        for (k, (payee, cents)) in PAYEES.iter().take(PER_MONTH).enumerate() {
            let day = 1 + (k * 3 + month) % 28;
            let cents = cents + (month as i64 * 7 + k as i64) % 50 * cents.signum();
            let sign = if cents < 0 { "-" } else { "" };
            let _ = writeln!(
                out,
                "            (\"2026-{month:02}-{day:02}  {payee}  {sign}{}.{:02}\", {cents}),",
                cents.abs() / 100,
                cents.abs() % 100
            );
        }
    }
    out.push_str(
        "        ];\n        for (line, cents) in lines {\n            let t = parse_line(line).unwrap();\n            assert_eq!(t.amount, Amount::from_cents(cents), \"{line}\");\n        }\n    }\n",
    );
    out
}

/// Inputs the fuzzer reports, with what `parse_amount` should make of them (`None`: an error).
const FUZZ_INPUTS: &[(&str, Option<i64>)] = &[
    (".5", Some(50)),
    ("-.5", Some(-50)),
    (".05", Some(5)),
    ("-.75", Some(-75)),
    (" .5", Some(50)),
    ("--5", None),
    ("-.", None),
    (".", None),
    ("-", None),
    ("+.5", None),
];

/// The user's request of the sample's fourth turn, with the nightly fuzzer's report pasted
/// under it: findings until the message is priced at `tokens` or more.
pub(super) fn fuzz_request(tokens: u64) -> String {
    let mut out = String::from(
        "While you're in there: `.5` and `-.5` should parse too (50 and -50 cents), and `--5` must stay an error. Add tests for those. Here is last night's fuzzer report, it found the same thing:\n\n",
    );
    let mut k: u64 = 0;
    while super::price::user_message(&out) < tokens {
        let (input, want) = FUZZ_INPUTS[(k % FUZZ_INPUTS.len() as u64) as usize];
        let want = match want {
            Some(c) => format!("Ok(Amount {{ cents: {c} }})"),
            None => "Err(InvalidAmount)".to_string(),
        };
        let _ = writeln!(
            out,
            "fuzz/artifacts/parse_amount/crash-{:016x}: parse_amount({input:?}) = Err(InvalidAmount({input:?})), want {want}",
            super::mix(0xF022 + k)
        );
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{fuzz_request, statement_test};

    #[test]
    fn the_fuzzer_report_reaches_its_price() {
        let text = fuzz_request(900);
        assert!(crate::price::user_message(&text) >= 900);
        assert!(crate::price::user_message(&text) < 960);
        assert!(text.contains("parse_amount(\"--5\")"));
    }

    #[test]
    fn the_table_is_long_enough_to_be_pruned() {
        let test = statement_test();
        assert!(test.chars().count() > 6_500, "{}", test.chars().count());
        assert!(test.contains("(\"2026-01-02  Rent  -1250.07\", -125007),"));
    }
}
