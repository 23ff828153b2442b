#!/usr/bin/env python3
"""Programs written the way a user would write them, run through every tool and
backend (mdhi, mdhc run on OpenMP, and on OpenCL where a platform exists) on
NumPy data, and compared with references computed by NumPy alone: einsum for
tensor contractions, cumsum / maximum.accumulate for scans, bincount for a
histogram, explicit windows for a strided convolution and a stencil, argmax
for a record-valued reduction.  The differential tests compare generated code
with the interpreter; this compares the interpreter (and so every backend)
with an oracle that shares none of mdh's code.

Invariants: integer results must be bit-exact; f64 results within 1e-12
relative (the summation orders differ); sizes are odd, prime or 1 on purpose.

usage: check_against_numpy.py MDHI MDHC [--backends mdhi,openmp,opencl]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

MDHI, MDHC = sys.argv[1], sys.argv[2]
BACKENDS = ["mdhi", "openmp", "opencl"]
if "--backends" in sys.argv:
    BACKENDS = sys.argv[sys.argv.index("--backends") + 1].split(",")

rng = np.random.default_rng(20261127)


def ints(shape, lo=-50, hi=50, dtype=np.int64):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def floats(shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float64)


CASES = []


def case(name, source, entry, settings, inputs, reference):
    """`inputs`: name -> array; `reference(inputs)`: name -> expected output array."""
    CASES.append((name, source, entry, settings, inputs, reference))


# ---- tensor contractions -------------------------------------------------------------------------
# C[a,b,c,d] = sum_{e,f} A[a,e,b,f] * B[d,f,c,e]: two contracted indices, every operand permuted.
A = ints((3, 4, 5, 3)); B = ints((7, 3, 2, 4))
case("contraction abcd-aebf-dfce (i64)", """
fn times(x: i64, y: i64) -> i64 = x * y;
mdh contract =
    out_view<i64>( C: (a, b, c, d, e, f) -> (a, b, c, d) )
  o md_hom<3, 5, 2, 7, 4, 3>( times, (++, ++, ++, ++, pw(add), pw(add)) )
  o inp_view<i64, i64>( A: (a, b, c, d, e, f) -> (a, e, b, f),
                        B: (a, b, c, d, e, f) -> (d, f, c, e) );
""", "contract", "", {"A": A, "B": B}, lambda i: {"C": np.einsum("aebf,dfce->abcd", i["A"], i["B"])})

# CCSD(T) abcijk-ijma-mkbc at small odd sizes, f64.
Aq = floats((3, 2, 5, 3)); Bq = floats((5, 1, 4, 3))
case("CCSD(T) abcijk-ijma-mkbc (f64)", """
fn times(x: f64, y: f64) -> f64 = x * y;
mdh ccsdt =
    out_view<f64>( T: (a, b, c, i, j, k, m) -> (a, b, c, i, j, k) )
  o md_hom<3, 4, 3, 3, 2, 1, 5>( times, (++, ++, ++, ++, ++, ++, pw(add)) )
  o inp_view<f64, f64>( A: (a, b, c, i, j, k, m) -> (i, j, m, a),
                        B: (a, b, c, i, j, k, m) -> (m, k, b, c) );
""", "ccsdt", "", {"A": Aq, "B": Bq}, lambda i: {"T": np.einsum("ijma,mkbc->abcijk", i["A"], i["B"])})

# Batched matmul with size-1 dimensions (batch 1, J 1).
Ab = ints((1, 13, 17)); Bb = ints((1, 17, 1))
case("batched matmul with size-1 dims (i64)", """
fn times(x: i64, y: i64) -> i64 = x * y;
mdh bmm<NB: size, I: size, J: size, K: size> =
    out_view<i64>( C: (b, i, j, k) -> (b, i, j) )
  o md_hom<NB, I, J, K>( times, (++, ++, ++, pw(add)) )
  o inp_view<i64, i64>( A: (b, i, j, k) -> (b, i, k), B: (b, i, j, k) -> (b, k, j) );
""", "bmm", "NB=1,I=13,J=1,K=17", {"A": Ab, "B": Bb}, lambda i: {"C": np.matmul(i["A"], i["B"])})

# ---- scans -----------------------------------------------------------------------------------------
X = ints((1009,), dtype=np.int32)
case("prefix sum of 1009 (i32)", """
fn id(x: i32) -> i32 = x;
mdh psum = out_view<i32>( S: (i) -> (i) ) o md_hom<1009>( id, (ps(add)) ) o inp_view<i32>( X: (i) -> (i) );
""", "psum", "", {"X": X}, lambda i: {"S": np.cumsum(i["X"], dtype=np.int32)})

Y = ints((5, 37), dtype=np.int32)
case("running max along rows, 5 x 37 (i32)", """
fn id(x: i32) -> i32 = x;
mdh rmax = out_view<i32>( M: (r, i) -> (r, i) ) o md_hom<5, 37>( id, (++, ps(max)) ) o inp_view<i32>( Y: (r, i) -> (r, i) );
""", "rmax", "", {"Y": Y}, lambda i: {"M": np.maximum.accumulate(i["Y"], axis=1)})

Z = ints((11, 3, 7))
case("scan along the middle dim with a sum over the last (i64)", """
fn id(x: i64) -> i64 = x;
mdh mixed = out_view<i64>( O: (a, b, c) -> (a, b) ) o md_hom<11, 3, 7>( id, (++, ps(add), pw(add)) ) o inp_view<i64>( Z: (a, b, c) -> (a, b, c) );
""", "mixed", "", {"Z": Z}, lambda i: {"O": np.cumsum(i["Z"].sum(axis=2), axis=1)})

W2 = ints((23, 41))
case("summed-area table: 2-D prefix sum, 23 x 41 (i64)", """
fn id(x: i64) -> i64 = x;
mdh sat = out_view<i64>( S: (i, j) -> (i, j) ) o md_hom<23, 41>( id, (ps(add), ps(add)) ) o inp_view<i64>( W: (i, j) -> (i, j) );
""", "sat", "", {"W": W2}, lambda i: {"S": np.cumsum(np.cumsum(i["W"], axis=0), axis=1)})

D = ints((70001,), dtype=np.int32)
case("prefix sum with a run-time size from the data, 70001 (i32)", """
fn id(x: i32) -> i32 = x;
mdh psum_dyn = out_view<i32>( S: (i) -> (i) ) o md_hom<*>( id, (ps(add)) ) o inp_view<i32>( D: (i) -> (i) );
""", "psum_dyn", "", {"D": D}, lambda i: {"S": np.cumsum(i["D"], dtype=np.int32)})

# ---- convolutions and stencils ---------------------------------------------------------------------
N_, P_, Q_, K_, R_, S_, C_ = 2, 5, 3, 4, 3, 2, 3
Im = ints((N_, 2 * (P_ - 1) + R_, 2 * (Q_ - 1) + S_, C_)); Fm = ints((K_, R_, S_, C_))


def conv_reference(i):
    I, F = i["I"], i["F"]
    O = np.zeros((N_, P_, Q_, K_), dtype=np.int64)
    for p in range(P_):
        for q in range(Q_):
            window = I[:, 2 * p:2 * p + R_, 2 * q:2 * q + S_, :]  # n r s c
            O[:, p, q, :] = np.einsum("nrsc,krsc->nk", window, F)
    return {"O": O}


case("strided convolution NHWC/KRSC, stride 2 (i64)", """
fn times(x: i64, y: i64) -> i64 = x * y;
mdh conv = out_view<i64>( O: (n, p, q, k, r, s, c) -> (n, p, q, k) )
  o md_hom<2, 5, 3, 4, 3, 2, 3>( times, (++, ++, ++, ++, pw(add), pw(add), pw(add)) )
  o inp_view<i64, i64>( I: (n, p, q, k, r, s, c) -> (n, 2 * p + r, 2 * q + s, c), F: (n, p, q, k, r, s, c) -> (k, r, s, c) );
""", "conv", "", {"I": Im, "F": Fm}, conv_reference)

G = floats((15, 19))
case("5-point stencil 13 x 17 (f64)", """
fn avg5(n: f64, w: f64, c: f64, e: f64, s: f64) -> f64 = 0.2 * (n + w + c + e + s);
mdh j2d = out_view<f64>( O: (i, j) -> (i, j) ) o md_hom<13, 17>( avg5, (++, ++) )
  o inp_view<f64>( G: (i, j) -> (i, j + 1), (i, j) -> (i + 1, j), (i, j) -> (i + 1, j + 1), (i, j) -> (i + 1, j + 2), (i, j) -> (i + 2, j + 1) );
""", "j2d", "", {"G": G}, lambda i: {"O": 0.2 * (i["G"][0:13, 1:18] + i["G"][1:14, 0:17] + i["G"][1:14, 1:18]
                                              + i["G"][1:14, 2:19] + i["G"][2:15, 1:18])})

# ---- histogram, records ----------------------------------------------------------------------------
E = rng.integers(0, 31, size=(2003,)).astype(np.uint8); Bins = np.arange(31, dtype=np.uint8)
case("histogram of 2003 bytes into 31 bins", """
fn hit(e: u8, b: u8) -> i32 = e == b ? 1 : 0;
mdh histo = out_view<i32>( H: (e, b) -> (b) ) o md_hom<2003, 31>( hit, (pw(add), ++) ) o inp_view<u8, u8>( E: (e, b) -> (e), Bins: (e, b) -> (b) );
""", "histo", "", {"E": E, "Bins": Bins}, lambda i: {"H": np.bincount(i["E"], minlength=31).astype(np.int32)})

V = rng.permutation(7 * 101).reshape(7, 101).astype(np.int32)  # distinct values: no ties
best_dtype = np.dtype([("value", "<i4"), ("index", "<i8")], align=True)


def argmax_reference(i):
    out = np.zeros(7, dtype=best_dtype)
    out["value"] = i["V"].max(axis=1)
    out["index"] = i["V"].argmax(axis=1)
    return {"Best": out}


case("row argmax as a record reduction (user operator)", """
record Best { value: i32, index: i64 }
@assoc @comm
fn better(a: Best, b: Best) -> Best = b.value > a.value ? b : a;
fn tag(v: i32, k: i64) -> Best = Best { value: v, index: k };
mdh argmax = out_view<Best>( Best: (r, k) -> (r) ) o md_hom<7, 101>( tag, (++, pw(better)) )
  o inp_view<i32, i64>( V: (r, k) -> (r, k), K: (r, k) -> (k) );
""", "argmax", "", {"V": V, "K": np.arange(101, dtype=np.int64)}, argmax_reference)


# ---- running ---------------------------------------------------------------------------------------
def run(backend, work, path, entry, settings, inputs, outputs):
    tool = [MDHI, "run"] if backend == "mdhi" else [MDHC, "run"] + (["--backend", backend] if backend != "openmp" else [])
    cmd = tool + [path, "--entry", entry, "-q"] + (["--set", settings] if settings else [])
    for name in inputs:
        cmd += ["--in", f"{name}={os.path.join(work, name + '.npy')}"]
    for name in outputs:
        cmd += ["--out", f"{name}={os.path.join(work, backend + '_' + name + '.npy')}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[:2000]}"
    return {name: np.load(os.path.join(work, backend + "_" + name + ".npy")) for name in outputs}, ""


def same(got, want):
    """Why `got` differs from `want` ("" when it does not)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{got.shape}, expected {want.dtype}{want.shape}"
    if want.dtype.names:
        for field in want.dtype.names:
            why = same(got[field], want[field])
            if why:
                return f"field {field}: {why}"
        return ""
    if np.issubdtype(want.dtype, np.floating):
        bad = ~np.isclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        bad = got != want
    if bad.any():
        at = tuple(int(x) for x in np.argwhere(bad)[0])
        return f"{int(bad.sum())} of {bad.size} cells differ, first at {at}: got {got[at]}, expected {want[at]}"
    return ""


failures = 0
checks = 0
for name, source, entry, settings, inputs, reference in CASES:
    expected = reference(inputs)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "case.mdh")
        with open(path, "w") as f:
            f.write(source)
        for k, v in inputs.items():
            np.save(os.path.join(work, k + ".npy"), v)
        for backend in BACKENDS:
            got, error = run(backend, work, path, entry, settings, inputs, list(expected))
            checks += 1
            if got is None:
                if backend == "opencl" and "no OpenCL platform" in error:
                    print(f"skip  {name} [{backend}]: no OpenCL platform")
                    continue
                failures += 1
                print(f"FAIL  {name} [{backend}]: {error}")
                continue
            problems = [f"`{k}`: {why}" for k in expected for why in [same(got[k], expected[k])] if why]
            if problems:
                failures += 1
                print(f"FAIL  {name} [{backend}]: " + "; ".join(problems))
            else:
                print(f"ok    {name} [{backend}]")
print(f"{checks - failures} of {checks} checks agree with NumPy")
sys.exit(1 if failures else 0)
