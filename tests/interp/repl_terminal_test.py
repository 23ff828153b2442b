"""The mdhi REPL on a pseudo-terminal: what a user at a keyboard sees.

usage: repl_terminal_test.py MDHI SOURCE_DIR
"""
import os
import shutil
import sys
import tempfile
import time

import pexpect

mdhi, src = sys.argv[1], sys.argv[2]
home = tempfile.mkdtemp()
shutil.copy(os.path.join(src, "examples", "matvec.mdh"), home)
env = dict(os.environ, HOME=home, TERM="xterm", NO_COLOR="1")
env.pop("MDHI_HISTORY", None)
PROMPT = r"mdhi> "
failures = []


def step(name, send, expect, keys=False):
    """Sends text (a line unless keys) and waits for a pattern."""
    if keys:
        child.send(send)
    else:
        child.sendline(send)
    try:
        child.expect(expect, timeout=20)
        print("ok:  ", name)
    except (pexpect.TIMEOUT, pexpect.EOF):
        failures.append(name)
        print("FAIL:", name, "-- expected", repr(expect), "got", repr(child.before[-600:]))


child = pexpect.spawn(mdhi, ["matvec.mdh"], cwd=home, env=env, encoding="utf-8", dimensions=(40, 200))
child.expect(r"`:help` lists the commands", timeout=20)
child.expect(PROMPT)

child.send(":ty\t")  # completes to `:type `
step("tab completes a command and a declaration name", "mv_\t\r", r"view mv_in<T: type, I: size, K: size>", keys=True)
child.expect(PROMPT)
step("tab lists ambiguous candidates", ":t matvec_\t", r"matvec_f32_1k\s+matvec_f32_dyn_rows", keys=True)
child.send("\x15")  # Ctrl-U: kill the line
child.sendline("")
child.expect(PROMPT)
step("a run prints its result", ":run matvec --set T=i32,I=2,K=3", r"w: i32\[2\] = \[")
child.expect(PROMPT)
step("an error does not end the session", ":run nothing", r"error\[E0601\]: no mdh named `nothing`")
child.expect(PROMPT)
step("multi-line input shows a continuation prompt", "fn tw(x: i32) -> i32 {", r"\.\.\.\| ")
step("... and continues", "  return x + x;", r"\.\.\.\| ")
child.sendline("}")
child.expect(PROMPT)
step("the multi-line declaration is defined", ":t tw", r"fn tw\(x: i32\) -> i32")
child.expect(PROMPT)
child.send(":this line is abandoned")
child.send("\x03")  # Ctrl-C
step("Ctrl-C discards the line and keeps the session", "", PROMPT, keys=True)
# A Ctrl-C that lands while the editor is busy with pasted text (not waiting
# for a key) must end the line too; libedit's own reader missed those.
missed = 0
for attempt in range(8):
    child.send("abandoned " * 30)
    child.expect("abandoned abandoned", timeout=20)
    child.sendintr()
    try:
        child.expect(PROMPT, timeout=5)
    except pexpect.TIMEOUT:
        missed += 1
        child.send("\x15")  # Ctrl-U, so the next step starts from an empty line
        child.sendline("")
        child.expect(PROMPT, timeout=20)
if missed:
    failures.append("Ctrl-C after pasted text")
    print("FAIL: Ctrl-C after pasted text -- %d of 8 left the text on the line" % missed)
else:
    print("ok:   Ctrl-C after pasted text discards it (8 of 8)")
step("the line after those is clean", ":t tw", r"fn tw\(x: i32\) -> i32")
child.expect(PROMPT)
step("history: Up recalls the previous line", "\x1b[A\r", r"fn tw\(x: i32\) -> i32", keys=True)
child.expect(PROMPT)
step(":quit ends the session", ":q", pexpect.EOF)
child.close()
if child.exitstatus != 0:
    failures.append("exit status %s" % child.exitstatus)

# Ctrl-C during a run stops the evaluation and keeps the session (1000^3
# applications would take the interpreter minutes).
shutil.copy(os.path.join(src, "examples", "matmul.mdh"), home)
child = pexpect.spawn(mdhi, ["matmul.mdh"], cwd=home, env=env, encoding="utf-8", dimensions=(40, 200))
child.expect(PROMPT, timeout=20)
child.sendline(":run matmul --set T=f32,I=1000,J=1000,K=1000")
child.expect(r"note: random inputs", timeout=20)
time.sleep(0.5)  # the evaluation is under way
child.sendintr()
try:
    child.expect(r"error: interrupted", timeout=20)
    child.expect(PROMPT, timeout=20)
    print("ok:   Ctrl-C during a run stops it and keeps the session")
except (pexpect.TIMEOUT, pexpect.EOF):
    failures.append("Ctrl-C during a run")
    print("FAIL: Ctrl-C during a run -- got", repr(child.before[-600:]), "signal", child.signalstatus)
if child.isalive():
    step("the session answers after an interrupted run", ":t matmul", r"mdh matmul<T: type")
    child.expect(PROMPT)
    step("the next run is not interrupted", ":run matmul --set T=i32,I=2,J=2,K=2", r"C: i32\[2, 2\]")
    child.expect(PROMPT)
    child.send("abandoned again")
    child.sendintr()
    step("Ctrl-C at the prompt still discards the line", "", PROMPT, keys=True)
    step(":quit ends the session after an interrupted run", ":q", pexpect.EOF)
    child.close()
    if child.exitstatus != 0:
        failures.append("exit status %s after an interrupted run" % child.exitstatus)

history = os.path.join(home, ".mdhi_history")
# libedit writes spaces as \\040
if os.path.exists(history) and ":t\\040tw" in open(history, errors="replace").read().replace(" ", "\\040"):
    print("ok:   history file written")
else:
    failures.append("history file")
    print("FAIL: history file", history, "missing or without `:t tw`")

shutil.rmtree(home, ignore_errors=True)
if failures:
    print("%d failure(s): %s" % (len(failures), ", ".join(failures)))
    sys.exit(1)
print("all terminal REPL tests passed")
