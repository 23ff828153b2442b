#!/usr/bin/env python3
"""Fuzzes mdh-lsp with random edit sequences, bounded in time.

Usage: fuzz_edits.py MDHC MDH_LSP REPO_ROOT [SECONDS] [SEED]

Each round opens a real .mdh file (examples, stdlib, test inputs) under a
temporary path and applies random incremental edits: deletions, insertions of
tokens, keywords, non-ASCII text (including characters outside the BMP, which
are two UTF-16 units), pieces of other files, ranges past the end of a line or
of the file, and whole-text replacements.  After every edit it sends random
requests at random positions.  It checks that

  * every request is answered within the time limit, with a result or with
    RequestFailed (a refused rename or format), never an internal error;
  * the process stays alive and exits cleanly at the end;
  * the answers are well formed (semantic tokens in groups of five, ranges
    with start <= end);
  * after the last edit of a round, the published diagnostics equal what
    `mdhc check` says about the text as this script applied the edits (so
    incremental synchronisation kept the server's text identical);
  * every module the incremental parser assembled equals a whole-file parse
    (the server runs with --verify-incremental and reports mismatches).

The seed is printed, so a failure can be replayed with the same SEED.
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client, file_uri  # noqa: E402
from check_diagnostics_match import LINE_BREAK, cli_diagnostics, lsp_diagnostics, lsp_lines  # noqa: E402

SNIPPETS = ["fn", "mdh", "record", "combine", "view", "import", "let", "mut", "if", "else", "return", "as",
            "md_hom", "inp_view", "out_view", "pw", "ps", "o", "∘", "→", "↦", "->", "(", ")", "{", "}", "[", "]",
            "<", ">", ",", ";", ":", ".", "=", "+", "*", "++", "&&", "@", "@assoc", "/*", "*/", "//", "///",
            "0", "1.5", "1e9", "99999999999999999999999", "x", "T", "N", "f32", "i64", "idx", "Item", "a.b.c",
            "😀", "é", "\t", "\n", " ", "\r\n", "\x00", "(i, k) -> (i)", "md_hom<N>(f, (++))", "pw(add)"]

REQUESTS = ["textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
            "textDocument/definition", "textDocument/references", "textDocument/documentHighlight",
            "textDocument/prepareRename", "textDocument/rename", "textDocument/documentSymbol",
            "textDocument/semanticTokens/full", "textDocument/foldingRange", "textDocument/inlayHint",
            "textDocument/formatting"]


def utf16_len(s):
    return sum(2 if ord(c) >= 0x10000 else 1 for c in s)


def offset_of(text, line, char):
    """Python index of an LSP position, clamped like the server does (before the line break)."""
    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    if line >= len(starts):
        return len(text)
    idx = starts[line]
    units = 0
    for ch in lsp_lines(text)[line]:
        w = 2 if ord(ch) >= 0x10000 else 1
        if units + w > char:
            break
        units += w
        idx += 1
    return idx


def random_position(rng, text, wild=False):
    lines = lsp_lines(text)
    line = rng.randrange(len(lines) + (3 if wild else 0))
    width = utf16_len(lines[line]) if line < len(lines) else 0
    char = rng.randrange(width + (10 if wild else 1))
    return {"line": line, "character": char}


def random_edit(rng, text, corpus):
    kind = rng.random()
    if kind < 0.05:
        return None, rng.choice(corpus)[: rng.randrange(1, 4000)]  # whole-text replacement
    start = random_position(rng, text, wild=rng.random() < 0.1)
    end = dict(start)
    if kind < 0.4:  # delete or replace a short range
        lines = lsp_lines(text)
        end["line"] = min(start["line"] + (1 if rng.random() < 0.2 else 0), len(lines) + 2)
        end["character"] = start["character"] + rng.randrange(0, 12)
    if kind < 0.7:
        new = rng.choice(SNIPPETS)
    elif kind < 0.85:
        src = rng.choice(corpus)
        a = rng.randrange(len(src) + 1)
        new = src[a:a + rng.randrange(0, 120)]
    else:
        new = "".join(rng.choice("abcxyz_019 ()[]{}<>,.;:+-*/&|^!~?=@\n∘😀é") for _ in range(rng.randrange(1, 8)))
    return {"start": start, "end": end}, new


def apply(text, rng_range, new):
    if rng_range is None:
        return new
    s = offset_of(text, rng_range["start"]["line"], rng_range["start"]["character"])
    e = offset_of(text, rng_range["end"]["line"], rng_range["end"]["character"])
    if e < s:
        s, e = e, s
    return text[:s] + new + text[e:]


def well_formed(method, result):
    if method == "textDocument/semanticTokens/full":
        return isinstance(result, dict) and len(result["data"]) % 5 == 0
    def check_range(r):
        return (r["start"]["line"], r["start"]["character"]) <= (r["end"]["line"], r["end"]["character"])
    if method in ("textDocument/definition", "textDocument/references"):
        return all(check_range(l["range"]) for l in result)
    if method == "textDocument/documentSymbol":
        return all(check_range(s["range"]) and check_range(s["selectionRange"]) for s in result)
    return True


def main():
    mdhc, server, root = (os.path.abspath(a) for a in sys.argv[1:4])
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else random.randrange(1 << 30)
    print(f"seed {seed}, {seconds:.0f} s")
    rng = random.Random(seed)
    files = [f for p in ["examples/*.mdh", "stdlib/*.mdh", "tests/lsp/inputs/*.mdh"]
             for f in sorted(glob.glob(os.path.join(root, p))) if not f.endswith("user.mdh")]
    corpus = [open(f, encoding="utf-8").read() for f in files]
    tmp = tempfile.mkdtemp(prefix="mdh-lsp-fuzz-")
    client = Client(server, ["--stdlib", os.path.join(root, "stdlib"), "--verify-incremental"], cwd=root)
    client.initialize(root)
    deadline = time.monotonic() + seconds
    rounds = edits = requests = 0
    failures = []
    try:
        while time.monotonic() < deadline and not failures:
            rounds += 1
            i = rng.randrange(len(files))
            path = os.path.join(tmp, f"round{rounds}.mdh")
            text = corpus[i]
            uri = client.open(path, text)
            version = 1
            for _ in range(rng.randrange(5, 40)):
                rr, new = random_edit(rng, text, corpus)
                version += 1
                change = {"text": new} if rr is None else {"range": rr, "text": new}
                client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": [change]})
                text = apply(text, rr, new)
                edits += 1
                for _ in range(rng.randrange(0, 3)):
                    method = rng.choice(REQUESTS)
                    params = {"textDocument": {"uri": uri}}
                    if method not in ("textDocument/documentSymbol", "textDocument/semanticTokens/full",
                                      "textDocument/foldingRange", "textDocument/formatting",
                                      "textDocument/inlayHint"):
                        params["position"] = random_position(rng, text, wild=rng.random() < 0.1)
                    if method == "textDocument/references":
                        params["context"] = {"includeDeclaration": rng.random() < 0.5}
                    if method == "textDocument/rename":
                        params["newName"] = rng.choice(["y", "z2", "fn", "1x", "Item"])
                    if method == "textDocument/inlayHint":
                        params["range"] = {"start": {"line": 0, "character": 0}, "end": random_position(rng, text, True)}
                    if method == "textDocument/formatting":
                        params["options"] = {"tabSize": 2, "insertSpaces": True}
                    requests += 1
                    try:
                        resp = client.call(method, params, timeout=10.0)
                    except (TimeoutError, EOFError) as e:
                        failures.append(f"{method} got no answer ({e}) in round {rounds}")
                        break
                    if "error" in resp and resp["error"]["code"] != -32803:
                        failures.append(f"{method} failed: {resp['error']} in round {rounds}")
                    elif "result" in resp and resp["result"] is not None and not well_formed(method, resp["result"]):
                        failures.append(f"{method} answered malformed {str(resp['result'])[:300]}")
                if failures or client.proc.poll() is not None:
                    break
            if failures or client.proc.poll() is not None:
                break
            # The server's text must equal ours: compare the diagnostics with mdhc's on our text.
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            note = client.notification("textDocument/publishDiagnostics",
                                       pred=lambda m, u=uri, v=version: m["params"]["uri"] == u and
                                       m["params"].get("version") == v, timeout=10.0)
            got = lsp_diagnostics(note["params"]["diagnostics"], path, text)
            want = [(s, c, m, f if f is not None else os.path.basename(path), l or 1, co or 1)
                    for (s, c, m, f, l, co) in cli_diagnostics(mdhc, path)]
            if got != want:
                failures.append(f"round {rounds}: diagnostics differ from mdhc's after the edits\n"
                                f"  mdhc: {want[:4]}\n  lsp:  {got[:4]}")
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            client.inbox.clear()
        if client.proc.poll() is not None:
            failures.append(f"mdh-lsp died with status {client.proc.returncode}: "
                            f"{client.stderr_text()[-1000:]}")
        else:
            rc = client.close()
            if rc != 0:
                failures.append(f"mdh-lsp exited with status {rc}")
            err = client.stderr_text()
            if "incremental parse mismatch" in err:
                failures.append("an incrementally parsed module differed from the whole-file parse:\n" + err[-2000:])
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
        for f in glob.glob(os.path.join(tmp, "*")):
            os.remove(f)
        os.rmdir(tmp)
    print(f"{rounds} rounds, {edits} edits, {requests} requests")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
