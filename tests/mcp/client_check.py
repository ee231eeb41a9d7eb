"""A real MCP client against `surface-viewer mcp` (docs/mcp.md): the official Python `mcp`
package's stdio client starts the server on tests/fixtures, lists the tools, calls each on a
fixture and holds its structured result equal to the command line's `--json` (run on the same
file from the same root), walks a surface by cursor, then makes 500 mixed calls (some bad)
and checks that every one was answered, that the server's peak memory after the 50th call
stayed within 1.5x up to the last, and that it exits 0 when its stdin closes.

    python3 tests/mcp/client_check.py BINARY ROOT

Prints one line per check and `N passed, 0 failed` at the end; exits 1 on the first failure.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

LONG_STRING = 4096
U = "upstream/v0-2026-08-20-head/compaction-recovery.session.jsonl"
P = "policy/p01.jsonl"
P2 = "policy/p02.jsonl"
PR = "prices/deepseek.json"
WHOLE = 10**9

TOOLS = ["sessions", "check", "surface", "messages", "request", "events", "audit",
         "policy", "cost", "compare", "tune"]

# (tool, arguments, the command line giving the same document, key a JSON array is wrapped in)
CASES = [
    ("sessions", {"path": U}, ["sessions", U, "--json"], "sessions"),
    ("check", {"path": U}, ["check", U, "--json"], None),
    ("check", {"path": P}, ["check", P, "--json"], None),
    ("surface", {"path": P, "at": 100}, ["surface", P, "--at", "100", "--json"], None),
    ("surface", {"path": U, "threshold_ratio": 0.5},
     ["surface", U, "--threshold-ratio", "0.5", "--json"], None),
    ("messages", {"path": U}, ["messages", U], "messages"),
    ("messages", {"path": P, "at": 40}, ["messages", P, "--at", "40"], "messages"),
    ("request", {"path": U}, ["request", U, "--json"], None),
    ("request", {"path": P, "at": 200}, ["request", P, "--at", "200", "--json"], None),
    ("audit", {"path": P}, ["audit", P, "--json"], None),
    ("policy", {"path": P}, ["policy", P, "--json"], None),
    ("policy", {"path": P, "what_if": True, "threshold_ratio": 0.7, "prices": PR},
     ["policy", P, "--what-if", "--threshold-ratio", "0.7", "--prices", PR, "--json"], None),
    ("cost", {"path": P, "prices": PR}, ["cost", P, "--prices", PR, "--json"], None),
    ("cost", {"path": U}, ["cost", U, "--json"], None),
    ("cost", {"path": P2, "requests": True, "prices": PR},
     ["cost", P2, "--requests", "--prices", PR, "--json"], None),
    ("compare", {"a": P, "b": P2}, ["compare", P, P2, "--json"], None),
    ("tune", {"paths": [P, P2], "grid": ["threshold_ratio=0.7,0.8"]},
     ["tune", P, P2, "--grid", "threshold_ratio=0.7,0.8", "--json"], None),
]

BAD = [
    ("no_such_tool", {}),
    ("surface", {"path": U, "at": "twelve"}),
    ("check", {"path": "missing.jsonl"}),
    ("check", {"path": "../Cargo.toml"}),
    ("check", {"path": "/etc/passwd"}),
    ("surface", {"path": U, "at": 10**9}),
    ("check", {"path": "upstream/README.md"}),
    ("surface", {"path": U, "cursor": "zz"}),
    ("check", {"path": U, "colour": "red"}),
    ("events", {"path": U, "from": 9, "to": 2}),
]

passed = 0


def ok(what):
    global passed
    passed += 1
    print(f"ok: {what}", flush=True)


def fail(what):
    print(f"FAILED: {what}", flush=True)
    print(f"{passed} passed, 1 failed", flush=True)
    # At once: the server, its stdin closed with this process, ends on its own.
    os._exit(1)


def shortened(value):
    """The server's rule for long payload strings, applied to the command line's document."""
    if isinstance(value, str):
        raw = value.encode("utf-8")
        if len(raw) <= LONG_STRING:
            return value
        head = raw[:LONG_STRING].decode("utf-8", errors="ignore")
        return f"{head}… [shortened: {len(raw)} bytes in all]"
    if isinstance(value, list):
        return [shortened(v) for v in value]
    if isinstance(value, dict):
        return {k: shortened(v) for k, v in value.items()}
    return value


def cli_json(binary, root, argv):
    out = subprocess.run([binary, *argv], cwd=root, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        fail(f"{' '.join(argv)} exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:200]} vs {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present on one side only"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:200]} vs {json.dumps(b)[:200]}"


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    fail("no VmHWM in the server's /proc status")


async def call(session, tool, args):
    return await session.call_tool(tool, args)


# The package's 2.x types name their fields in snake case, 1.x in camel case: read either.
def is_error(result):
    return result.is_error if hasattr(result, "is_error") else result.isError


def structured(result):
    if hasattr(result, "structured_content"):
        return result.structured_content
    return result.structuredContent


def schema(tool):
    return tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema


async def tools_match_the_cli(session, binary, root):
    listed = await session.list_tools()
    names = [t.name for t in listed.tools]
    if names != TOOLS:
        fail(f"tools/list gave {names}, expected {TOOLS}")
    if not all(schema(t).get("type") == "object" for t in listed.tools):
        fail("a tool without an object input schema")
    ok(f"tools/list names the {len(TOOLS)} tools, each with an input schema")
    for tool, args, argv, wrap in CASES:
        result = await call(session, tool, {**args, "max_bytes": WHOLE})
        if is_error(result):
            fail(f"{tool} {args}: error {result.content[0].text}")
        expected = shortened(cli_json(binary, root, argv))
        if wrap:
            expected = {wrap: expected}
        d = first_difference(structured(result), expected)
        if d:
            fail(f"{tool} {args} differs from `surface-viewer {' '.join(argv)}`: {d}")
        if not result.content or not result.content[0].text.strip():
            fail(f"{tool} {args}: no text summary")
        ok(f"{tool} {json.dumps(args)} equals `surface-viewer {' '.join(argv)}`")


async def events_are_the_logs_lines(session, root):
    result = await call(session, "events", {"path": U, "from": 3, "to": 9})
    with open(os.path.join(root, U)) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    expected = [e for e in lines if isinstance(e.get("seq"), int) and 3 <= e["seq"] <= 9]
    got = [m["event"] for m in structured(result)["matches"]]
    if got != expected:
        fail(f"events 3..9 differ from the log's lines: {first_difference(got, expected)}")
    ok("events from 3 to 9 are the log's own lines")


async def cursor_walk(session, tool, args, key, max_bytes):
    whole = await call(session, tool, {**args, "max_bytes": WHOLE})
    items, cursor, pages = [], None, 0
    while True:
        page_args = {**args, "max_bytes": max_bytes}
        if cursor:
            page_args["cursor"] = cursor
        page = await call(session, tool, page_args)
        if is_error(page):
            fail(f"{tool} page {pages}: {page.content[0].text}")
        size = len(json.dumps(structured(page), separators=(",", ":"),
                              ensure_ascii=False).encode("utf-8"))
        if size > max_bytes and len(structured(page)[key]) > 1:
            fail(f"{tool} page {pages} is over {max_bytes} bytes with more than one item")
        pages += 1
        items += structured(page)[key]
        cursor = structured(page).get("next_cursor")
        if not cursor:
            break
    if items != structured(whole)[key] or pages < 3:
        fail(f"the cursor walk over {tool} {args} gave {len(items)} items in {pages} pages")
    ok(f"a cursor walk over {tool} {json.dumps(args)}: {pages} pages of at most {max_bytes} bytes, "
       f"all {len(items)} items once")


async def five_hundred_calls(session, pid):
    good = [(t, {**a, "max_bytes": 8192}) for t, a, _, _ in CASES if t not in ("tune", "compare")]
    mixed = []
    for i in range(500):
        mixed.append(("bad", BAD[i % len(BAD)]) if i % 3 == 2 else ("good", good[i % len(good)]))
    peak_at_50 = None
    for i, (kind, (tool, args)) in enumerate(mixed, 1):
        result = await call(session, tool, args)
        if kind == "bad" and not is_error(result):
            fail(f"call {i}: {tool} {args} was not refused")
        if kind == "good" and is_error(result):
            fail(f"call {i}: {tool} {args}: {result.content[0].text}")
        if kind == "bad" and len(result.content[0].text.splitlines()) != 1:
            fail(f"call {i}: the error is not one sentence: {result.content[0].text!r}")
        if i == 50:
            peak_at_50 = vm_hwm_kib(pid)
    peak = vm_hwm_kib(pid)
    if peak > 1.5 * peak_at_50:
        fail(f"peak memory grew from {peak_at_50} KiB after call 50 to {peak} KiB")
    ok(f"500 mixed calls answered ({sum(k == 'bad' for k, _ in mixed)} refused); "
       f"peak RSS {peak_at_50} KiB after call 50, {peak} KiB after 500")


async def main(binary, root):
    with tempfile.TemporaryDirectory() as tmp:
        pid_file, rc_file = os.path.join(tmp, "pid"), os.path.join(tmp, "rc")
        # A shell between client and server says the server's pid and its exit status.
        # (An asynchronous command's stdin is /dev/null unless redirected from a saved copy.)
        script = 'exec 3<&0; "$0" mcp --root "$1" <&3 3<&- & echo $! > "$2"; wait $!; echo $? > "$3"'
        params = StdioServerParameters(
            command="/bin/sh", args=["-c", script, binary, root, pid_file, rc_file])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                with open(pid_file) as f:
                    pid = int(f.read())
                await tools_match_the_cli(session, binary, root)
                await events_are_the_logs_lines(session, root)
                await cursor_walk(session, "messages", {"path": P}, "messages", 4096)
                await cursor_walk(session, "events", {"path": P}, "matches", 16384)
                await five_hundred_calls(session, pid)
        for _ in range(100):
            if os.path.exists(rc_file) and open(rc_file).read().strip():
                break
            time.sleep(0.05)
        rc = open(rc_file).read().strip() if os.path.exists(rc_file) else "none"
        if rc != "0":
            fail(f"the server's exit status when stdin closed: {rc}")
        ok("the server exits 0 when its stdin closes")
    print(f"{passed} passed, 0 failed", flush=True)


if __name__ == "__main__":
    asyncio.run(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
