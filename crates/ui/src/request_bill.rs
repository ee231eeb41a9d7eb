//! The Request tab's bill (docs/cost.md): the model call's four token columns as the
//! provider reported them — uncached, cache read, cache write, output — with the prompt they
//! add up to and, with a price file, what each cost; every figure names its formula.

use egui::{RichText, Ui};

use surface_analysis::cost::{PriceTable, Tokens};
use surface_engine::Request;

use crate::theme::Palette;

/// The bill's rows: `(label, tokens, formula)` of the four columns.
pub fn bill_rows(tokens: &Tokens) -> [(&'static str, u64, &'static str); 4] {
    [
        (
            "uncached",
            tokens.uncached,
            "uncached = inputTokens: prompt tokens sent at the full input price",
        ),
        (
            "cache read",
            tokens.cache_read,
            "cache read = cacheReadTokens: prompt tokens read back from the provider's cache",
        ),
        (
            "cache write",
            tokens.cache_write,
            "cache write = cacheWriteTokens: prompt tokens written to the cache (billed whether or not they are read back)",
        ),
        (
            "output",
            tokens.output,
            "output = outputTokens (reasoning included, never added twice)",
        ),
    ]
}

/// Shows the bill of `request`'s model call, priced with `prices` when given.
pub fn bill_ui(ui: &mut Ui, request: &Request, prices: Option<&PriceTable>, pal: &Palette) {
    let Some(r) = &request.reported else {
        return;
    };
    let tokens = Tokens {
        uncached: r.input,
        cache_read: r.cache_read,
        cache_write: r.cache_write,
        output: r.output,
    };
    let price = prices.and_then(|t| {
        t.lookup(request.provider.as_deref(), request.model.as_deref())
            .map(|(key, p)| (t, key, p))
    });
    ui.add_space(crate::theme::SPACE_SMALL);
    ui.label(RichText::new("The provider's bill for this call").strong())
        .on_hover_text("The usage the provider reported for this model call, column by column");
    egui::Grid::new("request-bill")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            let each_price =
                price.map(|(_, _, p)| [p.uncached, p.cache_read, p.cache_write, p.output]);
            for (k, (label, n, formula)) in bill_rows(&tokens).into_iter().enumerate() {
                ui.label(label).on_hover_text(formula);
                ui.label(RichText::new(n.to_string()).monospace())
                    .on_hover_text(formula);
                match (price, each_price) {
                    (Some((table, _, _)), Some(each)) => {
                        let cost = table.of(n as f64, each[k]);
                        ui.label(format!("{cost:.6} {}", table.currency)).on_hover_text(
                            format!("{label} × its price / per = {n} × {} / {}", each[k], table.per),
                        );
                    }
                    _ => {
                        ui.label("");
                    }
                }
                ui.end_row();
            }
            ui.label("prompt").on_hover_text("prompt = uncached + cache read + cache write");
            ui.label(RichText::new(tokens.prompt().to_string()).monospace().strong())
                .on_hover_text("prompt = uncached + cache read + cache write");
            let rate = tokens.cache_read as f64 * 100.0 / tokens.prompt().max(1) as f64;
            ui.label(RichText::new(format!("{rate:.1}% cached")).color(pal.weak_text))
                .on_hover_text("cache hit rate = cache read / prompt: the share of the prompt read from the cache");
            ui.end_row();
            ui.label("cost");
            match price {
                Some((table, key, p)) => {
                    let cost = table.cost(p, &tokens);
                    ui.label(RichText::new(format!("{cost:.6} {}", table.currency)).strong())
                        .on_hover_text(format!(
                            "cost = Σ tokens × price / per over the four columns (prices of \"{key}\")"
                        ));
                }
                None => {
                    let why = if prices.is_some() {
                        "unpriced: no price for this model in the price file"
                    } else {
                        "no price file (File ▸ Prices)"
                    };
                    ui.label(RichText::new(why).color(pal.weak_text));
                }
            }
            ui.end_row();
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_are_the_four_columns_in_order() {
        let t = Tokens {
            uncached: 1,
            cache_read: 2,
            cache_write: 3,
            output: 4,
        };
        let rows = bill_rows(&t);
        let labels: Vec<_> = rows.iter().map(|r| r.0).collect();
        assert_eq!(labels, ["uncached", "cache read", "cache write", "output"]);
        assert_eq!(rows.map(|r| r.1), [1, 2, 3, 4]);
        assert!(rows.iter().all(|r| r.2.contains('=')));
    }
}
