#!/usr/bin/env bash
# Seeds the fuzz corpora from files inside the repository: the upstream fixtures
# (tests/fixtures/upstream), the bundled samples (assets/) and, for zstd_reader, the same logs
# compressed as multi-frame Zstandard files (one frame per 20 lines, like the harness's batches);
# for envelope_scan, single lines of those logs (one seed per line, the first 40 of each file);
# for meter, audit and policy_replay, the heads of those logs and of the policy fixtures
# (tests/fixtures/policy), behind the knob bytes each target reads first (the audit's threshold
# ratio: 0.8; the policy's settings: the harness's defaults).
set -euo pipefail
cd "$(dirname "$0")"
root=..
mkdir -p corpus/jsonl_reader corpus/engine_ops corpus/zstd_reader corpus/envelope_scan \
  corpus/meter corpus/audit corpus/policy_replay
for f in "$root"/tests/fixtures/upstream/*/*.jsonl "$root"/assets/*.jsonl \
  "$root"/tests/fixtures/policy/*.jsonl; do
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  head -c 16384 "$f" > "corpus/meter/$name"
  { printf '\xcc'; head -c 16384 "$f"; } > "corpus/audit/$name"
  # T 0.8, R 0.16, one retry, one overflow recovery, the default pruner, the log's summary price.
  { printf '\xcc\x32\x00\x05\x01\x00\x00\x00'; head -c 16384 "$f"; } > "corpus/policy_replay/$name"
done
for f in "$root"/tests/fixtures/upstream/*/*.jsonl "$root"/assets/*.jsonl; do
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  head -c 8192 "$f" > "corpus/jsonl_reader/$name"
  # engine_ops reads byte pairs as events and keeps the first 512 (1 KiB), see its MAX_EVENTS.
  head -c 1024 "$f" > "corpus/engine_ops/$name"
  n=0
  head -n 40 "$f" | while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" > "corpus/envelope_scan/$name.$n"
  done
done
if command -v zstd >/dev/null 2>&1; then
  for f in "$root"/tests/fixtures/upstream/v0-2026-08-20-head/*.jsonl; do
    out="corpus/zstd_reader/$(basename "$f").zst"
    : > "$out"
    split -l 20 --filter='zstd -q -c >> '"$out" < "$f"
  done
fi
echo "corpora: $(ls corpus/jsonl_reader | wc -l) jsonl, $(ls corpus/zstd_reader | wc -l) zstd, $(ls corpus/envelope_scan | wc -l) envelope_scan, $(ls corpus/policy_replay | wc -l) meter/audit/policy_replay seeds"
