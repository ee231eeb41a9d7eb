//! Writes a synthetic HEAD-era session log for load and replay testing.
//!
//! ```text
//! cargo run --release --example gen-log -- --events 1000000 --out big.jsonl [--shape harness]
//!     [--seed N] [--no-pack] [--turns N] [--tool-calls N] [--chunks N] [--compaction-every K] [--prune-every P]
//!     [--no-nested] [--output-lines N] [--window N] [--command-every C] [--overflow-every O]
//!     [--fail-every F] [--refetch-percent P] [--check]
//! ```
//!
//! `--shape harness` starts from the shape of the harness's own long sessions (one word a
//! streamed delta, long answers, short tool outputs: about 176 bytes an event unpacked and 72
//! packed, `SynthConfig::harness`); the other options change it, wherever they are given.
//!
//! `--check` reads the written file back and runs the engine's `check` on it (the generator
//! promises zero findings).

use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;
use std::time::Instant;

use surface_engine::{Surface, check};
use surface_store::read_jsonl;
use surface_synth::{SynthConfig, generate};

const USAGE: &str = "usage: gen-log --events N --out FILE [--shape harness] [--seed N] [--no-pack] [--turns N] \
[--tool-calls N] [--chunks N] [--compaction-every K] [--prune-every P] [--no-nested] [--output-lines N] \
[--window N] [--command-every C] [--overflow-every O] [--fail-every F] [--refetch-percent P] [--check]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gen-log: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let (config, out, verify) = parse_args(std::env::args().skip(1))?;
    let started = Instant::now();
    let file = File::create(&out).map_err(|e| format!("cannot create {out}: {e}"))?;
    let stats = generate(&config, BufWriter::with_capacity(1 << 20, file))
        .map_err(|e| format!("cannot write {out}: {e}"))?;
    println!(
        "wrote {out}: {} events in {} lines, {} bytes ({:.1} MB), {} turns, {} replaces \
         ({} compactions, {} nested, {} on command, {} prunes; {} overflows, {} failed \
         compactions), {}, in {:.2?}",
        stats.events,
        stats.lines,
        stats.bytes,
        stats.bytes as f64 / 1e6,
        stats.turns,
        stats.replaces(),
        stats.compactions,
        stats.nested_compactions,
        stats.command_compactions,
        stats.prunes,
        stats.overflows,
        stats.failed_compactions,
        if config.pack {
            "packed chunk rows"
        } else {
            "no packed rows"
        },
        started.elapsed()
    );
    if verify {
        check_file(&out)?;
    }
    Ok(())
}

/// Reads `path` back and reports the engine's findings (there should be none).
fn check_file(path: &str) -> Result<(), String> {
    let started = Instant::now();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let log = read_jsonl(bytes, None).ok_or("reading was cancelled")?;
    let surface = Surface::at_end(&log);
    let findings = check(&log, &surface);
    println!(
        "checked {path}: {} events, {} surface nodes, {} findings, in {:.2?}",
        log.len(),
        surface.len(),
        findings.len(),
        started.elapsed()
    );
    for f in findings.iter().take(10) {
        println!(
            "  {} seq {:?} line {:?}: {}",
            f.rule, f.seq, f.line, f.message
        );
    }
    if findings.is_empty() {
        Ok(())
    } else {
        Err(format!("{} findings in a generated log", findings.len()))
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<(SynthConfig, String, bool), String> {
    let args: Vec<String> = args.collect();
    // The shape is the starting point every other option changes, wherever it is given.
    let mut config = match args.iter().position(|a| a == "--shape") {
        None => SynthConfig::default(),
        Some(k) => match args.get(k + 1).map(String::as_str) {
            Some("harness") => SynthConfig::harness(SynthConfig::default().target_events),
            Some("default") => SynthConfig::default(),
            other => return Err(format!("--shape: {other:?} is neither harness nor default")),
        },
    };
    let mut args = args.into_iter();
    let mut out = None;
    let mut verify = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name}: {v:?} is not a non-negative integer"))
        };
        match arg.as_str() {
            "--events" => config.target_events = value("--events")?,
            "--seed" => config.seed = value("--seed")?,
            "--turns" => config.max_turns = small(value("--turns")?)?,
            "--tool-calls" => config.tool_calls_per_turn = small(value("--tool-calls")?)?,
            "--chunks" => config.chunks_per_message = small(value("--chunks")?)?,
            "--compaction-every" => config.compaction_every = small(value("--compaction-every")?)?,
            "--prune-every" => config.prune_every = small(value("--prune-every")?)?,
            "--output-lines" => config.tool_output_lines = small(value("--output-lines")?)?,
            "--window" => config.context_window = value("--window")?.max(1),
            "--command-every" => config.command_every = small(value("--command-every")?)?,
            "--overflow-every" => config.overflow_every = small(value("--overflow-every")?)?,
            "--fail-every" => config.fail_every = small(value("--fail-every")?)?,
            "--refetch-percent" => config.refetch_percent = small(value("--refetch-percent")?)?,
            // Read first, below.
            "--shape" => drop(args.next()),
            "--no-pack" => config.pack = false,
            "--no-nested" => config.nested = false,
            "--check" => verify = true,
            "--out" => out = Some(args.next().ok_or("--out needs a file name")?),
            "-h" | "--help" => return Err("help".into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let out = out.ok_or("--out is required")?;
    Ok((config, out, verify))
}

fn small(v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{v} is too large"))
}
