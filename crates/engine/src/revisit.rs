//! A second cursor over a surface's processed prefix: the surface at an earlier (or any
//! processed) cursor without copying what the surface learned. Only its node list is its own
//! (12 bytes a node); the effect slots, the replace table and the checkpoints are borrowed,
//! where a cloned [`Surface`] would copy them (4 bytes an event and 20 a node, at the least).
//! A jump moves it as it moves the surface's own cursor: the same code.

use super::event::EventIdx;
use super::links::Links;
use super::surface::Surface;

/// The surface at its own cursor, within the processed prefix of the surface it borrows.
#[derive(Debug)]
pub struct Revisit<'s> {
    surface: &'s Surface,
    links: Links,
    cursor: usize,
}

impl<'s> Revisit<'s> {
    /// A second cursor over `surface`, starting where the surface's own cursor is.
    pub fn new(surface: &'s Surface) -> Self {
        Revisit {
            surface,
            links: surface.links().clone(),
            cursor: surface.cursor(),
        }
    }

    /// The cursor: the number of events applied.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Moves the cursor to `target`, clamped to the events the surface has processed (a
    /// revisit never processes an event: the surface it borrows does that).
    pub fn seek(&mut self, target: usize) {
        let target = target.min(self.surface.processed());
        self.surface
            .jumps()
            .move_list(&mut self.links, self.cursor, target);
        self.cursor = target;
    }

    /// The surface nodes at the cursor, in order.
    pub fn nodes(&self) -> impl Iterator<Item = EventIdx> + '_ {
        self.links.iter().map(|n| self.surface.event_of(n))
    }
}
