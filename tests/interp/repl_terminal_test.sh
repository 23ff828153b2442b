#!/usr/bin/env bash
# The REPL on a real terminal (a pseudo-terminal driven by pexpect): libedit
# line editing, tab completion, history file, multi-line input, Ctrl-C,
# errors that do not end the session.  Exits 77 (skipped) without pexpect.
# usage: repl_terminal_test.sh MDHI SOURCE_DIR
set -u
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import pexpect' 2>/dev/null; then
    exec "$py" "$(dirname "$0")/repl_terminal_test.py" "$1" "$2"
  fi
done
echo "skipped: no python3 with pexpect (apt-get install python3-pexpect)"
exit 77
