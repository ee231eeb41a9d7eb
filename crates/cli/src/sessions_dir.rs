//! `sessions DIR`: every session under a folder with its figures (read in parallel, each
//! within `--max-bytes`), one line each as it finishes; `--json` one document sorted by path.

use std::io::Write as _;

use super::dir::{discover, each_found, label, plural, threads, write_unreadable};
use super::load::{warn_skipped, write_context};
use super::{EXIT_OK, EXIT_UNREADABLE, print_json};
use surface_reports::folder::FolderListed;
use surface_store::{ReadLimits, SessionEntry};

/// Runs `sessions DIR`.
pub fn run(
    dir: &std::path::Path,
    only: Option<&str>,
    limits: &ReadLimits,
    json: bool,
    jobs: Option<usize>,
) -> anyhow::Result<u8> {
    let threads = threads(jobs);
    let found = discover(dir, only, limits, threads)?;
    let mut out = std::io::stdout().lock();
    let mut listed: Vec<FolderListed> = Vec::new();
    let mut readable = 0usize;
    each_found(
        &found,
        threads,
        |entry: SessionEntry| FolderListed::read(entry, limits),
        |item| {
            readable += usize::from(item.figures.is_some());
            if let Some(f) = &item.figures {
                warn_skipped(&item.entry.file, &f.skipped);
            }
            let written = if json {
                Ok(())
            } else {
                write_line(&mut out, &item)
            };
            listed.push(item);
            written
        },
    )?;
    let count = listed.len();
    if json {
        print_json(&surface_reports::folder::document(dir, listed, &found)?)?;
    } else {
        for u in &found.unreadable {
            write_unreadable(&mut out, &u.file, &u.error)?;
        }
        write_context(writeln!(
            out,
            "{} under {}",
            plural(count, "session"),
            dir.display()
        ))?;
    }
    Ok(if readable == 0 {
        EXIT_UNREADABLE
    } else {
        EXIT_OK
    })
}

fn write_line(out: &mut impl std::io::Write, item: &FolderListed) -> anyhow::Result<()> {
    let e = &item.entry;
    // A database session's label already names it.
    let mut parts = vec![match e.session_arg() {
        Some(_) => label(e),
        None => format!("{}  {}", label(e), e.id),
    }];
    match (&item.figures, &item.error) {
        (Some(f), _) => parts.push(format!(
            "{}, {}, {}, {}, {}",
            plural(f.events as usize, "event"),
            plural(f.turns as usize, "turn"),
            plural(f.compactions as usize, "compaction"),
            plural(f.errors as usize, "error"),
            plural(f.warnings as usize, "warning"),
        )),
        (None, Some(err)) => parts.push(format!("unreadable: {err}")),
        (None, None) => {}
    }
    parts.push(format!("project {}", e.project));
    let title = item
        .figures
        .as_ref()
        .and_then(|f| f.title.as_ref())
        .or(e.title.as_ref());
    if let Some(t) = title {
        parts.push(format!("“{t}”"));
    }
    if let Some(p) = &e.parent {
        parts.push(match e.seed_length {
            Some(n) => format!("fork of {p} after its first {n} events"),
            None => format!("fork of {p}"),
        });
    }
    write_context(writeln!(out, "{}", parts.join(" · ")))
}
