#!/usr/bin/env bash
# Golden diagnostic test: runs `mdhc check` on one bad input and matches the
# output against the file's own `// CHECK:` lines with FileCheck.  The
# expected exit status is 1 unless the file says `// EXIT: N`; `// FILECHECK: ARGS`
# adds FileCheck options (`--strict-whitespace` for carets under the source).
set -u
mdhc=$1 filecheck=$2 case=$3
expected_exit=$(sed -n 's|^// EXIT: *\([0-9]*\).*|\1|p' "$case" | head -1)
expected_exit=${expected_exit:-1}
extra=$(sed -n 's|^// ARGS: *\(.*\)$|\1|p' "$case" | head -1)
filecheck_args=$(sed -n 's|^// FILECHECK: *\(.*\)$|\1|p' "$case" | head -1)
cd "$(dirname "$case")"
out=$(NO_COLOR=1 timeout 20 "$mdhc" check $extra "$(basename "$case")" 2>&1)
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "expected exit status $expected_exit, got $status; output:"
  echo "$out"
  exit 1
fi
printf '%s\n' "$out" | "$filecheck" --dump-input=fail $filecheck_args "$(basename "$case")"
