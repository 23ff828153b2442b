#!/usr/bin/env bash
# cpu_id.sh — prints the identity of this machine's CPU that benchmark results record and that
# benchmarks/run_all.sh compares before reusing a tuned configuration or a TVM database:
# the model name with the family, model number and L3 size, e.g.
#   Intel(R) Xeon(R) Processor (family 6 model 167, L3 480 MiB)
# The model name alone is not enough: virtual machines of two different Xeon generations
# (a 260 MiB and a 480 MiB L3) both called themselves "Intel(R) Xeon(R) Processor".
set -euo pipefail
field() { sed -n "s/^$1[[:space:]]*: *//p" /proc/cpuinfo | head -1; }
name=$(field "model name")
family=$(field "cpu family")
model=$(field "model")
l3=""
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ "$(cat "$d/level" 2>/dev/null)" = 3 ] || continue
  size=$(cat "$d/size" 2>/dev/null || true)
  case "$size" in
    *K) l3="L3 $(( ${size%K} / 1024 )) MiB" ;;
    *M) l3="L3 ${size%M} MiB" ;;
    ?*) l3="L3 $size" ;;
  esac
done
details="${family:+family $family}${model:+ model $model}${l3:+, $l3}"
echo "${name:-unknown CPU}${details:+ ($details)}"
