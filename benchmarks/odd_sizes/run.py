#!/usr/bin/env python3
"""Odd, prime and skinny shapes: mdh's default configuration against NumPy, side by side.

The issue-5 suite (benchmarks/run_all.sh) measures the paper's shapes; this one measures
the shapes a user brings that are not powers of two: prime matrix sizes, products of few
rows whose matrix streams from memory (12 rows, one row, and Aᵀ·Bᵀ), a product with 31
columns, a batched product of primes, tensor contractions whose extents are 14 to 31, tall
GEMVs of 13 to 64 columns, a scan, a reduction and a stencil of odd sizes. Each case is
compiled by `mdhc compile` (static sizes, the default configuration, no tuning), built with
the flags of the suite, loaded with ctypes and checked against NumPy before it is timed;
then mdh and NumPy alternate, 5 rounds of `reps` calls each, and the table gives the
medians (NumPy's own BLAS does the products and `einsum(optimize=True)` the contractions).

Usage: OMP_NUM_THREADS=2 OMP_PROC_BIND=close python3 benchmarks/odd_sizes/run.py [CASE...]
       [--mdhc build/tools/mdhc] [--out benchmarks/odd_sizes/RESULTS.md]
Invariants: a case whose output differs from NumPy's beyond 1e-4 (relative to the largest
magnitude) is reported as wrong and gets no ratio; nothing is timed while compiling.
"""
import argparse, ctypes, datetime, os, platform, subprocess, sys, tempfile, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, 'examples')
HERE = os.path.dirname(os.path.abspath(__file__))
CXXFLAGS = ['-std=c++17', '-O3', '-march=native', '-fopenmp', '-fno-fast-math', '-ffp-contract=fast', '-shared', '-fPIC']


def gcc12_flags(cxx):
    # As the suite: GCC 12 builds generated code with --param=vrp2-mode=vrp (src/runtime/CompilerWorkarounds.h).
    out = subprocess.run([cxx, '-dM', '-E', '-x', 'c++', '/dev/null'], capture_output=True, text=True).stdout
    return ['--param=vrp2-mode=vrp'] if '#define __GNUC__ 12\n' in out and '__clang__' not in out else []


def build(mdhc, work, tag, file, entry, sets):
    subprocess.run([mdhc, 'compile', file, '--entry', entry, '--set', sets, '-o', work, '-q', '--name', tag], check=True)
    cxx = os.environ.get('CXX', 'g++')
    so = os.path.join(work, tag + '.so')
    subprocess.run([cxx] + CXXFLAGS + gcc12_flags(cxx) + [os.path.join(work, tag + '.cpp'), '-o', so], check=True)
    fn = getattr(ctypes.CDLL(so), tag + '_run')
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return fn


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2]


def cases(rng):
    R = lambda *s: rng.standard_normal(s).astype(np.float32)
    tc = os.path.join(HERE, 'shapes.mdh')
    out = []
    def mm(tag, I, J, K, reps=30):
        A, B = R(I, K), R(K, J)
        C = np.zeros((I, J), np.float32)
        out.append((tag, f'{I}x{J}x{K} product', os.path.join(EX, 'matmul.mdh'), 'matmul', f'T=f32,I={I},J={J},K={K}', [A, B], [C], lambda: A @ B, reps))
    mm('mm_prime', 1009, 1013, 997, 10)
    mm('mm_few_rows', 12, 4099, 8191, 10)
    mm('vecmat_wide', 1, 4096, 25088, 5)
    I, J, K = 16, 3001, 4099
    At, Bt = R(K, I), R(J, K)
    out.append(('mt_few_rows', f'{I}x{J}x{K} Aᵀ·Bᵀ (transposed result)', os.path.join(EX, 'matmul_t.mdh'), 'matmul_t', f'T=f32,I={I},J={J},K={K}',
                [At, Bt], [np.zeros((J, I), np.float32)], lambda: Bt @ At, 10))
    mm('mm_small', 257, 263, 131)
    mm('mm_31_cols', 1009, 31, 997)
    mm('mm_47_cols', 1009, 47, 997)
    I, K = 4099, 4093
    A, x = R(I, K), R(K)
    out.append(('mv_prime', f'{I}x{K} GEMV', os.path.join(EX, 'matvec.mdh'), 'matvec', f'T=f32,I={I},K={K}', [A, x], [np.zeros(I, np.float32)], lambda: A @ x, 30))
    NB, I, J, K = 31, 67, 71, 73
    A3, B3 = R(NB, I, K), R(NB, K, J)
    out.append(('bmm_primes', f'{NB}x{I}x{J}x{K} batched product', os.path.join(EX, 'bmatmul.mdh'), 'bmatmul', f'T=f32,NB={NB},I={I},J={J},K={K}',
                [A3, B3], [np.zeros((NB, I, J), np.float32)], lambda: np.matmul(A3, B3), 30))
    s = dict(NA=24, NB=20, NC=22, ND=18, NE=16, NF=14, NG=26)
    Ac, Bc = R(s['NG'], s['ND'], s['NA'], s['NB']), R(s['NE'], s['NF'], s['NG'], s['NC'])
    out.append(('ccsdt_14', 'abcdef-gdab-efgc, extents 24,20,22,18,16,14 / 26', os.path.join(EX, 'ccsdt.mdh'), 'ccsdt_i1',
                'T=f32,' + ','.join(f'{k}={v}' for k, v in s.items()), [Ac, Bc], [np.zeros(tuple(s[k] for k in ('NA', 'NB', 'NC', 'ND', 'NE', 'NF')), np.float32)],
                lambda: np.einsum('gdab,efgc->abcdef', Ac, Bc, optimize=True), 5))
    for (a, b, c, d, e, f) in [(24, 20, 22, 18, 16, 14), (31, 29, 27, 25, 23, 21)]:
        X, Y = R(a, e, b, f), R(f, d, e, c)
        out.append((f'tc_{a}', f'abcd-aebf-fdec, {a}x{b}x{c}x{d} / {e}x{f}', tc, 'tc', f'T=f32,A={a},B={b},C={c},D={d},E={e},F={f}',
                    [X, Y], [np.zeros((a, b, c, d), np.float32)], (lambda X=X, Y=Y: np.einsum('aebf,fdec->abcd', X, Y, optimize=True)), 10))
    for (I, K) in [(100003, 13), (100003, 16), (50021, 37), (20011, 64)]:
        M, v = R(I, K), R(K)
        out.append((f'gemv_{K}_cols', f'{I}x{K} GEMV', tc, 'gemv', f'I={I},K={K}', [M, v], [np.zeros(I, np.float32)], (lambda M=M, v=v: M @ v), 30))
    N = 1000003
    S = R(N)
    out.append(('scan_odd', f'prefix sum of {N}', os.path.join(EX, 'scan.mdh'), 'prefix_sum', f'T=f32,N={N}', [S], [np.zeros(N, np.float32)], lambda: np.cumsum(S), 30))
    N = 10000019
    Z = R(N)
    out.append(('sum_odd', f'sum of {N}', os.path.join(EX, 'reduce.mdh'), 'reduce_sum', f'T=f32,N={N}', [Z], [np.zeros((), np.float32)], lambda: np.sum(Z), 30))
    N1, N2 = 3001, 2999
    G = R(N1 + 2, N2 + 2)
    out.append(('jacobi2d_odd', f'5-point stencil {N1}x{N2}', os.path.join(EX, 'jacobi2d.mdh'), 'jacobi2d', f'T=f32,N1={N1},N2={N2}', [G],
                [np.zeros((N1, N2), np.float32)],
                lambda: np.float32(0.2) * (G[:-2, 1:-1] + G[1:-1, :-2] + G[1:-1, 1:-1] + G[1:-1, 2:] + G[2:, 1:-1]), 30))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cases', nargs='*')
    ap.add_argument('--mdhc', default=os.path.join(ROOT, 'build', 'tools', 'mdhc'))
    ap.add_argument('--out', default=os.path.join(HERE, 'RESULTS.md'))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for tag, what, file, entry, sets, ins, outs, ref, reps in cases(np.random.default_rng(1)):
            if args.cases and tag not in args.cases:
                continue
            fn = build(args.mdhc, work, tag, file, entry, sets)
            bufs = (ctypes.c_void_p * (len(ins) + len(outs)))(*[b.ctypes.data for b in ins + outs])
            sizes = (ctypes.c_int64 * 1)(0)
            call = lambda: fn(sizes, bufs)
            if call() != 0:
                rows.append((tag, what, None, None, 'the entry returned an error'))
                continue
            want = ref()
            err = float(np.max(np.abs(outs[0] - want)) / (np.max(np.abs(want)) + 1e-30))
            if err > 1e-4:
                rows.append((tag, what, None, None, f'WRONG: max rel err {err:.1e}'))
                continue
            tm, tn = [], []
            for _ in range(5):
                tm.append(median_time(call, reps))
                tn.append(median_time(ref, reps))
            tm, tn = sorted(tm)[2], sorted(tn)[2]
            rows.append((tag, what, tm, tn, f'max rel err {err:.1e}'))
            print(f'{tag:14} mdh {tm * 1e3:9.3f} ms  numpy {tn * 1e3:9.3f} ms  numpy/mdh {tn / tm:5.2f}', flush=True)
    cpu = subprocess.run([os.path.join(ROOT, 'benchmarks', 'cpu_id.sh')], capture_output=True, text=True).stdout.strip()
    with open(args.out + '.tmp', 'w') as f:
        f.write('# Odd, prime and skinny shapes: mdh default vs NumPy\n\n')
        f.write(f'Generated by `benchmarks/odd_sizes/run.py` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; CPU {cpu}; '
                f'OMP_NUM_THREADS={os.environ.get("OMP_NUM_THREADS", "unset")}, NumPy {np.__version__}, Python {platform.python_version()}. '
                'mdh: the default configuration of `mdhc compile` (no tuning); medians of 5 alternating rounds. '
                'Ratio > 1: mdh faster.\n\n')
        f.write('| case | shape | mdh ms | NumPy ms | NumPy / mdh | check |\n|---|---|---:|---:|---:|---|\n')
        for tag, what, tm, tn, note in rows:
            if tm is None:
                f.write(f'| {tag} | {what} | | | | {note} |\n')
            else:
                f.write(f'| {tag} | {what} | {tm * 1e3:.3f} | {tn * 1e3:.3f} | {tn / tm:.2f} | {note} |\n')
    os.replace(args.out + '.tmp', args.out)
    return 1 if any(r[2] is None for r in rows) else 0


if __name__ == '__main__':
    sys.exit(main())
