#!/usr/bin/python3
# wl.py — reads benchmarks/workloads.json and benchmarks/workloads/programs.json (the single
# sources of truth) and prints, for the shell scripts, what they need about a workload:
#   wl.py ids                      all workload ids, in table order
#   wl.py driver-args ID [--smoke] bench_suite arguments (--id --kind --dims [--cold]); --smoke
#                                  shrinks the sizes (same kind, same code paths, tiny data)
#   wl.py mdh ID [--smoke]         three lines: file, entry, --set value (smoke: shrunk sizes)
# Invariant: the smoke sizes keep every kind's structure (strides, halos, index patterns).
import json, os, sys
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
W = {w["id"]: w for w in json.load(open(os.path.join(root, "benchmarks/workloads.json")))["workloads"]}
P = json.load(open(os.path.join(root, "benchmarks/workloads/programs.json")))["programs"]

SMOKE = {  # id kind -> (dims override, mdh --set override)
    "matmul": ({"M": 20, "N": 36, "K": 50}, "T=f32,I=20,J=36,K=50"),
    "matvec": ({"M": 40, "K": 72}, "T=f32,I=40,K=72"),
    "dot": ({"K": 1000}, "T=f32,K=1000"),
    "jacobi1d": ({"N": 1000}, "T=f32,N=1000"),
    "jacobi2d": ({"N1": 30, "N2": 40}, "T=f32,N1=30,N2=40"),
    "jacobi3d": ({"N1": 10, "N2": 12, "N3": 14}, "T=f32,N1=10,N2=12,N3=14"),
    "histo": ({"E": 5000, "B": 256}, "T=u8,E=5000,B=256"),
    "scan": ({"N": 5000}, "T=i32,N=5000"),
    "prl": ({"I": 16, "J": 300}, "I=16,J=300"),
}

def smoke_of(wid):
    w = W[wid]; k = w["kind"]
    if k in SMOKE:
        return SMOKE[k]
    if k == "mcc":
        d = dict(w["dims"]); d.update({"P": 6, "Q": 5, "K": 8})
        d["N"] = min(d["N"], 2)
        st = d["stride"]; d["H"] = st * (d["P"] - 1) + d["R"]; d["W"] = st * (d["Q"] - 1) + d["S"]
        s = P[wid]["set"].split(",")
        s = [x for x in s if x.split("=")[0] not in ("N", "P", "Q", "K")] + ["N=%d" % d["N"], "P=6", "Q=5", "K=8"]
        return d, ",".join(s)
    if k == "contraction":
        d = {"a": 3, "b": 4, "c": 5, "i": 2, "j": 3, "k": 4, "m": 5}
        return d, "T=f32,NA=3,NB=4,NC=5,NI=2,NJ=3,NK=4,NM=5"
    raise SystemExit("no smoke size for " + wid)

def dims_of(wid, smoke):
    w = W[wid]
    d = dict(w["dims"])
    if smoke:
        d = smoke_of(wid)[0]
    flops = w.get("flops", 0); byts = w.get("bytes", 0)
    if smoke:  # recompute the counts for the shrunk sizes (only used for the rate field)
        flops = byts = 1
    d.update({"metric": w["metric"], "flops": flops, "bytes": byts})
    return ",".join("%s=%s" % kv for kv in d.items())

cmd = sys.argv[1]
smoke = "--smoke" in sys.argv
if cmd == "ids":
    print("\n".join(W))
elif cmd == "driver-args":
    wid = sys.argv[2]
    args = ["--id", wid, "--kind", W[wid]["kind"], "--dims", dims_of(wid, smoke)]
    if P[wid].get("cold"):
        args.append("--cold")
    print(" ".join(args))
elif cmd == "mdh":
    wid = sys.argv[2]; p = P[wid]
    print(os.path.join(root, p["file"])); print(p["entry"])
    print(smoke_of(wid)[1] if smoke else p["set"])
elif cmd == "get":  # wl.py get ID FIELD: a field of workloads.json or programs.json
    wid, f = sys.argv[2], sys.argv[3]
    v = W[wid].get(f, P[wid].get(f, ""))
    print(v if not isinstance(v, (dict, list)) else json.dumps(v))
else:
    raise SystemExit("usage: wl.py ids | driver-args ID [--smoke] | mdh ID [--smoke] | get ID FIELD")
