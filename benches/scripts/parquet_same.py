#!/usr/bin/env python3
"""Whether two builds export the same Parquet, byte for byte.

Exports a folder of session logs with each binary (`--jobs 1`, so the sessions land in the
parts in the same order), then compares every part file of every table. The files' `created_by`
names the writing build's version; it is set equal before comparing, so only what the build
wrote differs. Prints one line per table; exits 1 when a table both builds write differs.

    benches/scripts/parquet_same.py --a OLD_BINARY --b NEW_BINARY [--logs tests/fixtures/upstream]
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = re.compile(rb"surface-viewer \d+\.\d+\.\d+")


def export(binary: str, logs: str, out: Path) -> None:
    subprocess.run(
        [binary, "export", logs, "--to", str(out), "--jobs", "1"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def normalised(path: Path) -> bytes:
    """The file with the writer's version replaced by a fixed one of the same length."""
    data = path.read_bytes()
    return VERSION.sub(lambda m: b"surface-viewer " + b"0" * (len(m.group(0)) - 15), data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the first binary")
    parser.add_argument("--b", required=True, help="the second binary")
    parser.add_argument("--logs", default="tests/fixtures/upstream")
    args = parser.parse_args()
    differs = False
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a"), Path(tmp, "b")
        export(args.a, args.logs, a)
        export(args.b, args.logs, b)
        for table in sorted(p.name for p in a.iterdir() if p.is_dir()):
            parts = sorted(p.name for p in (a / table).iterdir())
            other = sorted(p.name for p in (b / table).iterdir()) if (b / table).is_dir() else []
            same = parts == other and all(
                normalised(a / table / p) == normalised(b / table / p) for p in parts
            )
            differs |= not same
            print(f"{table}: {'byte for byte the same' if same else 'DIFFERS'}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
