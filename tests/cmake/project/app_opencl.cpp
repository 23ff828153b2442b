// Calls an OpenCL kernel generated at build time (BACKEND opencl, run-time sizes I and K):
// the host-pointer entry against a loop; the cl_mem entry refusing a buffer smaller than the
// sizes need; and the cl_mem entry on queues of contexts the caller makes and releases, whose
// programs the entries must not keep (each kept program kept its context alive: a leak).
#include "matvec_cl.h"
#include <cstdio>
#include <vector>

static int check(const int32_t *M, const int32_t *v, const int32_t *w) {
  for (int i = 0; i < 5; ++i) {
    int32_t s = 0;
    for (int k = 0; k < 7; ++k) s += M[i * 7 + k] * v[k];
    if (s != w[i]) { std::printf("w[%d] = %d, expected %d\n", i, w[i], s); return 1; }
  }
  return 0;
}

static cl_uint refs(cl_context c) {
  cl_uint n = 0;
  clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, nullptr);
  return n;
}

int main() {
  int32_t M[5 * 7], v[7], w[5] = {};
  for (int i = 0; i < 35; ++i) M[i] = i % 11 - 5;
  for (int k = 0; k < 7; ++k) v[k] = 2 * k - 3;
  int status = matvec_cl(5, 7, M, v, w);
  if (status != 0) { std::printf("matvec_cl returned %d\n", status); return 1; }
  if (check(M, v, w)) return 1;

  cl_platform_id platform;
  cl_device_id device;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
    std::printf("no OpenCL device\n");
    return 1;
  }
  cl_int st = CL_SUCCESS;
  std::vector<cl_context> contexts;
  std::vector<cl_uint> before;
  for (int round = 0; round < 3; ++round) {
    cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &st);
    before.push_back(refs(ctx)); // ours alone
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &st);
    cl_mem dM = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof M, M, &st);
    cl_mem dv = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof v, v, &st);
    cl_mem dw = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof w, nullptr, &st);
    cl_mem small = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 2 * sizeof(int32_t), nullptr, &st);
    if (round == 0 && (status = matvec_cl_cl(q, 5, 7, dM, dv, small)) != CL_INVALID_BUFFER_SIZE) {
      std::printf("a too small output buffer gave status %d, not CL_INVALID_BUFFER_SIZE\n", status);
      return 1;
    }
    int32_t got[5] = {};
    if ((status = matvec_cl_cl(q, 5, 7, dM, dv, dw)) != CL_SUCCESS ||
        clEnqueueReadBuffer(q, dw, CL_TRUE, 0, sizeof got, got, 0, nullptr, nullptr) != CL_SUCCESS) {
      std::printf("matvec_cl_cl returned %d\n", status);
      return 1;
    }
    if (check(M, v, got)) return 1;
    for (cl_mem m : {dM, dv, dw, small}) clReleaseMemObject(m);
    clReleaseCommandQueue(q);
    contexts.push_back(ctx); // still ours: its reference count shows what the entries keep
  }
  // The program of the last context may stay; those of the earlier ones must be gone.
  for (int i = 0; i < 2; ++i)
    if (refs(contexts[size_t(i)]) != before[size_t(i)]) {
      std::printf("context %d: %u references once its queue and buffers are released, %u when it was made: the "
                  "entries keep it\n", i, refs(contexts[size_t(i)]), before[size_t(i)]);
      return 1;
    }
  for (cl_context c : contexts) clReleaseContext(c);
  std::printf("ok\n");
  return 0;
}
