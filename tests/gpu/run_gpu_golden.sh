#!/usr/bin/env bash
# Golden test of emitted GPU code: each `// RUN: ARGS` line of the case gives
# `mdhc compile` arguments (the case file is prepended, -o a temporary
# directory appended); the generated source (.cpp for OpenCL, .cu for CUDA),
# or its header with --header, is matched against the case's CHECK lines
# (--check-prefix=P selects P:).
set -u
mdhc=$1 filecheck=$2 case=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
i=0
while read -r args; do
  i=$((i + 1))
  prefix=$(printf '%s' "$args" | sed -n 's|.*--check-prefix=\([A-Za-z0-9_-]*\).*|\1|p')
  header=$(printf '%s' "$args" | grep -c -- '--header')
  args=$(printf '%s' "$args" | sed 's|--check-prefix=[A-Za-z0-9_-]*||; s|--header||')
  if ! "$mdhc" compile "$case" $args -o "$work/$i" > "$work/$i.log" 2>&1; then
    cat "$work/$i.log"; status=1; continue
  fi
  src=$(ls "$work/$i"/*.cu "$work/$i"/*.cpp 2>/dev/null | head -1)
  [ "$header" -gt 0 ] && src=$(ls "$work/$i"/*.h)
  "$filecheck" --dump-input=fail ${prefix:+--check-prefix=$prefix} "$case" < "$src" || status=1
done < <(grep '^// RUN:' "$case" | sed 's|^// RUN: *||')
exit $status
