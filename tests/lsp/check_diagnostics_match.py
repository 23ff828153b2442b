#!/usr/bin/env python3
"""The server publishes exactly what `mdhc check` reports.

Usage: check_diagnostics_match.py MDHC MDH_LSP REPO_ROOT

For every example, standard-library module, golden/diagnostic test input and
tests/lsp input, runs `mdhc check FILE` and opens the same file in one
mdh-lsp session, then compares the two lists in order: severity, code,
message, and position (line and column, with the LSP's UTF-16 column turned
back into code points).  A diagnostic in an imported file is published on the
import with its real place as a `path:line:col: ` prefix, which is compared
instead.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client, file_uri  # noqa: E402

HEADER = re.compile(r"^(.*):(\d+):(\d+): (error|warning)(?:\[(\w+)\])?: (.*)$")
NOWHERE = re.compile(r"^(?:<unknown>: )?(error|warning)(?:\[(\w+)\])?: (.*)$")
# Line breaks as the LSP and every mdh tool count them: `\r\n`, `\n`, and a `\r` on its own.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def lsp_lines(text):
    """The lines of `text`, without their line breaks."""
    return LINE_BREAK.split(text)


def cli_diagnostics(mdhc, path):
    out = subprocess.run([mdhc, "check", path], capture_output=True, text=True,
                         env=dict(os.environ, NO_COLOR="1"), cwd=os.path.dirname(path) or ".")
    diags = []
    for line in out.stderr.splitlines():
        m = HEADER.match(line)
        if m:
            diags.append((m.group(4), m.group(5) or "", m.group(6), os.path.basename(m.group(1)),
                          int(m.group(2)), int(m.group(3))))
            continue
        m = NOWHERE.match(line)
        if m:
            diags.append((m.group(1), m.group(2) or "", m.group(3), None, 0, 0))
    return diags


def utf16_to_codepoints(line_text, units):
    n = 0
    for i, ch in enumerate(line_text):
        if n >= units:
            return i
        n += 2 if ord(ch) >= 0x10000 else 1
    return len(line_text)


def lsp_diagnostics(diags, path, text):
    lines = lsp_lines(text)
    out = []
    for d in diags:
        sev = {1: "error", 2: "warning"}.get(d["severity"], "note")
        msg = d["message"].split("\n")[0]
        m = re.match(r"^(.*):(\d+):(\d+): (.*)$", msg)
        if m and d.get("relatedInformation") and d["relatedInformation"][0]["message"] == m.group(4):
            out.append((sev, d.get("code", ""), m.group(4), os.path.basename(m.group(1)), int(m.group(2)),
                        int(m.group(3))))
            continue
        line = d["range"]["start"]["line"]
        col = utf16_to_codepoints(lines[line] if line < len(lines) else "", d["range"]["start"]["character"])
        out.append((sev, d.get("code", ""), msg, os.path.basename(path), line + 1, col + 1))
    return out


def main():
    mdhc, server, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    files = []
    for pattern in ["examples/*.mdh", "stdlib/*.mdh", "tests/diag/*.mdh", "tests/golden/*.mdh", "tests/lsp/inputs/*.mdh"]:
        files += sorted(glob.glob(os.path.join(root, pattern)))
    client = Client(server, cwd=root)
    client.initialize(root)
    failures = 0
    compared = 0
    try:
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            uri = client.open(path, text)
            note = client.notification("textDocument/publishDiagnostics",
                                       pred=lambda m, u=uri: m["params"]["uri"] == u)
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            client.notification("textDocument/publishDiagnostics",
                                pred=lambda m, u=uri: m["params"]["uri"] == u and not m["params"]["diagnostics"])
            got = lsp_diagnostics(note["params"]["diagnostics"], path, text)
            # Location-less diagnostics: the LSP puts them at 1:1 of the file.
            want = [(s, c, m, f if f is not None else os.path.basename(path), l or 1, co or 1)
                    for (s, c, m, f, l, co) in cli_diagnostics(mdhc, path)]
            compared += 1
            if got != want:
                failures += 1
                print(f"FAIL {os.path.relpath(path, root)}")
                for i in range(max(len(got), len(want))):
                    g = got[i] if i < len(got) else None
                    w = want[i] if i < len(want) else None
                    mark = "  " if g == w else "!="
                    print(f"  {mark} mdhc: {w}\n     lsp:  {g}")
        client.close()
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
    print(f"{compared} files compared, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
