#!/usr/bin/env python3
# paired_test.py: tests benchmarks/tvm/paired.py, the interleaved timing of TVM against mdh's
# kernels, without TVM: an mdhc-compiled kernel is loaded through MdhKernel, checked against
# NumPy and timed by the C call timer, interleaved with a NumPy "peer".
#   paired_test.py MDHC SRC_DIR WORK_DIR
import os
import subprocess
import sys
import time

import numpy as np

mdhc, src, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(src, "benchmarks", "tvm"))
import paired  # noqa: E402

os.makedirs(work, exist_ok=True)
cxx = os.environ.get("CXX", "g++")
# The flags the generated header names (GCC 12 also needs --param=vrp2-mode=vrp, docs/compiler.md).
cxxflags = ["-std=c++17", "-O3", "-march=native", "-fopenmp", "-fno-fast-math", "-ffp-contract=fast",
            "-shared", "-fPIC"]
if subprocess.run([cxx, "-dumpversion"], capture_output=True, text=True).stdout.strip().split(".")[0] == "12":
    cxxflags.append("--param=vrp2-mode=vrp")


def build(example, entry, sets, name):
    """mdhc compile + the host compiler: WORK/NAME.so (and NAME.h beside it)."""
    subprocess.run([mdhc, "compile", os.path.join(src, "examples", example), "--entry", entry, "--set", sets,
                    "--name", name, "-o", work, "-q"], check=True)
    so = os.path.join(work, name + ".so")
    subprocess.run([cxx] + cxxflags + [os.path.join(work, name + ".cpp"), "-o", so], check=True)
    return so


I, J, K = 7, 37, 129  # odd sizes: remainder tiles in the kernel
so = build("matmul.mdh", "matmul", "T=f32,I=%d,J=%d,K=%d" % (I, J, K), "paired_mm")

rng = np.random.default_rng(5)
A = rng.standard_normal((I, K)).astype(np.float32)
B = rng.standard_normal((K, J)).astype(np.float32)
ref = A.astype(np.float64) @ B.astype(np.float64)

timer = paired.build_call_timer()
k = paired.MdhKernel(so, [A, B], (I, J), np.float32, timer)
k()
assert k.out.ctypes.data % 64 == 0, "the output is not 64-byte aligned"
err = np.max(np.abs(k.out - ref)) / np.max(np.abs(ref))
assert err < 1e-5, "mdh kernel output differs from NumPy: %g" % err
# The kernel reads the caller's arrays, not copies (run_tvm.py shares TVM's input tensors).
B[0, 0] += 1.0
k()
assert abs(k.out[0, 0] - (ref[0, 0] + A[0, 0])) < 1e-3 * (1 + abs(ref[0, 0])), "MdhKernel copied its inputs"

# Inputs are checked against the shapes of the kernel's header: a larger one is cropped (a
# copy), a smaller one or another type is refused before the kernel could read out of bounds.
big = rng.standard_normal((I + 2, K + 3)).astype(np.float32)
kc = paired.MdhKernel(so, [big, B], (I, J), np.float32, timer)
kc()
assert kc.inputs[0].ctypes.data % 64 == 0, "the cropped copy is not 64-byte aligned"
assert kc.cropped == ["A [%d, %d] of [%d, %d]" % (I, K, I + 2, K + 3)], kc.cropped
refc = big[:I, :K].astype(np.float64) @ B.astype(np.float64)
assert np.max(np.abs(kc.out - refc)) / np.max(np.abs(refc)) < 1e-5, "cropped input computed wrongly"
for bad_inputs, bad_out, what in (([A[:I - 1], B], (I, J), "smaller input"),
                                  ([A.astype(np.float64), B], (I, J), "f64 input"),
                                  ([A], (I, J), "missing input"),
                                  ([A, B], (I, J + 1), "wrong output shape")):
    try:
        paired.MdhKernel(so, bad_inputs, bad_out, np.float32, timer)
        raise AssertionError("accepted a " + what)
    except ValueError:
        pass

# Extents of 1 do not count: a dot product's output is a scalar for MDH, [1] for TVM.
so_dot = build("dot.mdh", "dot", "T=f32,K=1001", "paired_dot")
x, y = rng.standard_normal((2, 1001)).astype(np.float32)
kd = paired.MdhKernel(so_dot, [x.reshape(1, 1001), y], (1,), np.float32, timer)
kd()
assert kd.out.shape == (1,) and abs(kd.out[0] - float(x.astype(np.float64) @ y)) < 1e-3, kd.out

ts = k.time_calls(5)
assert len(ts) == 5 and all(t > 0 for t in ts), ts

# The entry point is found by the file's name (NAME.so exports NAME_run).
other = os.path.join(work, "renamed.so")
subprocess.run(["cp", so, other], check=True)
try:
    paired.MdhKernel(other, [A, B], (I, J), np.float32, timer)
    raise AssertionError("a kernel without renamed_run was loaded")
except AttributeError:
    pass

# interleave(): every implementation timed in every block, blocks in rotated order.
order = []


def logged(nm, f):
    def g(n):
        order.append((nm, n))
        return f(n)
    return g


def numpy_peer(n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        A @ B
        out.append(time.perf_counter() - t0)
    return out


blocks = 3
times = paired.interleave({"mdh": logged("mdh", k.time_calls), "numpy": logged("numpy", numpy_peer)},
                          seconds_per_impl=0.03, blocks=blocks, pause_s=0.001)
assert set(times) == {"mdh", "numpy"}
for nm, ts in times.items():
    assert len(ts) >= 2 * blocks and all(t > 0 for t in ts), (nm, len(ts))
    s = paired.summary(ts)
    assert s["min_s"] <= s["median_s"] <= s["max_s"] and s["runs"] == len(ts), s
# After the two estimate pairs (warm-up + estimate per implementation), each block is a
# warm-up call of 1 and a timed batch per implementation; block b starts with names[b % 2].
timed = order[4:]
firsts = [timed[4 * b][0] for b in range(blocks)]
assert firsts == ["mdh", "numpy", "mdh"], firsts
assert all(timed[4 * b + 1][0] == firsts[b] and timed[4 * b + 1][1] >= 2 for b in range(blocks)), timed
print("paired: ok (mdh %.1f us, numpy %.1f us per call)" % (1e6 * np.median(times["mdh"]),
                                                         1e6 * np.median(times["numpy"])))
