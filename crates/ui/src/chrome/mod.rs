//! The window's chrome around the panels: the menu bar (and its View menu), the banner, load
//! progress, the welcome screen, the shortcut table and its help overlay, the typed path beside
//! every file dialog, the side panel's tab row, and the background laid under them once per
//! frame.

pub(crate) mod apply;
pub(crate) mod background;
pub(crate) mod banner;
pub(crate) mod command;
pub(crate) mod help;
pub(crate) mod menu_bar;
pub(crate) mod path_field;
pub(crate) mod shortcuts;
pub(crate) mod side_tabs;
pub(crate) mod view_menu;
pub(crate) mod welcome;
pub(crate) mod window_state;
