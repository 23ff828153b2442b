#!/usr/bin/env bash
# Every benchmark workload (benchmarks/workloads/programs.json, full sizes)
# gets a valid default configuration: `mdhc --emit=ll` validates it and
# fails with the violated constraint otherwise.  Regression for defaults that
# broke the unroll bound (MCC ResNet-50, 2^24 scans).
set -u
mdhc=$1 root=$2
status=0
while IFS='|' read -r id file entry set; do
  if ! out=$("$mdhc" --emit=ll "$root/$file" --entry "$entry" --set "$set" 2>&1); then
    echo "FAIL $id: $out"; status=1
  else
    echo "ok   $id"
  fi
done < <(/usr/bin/python3 -c "
import json,sys
d=json.load(open('$root/benchmarks/workloads/programs.json'))['programs']
for k,v in d.items(): print('|'.join([k,v['file'],v['entry'],v['set']]))")
exit $status
