#!/bin/sh
# Start-up time of the desktop viewer: launches the release binary N times under one Xvfb
# with SURFACE_VIEWER_REPORT_READY=1, which makes it print `ready_ms=…` (time from start to
# the first frame on screen with the loaded session: window, timeline and surface at the end)
# and exit. Prints every run and the median.
#
#   cargo build --release && benches/gui_ready.sh /tmp/big.jsonl 7
#
# BIN overrides the binary (default target/release/surface-viewer).
set -eu
file=${1:?usage: benches/gui_ready.sh FILE [RUNS]}
runs=${2:-5}
bin=${BIN:-target/release/surface-viewer}
[ -x "$bin" ] || { echo "no $bin: cargo build --release first" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# One X server for all runs; each run gets a fresh process (and a fresh config dir, so that
# no saved window state or recent list differs between runs).
xvfb-run -a -s "-screen 0 1600x1000x24" sh -c '
    i=0
    while [ "$i" -lt "$2" ]; do
        cfg=$(mktemp -d)
        XDG_CONFIG_HOME=$cfg XDG_DATA_HOME=$cfg SURFACE_VIEWER_REPORT_READY=1 \
            timeout 120 "$1" "$3" 2>&1 | sed -n "s/.*ready_ms=//p"
        rm -rf "$cfg"
        i=$((i + 1))
    done' sh "$bin" "$runs" "$file" >"$out"
n=$(wc -l <"$out")
[ "$n" -gt 0 ] || { echo "no run reported ready (is the file readable?)" >&2; exit 1; }
echo "ready_ms per run: $(tr '\n' ' ' <"$out")"
sort -n "$out" | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "median ready_ms over %d runs: %.1f (min %.1f, max %.1f)\n", NR, m, v[1], v[NR] }'
