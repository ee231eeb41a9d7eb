//! Commands panels push and the app applies once per frame: the only way the UI changes the
//! loaded session (cursor, selection) or starts side effects (open, save, copy).

use std::path::PathBuf;

use surface_engine::EventIdx;

use crate::theme::ThemeChoice;

/// Which tab of the right-hand panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SideTab {
    /// The selected event.
    #[default]
    Inspector,
    /// The replace preview of the selected surface range.
    Preview,
    /// Every replace op audited (viewer-spec §8), and the selected one before | after.
    Compactions,
    /// Every finding of `check`.
    Findings,
    /// The model request at the cursor (header, messages, the meter's breakdown).
    Request,
    /// The policy lab: the compaction policy replayed over the log (viewer-spec §10).
    Policy,
}

/// One thing the user asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    /// Open a file (in the background).
    Open(PathBuf),
    /// Show the native open dialog (on a worker thread).
    OpenDialog,
    /// Open the bundled sample.
    OpenSample,
    /// Re-open the current file with another session of a SQLite file.
    PickSession(String),
    /// Cancel the load in progress.
    CancelLoad,
    /// Forget the recent-files list.
    ClearRecent,
    /// Select an event (inspector, arrows); `reveal` scrolls both panels to it.
    Select {
        /// The event.
        idx: EventIdx,
        /// Scroll the timeline and surface panel so it is visible.
        reveal: bool,
    },
    /// Clear the selection.
    ClearSelection,
    /// Move the replay cursor so that exactly the first `n` events are applied.
    Seek(usize),
    /// Apply one more event.
    StepForward,
    /// Undo the last applied event.
    StepBack,
    /// Move to just after the next replace op.
    NextReplace,
    /// Move to just after the previous replace op.
    PrevReplace,
    /// Move to the next finding's event (and select it).
    NextFinding,
    /// Move to the previous finding's event (and select it).
    PrevFinding,
    /// Move the cursor to the start (nothing applied).
    Home,
    /// Move the cursor to the end (everything applied).
    End,
    /// Start or stop playback.
    TogglePlay,
    /// Playback speed, events per second.
    SetSpeed(f32),
    /// Move the cursor to "after every event with seq ≤ SEQ" and select that seq.
    GoToSeq(u64),
    /// Move the cursor just past an event and select it (a compaction in the Compactions tab).
    JumpTo(EventIdx),
    /// Jump to finding number `n` (cursor + selection).
    JumpToFinding(usize),
    /// Start a replace-preview range at a surface node.
    RangeStart(EventIdx),
    /// Extend the replace-preview range to a surface node.
    RangeEnd(EventIdx),
    /// Drop the replace-preview range.
    ClearRange,
    /// Put text on the clipboard.
    Copy(String),
    /// Ask for a path (dialog on a worker thread) and save the preview as a new log there.
    SaveDialog,
    /// Save the current preview as a new log at this path.
    SaveAs(PathBuf),
    /// Switch the theme.
    SetTheme(ThemeChoice),
    /// Show or hide the shortcut overlay.
    ToggleHelp,
    /// Show a tab of the right-hand panel.
    ShowTab(SideTab),
    /// Focus the search box.
    FocusSearch,
    /// Select the next search hit.
    NextHit,
    /// Select the previous search hit.
    PrevHit,
    /// Hide the banner.
    DismissBanner,
    /// Show or hide one event type family in the timeline.
    ToggleFamily(crate::theme::Family),
    /// Show all families again.
    ShowAllFamilies,
    /// Switch between one-hop and whole-chain provenance arrows.
    ToggleChain,
    /// Start or stop following the open file live (starting re-reads it once).
    ToggleFollow,
    /// Browse every session under a folder (in the background).
    OpenFolder(PathBuf),
    /// Show the native folder picker (on a worker thread).
    OpenFolderDialog,
    /// Open one session found by the browser (`session` picks it in a SQLite file).
    OpenSessionOf {
        /// The file.
        file: PathBuf,
        /// The session id, for a file holding several.
        session: Option<String>,
    },
    /// Back from a session to the sessions browser.
    BackToSessions,
    /// Sort the sessions by a column (again: the other way round).
    SortSessions(crate::browser::rows::Column),
    /// Show or hide the forks of a row of the sessions browser.
    ToggleSessionForks(usize),
    /// Select a row of the sessions browser.
    SelectSessionRow(usize),
    /// Move the browser's selection by this many lines.
    MoveSessionSelection(isize),
    /// Open the session selected in the browser.
    OpenSelectedSession,
    /// Forget the recent-folders list.
    ClearRecentFolders,
    /// Set the compaction threshold as a fraction of the context window.
    SetThresholdRatio(f64),
    /// Replay the compaction policy with these settings (Policy tab).
    SetPolicySettings(surface_engine::policy::PolicySettings),
    /// Verify the log's decisions or replay a what-if (Policy tab).
    SetPolicyMode(surface_engine::policy::ReplayMode),
    /// Set the policy's settings inside the intervals inferred from the log (Policy tab).
    UseInferredSettings,
    /// Show or hide the side panel (tabs).
    ToggleSidePanel,
    /// Show or hide the surface panel.
    ToggleSurfacePanel,
    /// Move the cursor just past the next `turn/start`.
    NextTurn,
    /// Move the cursor just past the previous `turn/start`.
    PrevTurn,
    /// Move the cursor just past the next model call (`step/start`).
    NextModelCall,
    /// Move the cursor just past the previous model call.
    PrevModelCall,
    /// Move the selection of the list that has the keyboard by this many rows.
    MoveSelection(isize),
    /// Move the selection of the list that has the keyboard a page up (-1) or down (1).
    MoveSelectionPage(isize),
    /// Select the first (`false`) or last (`true`) row of the list that has the keyboard.
    SelectListEnd(bool),
    /// Give a list the keyboard (↑/↓ move its selection).
    FocusList(crate::nav::navigate::ListKind),
    /// Follow a link to an event (a source chip, a refetch, a cited-by link): select it,
    /// scroll to it, and remember where we came from.
    FollowLink(EventIdx),
    /// Back to the place before the last jump.
    HistoryBack,
    /// Forward again after [`UiCommand::HistoryBack`].
    HistoryForward,
    /// Save the preview as a new log at this path, replacing the file there (confirmed).
    SaveAsReplacing(PathBuf),
    /// Close the window.
    Quit,
    /// Show this range of the log on the context strip (`None`: the whole log); the
    /// timeline scrolls to its middle.
    SetZoom(Option<crate::strip::zoom::Zoom>),
    /// Zoom the strip by this factor (below 1: in) around the cursor, or its middle when the
    /// cursor is off the range shown.
    ZoomStrip(f64),
    /// Pan the strip by this many widths (negative: towards the start).
    PanStrip(f64),
    /// Switch the strip's and the scrubber's x axis between event index and wall-clock
    /// time (the range shown and the cursor stay on the same events).
    ToggleTimeAxis,
    /// The loader finished the findings and the token meter of a load: apply them to its
    /// session (ignored when another log was opened since).
    AnalysisLanded(crate::session::analysis::Parcel),
}
