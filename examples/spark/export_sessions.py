"""Export many deepseek-harness sessions to Parquet on a Spark cluster.

surface-viewer schedules nothing across machines: the same binary is the per-file worker of an
engine you already run. This PySpark job takes a list of session paths, splits it into
partitions, and on each executor runs

    surface-viewer export PATH... --to STAGING/chunk-NNNNN --jobs 1

with `subprocess` (one session at a time per executor core), then reads every chunk's tables
back with Spark, unions them by glob (they share one schema), and writes one folder per table
under OUT, so `read_parquet('OUT/events/*.parquet')` works as it does on a local export.

The session files and STAGING must be on storage every executor sees (the logs have to be
anyway: HDFS through a FUSE mount, NFS, a shared volume); the binary must be on each executor's
PATH or named with --binary (ship it with `--files`/`SparkFiles` on a real cluster).

    python3 examples/spark/export_sessions.py --out OUT [--binary PATH] [--partitions N]
        [--master local[2]] [--staging DIR] [--paths-file LIST] [PATH ...]
        [-- EXPORT-FLAGS...]

Flags after `--` go to every `surface-viewer export` (e.g. `-- --what-if --threshold-ratio 0.7`).
Exit status: 0 when every chunk exported every session, 1 when some session could not be read
(its `sessions` row holds the error), 2 on trouble.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

TABLES = ["sessions", "events", "calls", "checks", "compactions", "findings"]


def parse_args(argv):
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="*", help="session files (or folders) to export")
    p.add_argument("--paths-file", help="a file listing session paths, one a line")
    p.add_argument("--out", required=True, help="the folder to write (must not exist)")
    p.add_argument("--binary", default="surface-viewer", help="the surface-viewer binary")
    p.add_argument("--partitions", type=int, default=None, help="default: the cluster's cores")
    p.add_argument("--master", default=None, help="e.g. local[2]; default: spark-submit's")
    p.add_argument("--staging", default=None, help="shared folder for the chunks (default: beside OUT)")
    args = p.parse_args(argv)
    args.export_flags = extra
    return args


def session_paths(args):
    paths = list(args.paths)
    if args.paths_file:
        with open(args.paths_file, encoding="utf-8") as f:
            paths += [line.strip() for line in f if line.strip()]
    if not paths:
        sys.exit("export_sessions.py: no session path given")
    return [os.path.abspath(p) for p in paths]


def main(argv):
    args = parse_args(argv)
    paths = session_paths(args)
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        sys.exit(f"export_sessions.py: {out} already exists")
    binary = shutil.which(args.binary) or os.path.abspath(args.binary)
    staging = args.staging or tempfile.mkdtemp(
        prefix=".spark-export-", dir=os.path.dirname(out) or "."
    )
    flags = list(args.export_flags)

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("surface-viewer export")
    if args.master:
        builder = builder.master(args.master)
    spark = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    partitions = args.partitions or sc.defaultParallelism

    def export_chunk(index, chunk):
        chunk = list(chunk)
        if not chunk:
            return []
        target = os.path.join(staging, f"chunk-{index:05d}")
        cmd = [binary, "export", *chunk, "--to", target, "--force", "--jobs", "1", *flags]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        return [(index, done.returncode, last)]

    try:
        results = (
            sc.parallelize(paths, partitions)
            .mapPartitionsWithIndex(export_chunk)
            .collect()
        )
        for index, code, line in sorted(results):
            print(f"chunk {index:05d} (exit {code}): {line}")
        chunks = sorted(d for d in os.listdir(staging) if d.startswith("chunk-"))
        for table in TABLES:
            frame = spark.read.parquet(*(os.path.join(staging, c, table) for c in chunks))
            frame.write.parquet(os.path.join(out, table))
            written = spark.read.parquet(os.path.join(out, table)).count()
            print(f"{table}: {written} rows")
    finally:
        spark.stop()
        if not args.staging:
            shutil.rmtree(staging, ignore_errors=True)
    return 1 if any(code == 1 for _, code, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
