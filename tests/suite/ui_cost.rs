//! What context costs in the viewer (docs/cost.md, issue #35): the Request tab's four token
//! columns, the context strip's cache split toggle, the Compactions tab's balance columns and
//! their sort, and the price file chosen in the settings (valid, invalid, remembered).

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{NavCommand, PriceCommand, SideTab, ViewerApp, WindowCommand};

fn asset(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("assets/{name}"))
}

fn harness_of(app: impl FnOnce() -> ViewerApp + 'static) -> Harness<'static, ViewerApp> {
    let mut app = Some(app);
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        .build_eframe(move |_cc| app.take().expect("built once")())
}

fn sample_with_prices() -> Harness<'static, ViewerApp> {
    let mut harness = harness_of(|| {
        ViewerApp::new_for_test_with_prices(
            asset("sample.session.jsonl"),
            asset("prices.example.json"),
        )
    });
    harness.run();
    harness
}

/// The Request tab at the log's last call.
fn request_at_the_end(harness: &mut Harness<'static, ViewerApp>) {
    harness
        .state_mut()
        .push_command(WindowCommand::ShowTab(SideTab::Request));
    harness.state_mut().push_command(NavCommand::End);
    harness.run();
}

/// A price file in a fresh folder of the temp dir.
fn price_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sv-ui-cost-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_request_tab_shows_the_calls_four_token_columns_and_its_cost() {
    let mut harness = sample_with_prices();
    request_at_the_end(&mut harness);
    harness.get_by_label("The provider's bill for this call");
    for column in ["uncached", "cache read", "cache write", "output", "prompt"] {
        harness.get_by_label(column);
    }
    let request = harness.state().shown_request().expect("a request").clone();
    let r = request.reported.expect("the sample reports usage");
    // The last call of the sample: read from the cache, and written to it.
    assert!(r.cache_read > 0 && r.cache_write > 0, "{r:?}");
    harness.get_by_label(&r.cache_read.to_string());
    harness.get_by_label(&r.cache_write.to_string());
    // Priced with the example file: the call's cost in its currency.
    let priced = harness.query_all_by_label_contains(" USD").count();
    assert!(
        priced >= 5,
        "four columns and the total are priced: {priced}"
    );
}

#[test]
fn the_cache_split_toggle_draws_each_calls_cache_read_and_sets_the_preference() {
    let mut harness = harness_of(|| ViewerApp::new_for_test(asset("sample.session.jsonl")));
    harness.run();
    assert!(!harness.state().cache_split());
    assert_eq!(harness.state().strip_cache_bars(), None);
    harness
        .get_by_role_and_label(Role::CheckBox, "cache split")
        .click();
    harness.run();
    assert!(harness.state().cache_split());
    // 21 agent calls, every one with its own column on a 1600-point strip.
    assert_eq!(harness.state().strip_cache_bars(), Some(21));
    harness.get_by_label_contains("rest of the prompt (uncached + cache write)");
    harness
        .get_by_role_and_label(Role::CheckBox, "cache split")
        .click();
    harness.run();
    assert!(!harness.state().cache_split());
    assert_eq!(harness.state().strip_cache_bars(), None);
}

#[test]
fn the_compactions_tab_weighs_each_compaction_and_sorts_by_balance() {
    let mut harness = sample_with_prices();
    harness.get_by_label("Compactions").click();
    harness.run();
    for title in ["summarizer", "saved/call×calls", "cache lost", "balance"] {
        harness.get_by_label(&format!("sort by {title}"));
    }
    let rows = harness.state().compaction_costs();
    assert_eq!(rows.len(), 7, "{rows:?}");
    let balances: Vec<f64> = rows.iter().map(|r| r.2.expect("priced")).collect();
    // The sample's prunes pay for themselves, its summaries do not.
    assert!(balances.iter().any(|&b| b < 0.0) && balances.iter().any(|&b| b > 0.0));
    // The head-anchored summaries break the cache: each is charged what the next call lost.
    assert!(rows.iter().filter(|r| r.1.is_some_and(|l| l > 900)).count() >= 5);
    // The balance stands beside the kind, in view at the panel's default width.
    harness.get_by_label("sort by balance").click();
    harness.run();
    let sorted: Vec<f64> = harness
        .state()
        .compaction_costs()
        .iter()
        .map(|r| r.2.unwrap())
        .collect();
    assert!(sorted.windows(2).all(|w| w[0] >= w[1]), "{sorted:?}");
    harness.get_by_label("sort by balance").click();
    harness.run();
    let rows = harness.state().compaction_costs();
    assert!(rows.windows(2).all(|w| w[0].2 <= w[1].2), "{rows:?}");
    // The session's line adds it up in money.
    harness.get_by_label_contains("prompt tokens saved; balance +");
}

#[test]
fn a_call_the_price_file_does_not_price_says_unpriced_not_no_price_file() {
    let other = price_file(
        "other.json",
        r#"{"currency":"EUR","models":{"not-a-model":{"uncached":1,"cache_read":0.1,"cache_write":1,"output":2}}}"#,
    );
    let mut harness = harness_of(move || {
        ViewerApp::new_for_test_with_prices(asset("sample.session.jsonl"), other)
    });
    harness.run();
    request_at_the_end(&mut harness);
    harness.get_by_label("unpriced: no price for this model in the price file");
    assert!(
        harness
            .query_by_label("no price file (File ▸ Prices)")
            .is_none()
    );
    assert_eq!(
        harness.query_all_by_label_contains(" EUR").count(),
        0,
        "nothing priced at 0"
    );
}

#[test]
fn a_price_file_is_used_remembered_and_an_invalid_one_is_named_in_one_line() {
    let good = price_file(
        "good.json",
        r#"{"currency":"EUR","models":{"*":{"uncached":1,"cache_read":0.1,"cache_write":1,"output":2}}}"#,
    );
    let bad = price_file(
        "bad.json",
        r#"{"currency":"EUR","models":{"*":{"uncached":1,"cache_write":1,"output":2}}}"#,
    );
    let mut harness = harness_of(|| ViewerApp::new_for_test(asset("sample.session.jsonl")));
    harness.run();
    harness.get_by_label("Compactions").click();
    harness.run();
    assert_eq!(harness.state().price_file_in_use(), None);
    assert!(
        harness
            .state()
            .compaction_costs()
            .iter()
            .all(|r| r.2.is_none())
    );
    harness
        .state_mut()
        .push_command(PriceCommand::Use(good.clone()));
    harness.run();
    assert_eq!(harness.state().price_file_in_use(), Some(good.as_path()));
    assert_eq!(
        harness.state().remembered_price_file(),
        Some(good.as_path())
    );
    assert!(
        harness
            .state()
            .compaction_costs()
            .iter()
            .all(|r| r.2.is_some())
    );
    assert!(harness.query_all_by_label_contains("EUR").count() > 0);
    // An invalid file: one line naming the file and the key, and the good one stays in use.
    harness
        .state_mut()
        .push_command(PriceCommand::Use(bad.clone()));
    harness.run();
    let banner = harness.state().banner_text().expect("a banner").to_string();
    assert!(!banner.contains('\n'), "{banner}");
    assert!(
        banner.contains("bad.json") && banner.contains("models[\"*\"].cache_read"),
        "{banner}"
    );
    assert_eq!(harness.state().price_file_in_use(), Some(good.as_path()));
    assert_eq!(
        harness.state().remembered_price_file(),
        Some(good.as_path())
    );
    // Remembered across launches: the next app starts with it.
    let next = harness_of(move || {
        ViewerApp::new_for_test_with_prices(asset("sample.session.jsonl"), &good)
    });
    assert!(next.state().price_file_in_use().is_some());
    // "No prices" forgets it.
    harness.state_mut().push_command(PriceCommand::Clear);
    harness.run();
    assert_eq!(harness.state().price_file_in_use(), None);
    assert_eq!(harness.state().remembered_price_file(), None);
    // A remembered file that went bad says so at start.
    let start = harness_of(move || {
        ViewerApp::new_for_test_with_prices(asset("sample.session.jsonl"), &bad)
    });
    let text = start.state().banner_text().unwrap_or_default().to_string();
    assert!(
        text.contains("bad.json") && text.contains("cache_read"),
        "{text}"
    );
    assert_eq!(start.state().price_file_in_use(), None);
}

#[test]
fn at_1280_by_720_the_request_tabs_figures_stay_inside_the_side_panel() {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(32)
        .build_eframe(|_cc| {
            ViewerApp::new_for_test_with_prices(
                asset("sample.session.jsonl"),
                asset("prices.example.json"),
            )
        });
    harness.run();
    request_at_the_end(&mut harness);
    let request = harness.state().shown_request().expect("a request").clone();
    let estimated = format!("{} tokens", request.estimate.total);
    let reported = format!(
        "{} prompt tokens",
        request.reported.expect("the sample reports usage").prompt()
    );
    for figure in [estimated.as_str(), reported.as_str()] {
        let rect = harness.get_by_label(figure).rect();
        assert!(
            rect.left() < 1280.0 && rect.right() <= 1280.0 + 1.0,
            "{figure:?} is out of the window at {rect:?}"
        );
    }
}

/// What a summary kept (docs/audit.md): the table's `kept` column, and for the selected
/// compaction its facts by kind, a lost-then-needed one a link to the event that needed it.
#[test]
fn the_compactions_tab_shows_what_a_summary_kept_and_links_a_needed_fact() {
    let mut harness = harness_of(|| ViewerApp::new_for_test(asset("sample.session.jsonl")));
    harness.run();
    harness.get_by_label("Compactions").click();
    harness.run();
    harness.get_by_label("sort by kept");
    harness.get_by_label("compaction seq 110").click();
    harness.run();
    // The sample's summary at seq 110 keeps 6 of its 49 facts; `cargo test
    // parses_negative_amounts` was lost and run again at seq 123.
    harness.get_by_label_contains("What the summary kept: 12% of 49 facts");
    let needed = harness.get_by_label("cargo test parses_negative_amounts");
    needed.scroll_to_me();
    harness.run();
    harness
        .get_by_label("cargo test parses_negative_amounts")
        .click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(123));
}

/// At 1280×720 the Compactions tab shows every one of the sample's seven rows whole: the
/// table is as tall as its rows (each row's spacing counted), so it has nothing to scroll.
#[test]
fn at_1280_by_720_the_compactions_table_shows_all_seven_rows() {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(32)
        .build_eframe(|_cc| ViewerApp::new_for_test(asset("sample.session.jsonl")));
    harness.run();
    harness.get_by_label("Compactions").click();
    harness.run();
    let rows = |h: &Harness<'_, ViewerApp>| -> Vec<egui::Rect> {
        ["37", "110", "227", "263", "266", "332", "374"]
            .iter()
            .map(|seq| h.get_by_label(&format!("compaction seq {seq}")).rect())
            .collect()
    };
    let wheel = |h: &mut Harness<'_, ViewerApp>| {
        h.get_by_label("compaction seq 227").hover();
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -200.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        h.run();
    };
    let before = rows(&harness);
    wheel(&mut harness);
    assert_eq!(
        rows(&harness),
        before,
        "the table scrolled: some row was cut"
    );
    // With a row selected its before | after shows below, and the seven rows still do.
    harness.get_by_label("compaction seq 37").click();
    harness.run();
    let focused = rows(&harness);
    wheel(&mut harness);
    assert_eq!(
        rows(&harness),
        focused,
        "beside a before | after a row was cut"
    );
}
