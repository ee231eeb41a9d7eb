//! Each panel's own state, owned by the app and handed to its panel with the session and the
//! command queue: the timeline, the surface panel, the replay bar and its strip, the side
//! panel's tabs (the Tune tab's view among them), the provenance arrows and the rows' geometry they connect.

use crate::arrows::ArrowState;
use crate::compactions::tab::CompactionsState;
use crate::inspector::InspectorState;
use crate::policy::tab::PolicyTabState;
use crate::preview::state::PreviewState;
use crate::replay::bar::ReplayState;
use crate::request_view::RequestViewState;
use crate::strip::context_strip::StripState;
use crate::surface_panel::SurfacePanelState;
use crate::timeline::search::SearchState;
use crate::timeline::state::TimelineState;
use crate::view::RowGeometry;

/// The panels' states.
#[derive(Default)]
pub(crate) struct Panels {
    pub(crate) timeline: TimelineState,
    pub(crate) surface_panel: SurfacePanelState,
    pub(crate) replay: ReplayState,
    pub(crate) strip: StripState,
    pub(crate) request_view: RequestViewState,
    pub(crate) search: SearchState,
    pub(crate) preview: PreviewState,
    pub(crate) inspector: InspectorState,
    pub(crate) compactions: CompactionsState,
    pub(crate) policy: PolicyTabState,
    /// The Tune tab over the open log.
    pub(crate) tune: crate::tune::view::TuneView,
    /// The price table in use.
    pub(crate) prices: crate::prices::state::PriceState,
    /// Two runs side by side: B and the comparison.
    pub(crate) compare: crate::compare::state::CompareRuns,
    /// The findings list's scroll.
    pub(crate) findings: crate::nav::reveal::ListScroll,
    pub(crate) arrows: ArrowState,
    /// Where rows were drawn this frame (for the arrows).
    pub(crate) geometry: RowGeometry,
}
