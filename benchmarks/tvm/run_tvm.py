#!/usr/bin/env python3
# run_tvm.py: the TVM peer of issue 5. Builds one workload of benchmarks/workloads.json as a
# TE/TIR PrimFunc, tunes it with MetaSchedule for the llvm CPU target under a wall-time budget
# (resumable: the JSON database lives in --work-dir), compiles the best schedule, checks the
# output against numpy and times it. Writes one JSON result (or an "na" record) to --out.
#
#   benchmarks/.venv/bin/python benchmarks/tvm/run_tvm.py --workload matmul_1024 \
#       --budget-seconds 600 --out benchmarks/results/matmul_1024/tvm.json
#   ... --smoke    tiny sizes, a handful of trials, correctness only (CI; < 60 s)
#   ... --pair mdh-tuned=DIR/matmul_1024_tuned.so [--pair mdh-default=...]
#                  also check those mdhc kernels on the same inputs and time them interleaved
#                  with TVM's in this process (paired.py): the result's "paired" record
import argparse
import json
import math
import os
import sys
import time

# At most 2 threads everywhere (the machine has 2 shared cores); set before importing tvm/xgboost.
os.environ.setdefault("TVM_NUM_THREADS", "2")
os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKLOADS = os.path.join(ROOT, "benchmarks", "workloads.json")

# Float tolerance: |out - ref| <= FLOAT_TOL * mag, where mag is the same computation on the
# absolute values of the inputs (every float kernel here is a sum of products with positive
# coefficients, so mag bounds the magnitude of all partial sums).
FLOAT_TOL = 1e-4

# Tiny sizes for --smoke (same kinds, same index structure).
SMOKE_DIMS = {
    "matmul": {"M": 16, "N": 24, "K": 32},
    "matvec": {"M": 64, "K": 48},
    "dot": {"K": 4096},
    "jacobi1d": {"N": 1022},
    "jacobi2d": {"N1": 30, "N2": 62},
    "jacobi3d": {"N1": 14, "N2": 14, "N3": 30},
    "mcc": {"N": 1, "H": 17, "W": 17, "C": 3, "K": 8, "R": 3, "S": 3, "stride": 2, "P": 8, "Q": 8},
    "contraction": {"a": 4, "b": 4, "c": 4, "i": 4, "j": 4, "k": 4, "m": 6},
    "histo": {"E": 4096, "B": 256},
    "scan": {"N": 4096},
}

NA_REASONS = {
    "prl": (
        "not expressed: PRL compares two arrays of Person records (i64/i32/u8 fields) with a "
        "branchy Fellegi-Sunter weight and reduces with a user-defined argmax-with-tie-break "
        "combine operator into Match records; TVM tensors have no record types, and the only "
        "route (struct-of-arrays inputs plus a 2-tuple te.comm_reducer) changes the data layout "
        "and falls outside MetaSchedule's schedule rules (multi-output reduction blocks), so no "
        "comparable tuned TVM program exists"
    ),
}


def log(*a):
    print("[run_tvm]", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Workload definitions: (TE tensors in argument order, numpy inputs, numpy reference)
# ---------------------------------------------------------------------------------------------

def build_workload(w, dims, rng):
    """Returns (args, inputs, ref_fn, out_dtype) where args are the TE placeholders followed by
    the output tensor, inputs the numpy arrays for the placeholders, and ref_fn(inputs) the
    float64 (or exact integer) reference output."""
    from tvm import te, topi

    kind = w["kind"]
    f32 = "float32"

    def rand(shape):
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)

    if kind == "matmul":
        M, N, K = dims["M"], dims["N"], dims["K"]
        A = te.placeholder((M, K), f32, name="A")
        B = te.placeholder((K, N), f32, name="B")
        k = te.reduce_axis((0, K), name="k")
        C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")
        return [A, B, C], [rand((M, K)), rand((K, N))], lambda a, b: a @ b, f32
    if kind == "matvec":
        M, K = dims["M"], dims["K"]
        A = te.placeholder((M, K), f32, name="A")
        x = te.placeholder((K,), f32, name="x")
        k = te.reduce_axis((0, K), name="k")
        y = te.compute((M,), lambda m: te.sum(A[m, k] * x[k], axis=k), name="y")
        return [A, x, y], [rand((M, K)), rand((K,))], lambda a, v: a @ v, f32
    if kind == "dot":
        K = dims["K"]
        a = te.placeholder((K,), f32, name="a")
        b = te.placeholder((K,), f32, name="b")
        k = te.reduce_axis((0, K), name="k")
        c = te.compute((1,), lambda _: te.sum(a[k] * b[k], axis=k), name="c")
        return [a, b, c], [rand((K,)), rand((K,))], lambda x, y: np.array([np.dot(x, y)]), f32
    if kind == "jacobi1d":
        N = dims["N"]
        I = te.placeholder((N + 2,), f32, name="I")
        c = np.float32(0.33333333)
        O = te.compute((N,), lambda i: te.const(c, f32) * (I[i] + I[i + 1] + I[i + 2]), name="O")
        return [I, O], [rand((N + 2,))], lambda x: float(c) * (x[:-2] + x[1:-1] + x[2:]), f32
    if kind == "jacobi2d":
        N1, N2 = dims["N1"], dims["N2"]
        I = te.placeholder((N1 + 2, N2 + 2), f32, name="I")
        c = np.float32(0.2)
        O = te.compute(
            (N1, N2),
            lambda i, j: te.const(c, f32)
            * (I[i, j + 1] + I[i + 1, j] + I[i + 1, j + 1] + I[i + 1, j + 2] + I[i + 2, j + 1]),
            name="O",
        )

        def ref(x):
            return float(c) * (x[0:N1, 1:N2 + 1] + x[1:N1 + 1, 0:N2] + x[1:N1 + 1, 1:N2 + 1]
                               + x[1:N1 + 1, 2:N2 + 2] + x[2:N1 + 2, 1:N2 + 1])
        return [I, O], [rand((N1 + 2, N2 + 2))], ref, f32
    if kind == "jacobi3d":
        N1, N2, N3 = dims["N1"], dims["N2"], dims["N3"]
        I = te.placeholder((N1 + 2, N2 + 2, N3 + 2), f32, name="I")
        c = np.float32(0.14285714)
        O = te.compute(
            (N1, N2, N3),
            lambda i, j, k: te.const(c, f32)
            * (I[i, j + 1, k + 1] + I[i + 1, j, k + 1] + I[i + 1, j + 1, k]
               + I[i + 1, j + 1, k + 1] + I[i + 1, j + 1, k + 2] + I[i + 1, j + 2, k + 1]
               + I[i + 2, j + 1, k + 1]),
            name="O",
        )

        def ref(x):
            s = lambda a, b, d: x[a:a + N1, b:b + N2, d:d + N3]  # noqa: E731
            return float(c) * (s(0, 1, 1) + s(1, 0, 1) + s(1, 1, 0) + s(1, 1, 1)
                               + s(1, 1, 2) + s(1, 2, 1) + s(2, 1, 1))
        return [I, O], [rand((N1 + 2, N2 + 2, N3 + 2))], ref, f32
    if kind == "mcc":
        # NHWC input, KRSC filters, NPQK output, VALID padding, stride st.
        N, H, W, C, K, R, S, st = (dims[x] for x in ("N", "H", "W", "C", "K", "R", "S", "stride"))
        P, Q = (H - R) // st + 1, (W - S) // st + 1
        assert (P, Q) == (dims["P"], dims["Q"]), "P/Q in workloads.json disagree with VALID padding"
        In = te.placeholder((N, H, W, C), f32, name="In")
        F = te.placeholder((K, R, S, C), f32, name="F")
        r = te.reduce_axis((0, R), name="r")
        s = te.reduce_axis((0, S), name="s")
        c = te.reduce_axis((0, C), name="c")
        Out = te.compute(
            (N, P, Q, K),
            lambda n, p, q, k: te.sum(In[n, p * st + r, q * st + s, c] * F[k, r, s, c], axis=[r, s, c]),
            name="Out",
        )

        def ref(x, f):
            out = np.zeros((N, P, Q, K), dtype=np.float64)
            for rr in range(R):
                for ss in range(S):
                    patch = x[:, rr:rr + st * (P - 1) + 1:st, ss:ss + st * (Q - 1) + 1:st, :]
                    out += patch.astype(np.float64) @ f[:, rr, ss, :].T.astype(np.float64)
            return out
        return [In, F, Out], [rand((N, H, W, C)), rand((K, R, S, C))], ref, f32
    if kind == "contraction":
        # spec "abcijk-ijma-mkbc": output indices - A indices - B indices; m is contracted.
        out_idx, a_idx, b_idx = w["spec"].split("-")
        red = sorted((set(a_idx) | set(b_idx)) - set(out_idx))
        assert red == ["m"], w["spec"]
        A = te.placeholder(tuple(dims[x] for x in a_idx), f32, name="A")
        B = te.placeholder(tuple(dims[x] for x in b_idx), f32, name="B")
        m = te.reduce_axis((0, dims["m"]), name="m")

        def body(*iv):
            env = dict(zip(out_idx, iv))
            env["m"] = m
            return te.sum(A[tuple(env[x] for x in a_idx)] * B[tuple(env[x] for x in b_idx)], axis=m)
        Cc = te.compute(tuple(dims[x] for x in out_idx), body, name="C")
        eq = f"{a_idx},{b_idx}->{out_idx}"
        ins = [rand(tuple(dims[x] for x in a_idx)), rand(tuple(dims[x] for x in b_idx))]
        return [A, B, Cc], ins, lambda a, b: np.einsum(eq, a.astype(np.float64), b.astype(np.float64)), f32
    if kind == "histo":
        # Out[b] = sum_e (Elems[e] == Bins[b] ? 1 : 0), i32, u8 inputs; Bins[b] = b.
        E, Bn = dims["E"], dims["B"]
        El = te.placeholder((E,), "uint8", name="Elems")
        Bi = te.placeholder((Bn,), "uint8", name="Bins")
        e = te.reduce_axis((0, E), name="e")
        Out = te.compute(
            (Bn,),
            lambda b: te.sum(te.if_then_else(El[e] == Bi[b], te.const(1, "int32"), te.const(0, "int32")), axis=e),
            name="Out",
        )
        ins = [rng.integers(0, 256, size=(E,), dtype=np.uint8), np.arange(Bn, dtype=np.uint8)]

        def ref(el, bi):
            counts = np.bincount(el, minlength=256).astype(np.int32)
            return counts[bi.astype(np.int64)]
        return [El, Bi, Out], ins, ref, "int32"
    if kind == "scan":
        # Inclusive prefix sum, i32 (wrapping). TVM's CPU cumsum (topi.cumsum) is an opaque
        # serial loop (te.extern); te.scan is not lowered by create_prim_func.
        N = dims["N"]
        A = te.placeholder((N,), "int32", name="A")
        Out = topi.cumsum(A, axis=0, dtype="int32")
        ins = [rng.integers(-1000, 1000, size=(N,), dtype=np.int32)]
        return [A, Out], ins, lambda a: np.cumsum(a, dtype=np.int64).astype(np.int32), "int32"
    raise KeyError(kind)


# ---------------------------------------------------------------------------------------------
# Tuning under a wall-time budget
# ---------------------------------------------------------------------------------------------

def make_target():
    import tvm
    cpu = tvm.target.codegen.llvm_get_system_cpu()
    return tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": 2})


def count_records(work_dir):
    path = os.path.join(work_dir, "database_tuning_record.json")
    if not os.path.exists(path):
        return 0
    with open(path) as fh:
        return sum(1 for line in fh if line.strip())


def light_tensor_intrin():
    """Registers only the x86 tensor intrinsics. `import tvm.s_tir.tensor_intrin` (done by
    MetaSchedule's TuneContext and by its default build function in every builder worker) also
    builds the CUDA, ROCm, Hexagon and ARM intrinsics from TVMScript: 30-70 s per process on this
    machine, and LocalBuilder restarts its worker pool for every batch, so every batch hit the
    30 s build timeout. None of those intrinsics applies to an x86 llvm target; the x86 ones
    (VNNI, AVX-512 dot products) stay registered. Must be self-contained: it is pickled by value
    into the builder's worker processes as their initializer."""
    import importlib
    import importlib.util
    import os as _os
    import sys as _sys
    name = "tvm.s_tir.tensor_intrin"
    if name in _sys.modules:
        return
    import tvm.s_tir as s_tir
    d = _os.path.join(_os.path.dirname(s_tir.__file__), "tensor_intrin")
    spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
    pkg = importlib.util.module_from_spec(spec)
    pkg.__path__ = [d]
    pkg.__file__ = _os.path.join(d, "__init__.py")
    _sys.modules[name] = pkg
    s_tir.tensor_intrin = pkg
    importlib.import_module(name + ".x86")


def tune(mod, target, work_dir, budget_s, trials_per_iter, max_trials, seed, smoke):
    """Runs MetaSchedule's evolutionary search until the wall-time budget is spent. MetaSchedule
    itself only counts trials, so a measure callback ends the task after a batch (search, build
    and measurement of trials_per_iter candidates) once the next batch, assumed to last as long
    as the last one, would end more than half of its length past the deadline. A run thus
    stops within about half a batch of the budget, either side.
    Returns (trials measured in this run, seconds spent, whether the search ended on its own
    before the deadline: MetaSchedule found no new candidate, i.e. its design space is exhausted)."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback
    from tvm.ir.utils import derived_object

    light_tensor_intrin()
    t0 = time.monotonic()
    deadline = t0 + budget_s
    state = {"trials": 0, "stopped": False, "last": t0}

    @derived_object
    class Deadline(PyMeasureCallback):
        def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
            state["trials"] += len(measure_candidates)
            now = time.monotonic()
            batch_s, state["last"] = now - state["last"], now
            # MetaSchedule terminates the task itself once max_trials are done; terminating it
            # twice is an error.
            if (now + 0.5 * batch_s >= deadline and not state["stopped"]
                    and state["trials"] < max_trials):
                state["stopped"] = True
                task_scheduler.terminate_task(task_id)

    callbacks = ms.MeasureCallback.create("default") + [Deadline()]
    builder = ms.builder.LocalBuilder(max_workers=2, initializer=light_tensor_intrin)
    if smoke:
        strategy = ms.search_strategy.EvolutionarySearch(population_size=32, init_min_unmeasured=8,
                                                         genetic_num_iters=1)
    else:
        strategy = "evolutionary"  # MetaSchedule's defaults (population 512, 4 genetic iterations)
    ms.tune_tir(
        mod,
        target,
        work_dir,
        max_trials_global=max_trials,
        max_trials_per_task=max_trials,
        num_trials_per_iter=trials_per_iter,
        builder=builder,
        strategy=strategy,
        measure_callbacks=callbacks,
        num_tuning_cores=2,
        seed=seed,
        # The database stays in work_dir; a re-run loads it and the evolutionary search seeds
        # its population with the best records found so far.
        database="json",
    )
    exhausted = not state["stopped"] and state["trials"] < max_trials
    return state["trials"], time.monotonic() - t0, exhausted


# ---------------------------------------------------------------------------------------------
# Checking and timing
# ---------------------------------------------------------------------------------------------

def check(out, ref, mag, dtype):
    if dtype.startswith("int") or dtype.startswith("uint"):
        bad = int(np.count_nonzero(out != ref))
        return bad == 0, 0.0, f"{bad} mismatching elements"
    err = np.abs(out.astype(np.float64) - ref)
    denom = np.maximum(mag, np.finfo(np.float32).tiny)
    rel = float(np.max(err / denom)) if err.size else 0.0
    return rel <= FLOAT_TOL, rel, f"max |out-ref|/mag = {rel:.3g} (tolerance {FLOAT_TOL:g})"


def time_it(lib, dev, args, target_s=2.0):
    """Warm-up, then >= 10 single-call runs (up to ~target_s of timing, at most 500)."""
    rt = lib.jit()  # tvm.compile returns an Executable; time_evaluator lives on the runtime Module
    f = rt["main"]
    f(*args)  # warm-up
    t0 = time.perf_counter()
    f(*args)
    est = max(time.perf_counter() - t0, 1e-7)
    runs = int(min(500, max(10, math.ceil(target_s / est))))
    ev = rt.time_evaluator("main", dev, number=1, repeat=runs)
    times = np.array(ev(*args).results, dtype=np.float64)
    return float(np.median(times)), float(times.min()), float(times.max()), runs


def set_fifo_all_threads(prio):
    """Puts every thread of this process (TVM's worker threads included) under SCHED_FIFO prio,
    or back under SCHED_OTHER with prio 0. Returns True on success."""
    policy = os.SCHED_FIFO if prio > 0 else os.SCHED_OTHER
    try:
        for tid in os.listdir("/proc/self/task"):
            os.sched_setscheduler(int(tid), policy, os.sched_param(prio))
        return True
    except (PermissionError, OSError):
        return False


def scheduling_policy():
    return {os.SCHED_FIFO: "SCHED_FIFO", os.SCHED_RR: "SCHED_RR"}.get(os.sched_getscheduler(0), "SCHED_OTHER")



def cpu_model():
    """The CPU's identity: MDH_BENCH_CPU (run_all.sh sets it from benchmarks/cpu_id.sh), else the
    model name from /proc/cpuinfo ("" if unknown)."""
    if os.environ.get("MDH_BENCH_CPU"):
        return os.environ["MDH_BENCH_CPU"]
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--budget-seconds", type=float, required=True,
                    help="tuning wall time; 0 skips tuning and uses the database as it is")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work-dir", help="MetaSchedule work dir (default benchmarks/results/<id>/tvm-work)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, a few trials, correctness only")
    ap.add_argument("--trials-per-iter", type=int, default=None,
                    help="candidates per MetaSchedule batch (default 16; 8 with --smoke)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--note", default="", help="extra text appended to the note")
    ap.add_argument("--rt-prio", type=int, default=10,
                    help="SCHED_FIFO priority for the final check and timing only (0: leave the "
                         "policy alone; the whole script may instead run under chrt -f 10)")
    ap.add_argument("--pair", action="append", default=[], metavar="NAME=SO",
                    help="an mdhc kernel (shared object, inputs in the workload's order) to check and "
                         "time interleaved with TVM's in this process; repeatable")
    ap.add_argument("--pair-seconds", type=float, default=4.0,
                    help="timing per implementation of the paired comparison (default 4)")
    args = ap.parse_args()
    pairs = []
    for spec in args.pair:
        name, sep, so = spec.partition("=")
        if not sep or not name or not so:
            sys.exit(f"--pair wants NAME=SO, got {spec!r}")
        if not os.path.exists(so):
            sys.exit(f"--pair {name}: no such file {so}")
        pairs.append((name, so))

    with open(WORKLOADS) as fh:
        table = {w["id"]: w for w in json.load(fh)["workloads"]}
    if args.workload not in table:
        sys.exit(f"unknown workload {args.workload}; known: {', '.join(table)}")
    w = table[args.workload]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)

    def write(obj):
        obj = dict(obj, cpu=cpu_model())  # the report names the machine per workload
        tmp = args.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(obj, fh, indent=1)
            fh.write("\n")
        os.replace(tmp, args.out)
        print(json.dumps(obj))

    if w["kind"] in NA_REASONS:
        write({"workload": w["id"], "impl": "tvm", "na": True, "note": NA_REASONS[w["kind"]]})
        return 0

    import tvm
    from tvm import te
    from tvm.s_tir import meta_schedule as ms

    dims = SMOKE_DIMS[w["kind"]] if args.smoke else w["dims"]
    rng = np.random.default_rng(12345)
    tensors, inputs, ref_fn, out_dtype = build_workload(w, dims, rng)
    func = te.create_prim_func(tensors).with_attr("global_symbol", "main")
    mod = tvm.IRModule({"main": func})
    target = make_target()

    work_dir = args.work_dir or os.path.join(ROOT, "benchmarks", "results", w["id"], "tvm-work")
    if args.smoke:
        work_dir = args.work_dir or os.path.join(ROOT, "benchmarks", "results", w["id"], "tvm-smoke-work")
    os.makedirs(work_dir, exist_ok=True)
    records_before = count_records(work_dir)
    # 16, not MetaSchedule's 64: a 10-minute budget on 2 loaded cores measures only ~100
    # candidates, so smaller batches give more cost-model updates and a finer deadline.
    trials_per_iter = args.trials_per_iter or (8 if args.smoke else 16)
    max_trials = trials_per_iter if args.smoke else 1_000_000

    log(f"{w['id']}: tuning for {args.budget_seconds:g} s on {target} "
        f"(work dir {work_dir}, {records_before} records already)")
    if args.budget_seconds > 0:
        trials, spent, exhausted = tune(mod, target, work_dir, args.budget_seconds, trials_per_iter, max_trials,
                             args.seed, args.smoke)
    else:  # re-check and re-time the best record already in the database
        trials, spent, exhausted = 0, 0.0, False
    records_after = count_records(work_dir)
    log(f"{w['id']}: {trials} trials in {spent:.1f} s ({trials / max(spent, 1e-9):.2f} trials/s); "
        f"database holds {records_after} records")

    database = ms.database.JSONDatabase(work_dir=work_dir)
    sch = ms.tir_integration.compile_tir(database, mod, target)
    if sch is None:
        # No tunable block (e.g. scan's opaque serial cumsum loop): TVM's default lowering.
        log(f"{w['id']}: no tuned schedule in the database; compiling the untuned PrimFunc")
        best_mod, tuned = mod, False
    else:
        best_mod, tuned = sch.mod, True
    lib = tvm.compile(best_mod, target=target)

    dev = tvm.cpu(0)
    out_shape = tuple(int(x) for x in tensors[-1].shape)
    tv_in = [tvm.runtime.tensor(x, dev) for x in inputs]
    tv_out = tvm.runtime.tensor(np.zeros(out_shape, dtype=out_dtype), dev)
    lib["main"](*tv_in, tv_out)
    out = tv_out.numpy()
    if out_dtype == "float32":
        ref = np.asarray(ref_fn(*[x.astype(np.float64) for x in inputs]), dtype=np.float64)
        mag = np.abs(np.asarray(ref_fn(*[np.abs(x).astype(np.float64) for x in inputs]), dtype=np.float64))
    else:
        ref = np.asarray(ref_fn(*inputs))
        mag = None
    ref = ref.reshape(out_shape)
    mag = None if mag is None else mag.reshape(out_shape)

    def check_out(a):  # TVM's output and every paired mdh kernel's, against the same reference
        return check(a, ref, mag, out_dtype)
    ok, rel, why = check_out(out)
    log(f"{w['id']}: check {'passed' if ok else 'FAILED'}: {why}")

    tvm_ver = tvm.__version__
    what = f"MetaSchedule ({'tuned' if tuned else 'no tunable space, untuned'})"
    if w["kind"] == "scan":
        what = ("topi.cumsum, TVM's CPU prefix sum: an opaque serial loop, so MetaSchedule's "
                "design space holds one schedule; " + what)
    note = (f"{what}, {trials} trials in {spent:.0f} s this run ({records_after} records in the "
            f"database), budget {args.budget_seconds:g} s, tvm {tvm_ver}, target {target}")
    if exhausted:
        note += (f"; the search stopped before the deadline: MetaSchedule's design space for this "
                 f"kernel was exhausted after {records_after} distinct candidates")
    if args.smoke:
        note = "smoke (tiny sizes, correctness only): " + note
    if args.note:
        note += "; " + args.note
    if not ok:
        write({"workload": w["id"], "impl": "tvm", "checked": False, "error": "output mismatch: " + why,
               "note": note})
        return 1
    result = {"workload": w["id"], "impl": "tvm", "variant": "warm"}
    if args.smoke:
        result.update({"smoke": True, "dims": dims, "checked": True, "max_rel_err": rel, "note": note})
        write(result)
        return 0
    # The mdh kernels to pair with are checked (and their OpenMP threads created) before the
    # priority is raised, so that set_fifo_all_threads covers their threads too.
    paired = None
    mdh_kernels = {}
    if pairs:
        import paired as pairing
        timer = pairing.build_call_timer()
        paired = {"blocks": 8, "pause_s": 0.2, "seconds_per_impl": args.pair_seconds, "impls": {}}
        # mdh reads TVM's input tensors themselves (DLPack views, no copy): the same pages, so
        # that where this run's buffers happen to lie in memory favours neither.
        try:
            shared_inputs = [np.from_dlpack(t) for t in tv_in]
            paired["inputs"] = "TVM's input tensors (shared)"
        except (TypeError, BufferError, AttributeError):
            shared_inputs = inputs
            paired["inputs"] = "copies of TVM's inputs"
        for name, so in pairs:
            try:
                k = pairing.MdhKernel(so, shared_inputs, out_shape, out_dtype, timer)
                k()
                okk, relk, whyk = check_out(k.out)
            except (OSError, AttributeError, RuntimeError, ValueError) as e:
                okk, relk, whyk = False, None, str(e)
            log(f"{w['id']}: paired {name} ({so}): check {'passed' if okk else 'FAILED'}: {whyk}")
            if okk:
                mdh_kernels[name] = k
                paired["impls"][name] = {"checked": True, "max_rel_err": relk, "so": os.path.basename(so)}
                if k.cropped:
                    paired["impls"][name]["cropped_inputs"] = k.cropped
            else:
                paired["impls"][name] = {"checked": False, "error": whyk, "so": os.path.basename(so)}
    was_rt = scheduling_policy() != "SCHED_OTHER"
    raised = (not was_rt) and args.rt_prio > 0 and set_fifo_all_threads(args.rt_prio)
    policy = scheduling_policy()
    try:
        med, mn, mx, runs = time_it(lib, dev, tv_in + [tv_out])
        if mdh_kernels:
            rt = lib.jit()
            evaluators = {}

            def tvm_calls(n):
                if n not in evaluators:
                    evaluators[n] = rt.time_evaluator("main", dev, number=1, repeat=n)
                return list(evaluators[n](*tv_in, tv_out).results)
            timers = {"tvm": tvm_calls}
            timers.update({name: k.time_calls for name, k in mdh_kernels.items()})
            samples = pairing.interleave(timers, seconds_per_impl=args.pair_seconds,
                                         blocks=paired["blocks"], pause_s=paired["pause_s"])
            paired["impls"].setdefault("tvm", {"checked": True, "max_rel_err": rel})
            for name, ts in samples.items():
                paired["impls"][name].update(pairing.summary(ts))
    finally:
        if raised:
            set_fifo_all_threads(0)
    for name, k in mdh_kernels.items():  # a kernel whose output changed while timed loses its time
        okk, relk, whyk = check_out(k.out)
        if not okk:
            paired["impls"][name] = {"checked": False, "error": "output mismatch after timing: " + whyk}
    # The timed runs rewrote the output; check it again so the time belongs to a checked output.
    if not np.array_equal(tv_out.numpy(), out):
        ok2, rel2, why2 = check_out(tv_out.numpy())
        if not ok2:
            write({"workload": w["id"], "impl": "tvm", "checked": False,
                   "error": "output mismatch after timing: " + why2, "note": note})
            return 1
    result.update({"median_s": med, "min_s": mn, "max_s": mx, "runs": runs, "checked": True,
                   "max_rel_err": rel, "trials": trials, "tuning_s": round(spent, 1),
                   "db_records": records_after, "space_exhausted": exhausted,
                   "budget_s": args.budget_seconds, "tvm_version": tvm_ver, "target": str(target),
                   "timing_policy": policy,
                   "note": note})
    if paired is not None:
        paired["timing_policy"] = policy
        result["paired"] = paired
        for name, r in paired["impls"].items():
            if r.get("median_s"):
                log(f"{w['id']}: paired {name}: median {r['median_s'] * 1e3:.4f} ms (min {r['min_s'] * 1e3:.4f}, "
                    f"{r['runs']} runs)")
    metric = w.get("metric")
    if metric == "GFLOP/s" and "flops" in w:
        result["gflops"] = w["flops"] / med / 1e9
    elif metric == "GB/s" and "bytes" in w:
        result["gbs"] = w["bytes"] / med / 1e9
    log(f"{w['id']}: median {med * 1e3:.3f} ms (min {mn * 1e3:.3f}, max {mx * 1e3:.3f}, {runs} runs)"
        + (f", {result['gflops']:.1f} GFLOP/s" if "gflops" in result else "")
        + (f", {result['gbs']:.1f} GB/s" if "gbs" in result else ""))
    write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
