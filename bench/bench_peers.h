// What matmul_bench needs to run its peers at their best and say what they ran with: the
// CPU's vector features, OpenBLAS's kernel choice (forced to the widest the CPU supports),
// the FMA peak per thread count, and a peer program's output read without a shell.
#pragma once

#include <cpuid.h>
#include <fcntl.h>
#include <immintrin.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace bench {

// AVX-512 as OpenBLAS's SkylakeX kernels use it (F, DQ, BW, VL), from CPUID leaf 7.
inline bool cpu_has_avx512() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const unsigned f = 1u << 16, dq = 1u << 17, bw = 1u << 30, vl = 1u << 31;
  return (ebx & (f | dq | bw | vl)) == (f | dq | bw | vl);
}

#ifdef TSCH_HAVE_OPENBLAS
extern "C" char* openblas_get_corename(void);
extern "C" char* openblas_get_config(void);

// OpenBLAS 0.3.21 (Debian 12) does not know AMD's AVX-512 cores: on an EPYC with AVX-512 it
// picks its Haswell (AVX2) kernels, half the speed of its SkylakeX ones; an OPENBLAS_CORETYPE
// in the environment can likewise name a core narrower than the CPU. The core is chosen when
// the library loads, so the bench re-executes itself once with OPENBLAS_CORETYPE set to the
// widest core the CPU supports (SkylakeX for AVX-512), or to TSCH_BENCH_OPENBLAS_CORETYPE
// when that is set. Returns the line that says what OpenBLAS runs with.
inline std::string choose_openblas_core(char** argv) {
  std::string core = openblas_get_corename();
  const char* before = std::getenv("TSCH_BENCH_OPENBLAS_BEFORE");
  if (!before) {
    const char* chosen = std::getenv("TSCH_BENCH_OPENBLAS_CORETYPE");
    std::string want = chosen ? chosen : cpu_has_avx512() ? "SkylakeX" : "";
    bool avx512_core = core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
    if (!want.empty() && want != core && (chosen || !avx512_core)) {
      const char* env = std::getenv("OPENBLAS_CORETYPE");
      std::string why = env ? "OPENBLAS_CORETYPE was " + std::string(env) : "the library picked " + core;
      setenv("TSCH_BENCH_OPENBLAS_BEFORE", why.c_str(), 1);
      setenv("OPENBLAS_CORETYPE", want.c_str(), 1);
      execv("/proc/self/exe", argv);
      std::fprintf(stderr, "matmul_bench: could not re-execute itself with OPENBLAS_CORETYPE=%s: %s\n", want.c_str(),
                   std::strerror(errno));
    }
  }
  std::string line = std::string(openblas_get_config()) + "; kernels: " + core;
  if (before)
    line += std::string(" (forced, ") +
            (std::getenv("TSCH_BENCH_OPENBLAS_CORETYPE") ? "TSCH_BENCH_OPENBLAS_CORETYPE" : "the CPU has AVX-512") +
            "; " + before + ")";
  else
    line += " (as loaded)";
  return line;
}
#endif

// FMA throughput per instruction set: `chains` independent accumulator chains of `lanes`-float
// fused multiply-adds per thread (SSE: a multiply and an add, counted as two flops alike). The
// loop is chosen at run time by the CPU's features, so the bench runs on AVX2-only CPUs too.
struct FmaKernel {
  const char* isa;
  int lanes;
  int chains;
  float (*loop)(int64_t iters);
};

__attribute__((target("avx512f,fma"))) inline float fma_loop_avx512(int64_t iters) {
  __m512 acc[16];
  for (auto& a : acc) a = _mm512_set1_ps(1.0f);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (auto& a : acc) a = _mm512_fmadd_ps(a, x, y);
  float sink = 0;
  for (auto& a : acc) sink += _mm512_reduce_add_ps(a);
  return sink;
}

// 10 chains: 16 ymm registers hold them with x and y, and 10 cover two FMA ports' latency.
__attribute__((target("avx2,fma"))) inline float fma_loop_avx2(int64_t iters) {
  __m256 acc[10];
  for (auto& a : acc) a = _mm256_set1_ps(1.0f);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (auto& a : acc) a = _mm256_fmadd_ps(a, x, y);
  alignas(32) float lanes[8];
  float sink = 0;
  for (auto& a : acc) {
    _mm256_store_ps(lanes, a);
    for (float l : lanes) sink += l;
  }
  return sink;
}

inline float fma_loop_sse(int64_t iters) {
  __m128 acc[10];
  for (auto& a : acc) a = _mm_set1_ps(1.0f);
  const __m128 x = _mm_set1_ps(0.999999f), y = _mm_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (auto& a : acc) a = _mm_add_ps(_mm_mul_ps(a, x), y);
  alignas(16) float lanes[4];
  float sink = 0;
  for (auto& a : acc) {
    _mm_store_ps(lanes, a);
    for (float l : lanes) sink += l;
  }
  return sink;
}

inline FmaKernel fma_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
    return {"AVX-512 FMA", 16, 16, fma_loop_avx512};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"AVX2 FMA", 8, 10, fma_loop_avx2};
  return {"SSE multiply-add", 4, 10, fma_loop_sse};
}

// The machine's FMA peak on `threads` threads, measured the way the matmuls next to it are:
// best of 100 short runs (~3 ms each), after a warm-up that brings the vector units' clocks up.
// The threads start together from a spin barrier, so none is still being created while the
// others run. (One 50 ms run per thread count, thread creation included, read the 2-thread
// peak below the 2-thread matmul measured next to it whenever another process took a core
// for part of that run.)
inline double fma_peak(int threads) {
  using Clock = std::chrono::steady_clock;
  const int64_t iters = 1'000'000;
  double best = 1e30;
  std::atomic<float> sink{0};
  const FmaKernel kernel = fma_kernel();
  for (int rep = 0; rep < 101; ++rep) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i)
      pool.emplace_back([&] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) {
        }
        sink = sink + kernel.loop(iters);
      });
    while (ready.load() < threads) {
    }
    auto t = Clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(Clock::now() - t).count();
    if (rep > 0) best = std::min(best, s);  // rep 0 warms the vector units' clocks up
  }
  if (sink == 12345) std::puts("");
  return threads * iters * static_cast<double>(kernel.chains) * kernel.lanes * 2 / best / 1e9;
}

// Runs `argv` (no shell) with `env_add` added to the environment; returns its stdout, or ""
// when it could not be started or failed.
inline std::string run_program(const std::vector<std::string>& argv, const std::vector<std::string>& env_add) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<std::string> env_strings(env_add);
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  std::vector<char*> args, env;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  env.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, n);
  }
  close(fds[0]);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return out;
}

}  // namespace bench
