//! The strip's cache split (docs/cost.md): per model call, a bar of the prompt the
//! provider reported, its lower part the tokens read from the cache and its upper part the
//! rest (uncached + cache write). A compaction changes the prompt near its start, so the next
//! call's lower part drops: the cache it broke, at a glance. Laid out from the strip's columns
//! (one call per pixel column, the largest), so a frame stays O(pixels).

use egui::{Mesh, Rect};

use crate::theme::{self, Palette};

/// The bars of every column with a reported call: `reported` its prompt and `cache_read` what
/// of it was read from the cache, per pixel column.
pub fn bars(
    (reported, cache_read): (&[Option<u64>], &[Option<u64>]),
    rect: Rect,
    y_of: &impl Fn(u64) -> f32,
    pal: &Palette,
) -> Mesh {
    let mut mesh = Mesh::default();
    let calls = reported.iter().flatten().count() as f32;
    // One pixel when the calls crowd the strip, a few when there is room.
    let width = if calls * theme::STRIP_CACHE_BAR * 2.0 > rect.width() {
        1.0
    } else {
        theme::STRIP_CACHE_BAR
    };
    let bottom = y_of(0);
    for (c, (prompt, read)) in reported.iter().zip(cache_read).enumerate() {
        let (Some(prompt), Some(read)) = (prompt, read) else {
            continue;
        };
        let x = rect.left() + c as f32 + 0.5 - width / 2.0;
        let split = y_of((*read).min(*prompt));
        mesh.add_colored_rect(
            Rect::from_x_y_ranges(x..=x + width, split..=bottom),
            pal.cache_read,
        );
        mesh.add_colored_rect(
            Rect::from_x_y_ranges(x..=x + width, y_of(*prompt)..=split),
            pal.cache_rest,
        );
    }
    mesh
}
