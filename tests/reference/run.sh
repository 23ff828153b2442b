#!/usr/bin/env bash
# Runs check_against_numpy.py with a python3 that has numpy (tests/scripts/with_numpy.sh).
#   usage: run.sh MDHI MDHC [--backends ...]
here=$(dirname "$0")
exec "$here/../scripts/with_numpy.sh" "$here/check_against_numpy.py" "$@"
