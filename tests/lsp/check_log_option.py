#!/usr/bin/env python3
"""`mdh-lsp --log FILE`: a writable file gets one line per handled message; a
file that cannot be opened is an error at start (exit status 1, a message on
stderr), not a log that silently never appears.

Usage: check_log_option.py MDH_LSP
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client  # noqa: E402

server = sys.argv[1]
failures = []

with tempfile.TemporaryDirectory() as tmp:
    # A directory that does not exist, and a path that is a directory.
    for bad in (os.path.join(tmp, "missing", "mdh-lsp.log"), tmp):
        p = subprocess.run([server, "--log", bad], input=b"", capture_output=True, timeout=30)
        err = p.stderr.decode(errors="replace")
        if p.returncode == 1 and "cannot open the log file" in err and bad in err:
            print("ok:   --log %s is refused at start: %s" % (bad, err.strip()))
        else:
            failures.append(bad)
            print("FAIL: --log %s: exit status %s, stderr %r" % (bad, p.returncode, err))

    log = os.path.join(tmp, "mdh-lsp.log")
    c = Client(server, args=["--log", log])
    c.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.call("shutdown")
    c.notify("exit")
    rc = c.proc.wait(timeout=30)
    lines = open(log).read().splitlines() if os.path.exists(log) else []
    if rc == 0 and any(l.startswith("initialize ") for l in lines) and any(l.startswith("shutdown ") for l in lines):
        print("ok:   a writable log gets a line per message")
    else:
        failures.append("writable log")
        print("FAIL: writable log: exit status %s, lines %r" % (rc, lines))

if failures:
    sys.exit(1)
print("all --log tests passed")
