"""How long `surface-viewer mcp` takes to answer on one log, beside `surface-viewer check` of it
(docs/mcp.md, "Figures"). Standard library only: a JSON-RPC client on the server's pipes.

    python3 benches/mcp_timing.py target/release/surface-viewer /tmp/sv-logs/harness.jsonl

Prints the command line's `check --json` (best of three), then on one server: the first
`check` call (reads the log), the same call again (the cached document), then every other tool
on the cached log (a new document each, and some again from the cache), `sessions` of the file
and of its folder, and the server's peak memory.
"""

import json
import os
import subprocess
import sys
import time


def best_of(n, run):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(binary, log):
    root, name = os.path.dirname(os.path.abspath(log)), os.path.basename(log)
    cli = best_of(3, lambda: subprocess.run([binary, "check", log, "--json"],
                                            stdout=subprocess.DEVNULL, check=False))
    print(f"surface-viewer check --json: {cli:.3f} s (best of 3)")
    server = subprocess.Popen([binary, "mcp", "--root", root], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    ids = iter(range(1, 10**6))

    def request(method, params):
        i = next(ids)
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                       "params": params}) + "\n")
        server.stdin.flush()
        while True:
            reply = json.loads(server.stdout.readline())
            if reply.get("id") == i:
                return reply

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "timing", "version": "1"}})
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    grid = ["threshold_ratio=0.6,0.7,0.8,0.9,0.95", "retain_ratio=0.1,0.2,0.3,0.4"]
    calls = [("check (first: reads the log)", "check", {"path": name}),
             ("check again (cached)", "check", {"path": name}),
             ("check a third time (cached)", "check", {"path": name}),
             ("surface (cached log, new document)", "surface", {"path": name}),
             ("surface again, a later page", "surface", {"path": name, "cursor": "NEXT"}),
             ("messages at the end (cached log)", "messages", {"path": name}),
             ("request at the end (cached log)", "request", {"path": name}),
             ("events 1000..1100 (cached log)", "events", {"path": name, "from": 1000, "to": 1100}),
             ("events text search 'error' (cached log)", "events", {"path": name, "query": "error"}),
             ("audit (cached log, new document)", "audit", {"path": name}),
             ("audit again (cached)", "audit", {"path": name}),
             ("policy verify (cached log)", "policy", {"path": name}),
             ("policy what-if 0.7 (cached log)", "policy",
              {"path": name, "what_if": True, "threshold_ratio": 0.7}),
             ("cost (cached log)", "cost", {"path": name}),
             ("cost again (cached)", "cost", {"path": name}),
             ("compare the log with itself (cached log)", "compare", {"a": name, "b": name}),
             ("tune, 20 settings (cached log)", "tune", {"paths": [name], "grid": grid}),
             ("sessions of the file (reads it whole)", "sessions", {"path": name}),
             ("sessions of the root folder", "sessions", {"path": "."})]
    first, next_cursor = None, None
    for label, tool, args in calls:
        if args.get("cursor") == "NEXT":
            if not next_cursor:
                continue
            args = {**args, "cursor": next_cursor}
        start = time.perf_counter()
        reply = request("tools/call", {"name": tool, "arguments": args})
        took = time.perf_counter() - start
        if reply["result"].get("isError"):
            print(f"{label}: error {reply['result']['content'][0]['text']}")
            continue
        first = first or took
        next_cursor = reply["result"]["structuredContent"].get("next_cursor")
        print(f"{label}: {took * 1000:.1f} ms")
    with open(f"/proc/{server.pid}/status") as f:
        peak = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    server.stdin.close()
    server.wait()
    print(f"first check answer / check --json: {first / cli:.2f}x; server peak RSS {int(peak) // 1024} MiB")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
