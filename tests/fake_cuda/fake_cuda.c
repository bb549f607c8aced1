/* A stand-in for the NVIDIA driver (libcuda.so.1) for testing tsch's CUDA runtime on machines
 * without a GPU: one "device" whose memory is host memory, modules that are PTX text read for
 * their kernels' parameter types, and launches that run nothing but append a line to the file
 * FAKE_CUDA_LOG names: the kernel, its grid and block, and each parameter as the kernel
 * declares it (a 64-bit one as "alloc#N+offset" when it points into a live allocation, else its value). Used with
 * TSCH_CUDA_DRIVER=<path of this library>. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, ERR_INVALID_VALUE = 1, ERR_NOT_FOUND = 500 };

struct Alloc { char* base; size_t size; int id; };
static struct Alloc allocs[4096];
static int nallocs, next_id;

struct Kernel { char name[128]; char types[32][8]; int nparams; };
struct Module { struct Kernel kernels[64]; int nkernels; };

static FILE* log_file(void) {
  static FILE* f;
  if (!f) {
    const char* path = getenv("FAKE_CUDA_LOG");
    f = path ? fopen(path, "a") : stderr;
  }
  return f;
}

CUresult cuInit(unsigned flags) { (void)flags; return OK; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return OK; }
CUresult cuDeviceGet(int* d, int i) { if (i != 0) return ERR_INVALID_VALUE; *d = 0; return OK; }
CUresult cuDeviceGetAttribute(int* v, int attr, int d) {
  (void)d;
  *v = attr == 75 ? 8 : attr == 76 ? 0 : attr == 1 ? 1024 : 0;
  return OK;
}
CUresult cuDeviceGetName(char* name, int len, int d) { (void)d; snprintf(name, (size_t)len, "fake CUDA device"); return OK; }
CUresult cuDevicePrimaryCtxRetain(void** ctx, int d) { (void)d; *ctx = (void*)0x1; return OK; }
CUresult cuCtxSetCurrent(void* ctx) { (void)ctx; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }

CUresult cuMemAlloc_v2(unsigned long long* p, size_t n) {
  if (nallocs == 4096) return ERR_INVALID_VALUE;
  char* m = calloc(1, n);
  allocs[nallocs].base = m;
  allocs[nallocs].size = n;
  allocs[nallocs].id = next_id++;
  nallocs++;
  *p = (unsigned long long)(uintptr_t)m;
  return OK;
}
CUresult cuMemFree_v2(unsigned long long p) {
  for (int i = 0; i < nallocs; ++i) {
    if ((uintptr_t)allocs[i].base == p) {
      free(allocs[i].base);
      allocs[i] = allocs[--nallocs];
      return OK;
    }
  }
  return ERR_INVALID_VALUE;
}
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void* h, size_t n) { memcpy((void*)(uintptr_t)d, h, n); return OK; }
CUresult cuMemcpyDtoH_v2(void* h, unsigned long long d, size_t n) { memcpy(h, (void*)(uintptr_t)d, n); return OK; }
CUresult cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n) { memmove((void*)(uintptr_t)d, (void*)(uintptr_t)s, n); return OK; }

/* `.entry NAME(` followed by `.param .TYPE NAME_param_K` lines up to `)`. */
CUresult cuModuleLoadDataEx(void** out, const void* image, unsigned n, int* opts, void** vals) {
  (void)n; (void)opts; (void)vals;
  struct Module* m = calloc(1, sizeof *m);
  const char* p = image;
  while ((p = strstr(p, ".entry ")) && m->nkernels < 64) {
    struct Kernel* k = &m->kernels[m->nkernels++];
    p += 7;
    size_t len = strcspn(p, "( \n");
    if (len >= sizeof k->name) len = sizeof k->name - 1;
    memcpy(k->name, p, len);
    const char* end = strchr(p, ')');
    const char* q = p;
    while ((q = strstr(q, ".param .")) && q < end && k->nparams < 32) {
      q += 8;
      size_t tl = strcspn(q, " ");
      if (tl >= 8) tl = 7;
      memcpy(k->types[k->nparams++], q, tl);
    }
  }
  *out = m;
  return OK;
}
CUresult cuModuleUnload(void* m) { free(m); return OK; }
CUresult cuModuleGetFunction(void** f, void* mod, const char* name) {
  struct Module* m = mod;
  for (int i = 0; i < m->nkernels; ++i)
    if (strcmp(m->kernels[i].name, name) == 0) { *f = &m->kernels[i]; return OK; }
  return ERR_NOT_FOUND;
}

static void describe_pointer(FILE* f, unsigned long long p) {
  for (int i = 0; i < nallocs; ++i) {
    uintptr_t b = (uintptr_t)allocs[i].base;
    if (p >= b && p < b + allocs[i].size) { fprintf(f, "alloc#%d+%llu", allocs[i].id, (unsigned long long)(p - b)); return; }
  }
  fprintf(f, "%lld", (long long)p);  /* not a pointer into an allocation: a 64-bit integer */
}

CUresult cuFuncSetAttribute(void* fn, int attr, int value) {
  (void)fn;
  fprintf(log_file(), "set attribute %d = %d\n", attr, value);
  return OK;
}

CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void* stream, void** params, void** extra) {
  (void)stream; (void)extra;
  struct Kernel* k = fn;
  FILE* f = log_file();
  fprintf(f, "launch %s grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u", k->name, gx, gy, gz, bx, by, bz, shared);
  for (int i = 0; i < k->nparams; ++i) {
    const char* t = k->types[i];
    fprintf(f, " %s:", t);
    if (strcmp(t, "u64") == 0 || strcmp(t, "b64") == 0) describe_pointer(f, *(unsigned long long*)params[i]);
    else if (strcmp(t, "s64") == 0) fprintf(f, "%lld", *(long long*)params[i]);
    else if (strcmp(t, "u32") == 0 || strcmp(t, "s32") == 0 || strcmp(t, "b32") == 0) fprintf(f, "%d", *(int*)params[i]);
    else if (strcmp(t, "f32") == 0) fprintf(f, "%g", (double)*(float*)params[i]);
    else if (strcmp(t, "f64") == 0) fprintf(f, "%g", *(double*)params[i]);
    else fprintf(f, "?");
  }
  fprintf(f, "\n");
  fflush(f);
  return OK;
}

CUresult cuEventCreate(void** e, unsigned flags) { (void)flags; *e = calloc(1, 8); return OK; }
CUresult cuEventRecord(void* e, void* s) { (void)e; (void)s; return OK; }
CUresult cuEventSynchronize(void* e) { (void)e; return OK; }
CUresult cuEventElapsedTime(float* ms, void* a, void* b) { (void)a; (void)b; *ms = 0; return OK; }
CUresult cuEventDestroy_v2(void* e) { free(e); return OK; }
CUresult cuGetErrorName(CUresult r, const char** s) { *s = r == ERR_NOT_FOUND ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_INVALID_VALUE"; return OK; }
CUresult cuGetErrorString(CUresult r, const char** s) { *s = r == ERR_NOT_FOUND ? "named symbol not found" : "invalid argument"; return OK; }

/* cuBLAS's entry points bench/matmul_gpu calls, as no-ops (TSCH_CUBLAS=<this library>): for
 * running the bench's flow without a GPU. */
int cublasCreate_v2(void** h) { *h = (void*)0x1; return 0; }
int cublasGetVersion_v2(void* h, int* v) { (void)h; *v = 0; return 0; }
int cublasSgemm_v2(void) { return 0; }
int cublasHgemm(void) { return 0; }
