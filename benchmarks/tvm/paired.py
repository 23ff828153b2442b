# paired.py: times a peer that runs inside this Python process (TVM's compiled module) and
# mdhc-generated kernels (shared objects loaded with ctypes) interleaved, in rotated blocks of
# single calls, so that the comparison with TVM sees the same moments of this shared machine
# (its speed drifts by up to 30% between runs, and a slow spell of seconds would otherwise fall
# on one side only). Used by run_tvm.py --pair; does not import TVM, so it is tested without it
# (tests/bench/paired_test.py).
#
# Invariants: every implementation is timed the same way, one call per sample, in blocks; a
# block starts after a pause that lets the previous implementation's spinning worker threads go
# idle, with one untimed warm-up call; block k takes the implementations in the order rotated by
# k, so none always follows the same one; an mdh kernel is timed only after its output was
# checked by the caller (check_mdh).
import ctypes
import os
import re
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def build_call_timer(cc=None):
    """Compiles call_timer.c into a temporary shared object and returns it loaded (ctypes)."""
    cc = cc or os.environ.get("CC", "cc")
    out_dir = tempfile.mkdtemp(prefix="mdh-call-timer-")
    so = os.path.join(out_dir, "call_timer.so")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", os.path.join(HERE, "call_timer.c"), "-o", so], check=True)
    lib = ctypes.CDLL(so)
    lib.mdh_time_calls.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_void_p]
    lib.mdh_time_calls.restype = ctypes.c_int
    return lib


DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16, "i32": np.int32,
          "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def header_buffers(header_path):
    """The buffers an mdhc header declares (`//  input  I: f32[1, 229, 229, 3]`), in order:
    [(kind, name, dtype, shape)]."""
    out = []
    with open(header_path) as fh:
        for line in fh:
            m = re.match(r"//\s+(input|output)\s+(\w+): (\w+)\[([0-9, ]*)\]", line)
            if m:
                shape = tuple(int(x) for x in m.group(4).split(",") if x.strip())
                out.append((m.group(1), m.group(2), m.group(3), shape))
    return out


def aligned_zeros(shape, dtype, alignment=64):
    """Zeros on an `alignment`-byte boundary, as TVM and the driver allocate. NumPy's large
    arrays start 16 bytes past a page, and the output's place matters: Jacobi3D 256³ (tuned,
    streaming stores) took 3.83 ms into a NumPy array and 2.80 ms into an aligned one, the same
    kernel and input interleaved (2026-11-28, AMD EPYC); why is not known (its stores are
    aligned row by row either way)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + alignment, dtype=np.uint8)
    off = (-raw.ctypes.data) % alignment
    return raw[off:off + nbytes].view(dtype).reshape(shape)


def same_cells(a, b):
    """Equal shapes up to extents of 1 (a dot product's TVM output is [1], MDH's is a scalar [])."""
    return tuple(d for d in a if d != 1) == tuple(d for d in b if d != 1)


class MdhKernel:
    """An mdhc OpenMP kernel NAME.so exporting `int NAME_run(const int64_t *, void *const *)`,
    bound to its input arrays (in the program's input order) and one output array. When its
    header NAME.h lies beside it, the arrays are checked against the shapes and types it
    declares: extents of 1 do not count, an input larger than the kernel's (MDH derives exact shapes: a stride-2
    convolution never reads the last row of an even-sized image) is passed as a cropped copy
    (named in .cropped), any other mismatch raises ValueError instead of letting the kernel
    read out of bounds."""

    def __init__(self, so_path, inputs, out_shape, out_dtype, timer):
        stem = os.path.basename(so_path)
        stem = stem[:-3] if stem.endswith(".so") else stem
        self.cropped = []
        header = os.path.join(os.path.dirname(os.path.abspath(so_path)), stem + ".h")
        if os.path.exists(header):
            inputs = self._fit(header_buffers(header), inputs, out_shape, out_dtype)
        self.lib = ctypes.CDLL(os.path.abspath(so_path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        self.fn = getattr(self.lib, stem + "_run")
        self.fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.fn.restype = ctypes.c_int
        self.inputs = [np.ascontiguousarray(x) for x in inputs]
        self.out = aligned_zeros(out_shape, out_dtype)
        ptrs = [x.ctypes.data for x in self.inputs] + [self.out.ctypes.data]
        self.bufs = (ctypes.c_void_p * len(ptrs))(*ptrs)
        self.sizes = (ctypes.c_int64 * 1)(0)  # every benchmark kernel is instantiated statically
        self.timer = timer

    def _fit(self, declared, inputs, out_shape, out_dtype):
        ins = [d for d in declared if d[0] == "input"]
        outs = [d for d in declared if d[0] == "output"]
        if len(ins) != len(inputs) or len(outs) != 1:
            raise ValueError("the kernel declares %d inputs and %d outputs, given %d inputs and 1 output"
                             % (len(ins), len(outs), len(inputs)))
        _, oname, otype, oshape = outs[0]
        if not same_cells(tuple(out_shape), oshape) or np.dtype(DTYPES.get(otype, "V")) != np.dtype(out_dtype):
            raise ValueError("output %s: the kernel writes %s%s, the caller wants %s%s"
                             % (oname, otype, list(oshape), np.dtype(out_dtype).name, list(out_shape)))
        fitted = []
        for (_, name, t, shape), x in zip(ins, inputs):
            if np.dtype(DTYPES.get(t, "V")) != x.dtype:
                raise ValueError("input %s: the kernel reads %s, given %s" % (name, t, x.dtype.name))
            if same_cells(x.shape, shape):
                fitted.append(x.reshape(shape))  # a view: the same memory
            elif x.ndim == len(shape) and all(k <= g for k, g in zip(shape, x.shape)):
                crop = aligned_zeros(shape, x.dtype)  # aligned as the buffer it stands for
                crop[...] = x[tuple(slice(0, k) for k in shape)]
                fitted.append(crop)
                self.cropped.append("%s %s of %s" % (name, list(shape), list(x.shape)))
            else:
                raise ValueError("input %s: the kernel reads %s%s, given %s" % (name, t, list(shape), list(x.shape)))
        return fitted

    def __call__(self):
        rc = self.fn(self.sizes, self.bufs)
        if rc != 0:
            raise RuntimeError("mdh kernel returned %d" % rc)

    def time_calls(self, n):
        out = np.empty(n, dtype=np.float64)
        rc = self.timer.mdh_time_calls(ctypes.cast(self.fn, ctypes.c_void_p), self.sizes, self.bufs, n,
                                       out.ctypes.data)
        if rc != 0:
            raise RuntimeError("mdh kernel returned %d" % rc)
        return list(out)


def interleave(timers, seconds_per_impl=4.0, blocks=8, pause_s=0.2, max_calls_per_block=100):
    """timers: {name: f(n) -> n single-call times in seconds}. Returns {name: [seconds...]}.
    The number of calls per block comes from one untimed estimate call per implementation, so
    every implementation gets about seconds_per_impl of timing whatever its call takes."""
    names = list(timers)
    est = {}
    for name in names:
        timers[name](1)  # warm-up: first-call costs (thread creation, page faults) are not timed
        est[name] = max(min(timers[name](1)), 1e-7)
    times = {name: [] for name in names}
    for block in range(blocks):
        for q in range(len(names)):
            name = names[(q + block) % len(names)]
            time.sleep(pause_s)
            timers[name](1)
            n = int(min(max_calls_per_block, max(2, round(seconds_per_impl / blocks / est[name]))))
            times[name].extend(timers[name](n))
    return times


def summary(samples):
    a = np.asarray(samples, dtype=np.float64)
    return {"median_s": float(np.median(a)), "min_s": float(a.min()), "max_s": float(a.max()),
            "runs": int(a.size)}
