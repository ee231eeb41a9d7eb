//! Live follow in the viewer: the store's `Follower` ([`crate::session::follow_state`]) is
//! polled when the file changes (`notify`, or a thread's look every half second when change
//! events are unavailable), and new events go through the engine's delta processing. While the
//! file stays as it is the window draws nothing: no frame is asked for. The viewer only reads
//! the file.

use std::path::Path;

use crate::app::ViewerApp;
use crate::chrome::banner::{self, Banner};
use crate::session::follow_state::POLL_EVERY;
use crate::session::loader::Source;
use surface_store::FollowUpdate;

impl ViewerApp {
    /// Turns following on (re-reading the file once, so that it starts from a consistent
    /// offset) or off.
    pub(crate) fn toggle_follow(&mut self) {
        if self.jobs.follow.take().is_some() {
            self.jobs.follow_requested = false;
            return;
        }
        let Some(path) = self
            .session
            .as_ref()
            .and_then(|s| s.path().map(Path::to_path_buf))
        else {
            self.chrome.banner = Some(Banner::info("Only a file on disk can be followed."));
            return;
        };
        self.jobs.follow_requested = true;
        let session = self.session.as_ref().map(|s| s.info.id.clone());
        self.start_load(Source::Path(path), session, self.jobs.repaint.clone());
    }

    /// Polls the follower when the file may have changed, feeds new events to the engine,
    /// and recomputes findings once the log has been quiet for a moment.
    pub(crate) fn poll_follow(&mut self, ctx: &egui::Context) {
        let (Some(follow), Some(session)) = (self.jobs.follow.as_mut(), self.session.as_mut())
        else {
            return;
        };
        let now = std::time::Instant::now();
        if self.jobs.synchronous || follow.due(now) {
            let was_at_end = session.cursor() == session.len();
            // A search thread may hold the log for a moment; poll again shortly then.
            let Some(log) = std::sync::Arc::get_mut(&mut session.log) else {
                ctx.request_repaint_after(HELD_RETRY);
                return;
            };
            {
                match follow.poll(log, now) {
                    Ok(FollowUpdate::Appended { events }) if events > 0 => {
                        session.absorb_appended();
                        if was_at_end {
                            self.nav.pending_reveal = session.cursor_event();
                            // The scroll area clamps to last frame's content height, which
                            // did not include the new rows yet: reveal once more next frame.
                            follow.reveal_again = true;
                        }
                        ctx.request_repaint();
                        return;
                    }
                    Ok(FollowUpdate::Reload { reason }) => {
                        // Shown once the reload lands (its own banner would replace one set
                        // now); the cursor stays where it was, or at the new end.
                        self.jobs.reopen_notice = Some(format!(
                            "The followed file changed underneath ({reason}): reloaded it; the cursor stays where it was (or at the new end)."
                        ));
                        self.jobs.keep_place = Some((session.cursor(), self.view.selected));
                        let path = session.path().map(Path::to_path_buf);
                        let id = Some(session.info.id.clone());
                        if let Some(path) = path {
                            self.start_load(Source::Path(path), id, self.jobs.repaint.clone());
                        }
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        self.chrome.banner = Some(Banner::error(format!("Stopped following: {e}")));
                        self.jobs.follow = None;
                        return;
                    }
                }
            }
        }
        if std::mem::take(&mut follow.reveal_again) && session.cursor() == session.len() {
            self.nav.pending_reveal = session.cursor_event();
        }
        if session.findings_stale && (self.jobs.synchronous || follow.settled(now)) {
            session.refresh_findings();
            if self.chrome.banner.as_ref().is_none_or(|b| b.show_findings) {
                self.chrome.banner = banner::banner_for(session);
            }
            self.panels
                .search
                .restart(&session.log, Some(ctx), self.jobs.synchronous);
        }
        // Idle while the file stays as it is: the watch wakes the window when it changes.
        if session.findings_stale
            && let Some(left) = follow.settles_in(now)
        {
            ctx.request_repaint_after(left);
        }
        if follow.unwatched() {
            ctx.request_repaint_after(POLL_EVERY);
        }
    }
}

/// How soon to poll again when a search thread held the log.
const HELD_RETRY: std::time::Duration = std::time::Duration::from_millis(50);
