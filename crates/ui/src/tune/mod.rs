//! The Tune view (docs/tune.md#in-the-viewer): `tune` in the window — for the open log (the
//! Tune side tab, beside Policy) and for the sessions browser's folder. The grid, objective
//! and constraints as text (`form`, drawn by `form_ui`), the sweep on a worker with progress
//! and Cancel (`job`; a folder's sessions read by `folder`), the frontier chart (`chart`),
//! what a click on a setting does (`click`, `open_menu`), the sortable table (`columns` its
//! model, `table` its widget), the whole view (`view`), its two places (`tab`, `browser`), its
//! commands (`command`, `apply`) and what tests read (`access`). Every figure is the
//! [`surface_reports::tune::Sweep`] the command line prints.

pub(crate) mod access;
pub(crate) mod apply;
pub(crate) mod browser;
pub(crate) mod chart;
pub(crate) mod click;
pub(crate) mod columns;
pub(crate) mod command;
pub(crate) mod folder;
pub(crate) mod form;
pub(crate) mod form_ui;
pub(crate) mod job;
pub(crate) mod open_menu;
pub(crate) mod tab;
pub(crate) mod table;
pub(crate) mod view;
