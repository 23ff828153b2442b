#!/usr/bin/env python3
"""Checks the VS Code extension in lsp/vscode without npm or VS Code.

Usage: check_vscode.py REPO_ROOT

  * package.json, language-configuration.json and the TextMate grammar parse
    as JSON, and package.json points at files that exist (main, grammar,
    language configuration) for the `.mdh` language;
  * every literal token of grammar/MDH.g4 (reserved words, operators,
    punctuation, comment delimiters) and every contextual keyword (`o`, `pw`,
    `ps`, `type`, `size`) gets the right kind of scope when a small
    TextMate tokenizer (first match at the earliest position, as editors do)
    runs the grammar over a line that contains it: a reserved word a keyword,
    storage or language-constant scope, an operator an operator or
    punctuation scope, a comment delimiter a comment scope;
  * extension.js is valid JavaScript (`node --check`, when node is present).
"""
import json
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL", msg)
    sys.exit(1)


def antlr_literals(g4_text):
    """(rule, literal) for every quoted literal outside comments."""
    out = []
    i, n = 0, len(g4_text)
    rule = None
    stmt_start = True
    while i < n:
        c = g4_text[i]
        if g4_text.startswith("//", i):
            i = g4_text.find("\n", i)
            i = n if i < 0 else i
            continue
        if g4_text.startswith("/*", i):
            j = g4_text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "'":
            j = i + 1
            lit = ""
            while j < n and g4_text[j] != "'":
                if g4_text[j] == "\\" and j + 1 < n:
                    lit += g4_text[j + 1]
                    j += 2
                    continue
                lit += g4_text[j]
                j += 1
            out.append((rule, lit))
            i = j + 1
            continue
        if c == "[":  # a lexer character set: skip it whole
            j = i + 1
            while j < n and g4_text[j] != "]":
                j += 2 if g4_text[j] == "\\" else 1
            i = j + 1
            continue
        if stmt_start and (c.isalpha() or c == "_"):
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", g4_text[i:])
            rule = m.group(0)
            stmt_start = False
            i += len(rule)
            continue
        if c == ";":
            stmt_start = True
        i += 1
    return out


class TextMate:
    """A tiny TextMate tokenizer: enough for single-line samples."""

    def __init__(self, grammar):
        self.repo = grammar.get("repository", {})
        self.top = self.flatten(grammar["patterns"])

    def flatten(self, patterns):
        out = []
        for p in patterns:
            if "include" in p:
                out += self.flatten(self.repo[p["include"][1:]]["patterns"])
            elif "patterns" in p and "match" not in p and "begin" not in p:
                out += self.flatten(p["patterns"])
            else:
                out.append(p)
        return out

    def tokenize(self, line):
        """[(start, end, scope)] for the line."""
        pos, tokens = 0, []
        compiled = [(p, re.compile(p.get("match") or p["begin"])) for p in self.top]
        while pos < len(line):
            best = None
            for p, rx in compiled:
                m = rx.search(line, pos)
                if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                    best = (p, m)
            if best is None:
                break
            p, m = best
            if "begin" in p:
                end = re.compile(p["end"]).search(line, m.end())
                stop = end.end() if end else len(line)
                tokens.append((m.start(), stop, p.get("name", "")))
                pos = stop
                continue
            caps = p.get("captures", {})
            for g, spec in caps.items():
                if m.group(int(g)) is not None:
                    tokens.append((m.start(int(g)), m.end(int(g)), spec.get("name", "")))
            if "name" in p:
                tokens.append((m.start(), m.end(), p["name"]))
            pos = m.end()
        return tokens

    def scope_of(self, line, start, end):
        # The innermost (shortest) token wins, as a capture inside a match does.
        covering = sorted(((b - a, s) for (a, b, s) in self.tokenize(line) if a <= start and end <= b))
        return covering[0][1] if covering else None


def main():
    root = os.path.abspath(sys.argv[1])
    ext = os.path.join(root, "lsp", "vscode")
    docs = {}
    for name in ["package.json", "language-configuration.json", "syntaxes/mdh.tmLanguage.json"]:
        try:
            with open(os.path.join(ext, name), encoding="utf-8") as f:
                docs[name] = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            fail(f"{name}: {e}")
    pkg = docs["package.json"]
    langs = pkg.get("contributes", {}).get("languages", [])
    if not any(l.get("id") == "mdh" and ".mdh" in l.get("extensions", []) for l in langs):
        fail("package.json does not contribute the `mdh` language for .mdh files")
    for l in langs:
        if not os.path.exists(os.path.join(ext, l.get("configuration", ""))):
            fail(f"language configuration {l.get('configuration')} does not exist")
    for g in pkg["contributes"].get("grammars", []):
        if not os.path.exists(os.path.join(ext, g["path"])):
            fail(f"grammar {g['path']} does not exist")
        if g["scopeName"] != docs["syntaxes/mdh.tmLanguage.json"]["scopeName"]:
            fail("the grammar's scopeName differs from package.json's")
    if not os.path.exists(os.path.join(ext, pkg["main"])):
        fail(f"main {pkg['main']} does not exist")
    if "vscode-languageclient" not in pkg.get("dependencies", {}):
        fail("package.json does not depend on vscode-languageclient")
    conf = docs["language-configuration.json"]
    if conf["comments"]["lineComment"] != "//" or conf["comments"]["blockComment"] != ["/*", "*/"]:
        fail("language-configuration.json has the wrong comment delimiters")

    tm = TextMate(docs["syntaxes/mdh.tmLanguage.json"])
    with open(os.path.join(root, "grammar", "MDH.g4"), encoding="utf-8") as f:
        literals = antlr_literals(f.read())
    comment_rules = {"DOC_COMMENT", "LINE_COMMENT", "BLOCK_COMMENT", "UNTERMINATED_COMMENT"}
    checked = set()
    problems = []

    def check(line, word, kinds, what, locate=None):
        start = line.find(locate or word)
        scope = tm.scope_of(line, start, start + len(word))
        if not scope or not any(scope.startswith(k) for k in kinds):
            problems.append(f"{what} `{word}` in `{line}` gets scope {scope!r}, expected {' or '.join(kinds)}")

    for rule, lit in literals:
        if (rule in comment_rules, lit) in checked:
            continue
        checked.add((rule in comment_rules, lit))
        if rule in comment_rules:
            sample = {"///": "/// doc", "//": "// note", "/*": "/* note */", "*/": "/* note */",
                      "*": "/* a * b */"}.get(lit)
            if sample is None:
                problems.append(f"unexpected literal `{lit}` in comment rule {rule}")
                continue
            check(sample, lit, ["comment."], "comment delimiter")
        elif re.fullmatch(r"[A-Za-z_]+", lit):
            check(lit, lit, ["keyword.", "storage.", "constant.language."], "reserved word")
        elif rule == "FLOAT":
            continue  # the '.' of a float literal; the '.' token is checked through the parser rules
        else:
            check(f"a {lit} b", lit, ["keyword.operator.", "punctuation."], "operator")
    words = {lit for rule, lit in literals if re.fullmatch(r"[A-Za-z_]+", lit)}
    if not {"fn", "mdh", "md_hom", "inp_view", "out_view", "true"} <= words:
        fail(f"could not read the reserved words from grammar/MDH.g4 (found {sorted(words)})")
    # Contextual keywords, in context.
    check("  o md_hom<N>(f, (++))", "o", ["keyword.operator.composition"], "contextual keyword")
    check("    out_view<T>(O: (i) -> (i)) o md_hom<N>(f, (++))", "o", ["keyword.operator.composition"],
          "contextual keyword", locate="o md_hom")
    check("md_hom<N>(f, (pw(add), ps(max)))", "pw", ["keyword."], "contextual keyword")
    check("md_hom<N>(f, (pw(add), ps(max)))", "ps", ["keyword."], "contextual keyword")
    check("mdh m<T: type, N: size> =", "type", ["storage."], "contextual keyword")
    check("mdh m<T: type, N: size> =", "size", ["storage."], "contextual keyword")
    # ... and the same words as plain names are not keywords.
    line = "fn f(size: i32, o: i32) -> i32 = size + o;"
    for word in ["size", " o"]:
        s = line.find(word) + (1 if word.startswith(" ") else 0)
        scope = tm.scope_of(line, s, s + len(word.strip()))
        if scope and (scope.startswith("keyword") or scope.startswith("storage")):
            problems.append(f"`{word.strip()}` used as a name in `{line}` is highlighted as {scope}")
    if problems:
        for p in problems:
            print("FAIL", p)
        return 1

    node = shutil.which("node") or shutil.which("nodejs")
    if node:
        r = subprocess.run([node, "--check", os.path.join(ext, "extension.js")], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"extension.js: {r.stderr}")
    else:
        print("note: node is not installed; extension.js was not syntax-checked")
    print(f"ok: extension JSON parses; {len(checked)} grammar literals and 5 contextual keywords are highlighted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
