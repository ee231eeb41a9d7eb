#!/usr/bin/env python3
"""Peak private memory, peak total RSS and time of whole `surface-viewer` processes.

    benches/scripts/memory_and_time.py [--runs N] [--logs DIR] [--bin PATH ...] [--no-build]
                                       [--only LOG,...] [--commands CMD,...]

Builds the release binary and the `gen-log` example with cargo (unless --no-build or --bin is
given), writes the three 1M-event logs docs/performance.md measures into DIR (default
/tmp/sv-logs) unless they are there already:

    big.jsonl             gen-log --events 1000000 --no-pack                  (about 220 MB)
    harness.jsonl         gen-log --events 1000000 --shape harness --no-pack  (about 184 MB)
    harness-packed.jsonl  gen-log --events 1000000 --shape harness            (about 72 MB)

then runs `wc -l FILE` (the same-run baseline) and `check`, `policy`, `cost`, `audit`,
`export` on each log, alternating: every round runs every command once, in the same order.
Each process is watched from outside: /proc/PID/status is read every 2 ms for `RssAnon` (the
process's private, anonymous memory: what it takes from other programs) and `RssFile`; the
peak total RSS is the kernel's own high-water mark (`ru_maxrss` from wait4), wall time is
measured around the process, CPU time (user + system) comes from wait4.

With several --bin paths every round runs every binary in turn (before/after in one run).
Prints one table per binary: medians over the rounds, private ÷ file size, total RSS ÷ file
size, and wall time ÷ the median `wc -l` of the same log.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LOGS = {
    "big.jsonl": ["--no-pack"],
    "harness.jsonl": ["--shape", "harness", "--no-pack"],
    "harness-packed.jsonl": ["--shape", "harness"],
}
COMMANDS = ["check", "policy", "cost", "audit", "export"]
POLL_SECONDS = 0.002


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def target_dir(root):
    return os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))


def build(root):
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--no-default-features",
         "--bin", "surface-viewer", "--example", "gen-log"],
        cwd=root, check=True)


def generate_logs(root, logs_dir, names):
    os.makedirs(logs_dir, exist_ok=True)
    gen = os.path.join(target_dir(root), "release", "examples", "gen-log")
    for name in names:
        path = os.path.join(logs_dir, name)
        if os.path.exists(path):
            continue
        if not os.path.exists(gen):
            build(root)
        subprocess.run([gen, "--events", "1000000", "--out", path] + LOGS[name],
                       check=True, stdout=subprocess.DEVNULL)


def status_kib(pid):
    """(RssAnon, RssFile) in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            text = f.read()
    except OSError:
        return None
    anon = file_ = 0
    for line in text.split(b"\n"):
        if line.startswith(b"RssAnon:"):
            anon = int(line.split()[1])
        elif line.startswith(b"RssFile:"):
            file_ = int(line.split()[1])
    return anon, file_


def watch(argv):
    """Runs argv with stdout to /dev/null; returns (wall s, cpu s, peak anon KiB, peak rss KiB, rc)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_anon = 0
    while True:
        sample = status_kib(child.pid)
        if sample is not None:
            peak_anon = max(peak_anon, sample[0])
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid == child.pid:
            break
        time.sleep(POLL_SECONDS)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, peak_anon, usage.ru_maxrss, child.returncode


def command_argv(binary, command, log, out_dir):
    if command == "wc -l":
        return ["wc", "-l", log]
    if command == "export":
        return [binary, "export", log, "--to", out_dir, "--force"]
    return [binary, command, log]


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--logs", default="/tmp/sv-logs")
    parser.add_argument("--bin", action="append", default=[])
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--only", default=",".join(LOGS))
    parser.add_argument("--commands", default=",".join(COMMANDS))
    args = parser.parse_args()
    root = repo_root()
    if not args.bin:
        if not args.no_build:
            build(root)
        args.bin = [os.path.join(target_dir(root), "release", "surface-viewer")]
    names = [n for n in args.only.split(",") if n]
    commands = ["wc -l"] + [c for c in args.commands.split(",") if c]
    generate_logs(root, args.logs, names)
    out_dir = tempfile.mkdtemp(prefix="sv-export-")
    results = {}  # (binary, log, command) -> list of samples
    try:
        for round_ in range(args.runs):
            for name in names:
                log = os.path.join(args.logs, name)
                for command in commands:
                    binaries = args.bin if command != "wc -l" else args.bin[:1]
                    for binary in binaries:
                        shutil.rmtree(out_dir, ignore_errors=True)
                        sample = watch(command_argv(binary, command, log, out_dir))
                        key = (binary if command != "wc -l" else "", name, command)
                        results.setdefault(key, []).append(sample)
            print(f"round {round_ + 1}/{args.runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    report(args.bin, names, commands, args.logs, results, args.runs)


def report(binaries, names, commands, logs_dir, results, runs):
    print(f"medians of {runs} alternating runs; {os.cpu_count()} cores; "
          f"private = peak RssAnon sampled every {POLL_SECONDS * 1000:.0f} ms, "
          "RSS = ru_maxrss; ratios: memory ÷ file size, wall ÷ `wc -l` of the same log")
    for binary in binaries:
        print(f"\n{binary}\n")
        print("| log | command | private MiB | ÷ file | RSS MiB | ÷ file | wall ms | ÷ wc -l "
              "| CPU ms | exit |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in names:
            size = os.path.getsize(os.path.join(logs_dir, name)) / 1024
            wc = median([s[0] for s in results[("", name, "wc -l")]])
            for command in commands:
                key = ("" if command == "wc -l" else binary, name, command)
                samples = results[key]
                wall = median([s[0] for s in samples])
                cpu = median([s[1] for s in samples])
                anon = median([s[2] for s in samples])
                rss = median([s[3] for s in samples])
                codes = ",".join(sorted({str(s[4]) for s in samples}))
                print(f"| {name} | {command} | {anon / 1024:.1f} | {anon / size:.2f} "
                      f"| {rss / 1024:.1f} | {rss / size:.2f} | {wall * 1000:.1f} "
                      f"| {wall / wc:.2f} | {cpu * 1000:.1f} | {codes} |")


if __name__ == "__main__":
    main()
