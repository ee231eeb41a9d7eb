//! Writes a generated harness store root: many sessions across projects in the HEAD layout
//! (`root/--<projectKey>--/<id>/session.jsonl[.zstd]`), forks, and a SQLite store.
//!
//! ```text
//! cargo run --release --example gen-store -- --out /tmp/store [--sessions N] [--projects N]
//!     [--events N] [--fork-every K] [--zstd-every K] [--sqlite N] [--seed N]
//! ```
//!
//! `benches/check_dir.sh` uses it for 1,000 sessions of about 1 MB each (≥ 1 GB in all).

use std::process::ExitCode;
use std::time::Instant;

use surface_synth::{StoreConfig, write_store};

const USAGE: &str = "usage: gen-store --out DIR [--sessions N] [--projects N] [--events N] \
[--fork-every K] [--zstd-every K] [--sqlite N] [--seed N]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gen-store: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut config = StoreConfig::default();
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name}: {v:?} is not a non-negative integer"))
        };
        match arg.as_str() {
            "--sessions" => config.sessions = value("--sessions")? as usize,
            "--projects" => config.projects = value("--projects")? as usize,
            "--events" => config.events = value("--events")?,
            "--fork-every" => config.fork_every = value("--fork-every")? as usize,
            "--zstd-every" => config.zstd_every = value("--zstd-every")? as usize,
            "--sqlite" => config.sqlite_sessions = value("--sqlite")? as usize,
            "--seed" => config.seed = value("--seed")?,
            "--out" => out = Some(args.next().ok_or("--out needs a folder")?),
            "-h" | "--help" => return Err("help".into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let out = out.ok_or("--out is required")?;
    let started = Instant::now();
    let sessions =
        write_store(std::path::Path::new(&out), &config).map_err(|e| format!("{out}: {e}"))?;
    let files: std::collections::HashSet<_> = sessions.iter().map(|s| &s.file).collect();
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let events: u64 = sessions.iter().map(|s| s.events).sum();
    let forks = sessions.iter().filter(|s| s.parent.is_some()).count();
    println!(
        "wrote {out}: {} sessions ({forks} forks) in {} files, {events} events, {bytes} bytes ({:.2} GB), in {:.1?}",
        sessions.len(),
        files.len(),
        bytes as f64 / 1e9,
        started.elapsed()
    );
    Ok(())
}
