#!/usr/bin/env bash
# Golden test of a printed pipeline stage: the file's `// RUN: ARGS` line
# gives mdhc's arguments (the file name is appended); output is matched
# against the `// CHECK:` lines with FileCheck.
set -u
mdhc=$1 filecheck=$2 case=$3
cd "$(dirname "$case")"
status=0
grep '^// RUN:' "$(basename "$case")" | sed 's|^// RUN: *||' | while read -r args; do
  prefix=$(printf '%s' "$args" | sed -n 's|.*--check-prefix=\([A-Za-z0-9_-]*\).*|\1|p')
  args=$(printf '%s' "$args" | sed 's|--check-prefix=[A-Za-z0-9_-]*||')
  NO_COLOR=1 timeout 60 "$mdhc" $args "$(basename "$case")" 2>&1 |
    "$filecheck" --dump-input=fail ${prefix:+--check-prefix=$prefix} "$(basename "$case")" || exit 1
done || status=1
exit $status
