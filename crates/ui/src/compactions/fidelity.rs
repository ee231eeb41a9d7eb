//! What a summary kept, in the Compactions tab: the table's fidelity cell (the share of the
//! shadowed text's facts the summary holds) and, for the selected compaction, its facts grouped
//! by kind, lost ones first, each needed one a link to the event that needed it.

use egui::{RichText, Ui};
use surface_analysis::audit::{FactKind, ReplaceAudit};

use crate::command::{NavCommand, UiCommand};
use crate::theme::Palette;

/// Facts listed per kind before "… N more".
const FACTS_SHOWN: usize = 12;

/// The title of the table's column.
pub const TITLE: &str = "kept";
/// Its hover text.
pub const HOVER: &str = "Facts of the shadowed text (paths, commands, identifiers, measured numbers, errors, URLs) the summary's text holds";

/// The table cell: `"42%"`, or `"–"` without facts.
pub fn cell(r: &ReplaceAudit) -> String {
    r.fidelity
        .fidelity
        .map_or_else(|| "–".to_string(), |f| format!("{:.0}%", f * 100.0))
}

/// The sort key (‰; no facts sorts lowest).
pub fn sort_key(r: &ReplaceAudit) -> i64 {
    r.fidelity.fidelity.map_or(-1, |f| (f * 1000.0) as i64)
}

/// The selected compaction's facts by kind: a heading with its fidelity, then one line per kind
/// with facts — the lost ones first (weak when never needed, a link to the event that needed
/// them otherwise), then the kept ones.
pub fn facts_ui(ui: &mut Ui, r: &ReplaceAudit, pal: &Palette, commands: &mut Vec<UiCommand>) {
    let f = &r.fidelity;
    let Some(ratio) = f.fidelity else {
        return;
    };
    let needed = f
        .needed_fidelity
        .map_or("none needed again".to_string(), |n| {
            format!("{:.0}% of the needed ones kept", n * 100.0)
        });
    ui.label(
        RichText::new(format!(
            "What the summary kept: {:.0}% of {} facts · {needed}",
            ratio * 100.0,
            f.facts.len()
        ))
        .strong(),
    );
    for kind in FactKind::ALL {
        let k = f.kinds.get(kind);
        if k.facts == 0 {
            continue;
        }
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(format!("{} {}/{}:", kind.as_str(), k.survived, k.facts)).strong(),
            );
            let facts = f.facts.iter().filter(|x| x.kind == kind);
            for (n, fact) in facts.enumerate() {
                if n == FACTS_SHOWN {
                    let more = k.facts as usize - FACTS_SHOWN;
                    ui.label(RichText::new(format!("… {more} more")).color(pal.weak_text));
                    break;
                }
                match (fact.survived, fact.needed_seq) {
                    (false, Some(seq)) => {
                        let link = ui
                            .link(RichText::new(&fact.text).color(pal.error))
                            .on_hover_text(format!(
                                "Lost, then needed at seq {seq}: click to move the cursor there"
                            ));
                        if link.clicked() {
                            commands.push(NavCommand::GoToSeq(seq).into());
                        }
                    }
                    (false, None) => {
                        ui.label(RichText::new(&fact.text).color(pal.weak_text))
                            .on_hover_text("Lost, and not needed again while the summary stood");
                    }
                    (true, _) => {
                        ui.label(RichText::new(&fact.text).color(pal.text))
                            .on_hover_text("Kept: the summary's text holds it");
                    }
                }
            }
        });
    }
}
