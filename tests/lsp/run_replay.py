#!/usr/bin/env python3
"""Replays a scripted JSON-RPC session against mdh-lsp and checks the answers.

Usage: run_replay.py MDH_LSP SCRIPT REPO_ROOT

A script is a sequence of blocks; a block starts with a marker at the start of
a line and runs until the next marker (so JSON may span lines):

  --> {json}        send this message ("jsonrpc": "2.0" is added)
  --> RAW "text"    send raw bytes (a Python string literal; for framing tests)
  <-- {json}        wait for the message this describes and compare:
                      with "id": the response to that request,
                      with "method": the first such notification that matches
  # ...             a comment line (a '#' in column 0; JSON lines never start so)

Expected values match actual ones like this: objects by subset (every
expected key must be present and match), arrays element by element with the
same length, unless the first element is "...contains", in which case every
further expected element must match some actual element; a string starting
with "re:" is a regular expression searched in the actual string.

Substitutions before parsing: ${ROOT} (the repository root), ${URI:rel/path}
(the file URI of ROOT/rel/path), ${TEXT:rel/path} (that file's contents as
JSON string content, without the quotes).

At the end the session must have been closed with shutdown/exit (or the
runner closes it) and the server must exit with status 0.
"""
import ast
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client, file_uri  # noqa: E402


def substitute(text, root):
    text = text.replace("${ROOT}", root)
    text = re.sub(r"\$\{URI:([^}]*)\}", lambda m: file_uri(os.path.join(root, m.group(1))), text)

    def file_text(m):
        with open(os.path.join(root, m.group(1)), encoding="utf-8") as f:
            return json.dumps(f.read())[1:-1]

    return re.sub(r"\$\{TEXT:([^}]*)\}", file_text, text)


def parse_script(path, root):
    blocks = []
    cur = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines, 1):
        if line.startswith("-->") or line.startswith("<--"):
            if cur:
                blocks.append(cur)
            cur = {"dir": line[:3], "text": line[3:], "line": lineno}
        elif line.startswith("#"):
            continue
        elif cur is not None:
            cur["text"] += "\n" + line
    if cur:
        blocks.append(cur)
    for b in blocks:
        body = b["text"].strip()
        if b["dir"] == "-->" and body.startswith("RAW "):
            b["raw"] = ast.literal_eval(body[4:].strip()).encode()
        else:
            try:
                b["json"] = json.loads(substitute(body, root))
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{b['line']}: bad JSON in script: {e}")
    return blocks


def matches(expected, actual, where="$"):
    """Returns None when `actual` matches `expected`, else a description of the first difference."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {json.dumps(actual)[:200]}"
        for k, v in expected.items():
            if k not in actual:
                return f"{where}: missing key {k!r} in {json.dumps(actual)[:300]}"
            err = matches(v, actual[k], f"{where}.{k}")
            if err:
                return err
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{where}: expected an array, got {json.dumps(actual)[:200]}"
        if expected and expected[0] == "...contains":
            for i, e in enumerate(expected[1:]):
                if not any(matches(e, a) is None for a in actual):
                    return f"{where}: no element matches {json.dumps(e)} in {json.dumps(actual)[:500]}"
            return None
        if len(expected) != len(actual):
            return f"{where}: expected {len(expected)} elements, got {len(actual)}: {json.dumps(actual)[:500]}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            err = matches(e, a, f"{where}[{i}]")
            if err:
                return err
        return None
    if isinstance(expected, str) and expected.startswith("re:"):
        if not isinstance(actual, str) or not re.search(expected[3:], actual):
            return f"{where}: {json.dumps(actual)[:300]} does not match /{expected[3:]}/"
        return None
    if expected != actual or type(expected) is not type(actual):
        return f"{where}: expected {json.dumps(expected)}, got {json.dumps(actual)[:300]}"
    return None


def main():
    server, script, root = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    blocks = parse_script(script, root)
    client = Client(server, cwd=root)
    exited = False
    checks = 0
    try:
        for b in blocks:
            if b["dir"] == "-->":
                if "raw" in b:
                    client.send_raw(b["raw"])
                    continue
                msg = dict(b["json"])
                msg.setdefault("jsonrpc", "2.0")
                client.send(msg)
                if msg.get("method") == "exit":
                    exited = True
                continue
            exp = b["json"]
            if "id" in exp and "method" not in exp:
                pred = lambda m, rid=exp["id"]: m.get("id") == rid and "method" not in m  # noqa: E731
            elif "method" in exp:
                pred = lambda m, e=exp: m.get("method") == e["method"] and matches(e, m) is None  # noqa: E731
            else:
                raise SystemExit(f"{script}:{b['line']}: an expectation needs an id or a method")
            try:
                got = client.wait_for(pred, timeout=10.0)
            except TimeoutError:
                pending = "\n".join(json.dumps(m)[:400] for m in client.inbox[-5:])
                print(f"FAIL {script}:{b['line']}: no message matching {json.dumps(exp)[:300]}\n"
                      f"last unmatched messages:\n{pending}")
                return 1
            err = matches(exp, got)
            if err:
                print(f"FAIL {script}:{b['line']}: {err}")
                return 1
            checks += 1
        if not exited:
            client.call("shutdown")
            client.notify("exit")
        rc = client.proc.wait(timeout=10)
        if rc != 0:
            print(f"FAIL {script}: mdh-lsp exited with status {rc}")
            print(client.stderr_text()[-2000:])
            return 1
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait()
    print(f"ok {os.path.basename(script)}: {checks} expectations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
