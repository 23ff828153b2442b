#!/usr/bin/env bash
# Tuning OpenCL kernels (issue 6): `mdhc tune --backend opencl` measures a few
# candidates on the default OpenCL device (PoCL here) for a float and an
# integer MatMul; the best configuration is an opencl one that
# `mdhc compile --backend opencl --config` accepts (and the C++ compiles),
# `mdhc run --backend opencl` with it gives exactly mdhi's output (f32 inputs
# are multiples of 1/8 in [-4, 4), so K=40 sums are exact in any order), the
# database records backend opencl and the device, and `compile --backend
# opencl --tune` reuses it.  Skips (exit 77) only when no OpenCL platform exists.
mdhi=$4
source "$(dirname "$0")/common.sh"
if ! $mdhc run "$root/examples/dot.mdh" --entry dot --set T=i32,K=8 --backend opencl >/dev/null 2>"$tmp/probe"; then
  if grep -q "no OpenCL platform\|no OpenCL device" "$tmp/probe"; then
    echo "SKIP: no OpenCL platform or device: $(head -1 "$tmp/probe")"
    exit 77
  fi
  cat "$tmp/probe"; fail "mdhc run --backend opencl does not work"
fi
for set in "--set T=f32,I=64,J=48,K=40" "--set T=i32,I=37,J=29,K=23"; do
  db="$tmp/db-$RANDOM"
  $mdhc tune $PROG $set --backend opencl --evaluations 4 --batch 4 --seed 3 --db "$db" -o "$tmp/best.json" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "mdhc tune --backend opencl ($set)"; }
  tail -2 "$tmp/log"
  grep -q '^tune: best' "$tmp/log" || fail "no summary line ($set)"
  grep -q '"model": "opencl"' "$tmp/best.json" || { cat "$tmp/best.json"; fail "best.json is not an opencl configuration ($set)"; }
  grep -q '"WG"' "$tmp/best.json" && grep -q '"WI"' "$tmp/best.json" || fail "best.json lacks the WG/WI levels ($set)"
  # The database: backend opencl, the device in the machine signature, measurements.
  grep -h '"backend"' "$db"/*.jsonl | head -1 > "$tmp/key"
  grep -q '"backend":"opencl"' "$tmp/key" || { cat "$tmp/key"; fail "the database key does not say backend opencl ($set)"; }
  grep -q 'OpenCL device: ' "$tmp/key" || { cat "$tmp/key"; fail "the machine signature does not name the OpenCL device ($set)"; }
  n=$(cat "$db"/*.jsonl | grep -c '"kind":"measurement"' || true)
  [ "$n" -ge 2 ] || fail "expected at least 2 measurements, got $n ($set)"
  # The best configuration compiles and gives mdhi's output.
  $mdhc compile $PROG $set --backend opencl --config "$tmp/best.json" -o "$tmp/k" >/dev/null 2>"$tmp/clog" ||
    { cat "$tmp/clog"; fail "mdhc compile --backend opencl --config best.json ($set)"; }
  src=$(ls "$tmp/k"/*.cpp | head -1)
  ${CXX:-c++} -std=c++17 -fsyntax-only -I "$tmp/k" "$src" || fail "the emitted host code does not compile ($set)"
  $mdhc run $PROG $set --backend opencl --config "$tmp/best.json" --out C="$tmp/c1.npy" 2>"$tmp/rlog" >/dev/null ||
    { cat "$tmp/rlog"; fail "mdhc run --backend opencl --config best.json ($set)"; }
  "$mdhi" run $PROG $set --out C="$tmp/c2.npy" -q 2>/dev/null || fail "mdhi run ($set)"
  cmp "$tmp/c1.npy" "$tmp/c2.npy" || fail "the tuned OpenCL kernel's output differs from mdhi's ($set)"
  rm -rf "$tmp/k" "$tmp/best.json"
done
# compile --backend opencl --tune: tunes into the (default) database, then reuses it.
set="--set T=i32,I=16,J=24,K=8"
$mdhc compile $PROG $set --backend opencl --tune --tune-evaluations 3 -o "$tmp/t" 2>"$tmp/log1" >/dev/null ||
  { cat "$tmp/log1"; fail "compile --backend opencl --tune"; }
grep -q '"model": "opencl"' "$tmp/t"/*.tuned.json || fail "compile --tune wrote no opencl configuration"
$mdhc compile $PROG $set --backend opencl --tune --tune-evaluations 3 -o "$tmp/t" 2>"$tmp/log2" >/dev/null ||
  { cat "$tmp/log2"; fail "second compile --backend opencl --tune"; }
grep -q "budget spent" "$tmp/log2" || { cat "$tmp/log2"; fail "the second compile --tune did not reuse the database"; }
grep -q "mdh_cl_source" "$tmp/t"/*.cpp || fail "compile --backend opencl --tune wrote no OpenCL host code"
echo "1 passed, 0 failed"
