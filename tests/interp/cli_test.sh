#!/usr/bin/env bash
# Tests of `mdhi run`: results, NumPy interoperability (when a python3 with
# numpy is available), clear errors for bad data, atomic output files, ⊥
# masks, run-time sizes, per-cell and precise evaluation; exit status 2 on
# malformed command lines; strict run-time sizes; bool data; endless inputs;
# outputs through links, devices and FIFOs, never over another output or
# the program.
# usage: cli_test.sh MDHI SOURCE_DIR
set -u
MDHI=$1
SRC=$2
EX=$SRC/examples
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
failures=0
pass() { echo "ok:   $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
# expect DESC STATUS PATTERN -- CMD...: runs CMD, checks its exit status and that stdout+stderr matches PATTERN
expect() {
  local desc=$1 status=$2 pattern=$3
  shift 4
  local out
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$status" ]; then
    fail "$desc (exit $rc, expected $status)"; echo "$out" | sed 's/^/      /'
  elif ! grep -qE -- "$pattern" <<<"$out"; then
    fail "$desc (output does not match /$pattern/)"; echo "$out" | sed 's/^/      /'
  else
    pass "$desc"
  fi
}

PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done

# ---- basics ------------------------------------------------------------------------------------
expect "random inputs, a table" 0 'C: i32\[2, 3\]' -- "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=i32,I=2,J=3,K=4
expect "0-D result" 0 '^C = -?[0-9]+$' -- "$MDHI" run "$EX/dot.mdh" --entry dot --set T=i64,K=5
expect "two outputs" 0 'O2 = ' -- "$MDHI" run "$EX/reduce2.mdh" --entry reduce_add_mul --set T=f64,N=4
expect "records as a table" 0 'a_id +b_id +w +link' -- "$MDHI" run "$EX/prl.mdh" --entry prl --set I=2,J=3
expect "--entry is required" 2 'needs `--entry NAME`' -- "$MDHI" run "$EX/dot.mdh"
expect "unknown entry" 1 'error\[E0601\]: no mdh named `dott`' -- "$MDHI" run "$EX/dot.mdh" --entry dott --set T=f32,K=3
expect "missing meta-parameter" 1 'no value given for meta-parameter `K`' -- "$MDHI" run "$EX/dot.mdh" --entry dot --set T=f32
expect "unknown input buffer" 2 '`X` is not an input buffer' -- "$MDHI" run "$EX/dot.mdh" --entry dot --set T=f32,K=3 --in X=x.npy
expect "an output given as input" 2 'it is an output: use `--out`' -- "$MDHI" run "$EX/dot.mdh" --entry dot --set T=f32,K=3 --in C=x.npy
expect "missing input file" 1 'cannot read `nothere.npy`' -- "$MDHI" run "$EX/dot.mdh" --entry dot --set T=f32,K=3 --in A=nothere.npy
expect "--stats" 0 'stats: 60 scalar-function applications' -- "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --stats -q
expect "seeded random inputs are reproducible" 0 '.*' -- bash -c "test \"\$('$MDHI' run '$EX/dot.mdh' --entry dot --set T=f32,K=9 --seed 5 2>/dev/null)\" = \"\$('$MDHI' run '$EX/dot.mdh' --entry dot --set T=f32,K=9 --seed 5 2>/dev/null)\""
cat > big.mdh <<'MDH'
fn big(x: i32) -> i32 = x * 1000000000;
mdh scale<N: size> = out_view<i32>( O: (i) -> (i) ) o md_hom<N>( big, (++) ) o inp_view<i32>( I: (i) -> (i) );
mdh sum8 = out_view<i8>( O: () -> () ) o md_hom<>( id8, () ) o inp_view<i8>( I: () -> () );
fn id8(x: i8) -> i8 = x;
fn negmin(x: i8) -> i8 {
  let y = x * 0 - 127 - 1;
  return -y;
}
mdh nm = out_view<i8>( O: () -> () ) o md_hom<>( negmin, () ) o inp_view<i8>( I: () -> () );
MDH
cat > nan.mdh <<'MDH'
fn zz(a: f64) -> f64 = (a - a) / (a - a);
mdh nn = out_view<f64>( O: () -> () ) o md_hom<>( zz, () ) o inp_view<f64>( A: () -> () );
MDH
expect "--precise prints a NaN cell's magnitudes as nan, not -nan" 0 '^O = nan  \(reference nan, Σ\|terms\| (nan|inf), ' -- \
  "$MDHI" run nan.mdh --entry nn --precise
expect "--trap-overflow writes the negation of a negative value -(-128), not --128" 1 'integer overflow: `-\(-128\)` does not fit in i8' -- \
  "$MDHI" run big.mdh --entry nm --trap-overflow
expect "integer overflow wraps" 0 'O: i32\[20\]' -- "$MDHI" run big.mdh --entry scale --set N=20
expect "--trap-overflow reports the first overflow with its indices" 1 'integer overflow: `-?[0-9]+ \* 1000000000` does not fit in i32 .* in `big` at MDA index \(i=[0-9]+\)' -- \
  "$MDHI" run big.mdh --entry scale --set N=20 --trap-overflow
expect "D = 0: md_hom<>(f, ()) is f" 0 '^O = -?[0-9]+$' -- "$MDHI" run big.mdh --entry sum8
expect "per-cell evaluation of MatMul 1024^3" 0 '^C\[5, 7\] = ' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=1024,J=1024,K=1024 --cells 'C[5,7]'
expect "precise cells" 0 'C\[1, 2\] = .*reference .*Σ\|terms\| .*bound' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=50 --precise --cells 'C[1,2]'
expect "a cell outside the buffer" 1 'is not a cell of `C`, whose shape is \[3, 4\]' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --cells 'C[3,0]'
expect "--cells of a buffer the entry lacks: a usage error before any data" 2 "^error: \`X\` is not an output buffer of \`matmul\`" -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --cells 'X[0,0]'
expect "--cells ''" 2 '^--cells: must not be empty' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --cells ''
expect "a seed past 2^64 - 1 is refused, not clamped" 2 '^--seed: must be at most 18446744073709551615, not 18446744073709551616' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --seed 18446744073709551616
expect "--out with --cells" 2 'cannot be combined with --cells' -- \
  "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=3,J=4,K=5 --cells 'C[0,0]' --out C=c.npy

# ---- ⊥ cells and atomic outputs ------------------------------------------------------------------
cat > spread.mdh <<'MDH'
fn id32(x: i32) -> i32 = x;
mdh spread<N: size> = out_view<i32>( O: (i) -> (2*i) ) o md_hom<N>( id32, (++) ) o inp_view<i32>( I: (i) -> (i) );
MDH
printf 'old' > O.npy
expect "⊥ cells are an error" 1 'error\[E0903\]: output buffer `O` has 2 undefined' -- "$MDHI" run spread.mdh --entry spread --set N=3 --out O=O.npy
if [ "$(cat O.npy)" = "old" ] && [ -z "$(ls | grep -v -e "^O.npy$" -e "\.mdh$")" ]; then
  pass "a failed run leaves the output untouched and no temporary files"
else
  fail "a failed run changed O.npy or left files: $(ls)"
fi
expect "--allow-undefined writes the output and a mask" 0 'O: i32\[5\] = \[.*, ⊥, .*\]' -- \
  "$MDHI" run spread.mdh --entry spread --set N=3 --out O=O.npy --allow-undefined
[ -f O.defined.npy ] && pass "mask file written" || fail "no mask file O.defined.npy"
expect "bad data fails before anything is written" 1 'not a NumPy .npy file' -- \
  bash -c "echo hello > bad.npy; '$MDHI' run '$EX/dot.mdh' --entry dot --set T=f32,K=3 --in A=bad.npy --out C=O.npy"

# ---- malformed command lines: exit 2, as docs/interpreter.md §1 and `mdhi run --help` say ---------------
cat > small.mdh <<'MDH'
import std;
mdh m<N: size> = out_view<f32>( O: (i) -> (i) ) o md_hom<N>( id, (++) ) o inp_view<f32>( I: (i) -> (i) );
mdh d = out_view<f32>( O: (i) -> (i) ) o md_hom<*>( id, (++) ) o inp_view<f32>( I: (i) -> (i) );
mdh e = out_view<f32>( O: (i) -> (4611686018427387903 * i) ) o md_hom<*>( id, (++) ) o inp_view<f32>( I: (i) -> (i) );
mdh m_dyn = m<*>;
fn two(a: f32) -> (f32, f32) = (a, a + 1.0);
mdh t = out_view<f32, f32>( O: (i) -> (i), P: (i) -> (i) ) o md_hom<4>( two, (++) ) o inp_view<f32>( I: (i) -> (i) );
MDH
expect "--help gives the exit statuses" 0 '2 on a malformed command line' -- "$MDHI" run --help
expect "--in without a file" 2 'malformed `--in I`' -- "$MDHI" run small.mdh --entry m --set N=4 --in I
expect "--in with an empty file name" 2 'malformed `--in I=`' -- "$MDHI" run small.mdh --entry m --set N=4 --in I=
expect "--in without a buffer" 2 'malformed `--in =x.npy`' -- "$MDHI" run small.mdh --entry m --set N=4 --in =x.npy
expect "--set without a value" 2 'malformed --set item `N=`' -- "$MDHI" run small.mdh --entry m --set N=
expect "--set of one name twice" 2 '`N` is set twice' -- "$MDHI" run small.mdh --entry m --set N=4,N=5
expect "--cells with an unclosed bracket" 2 'expected `,` or `\]`' -- "$MDHI" run small.mdh --entry m --set N=4 --cells 'O[1'
expect "--cells naming no cell" 2 'no cells in `;;;`' -- "$MDHI" run small.mdh --entry m --set N=4 --cells ';;;'
expect "--cells index beyond any buffer" 2 'index 9223372036854775807 in `O\[9223372036854775807\]` is out of range' -- \
  "$MDHI" run small.mdh --entry m --set N=4 --cells 'O[9223372036854775807]'
expect "--cells index outside this buffer" 1 'is not a cell of `O`' -- "$MDHI" run small.mdh --entry m --set N=4 --cells 'O[4]'

# npy FILE DESCR SHAPE BYTE...: a .npy file (version 1.0) holding the given bytes (hex) as its data.
npy() {
  local file=$1 descr=$2 shape=$3; shift 3
  local h="{'descr': $descr, 'fortran_order': False, 'shape': ($shape), }"
  local padded=$(( (10 + ${#h} + 1 + 63) / 64 * 64 - 10 ))
  printf "\x93NUMPY\x01\x00$(printf '\\x%02x\\x%02x' $((padded & 255)) $((padded >> 8)))" > "$file"
  printf '%-*s\n' $((padded - 1)) "$h" >> "$file"
  for b; do printf "\\x$b" >> "$file"; done
}

# ---- run-time sizes: one strict reading (E0603), errors that say what is wrong ------------------------------
for bad in 3abc 3.9 3e0 ' 3' abc 0x3 -3 0 '*' 99999999999999999999; do
  expect "run-time size \`$bad\` refused" 1 "error\[E0603\]: invalid value \`$(sed 's/[.*]/\\&/g' <<<"$bad")\` for run-time size \`N1\`" -- \
    "$MDHI" run small.mdh --entry d --set "N1=$bad" -q
done
expect "run-time size 3 accepted" 0 '^O: f32\[3\]' -- "$MDHI" run small.mdh --entry d --set N1=3
expect "a name that is no size" 1 'E0605\]: `Q` is neither a meta-parameter nor a run-time size of `d`' -- \
  "$MDHI" run small.mdh --entry d --set N1=3,Q=4
# An alias entry's size errors point at the alias, not at the generic it names (line 2).
expect "E0605 at the alias entry" 1 'small.mdh:5:1: error\[E0605\]: `Q` is neither' -- "$MDHI" run small.mdh --entry m_dyn --set N=3,Q=4
expect "E0603 at the alias entry" 1 'small.mdh:5:1: error\[E0603\]: invalid value `x`' -- "$MDHI" run small.mdh --entry m_dyn --set N=x
npy rank2.npy "'<f4'" '2, 2' $(printf '00 %.0s' $(seq 16))
expect "an input of the wrong rank" 1 'E0906\]: input buffer `I` has the wrong shape: expected 1 dimension \(\[N1\]\), got 2 \(\[2, 2\]\)' -- \
  "$MDHI" run small.mdh --entry d --in I=rank2.npy
expect "an extent that overflows" 1 'size `.*` cannot be computed in 64-bit arithmetic with N1 = 3' -- "$MDHI" run small.mdh --entry e --set N1=3 -q

# ---- data files: bools, endless inputs ---------------------------------------------------------------
cat > bools.mdh <<'MDH'
fn f(b: bool) -> i32 = (b as i32) + (b ? 10 : 20);
mdh n = out_view<i32>( O: (i) -> (i) ) o md_hom<4>( f, (++) ) o inp_view<bool>( I: (i) -> (i) );
MDH
npy good_bools.npy "'|b1'" 4, 00 01 01 00
npy bad_bools.npy "'|b1'" 4, 00 01 02 ff
expect "bools 0 and 1" 0 'O: i32\[4\] = \[20, 11, 11, 20\]' -- "$MDHI" run bools.mdh --entry n --in I=good_bools.npy
expect "a bool byte other than 0 and 1" 1 'input buffer `I`: `bad_bools.npy` holds the byte 2 at element \[2\], which is not a bool' -- \
  "$MDHI" run bools.mdh --entry n --in I=bad_bools.npy
expect "an endless input (/dev/zero)" 1 'input buffer `I`: `/dev/zero`: not a NumPy .npy file' -- \
  timeout 20 "$MDHI" run small.mdh --entry m --set N=4 --in I=/dev/zero
mkfifo in.fifo
timeout 20 sh -c 'cat good_bools.npy > in.fifo' &
expect "an input through a FIFO" 0 'O: i32\[4\] = \[20, 11, 11, 20\]' -- timeout 20 "$MDHI" run bools.mdh --entry n --in I=in.fifo
wait

# ---- where outputs go: links followed, devices and FIFOs written through, no file overwritten twice ----------
mkdir -p data
echo old > data/target.npy
ln -s data/target.npy link.npy
expect "--out through a symbolic link" 0 '^$' -- "$MDHI" run small.mdh --entry m --set N=4 -q --out O=link.npy
if [ -L link.npy ] && head -c 6 data/target.npy | grep -q NUMPY; then pass "the link is kept and its target written"
else fail "the link was replaced or its target not written: $(ls -l link.npy data/target.npy)"; fi
ln -s data/fresh.npy dangling.npy
expect "--out through a dangling link" 0 '^$' -- "$MDHI" run small.mdh --entry m --set N=4 -q --out O=dangling.npy
[ -L dangling.npy ] && [ -s data/fresh.npy ] && pass "a dangling link's target is created" || fail "dangling link: $(ls -l dangling.npy data)"
echo old > kept_mode.npy; chmod 640 kept_mode.npy
expect "--out over an existing file" 0 '^$' -- "$MDHI" run small.mdh --entry m --set N=4 -q --out O=kept_mode.npy
[ "$(stat -c %a kept_mode.npy)" = 640 ] && pass "a replaced output keeps its permissions" || fail "mode now $(stat -c %a kept_mode.npy)"
echo old > linked.npy; ln linked.npy linked2.npy
expect "--out to a file with two hard links" 0 '^$' -- "$MDHI" run small.mdh --entry m --set N=4 -q --out O=linked.npy
cmp -s linked.npy linked2.npy && head -c 6 linked2.npy | grep -q NUMPY && pass "both hard links see the output" || fail "a hard link was broken"
mkfifo out.fifo
timeout 20 cat out.fifo > from_fifo.npy &
expect "--out to a FIFO" 0 '^$' -- timeout 20 "$MDHI" run small.mdh --entry m --set N=4 -q --out O=out.fifo
wait
[ -p out.fifo ] && head -c 6 from_fifo.npy | grep -q NUMPY && pass "the FIFO is written through and kept" || fail "FIFO: $(ls -l out.fifo from_fifo.npy)"
if mknod mynull c 1 3 2>/dev/null; then # a private /dev/null (needs root)
  expect "--out to a character device" 0 '^$' -- "$MDHI" run small.mdh --entry m --set N=4 -q --out O=mynull
  [ -c mynull ] && pass "the device is written through and kept" || fail "the device was replaced: $(ls -l mynull)"
fi
expect "one file under two spellings" 1 '`x.npy` and `./x.npy` are the same file' -- \
  "$MDHI" run small.mdh --entry t -q --out O=x.npy --out P=./x.npy
[ ! -e x.npy ] && pass "nothing written for outputs that collide" || fail "x.npy written despite the collision"
expect "one file through a link" 1 'are the same file' -- "$MDHI" run small.mdh --entry t -q --out O=link.npy --out P=data/target.npy
cp small.mdh victim.mdh
expect "--out over the program" 2 'cannot write `victim.mdh`: it is a source file of the program' -- \
  "$MDHI" run victim.mdh --entry m --set N=4 -q --out O=victim.mdh
cmp -s small.mdh victim.mdh && pass "the program is kept" || fail "the program was overwritten"
expect "--out over the program, other spelling" 2 'it is a source file of the program' -- \
  "$MDHI" run victim.mdh --entry m --set N=4 -q --out O=./data/../victim.mdh

if [ -z "$PY" ]; then
  echo "note: no python3 with numpy; NumPy interoperability tests skipped"
  [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
  exit 0
fi

# ---- NumPy interoperability -------------------------------------------------------------------
"$PY" - <<'PY'
import numpy as np
np.save("O_mask_check.npy", np.load("O.defined.npy"))
m = np.load("O.defined.npy"); o = np.load("O.npy")
assert m.dtype == np.bool_ and list(m) == [True, False, True, False, True], m
assert o.dtype == np.int32 and o.shape == (5,)
rng = np.random.default_rng(7)
np.save("M.npy", rng.standard_normal((5, 7)))                     # float64
np.save("v.npy", rng.standard_normal(7))
np.save("A32.npy", (rng.standard_normal((4, 6)) / 3).astype(np.float32))
np.save("B32.npy", (rng.standard_normal((6, 3)) / 7).astype(np.float32))
np.save("Mbad.npy", rng.standard_normal((5, 7)).astype(np.float32))
np.save("Mshape.npy", rng.standard_normal((7, 5)))
np.save("Mfortran.npy", np.asfortranarray(rng.standard_normal((5, 7))))
np.save("d9.npy", np.arange(9, dtype=np.int64) - 4)
np.save("d8.npy", np.arange(8, dtype=np.int64))
np.save("big.npy", rng.standard_normal((5, 7)).astype('>f8'))
person = np.dtype([('id','<i8'),('first_name','<i8'),('last_name','<i8'),('birth_year','<i4'),('sex','u1'),('zip','<i4'),('block','<i4')], align=True)
N = np.array([(100,1,2,1980,1,5000,7),(101,3,4,1990,0,6000,7)], dtype=person)
E = np.array([(7,1,2,1980,1,5000,7),(5,3,4,1991,0,6000,7),(3,1,2,1980,1,5000,7)], dtype=person)
np.save("N.npy", N); np.save("E.npy", E)
packed = np.dtype([('id','<i8'),('first_name','<i8'),('last_name','<i8'),('birth_year','<i4'),('sex','u1'),('zip','<i4'),('block','<i4')])
np.save("Npacked.npy", N.astype(packed))
PY
head -c 100 M.npy > Mtrunc.npy

expect "matvec f64 from NumPy files" 0 '^w: f64\[5\]' -- "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=M.npy --in v=v.npy --out w=w.npy
expect "matmul f32 from NumPy files" 0 'C: f32\[4, 3\]' -- "$MDHI" run "$EX/matmul.mdh" --entry matmul --set T=f32,I=4,J=3,K=6 --in A=A32.npy --in B=B32.npy --out C=C.npy
expect "PRL with structured (align=True) dtypes" 0 'M: Match\[2\]' -- "$MDHI" run "$EX/prl.mdh" --entry prl --set I=2,J=3 --in N=N.npy --in E=E.npy --out M=M_out.npy
expect "run-time size from the data" 0 '^C = ' -- "$MDHI" run "$EX/dot.mdh" --entry dot_i64_dyn --in A=d9.npy --in B=d9.npy --out C=dot.npy
expect "wrong dtype" 1 'input buffer `M`: `Mbad.npy` has the wrong element type: expected f64 .* got float32' -- \
  "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=Mbad.npy --in v=v.npy
expect "wrong shape" 1 'input buffer `M` has the wrong shape: expected \[5, 7\] .*got \[7, 5\]' -- \
  "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=Mshape.npy --in v=v.npy
expect "truncated file" 1 'truncated' -- "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=Mtrunc.npy --in v=v.npy
expect "Fortran order" 1 'Fortran' -- "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=Mfortran.npy --in v=v.npy
expect "big-endian" 1 'big-endian' -- "$MDHI" run "$EX/matvec.mdh" --entry matvec --set T=f64,I=5,K=7 --in M=big.npy --in v=v.npy
expect "packed record dtype" 1 'align=True' -- "$MDHI" run "$EX/prl.mdh" --entry prl --set I=2,J=3 --in N=Npacked.npy --in E=E.npy
expect "inconsistent run-time sizes" 1 'input buffer `B` has the wrong shape: expected \[9\] \(derived: \[K\] with K = 9\), got \[8\]' -- \
  "$MDHI" run "$EX/dot.mdh" --entry dot_i64_dyn --in A=d9.npy --in B=d8.npy
expect "a run-time size from --set against the data" 1 'input buffer `A` has the wrong shape: expected \[8\] \(derived: \[K\] with K = 8\), got \[9\]' -- \
  "$MDHI" run "$EX/dot.mdh" --entry dot_i64_dyn --set K=8 --in A=d9.npy --in B=d9.npy

"$PY" - <<'PY' && pass "NumPy reads the outputs and they match loop references" || fail "NumPy check of the outputs"
import numpy as np
M = np.load("M.npy"); v = np.load("v.npy"); w = np.load("w.npy")
assert w.dtype == np.float64 and w.shape == (5,)
for i in range(5):
    acc = M[i, 0] * v[0]
    for k in range(1, 7): acc = acc + M[i, k] * v[k]
    assert w[i] == acc, (i, w[i], acc)
A = np.load("A32.npy"); B = np.load("B32.npy"); C = np.load("C.npy")
assert C.dtype == np.float32 and C.shape == (4, 3)
for i in range(4):
    for j in range(3):
        acc = np.float32(A[i, 0] * B[0, j])
        for k in range(1, 6): acc = np.float32(acc + np.float32(A[i, k] * B[k, j]))
        assert C[i, j] == acc, (i, j, C[i, j], acc)
match = np.dtype([('a_id','<i8'),('b_id','<i8'),('w','<f8'),('link','i1')], align=True)
Mo = np.load("M_out.npy")
assert Mo.dtype == match, Mo.dtype
assert list(Mo['a_id']) == [100, 101] and Mo['b_id'][0] == 3 and Mo['link'][0] == 2, Mo
d = np.load("d9.npy"); assert np.load("dot.npy").shape == () and np.load("dot.npy") == (d * d).sum()
PY

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all CLI tests passed"
