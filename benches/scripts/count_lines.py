#!/usr/bin/env python3
"""Non-test lines of the workspace's Rust code, at one or more git revisions.

    benches/scripts/count_lines.py [REV ...]        (default: HEAD)

Counts the non-blank lines of the `.rs` files under `src/` and `crates/*/src/`, leaving out
what only tests: files under a `tests/`, `benches/`, `examples/` or `fuzz/` folder, files named
`tests.rs` or `*_tests.rs`, and everything of a file from its first `#[cfg(test)]` line that
opens a module (`#[cfg(test)]` followed by `mod …`). Read from git's objects, so a revision
needs no checkout. Prints one line per revision: the count and the files read.
"""

import re
import subprocess
import sys

SKIPPED_FOLDERS = ("/tests/", "/benches/", "/examples/", "/fuzz/")
SOURCE = re.compile(r"^(src/|crates/[^/]+/src/).*\.rs$")


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def counted(path):
    name = path.rsplit("/", 1)[-1]
    if name == "tests.rs" or name.endswith("_tests.rs"):
        return False
    return SOURCE.match(path) and not any(f in "/" + path for f in SKIPPED_FOLDERS)


def non_test_lines(text):
    lines = text.split("\n")
    n = 0
    for k, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]":
            rest = next((l for l in lines[k + 1 :] if l.strip()), "")
            if rest.lstrip().startswith(("mod ", "pub mod ", "pub(crate) mod ")):
                break
        if line.strip():
            n += 1
    return n


def count(rev):
    paths = [p for p in git("ls-tree", "-r", "--name-only", rev).split("\n") if counted(p)]
    return sum(non_test_lines(git("show", f"{rev}:{p}")) for p in paths), len(paths)


def main():
    for rev in sys.argv[1:] or ["HEAD"]:
        lines, files = count(rev)
        print(f"{rev}: {lines} non-test lines in {files} files")


if __name__ == "__main__":
    main()
