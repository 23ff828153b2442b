#!/usr/bin/env bash
# Every example and stdlib module: `mdhc check` is clean (no errors, no
# warnings), is already formatted (`mdhc fmt --check`; matvec_paper.mdh keeps
# the paper's notation on purpose), `mdhc fmt` is idempotent, and formatting
# then re-parsing gives the same AST (compared through `--emit=ast`).
set -u
mdhc=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 count=0
for f in "$root"/examples/*.mdh "$root"/stdlib/*.mdh; do
  count=$((count + 1))
  name=$(basename "$f")
  if ! out=$(NO_COLOR=1 "$mdhc" check --Werror "$f" 2>&1); then
    echo "FAIL check $name"; echo "$out"; fail=1; continue
  fi
  if [ "$name" != matvec_paper.mdh ] && ! "$mdhc" fmt --check "$f" > /dev/null; then
    echo "FAIL $name is not formatted: run \`mdhc fmt -i\` on it"; fail=1
  fi
  "$mdhc" fmt "$f" > "$tmp/$name" || { echo "FAIL fmt $name"; fail=1; continue; }
  "$mdhc" fmt "$tmp/$name" > "$tmp/again.mdh" || { echo "FAIL fmt(fmt) $name"; fail=1; continue; }
  cmp -s "$tmp/$name" "$tmp/again.mdh" || { echo "FAIL fmt is not idempotent on $name"; diff "$tmp/$name" "$tmp/again.mdh" | head; fail=1; }
  "$mdhc" --emit=ast "$f" > "$tmp/a1" 2>/dev/null
  (cd "$(dirname "$f")" && "$mdhc" --emit=ast -I "$root/examples" "$tmp/$name") > "$tmp/a2" 2>/dev/null
  cmp -s "$tmp/a1" "$tmp/a2" || { echo "FAIL round trip changes the AST of $name"; diff "$tmp/a1" "$tmp/a2" | head; fail=1; }
  "$mdhc" --emit=hl "$f" > "$tmp/hl.mdh" 2>/dev/null
  "$mdhc" --emit=ast "$tmp/hl.mdh" > "$tmp/a3" 2>/dev/null
  cmp -s "$tmp/a1" "$tmp/a3" || { echo "FAIL --emit=hl output does not re-parse to the same AST for $name"; fail=1; }
done
echo "checked $count files"
[ "$count" -ge 20 ] || { echo "FAIL expected at least 20 example files"; fail=1; }
exit $fail
