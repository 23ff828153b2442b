#!/usr/bin/env bash
# The REPL driven by a script on stdin: every command, abbreviations,
# multi-line declarations, and errors that do not end the session.
# usage: repl_script_test.sh MDHI SOURCE_DIR
set -u
MDHI=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
cp "$SRC/examples/matvec.mdh" .
out=$("$MDHI" matvec.mdh 2>&1 <<'SCRIPT'
:type matvec
:t mv_in
:info matvec
:browse
:set T=i32,I=3,K=2 --seed 4
:set
:run matvec
:set --print-limit 2 --quiet
:set
:unset --print-limit --quiet
:set
:print w
:print w[1]
:print
:ru matvec --cells w[2]
:run matvec --set T=f64 --precise --cells 'w[0]'
:bogus
:run nonexistent
:type nothing
mdh mine = matvec<i64, 2, 2>;
mine
fn twice(x: i32) -> i32 {
  let y = x + x;
  return y;
}
:type twice
:{
record Pair {
  a: i32,
  b: f64,
}
:}
:i Pair
mdh broken = nonsense<f32>;
:t twice
:set T=f32,T=i32
:unset
:set -q
:unset --quiet
:unset T
:run matvec
:load missing.mdh
:t matvec
:load matvec.mdh
:reload
:t matvec
:h
:q
:type matvec
SCRIPT
)
rc=$?
failures=0
check() {
  if grep -qE -- "$1" <<<"$out"; then echo "ok:   $2"; else echo "FAIL: $2 (no /$1/)"; failures=$((failures + 1)); fi
}
check '^mdh matvec<T: type, I: size, K: size> : \(M: T\[I, K\], v: T\[K\]\) -> \(w: T\[I\]\)' ":type of an mdh"
check '^view mv_in<T: type, I: size, K: size> = inp_view' ":t abbreviation, a view"
check '^/// Matrix-vector product' ":info shows the documentation"
check 'declared at .*matvec.mdh:[0-9]+:[0-9]+' ":info shows the location"
check 'out_view<T>\( w: \(i,k\) -> \(i\) \)' ":info shows the program"
check '^-- .*std.mdh' ":browse lists the modules"
check '^settings: T=i32,I=3,K=2' ":set remembers settings"
check 'seed: 4' ":set --seed"
check '^seed: 4, --quiet, --print-limit 2$' ":set shows --print-limit and --quiet"
check '^seed: 4$' ":unset --print-limit --quiet forgets them"
check '^w: i32\[3\] = \[' ":run with remembered settings"
check '^w\[1\] = -?[0-9]+$' ":print a cell"
check '^output w: i32\[3\]' ":print lists buffers"
check '^w\[2\] = -?[0-9]+$' ":ru abbreviation with --cells"
check '^w\[0\] = .*\(reference .*bound' ":run --precise --cells"
check 'error: unknown command `:bogus`' "unknown command"
check 'error: `T` is set twice \(`f32` and `i32`\)$' ":set refuses a name twice in one command"
check 'error: `:unset` needs what to forget' ":unset alone says what it needs"
check 'error\[E0601\]: no mdh named `nonexistent`' "unknown entry"
check 'unknown name `nothing`' ":type of an unknown name"
check '^w: i64\[2\] = \[' "a declaration typed in, then run by name"
check '^fn twice\(x: i32\) -> i32' "a multi-line function"
check '^record Pair \{ a: i32, b: f64 \}' ":{ ... :} block and :i"
check 'error\[E[0-9]+\]: .*nonsense' "a bad declaration is reported"
check 'no value given for meta-parameter `T`' ":unset"
check 'cannot read|not found|No such file' ":load of a missing file"
check 'note: the session keeps what it had loaded before \(.*matvec.mdh\)' "a failed :load keeps the session"
check '^mdh matvec<T: type' "after a failed :load, the loaded file still answers :t"
check '^loaded matvec.mdh' ":load"
check '^reloaded matvec.mdh' ":reload"
check 'Commands \(any unambiguous prefix works' ":help"
if grep -q '^mdh matvec<T: type.*$' <<<"$(sed -n '/^Commands/,$p' <<<"$out")"; then
  echo "FAIL: input after :q was read"; failures=$((failures + 1))
else
  echo "ok:   :q ends the session"
fi
[ "$rc" -eq 1 ] && echo "ok:   exit status 1 after errors in a script" || { echo "FAIL: exit status $rc"; failures=$((failures + 1)); }

# Brackets that can never balance are submitted at once, and a command is
# never taken as declaration text: it submits what is pending first.
stray=$("$MDHI" matvec.mdh 2>&1 <<'SCRIPT'
)
:type matvec
fn unfinished(x: i32) -> i32 {
:type matvec
:quit
:type matvec
SCRIPT
)
stray_rc=$?
if [ "$(grep -c '^mdh matvec<T: type' <<<"$stray")" -eq 2 ]; then
  echo "ok:   commands after a stray \`)\` and after an unfinished declaration run; :quit still ends the session"
else
  echo "FAIL: commands after a stray \`)\` or an unfinished declaration (want :type twice, not after :quit)"
  failures=$((failures + 1))
fi
if [ "$(grep -c 'error\[E0001\]' <<<"$stray")" -ge 2 ] && [ "$stray_rc" -eq 1 ]; then
  echo "ok:   the stray \`)\` and the unfinished declaration are reported (exit status 1)"
else
  echo "FAIL: the stray \`)\` and the unfinished declaration were not both reported (exit status $stray_rc)"
  failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then echo "---- transcript of the stray-bracket script ----"; echo "$stray"; fi
# A continuation line that starts with `:` but is no command (a conditional's
# second branch) stays declaration text.
cond=$("$MDHI" 2>&1 <<'SCRIPT'
fn absval(a: i32) -> i32 = a > 0 ? a
  : 0 - a;
:type absval
SCRIPT
)
if grep -q 'absval' <<<"$cond" && ! grep -q 'error' <<<"$cond"; then
  echo "ok:   a continuation line starting with \`:\` is declaration text"
else
  echo "FAIL: a continuation line starting with \`:\` was taken for a command"; echo "$cond"
  failures=$((failures + 1))
fi
# A typed instantiation whose error lies in the loaded file (size 0 of a
# dimension, an operator the type lacks) is reported, typed twice twice, and
# the file's own warnings are not repeated with it.
cat > gen.mdh <<'MDH'
mdh colsum<T: type, N: size, M: size> =
    out_view<T>( C: (i, j) -> (j) )
  o md_hom<N, M>( id, (pw(add), ++) )
  o inp_view<T>( A: (i, j) -> (i, j) );
fn id<T: type>(x: T) -> T = x;
MDH
inst=$("$MDHI" gen.mdh 2>&1 <<'SCRIPT'
mdh zero = colsum<f32, 0, 3>;
mdh zero = colsum<f32, 0, 3>;
mdh flags = colsum<bool, 2, 3>;
:t zero
SCRIPT
)
if [ "$(grep -c 'gen.mdh:[0-9]*:[0-9]*: error\[E0616\]' <<<"$inst")" -eq 2 ] &&
   grep -q 'gen.mdh:[0-9]*:[0-9]*: error\[E0502\]' <<<"$inst" && grep -q 'unknown name `zero`' <<<"$inst"; then
  echo "ok:   errors a typed instantiation raises in the loaded file are printed, each time"
else
  echo "FAIL: errors of a typed instantiation located in the loaded file were not printed"; echo "$inst"
  failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then
  echo "---- transcript ----"; echo "$out"; echo "$failures failure(s)"; exit 1
fi
echo "all REPL script tests passed"
