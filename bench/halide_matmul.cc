// halide_matmul: the peer of matmul_bench — a Halide 14 JIT fp32 matmul 1024^3 with a
// schedule equivalent to stdlib/matmul_cpu.tsch (8x32 register tile, vectorized columns,
// unrolled rows, the tile accumulated in registers, parallel row blocks). Prints
// "compile_ms gflops target" for HL_NUM_THREADS threads. Separate process: Halide links LLVM 14.
#include <Halide.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main() {
  constexpr int N = 1024;
  using Clock = std::chrono::steady_clock;
  Halide::Buffer<float> a(N, N), b(N, N), c(N, N);
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) a(x, y) = std::rand() / float(RAND_MAX), b(x, y) = std::rand() / float(RAND_MAX);
  Halide::ImageParam pa(Halide::Float(32), 2, "A"), pb(Halide::Float(32), 2, "B");
  pa.set(a);
  pb.set(b);
  Halide::Var x("x"), y("y"), xi("xi"), yi("yi"), xo("xo"), yo("yo");
  Halide::Func prod("prod"), out("out");
  Halide::RDom r(0, N);
  prod(x, y) = 0.0f;
  prod(x, y) += pa(r, y) * pb(x, r);
  out(x, y) = prod(x, y);
  out.bound(x, 0, N).bound(y, 0, N);
  out.tile(x, y, xo, yo, xi, yi, 32, 8).parallel(yo).vectorize(xi, 16);
  prod.compute_at(out, xo).store_in(Halide::MemoryType::Register).vectorize(x, 16).unroll(x).unroll(y);
  prod.update().reorder(x, y, r).vectorize(x, 16).unroll(x).unroll(y);
  Halide::Target target = Halide::get_jit_target_from_environment();
  auto t = Clock::now();
  out.compile_jit(target);
  double compile_ms = std::chrono::duration<double>(Clock::now() - t).count() * 1e3;
  // The thread count comes from HL_NUM_THREADS, read when the runtime starts: matmul_bench
  // runs this program once per thread count.
  out.realize(c);
  double best = 1e30;
  for (int rep = 0; rep < 10; ++rep) {
    auto s = Clock::now();
    out.realize(c);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - s).count());
  }
  std::printf("%.1f %.2f %s\n", compile_ms, 2.0 * N * N * N / best / 1e9, target.to_string().c_str());
  return 0;
}
