#!/usr/bin/env bash
# Without any OpenCL platform (the ICD loader pointed at an empty vendor
# directory) `mdhc run --backend opencl` must fail with a clear message, not crash.
set -u
mdhc=$1 root=$2
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
out=$(OCL_ICD_VENDORS="$empty" OPENCL_VENDOR_PATH="$empty" "$mdhc" run "$root/examples/dot.mdh" --entry dot --set T=i32,K=5 --backend opencl 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "expected exit status 1, got $rc"; exit 1; }
echo "$out" | grep -q "no OpenCL platform found" || { echo "expected 'no OpenCL platform found'"; exit 1; }
