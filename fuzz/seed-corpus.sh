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
  corpus/meter corpus/audit corpus/policy_replay corpus/sqlite_reader
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
# sqlite_reader's row shape (its module comment): a 1, then per event a control byte (type,
# surface op, seq step 1) and the data, NUL, no sources, NUL, the surface op.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$root" <<'PY'
import json, pathlib, sys
types = ["turn/start", "step/start", "user/message", "assistant/message", "tool/result",
         "tool/call", "compaction/start", "compaction/summary", "compaction/prune",
         "compaction/end", "assistant/text-chunks", "assistant/reasoning-chunks",
         "assistant/text-chunk", "turn/end", "step/end"]
root = pathlib.Path(sys.argv[1])
files = sorted(root.glob("tests/fixtures/upstream/*/*.jsonl")) + sorted(root.glob("tests/fixtures/policy/*.jsonl"))
for f in files:
    out = bytearray(b"\x01")
    for line in f.read_text(errors="replace").splitlines()[1:120]:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if not isinstance(e, dict):
            continue
        t = e.get("type")
        control = (types.index(t) if t in types else 15) | 0x40
        op = e.get("surfaceOp")
        if op is not None:
            control |= 0x20
        out.append(control)
        out += json.dumps(e.get("data", {})).encode()
        if op is not None:
            out += b"\x00\x00" + (op if isinstance(op, str) else json.dumps(op)).encode()
        out += b"\n"
    name = f.parent.name + "-" + f.name
    (pathlib.Path("corpus/sqlite_reader") / name).write_bytes(bytes(out))
PY
fi
if command -v zstd >/dev/null 2>&1; then
  for f in "$root"/tests/fixtures/upstream/v0-2026-08-20-head/*.jsonl; do
    out="corpus/zstd_reader/$(basename "$f").zst"
    : > "$out"
    split -l 20 --filter='zstd -q -c >> '"$out" < "$f"
  done
fi
echo "corpora: $(ls corpus/jsonl_reader | wc -l) jsonl, $(ls corpus/zstd_reader | wc -l) zstd, $(ls corpus/envelope_scan | wc -l) envelope_scan, $(ls corpus/policy_replay | wc -l) meter/audit/policy_replay seeds, $(ls corpus/sqlite_reader | wc -l) sqlite_reader"
