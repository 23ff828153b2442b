#!/usr/bin/env bash
# with_numpy.sh: runs a Python script with the first python3 that has numpy ($MDH_PYTHON,
# python3 on PATH, /usr/bin/python3: a pyenv or virtualenv python3 may lack it).
#   usage: with_numpy.sh SCRIPT.py [ARGS...]
set -u
for p in "${MDH_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then
    exec "$p" "$@"
  fi
done
echo "error: no python3 with numpy (scripts/install-deps.sh installs python3-numpy; or set MDH_PYTHON)"
exit 1
