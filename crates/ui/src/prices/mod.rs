//! The price file (docs/cost.md): chosen in File ▸ Prices (a native dialog or a path),
//! remembered across runs in the preferences, read and checked here (`state`), its commands
//! (`command`) applied in one place (`apply`), and the menu that offers it (`menu`). Without a
//! valid file every cost figure stays in tokens.

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod menu;
pub(crate) mod state;
