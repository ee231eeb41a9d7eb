//! Every `--csv` (`tokens`, `policy`, `cost`) through the one writer
//! (`crates/cli/src/csv_out.rs`): text from the log that a spreadsheet would evaluate — a type,
//! provider or model name starting with `=`, `+`, `-` or `@` — is written with a leading `'`;
//! commas, quotes, line feeds and carriage returns are quoted; numbers stay numbers.

use crate::binary::{expect_exit, run};
use crate::common;

fn csv_of(args: &[&str], exit: i32) -> String {
    let out = run(args);
    expect_exit(&out, exit);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn tokens_csv_neutralises_formulas_and_quotes_what_it_must() {
    let types = [
        r#"=HYPERLINK(\"http://example.invalid\",\"x\")"#,
        "+SUM(1,2)",
        "-2+3",
        "@cmd",
        "a,b",
        r#"say \"hi\""#,
        r"carriage\rreturn",
        "plain/type",
    ];
    let mut lines = vec![common::msg(0, "append", None)];
    for (k, t) in types.iter().enumerate() {
        lines.push(common::other(k as u64 + 1, t, "{}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odd-types.jsonl");
    std::fs::write(&file, common::text_of(&lines)).unwrap();
    let csv = csv_of(&["tokens", file.to_str().unwrap(), "--csv"], 0);
    let rows: Vec<&str> = csv.split('\n').collect();
    assert_eq!(
        rows[0],
        "seq,type,total,surface,baseline_kind,baseline,window,threshold"
    );
    let type_cell = |seq: usize| {
        let row = rows[seq + 1];
        let rest = row.strip_prefix(&format!("{seq},")).unwrap();
        // The cell runs to the comma before the numbers: the last six cells hold no commas.
        let mut cells: Vec<&str> = rest.rsplitn(7, ',').collect();
        cells.reverse();
        cells[0].to_string()
    };
    assert_eq!(type_cell(0), "user/message");
    assert_eq!(
        type_cell(1),
        r#""'=HYPERLINK(""http://example.invalid"",""x"")""#
    );
    assert_eq!(type_cell(2), r#""'+SUM(1,2)""#);
    assert_eq!(type_cell(3), "'-2+3");
    assert_eq!(type_cell(4), "'@cmd");
    assert_eq!(type_cell(5), r#""a,b""#);
    assert_eq!(type_cell(6), r#""say ""hi""""#);
    assert_eq!(type_cell(7), "\"carriage\rreturn\"");
    assert_eq!(type_cell(8), "plain/type");
    // Numbers are written as numbers: the surface total of the first row.
    assert!(rows[1].starts_with("0,user/message,"), "{}", rows[1]);
}

#[test]
fn policy_csv_quotes_the_reasons_and_keeps_one_cell_per_column() {
    let p01 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/policy/p01.jsonl"
    );
    // T 0.95 disagrees with the log (exit 1), and its reasons hold commas.
    let csv = csv_of(&["policy", p01, "--threshold-ratio", "0.95", "--csv"], 1);
    let csv = csv.replace("\"\"", "");
    let columns = surface_cli::policy::CSV_COLUMNS.len();
    let mut disagreeing = 0;
    for row in csv.lines().skip(1) {
        // Outside quotes, commas separate the cells.
        let mut cells = 1;
        let mut quoted = false;
        for c in row.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => cells += 1,
                _ => {}
            }
        }
        assert_eq!(cells, columns, "{row}");
        disagreeing += usize::from(row.contains(",false,"));
    }
    assert!(disagreeing > 0, "{csv}");
}

#[test]
fn cost_csv_neutralises_a_provider_and_a_model_from_the_log() {
    let lines = [
        common::other(0, "turn/start", r#"{"turn":1}"#),
        common::other(1, "step/start", r#"{"turn":1,"step":1}"#),
        common::other(
            2,
            "request/header",
            r#"{"header":{"config":{"provider":"=HYPERLINK(1)","model":"@m,1"},"system":"s"}}"#,
        ),
        common::msg(3, "append", None),
        r#"{"type":"assistant/message","seq":4,"time":4,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"usage":{"inputTokens":10,"outputTokens":2}},"surfaceOp":"append"}"#.to_string(),
        common::other(5, "step/end", r#"{"turn":1,"step":1}"#),
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odd-route.jsonl");
    std::fs::write(&file, common::text_of(&lines)).unwrap();
    let csv = csv_of(&["cost", file.to_str().unwrap(), "--csv"], 0);
    let row = csv.lines().nth(1).unwrap();
    assert!(
        row.starts_with(r#"4,agent,1,1,'=HYPERLINK(1),"'@m,1","#),
        "{row}"
    );
}
