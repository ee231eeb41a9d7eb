//! The Request tab's change against the previous request (docs/cost.md, "Why the cache
//! missed"): the first change's cause in the words of `cost --requests`
//! (`FirstChange::describe`), a link to the compaction when a replace caused it, the identical
//! prefix, the tokens sent again uncached, and the cache read it should have given beside the
//! one reported ("not reported" on a log without cache figures, never 0). The messages list
//! folds the identical prefix into one line and marks the first change (`fold_of`).

use egui::{RichText, Ui};

use surface_analysis::cost::{Block, Cause, RequestChange};
use surface_engine::Request;

use crate::command::{NavCommand, UiCommand};
use crate::session::loaded::Session;
use crate::theme::{self, Palette};

/// The change of the shown request, as far as it is known.
#[derive(Clone, Copy, Debug)]
pub enum Known<'a> {
    /// The first changes are being computed.
    Pending,
    /// Computed: the request's change (`None`: the request is not among the ledger's calls,
    /// e.g. a step that sent nothing yet).
    Ready(Option<&'a RequestChange>),
}

/// How many of the request's messages are identical to the previous request's, when the first
/// change lies in the messages and a previous request exists: the messages the list folds.
pub fn fold_of(change: &RequestChange) -> Option<usize> {
    let messages = change.first_change.at.block == Block::Message;
    (messages && change.against.is_some()).then_some(change.first_change.at.index)
}

/// The fold's line: "10 messages identical to the previous request · 3427 tokens".
pub fn fold_line(identical: usize, tokens: u64) -> String {
    let messages = crate::wording::count(identical, "message");
    format!("{messages} identical to the previous request · {tokens} tokens")
}

/// The meter price of the identical messages: the identical prefix minus the header (the
/// header matched, since the first change lies in the messages).
pub fn fold_tokens(change: &RequestChange, request: &Request) -> u64 {
    let header = request.estimate.system + request.estimate.tools;
    change.prefix_tokens.saturating_sub(header)
}

/// What the messages list says above the message where the first change lies.
pub fn first_change_label(change: &RequestChange) -> String {
    match change.first_change.cause {
        Cause::None => "first new message (append-only growth: the cache holds)".to_string(),
        _ => format!(
            "the first change is here: {}",
            change.first_change.describe()
        ),
    }
}

/// The section: the change against the previous agent request and what it cost.
pub fn change_ui(
    ui: &mut Ui,
    session: &Session,
    known: Known<'_>,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    ui.add_space(theme::SPACE_SMALL);
    let title = "Against the previous request";
    let hover = "Where this request first differs from the previous agent request, why, and what \
                 it cost the cache (docs/cost.md, \"Why the cache missed\"; the CLI's `cost FILE \
                 --requests`)";
    let change = match known {
        Known::Pending => {
            ui.label(
                RichText::new(format!("{title}: {}", crate::session::loaded::PENDING)).strong(),
            )
            .on_hover_text(hover);
            return;
        }
        Known::Ready(None) => {
            ui.label(
                RichText::new(format!("{title}: no model call was sent for this step yet"))
                    .strong(),
            )
            .on_hover_text(hover);
            return;
        }
        Known::Ready(Some(change)) => change,
    };
    let Some(against) = change.against else {
        ui.label(RichText::new(title).strong()).on_hover_text(hover);
        ui.label(
            RichText::new("The session's first request: there is nothing to compare it with.")
                .color(pal.weak_text),
        );
        return;
    };
    ui.label(RichText::new(format!("{title} (agent call seq {against})")).strong())
        .on_hover_text(hover);
    cause_line_ui(ui, session, change, pal, commands);
    figures_ui(ui, change, pal);
}

/// The cause in words, in its colour, and the link to the compaction that caused it.
fn cause_line_ui(
    ui: &mut Ui,
    session: &Session,
    change: &RequestChange,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let cause = change.first_change.cause;
    ui.horizontal_wrapped(|ui| {
        let (swatch, _) =
            ui.allocate_exact_size(egui::Vec2::splat(theme::SWATCH_SIZE), egui::Sense::hover());
        ui.painter()
            .rect_filled(swatch, theme::CORNER_RADIUS / 2.0, pal.cache_break(cause));
        let words = change.first_change.describe();
        let text = if cause == Cause::None {
            format!("{words}: the previous request is a prefix of this one, the cache holds")
        } else {
            format!("first change: {words}")
        };
        ui.label(RichText::new(text).color(pal.text));
    });
    let Some(seq) = change.first_change.replace_seq else {
        return;
    };
    let kind = change
        .first_change
        .replace_kind
        .map_or("compaction", |k| k.as_str());
    ui.horizontal(|ui| {
        ui.add_space(theme::SWATCH_SIZE + ui.spacing().item_spacing.x);
        let link = ui
            .link(format!("go to the {kind} (seq {seq})"))
            .on_hover_text("Select the compaction's replacing event (Alt+← comes back)");
        if link.clicked()
            && let Some(idx) = session.log.find_seq(seq)
        {
            commands.push(NavCommand::FollowLink(idx).into());
        }
    });
}

/// The prefix, the tokens resent, and the cache read expected beside the one reported.
fn figures_ui(ui: &mut Ui, change: &RequestChange, pal: &Palette) {
    let not_reported = || RichText::new("not reported").color(pal.weak_text);
    egui::Grid::new("request-change-figures")
        .num_columns(2)
        .max_col_width(ui.available_width() * theme::REQUEST_LABEL_SHARE)
        .striped(true)
        .show(ui, |ui| {
            ui.label("identical prefix").on_hover_text(
                "prefix_tokens: the meter's price of the header part that matched and the \
                 identical messages",
            );
            ui.label(format!("{} tokens", change.prefix_tokens));
            ui.end_row();
            ui.label("sent again uncached").on_hover_text(
                "resent_tokens: what the previous request held after the first change (its \
                 price minus the prefix), sent to the provider again at the uncached price",
            );
            ui.label(format!("{} tokens", change.resent_tokens));
            ui.end_row();
            ui.label("cache read: expected · reported").on_hover_text(
                "expected_cache_read = prefix_tokens × the call's reported prompt ÷ its meter \
                 estimate; cache_read: what the provider reported",
            );
            match (change.expected_cache_read, change.cache_read) {
                (Some(e), Some(r)) => ui.label(format!("{e} · {r} tokens")),
                _ => ui.label(not_reported()),
            };
            ui.end_row();
            ui.label("provider miss").on_hover_text(
                "max(0, expected − cache_read) beyond the session's median cache noise: a \
                 shortfall no change in the request explains (the cache expired or was evicted)",
            );
            match change.provider_miss {
                Some(m) => ui.label(format!("{m} tokens")),
                None => ui.label(not_reported()),
            };
            ui.end_row();
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_analysis::cost::{CallKind, FirstChange};

    fn change(cause: Cause, index: usize, against: Option<u64>) -> RequestChange {
        RequestChange {
            seq: 9,
            kind: CallKind::Agent,
            against,
            first_change: FirstChange::in_messages(cause, index, Some(4)),
            prefix_tokens: 500,
            resent_tokens: 70,
            expected_cache_read: None,
            cache_read: None,
            provider_miss: None,
            call: 1,
            route: 0,
            cursor: 12,
        }
    }

    #[test]
    fn the_fold_holds_the_identical_messages_of_a_request_with_one_before_it() {
        assert_eq!(fold_of(&change(Cause::Edit, 3, Some(5))), Some(3));
        assert_eq!(fold_of(&change(Cause::None, 0, None)), None);
        let mut tools = change(Cause::Tools, 2, Some(5));
        tools.first_change = FirstChange::in_header(Cause::Tools, Block::Tools, 2);
        assert_eq!(fold_of(&tools), None);
        assert_eq!(
            fold_line(1, 40),
            "1 message identical to the previous request · 40 tokens"
        );
        assert!(first_change_label(&change(Cause::Edit, 3, Some(5))).contains("message 3 edited"));
    }
}
