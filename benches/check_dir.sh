#!/usr/bin/env bash
# `check DIR` on all cores against checking the same sessions one after another.
#
#   benches/check_dir.sh [STORE] [SESSIONS]
#
# Generates STORE (default /tmp/sv-store-bench) with SESSIONS generated sessions (default
# 1000, about 1.2 MB of JSONL each, every tenth Zstandard-compressed: 1.15 GB in all) unless
# it already exists, then times with hyperfine (warm page cache):
#   1. check STORE               (one worker per core)
#   2. check STORE --jobs 1      (the same process, one session after another)
#   3. a shell loop running `check FILE` once per session file (one process each)
# and prints the speed-ups. Needs hyperfine and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/sv-store-bench}
SESSIONS=${2:-1000}
cargo build --release --quiet --bin surface-viewer --example gen-store
BIN=target/release/surface-viewer
if [ ! -d "$STORE" ]; then
  target/release/examples/gen-store --out "$STORE" --sessions "$SESSIONS" --projects 24 \
    --events 12000 --fork-every 10 --zstd-every 10 --sqlite 0
fi
echo "store: $(du -sb "$STORE" | cut -f1) bytes in $(find "$STORE" -type f | wc -l) files; $(nproc) cores"
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
find "$STORE" -type f -name 'session.jsonl*' | sort > "$LIST"
# Warm the page cache once.
"$BIN" check "$STORE" > /dev/null || true
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-markdown /tmp/check_dir.md \
  -n "check DIR (all cores)" "$BIN check $STORE > /dev/null || true" \
  -n "check DIR --jobs 1" "$BIN check $STORE --jobs 1 > /dev/null || true" \
  -n "check FILE, one after another" "while read -r f; do $BIN check \"\$f\" > /dev/null || true; done < $LIST"
cat /tmp/check_dir.md
