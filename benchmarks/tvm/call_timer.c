/* call_timer.c: times single calls of an mdhc-generated kernel (`int NAME_run(const int64_t
 * *sizes, void *const *bufs)`) back to back from C, for benchmarks/tvm/paired.py. Timing each
 * call from Python through ctypes would add a microsecond or more of interpreter overhead to
 * kernels of tens of microseconds, which TVM's time_evaluator (C++) does not pay.
 * Invariant: out[i] is the wall time of call i in seconds (CLOCK_MONOTONIC); a non-zero return
 * code of the kernel stops the loop and is returned. */
#include <stdint.h>
#include <time.h>

typedef int (*mdh_run_fn)(const int64_t *sizes, void *const *bufs);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mdh_time_calls(mdh_run_fn fn, const int64_t *sizes, void *const *bufs, int64_t n, double *out) {
  for (int64_t i = 0; i < n; ++i) {
    const double t0 = now_s();
    const int rc = fn(sizes, bufs);
    out[i] = now_s() - t0;
    if (rc != 0) return rc;
  }
  return 0;
}
