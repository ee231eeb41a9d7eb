//! Pixel snapshots on any machine: a snapshot renders through wgpu, which needs a GPU adapter —
//! lavapipe or Mesa EGL on a machine without a GPU. Where none is found, the kittest still runs
//! everything it asserts and only its pixel comparison is skipped, with one line naming the
//! packages to install; with `SURFACE_VIEWER_REQUIRE_SNAPSHOTS=1` (CI sets it after installing
//! Mesa) a missing adapter fails the test instead, so CI compares every pixel.
//!
//! `WGPU_BACKEND=metal` on Linux shows what a machine without Mesa sees: wgpu then finds no
//! adapter.

use std::future::Future;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use egui_kittest::{Harness, HarnessBuilder};

/// Set to 1: a pixel snapshot that finds no GPU adapter fails instead of being skipped.
pub const REQUIRE_SNAPSHOTS: &str = "SURFACE_VIEWER_REQUIRE_SNAPSHOTS";

/// What a Debian or Ubuntu machine without a GPU installs for the snapshots (as `.ci/run`).
pub const PACKAGES: &str = "mesa-vulkan-drivers libvulkan1 libegl1 libegl-mesa0 libgl1-mesa-dri";

/// What a pixel snapshot does on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pixels {
    /// Render and compare.
    Compare,
    /// No adapter: skip the comparison, say so.
    Skip,
    /// No adapter, and snapshots are required: fail.
    Fail,
}

/// The choice for a machine with (`adapter`) or without an adapter, snapshots `required` or not.
pub fn pixels_for(adapter: bool, required: bool) -> Pixels {
    match (adapter, required) {
        (true, _) => Pixels::Compare,
        (false, false) => Pixels::Skip,
        (false, true) => Pixels::Fail,
    }
}

/// The choice on this machine (the adapter probed once per test binary).
pub fn pixels() -> Pixels {
    static ADAPTER: OnceLock<bool> = OnceLock::new();
    let adapter = *ADAPTER.get_or_init(adapter_found);
    let required = std::env::var(REQUIRE_SNAPSHOTS).is_ok_and(|v| v.trim() == "1");
    pixels_for(adapter, required)
}

/// The line a skipped (or failed) snapshot prints.
pub fn missing_adapter(name: &str) -> String {
    format!(
        "{name}: pixel snapshot skipped: no GPU adapter for wgpu (install {PACKAGES}; set {REQUIRE_SNAPSHOTS}=1 to fail instead)"
    )
}

/// `builder` with the wgpu renderer when an adapter exists (building it without one panics);
/// without one, the harness runs with no renderer and [`snapshot`] skips.
pub fn with_pixels<S>(builder: HarnessBuilder<S>, name: &str) -> HarnessBuilder<S> {
    match pixels() {
        Pixels::Compare => builder.wgpu(),
        Pixels::Skip => builder,
        Pixels::Fail => panic!(
            "{name}: no GPU adapter for wgpu, and {REQUIRE_SNAPSHOTS}=1 requires the pixel snapshots (install {PACKAGES})"
        ),
    }
}

/// Compares `harness`'s frame with the snapshot `name`, or says why it cannot.
pub fn snapshot<S>(harness: &mut Harness<'_, S>, name: &str) {
    match pixels() {
        Pixels::Compare => harness.snapshot(name),
        Pixels::Skip => eprintln!("{}", missing_adapter(name)),
        Pixels::Fail => panic!("{}", missing_adapter(name)),
    }
}

/// Whether wgpu finds an adapter with the backends kittest's renderer asks for (it honours
/// `WGPU_BACKEND`).
fn adapter_found() -> bool {
    let setup = egui_kittest::wgpu::default_wgpu_setup();
    let instance = block_on(setup.new_instance());
    block_on(instance.request_adapter(&Default::default())).is_ok()
}

/// Runs a future that native wgpu resolves without waiting on anything.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}

#[test]
fn a_missing_adapter_skips_unless_snapshots_are_required() {
    assert_eq!(pixels_for(true, false), Pixels::Compare);
    assert_eq!(pixels_for(true, true), Pixels::Compare);
    assert_eq!(pixels_for(false, false), Pixels::Skip);
    assert_eq!(pixels_for(false, true), Pixels::Fail);
    let line = missing_adapter("main_layout_dark");
    assert!(
        line.contains("mesa-vulkan-drivers") && line.contains(REQUIRE_SNAPSHOTS),
        "{line}"
    );
    // The packages named are the ones CI installs.
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    for package in PACKAGES.split(' ') {
        assert!(
            ci.contains(package),
            "{package} is not installed by .ci/run"
        );
    }
    assert!(
        ci.contains(&format!("export {REQUIRE_SNAPSHOTS}=1")),
        ".ci/run requires the snapshots"
    );
}
