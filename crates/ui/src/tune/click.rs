//! What a click on a setting of a Tune view does (its row in the table, or its point on the
//! chart): one command for both.

use surface_reports::tune::Sweep;

use crate::command::UiCommand;
use crate::tune::command::{TuneCommand, TuneTarget};

/// What a click on row `i` (or its point) does: the Policy tab's what-if with its setting
/// over the open log; in a folder's view, select it.
pub fn row_command(target: TuneTarget, s: &Sweep, i: usize) -> UiCommand {
    match (target, s.settings.get(i)) {
        (TuneTarget::Log, Some(settings)) => TuneCommand::OpenWhatIf(*settings).into(),
        _ => TuneCommand::Select(target, i).into(),
    }
}
