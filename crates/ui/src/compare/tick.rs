//! The comparison's per-frame tick: binds, starts and polls it against the open log and hands
//! it to the strip.

/// Once per frame with a log open: binds, starts and polls the comparison of `session` (A),
/// and hands it to the strip.
pub(crate) fn tick_compare(
    panels: &mut crate::panels::Panels,
    session: &crate::session::loaded::Session,
    (ratio, synchronous): (f64, bool),
    ctx: &egui::Context,
) {
    let compare = &mut panels.compare;
    compare.tick(session, ratio, Some(ctx), synchronous);
    if compare.running() {
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
    let run = compare.result().cloned();
    panels.strip.compare.set(run, compare.hide_curve);
}
