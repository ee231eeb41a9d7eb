//! Regenerates the bundled samples in `assets/` (or in the directory given as the only
//! argument): `sample.session.jsonl` and `problems.session.jsonl`.
//!
//! ```text
//! cargo run --example make-samples [-- DIR]
//! ```

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

use surface_synth::{SynthStats, write_problems_sample, write_sample};

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets"),
        PathBuf::from,
    );
    type Writer = fn(BufWriter<File>) -> std::io::Result<SynthStats>;
    let samples: [(&str, Writer); 2] = [
        ("sample.session.jsonl", write_sample),
        ("problems.session.jsonl", write_problems_sample),
    ];
    for (name, write) in samples {
        let path = dir.join(name);
        let result = File::create(&path).and_then(|f| write(BufWriter::new(f)));
        match result {
            Ok(s) => println!(
                "wrote {}: {} events, {} lines, {} bytes, {} turns, {} replaces",
                path.display(),
                s.events,
                s.lines,
                s.bytes,
                s.turns,
                s.replaces()
            ),
            Err(e) => {
                eprintln!("make-samples: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
