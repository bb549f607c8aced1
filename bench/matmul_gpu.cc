// matmul_gpu: 4096x4096 matmul on the GPU, float32 and float16 — the kernels tsch builds from
// bench/matmul_gpu.tsch (stdlib/matmul_gpu.tsch's shared-memory recipe at a few tile sizes)
// against cuBLAS (cublasSgemm / cublasHgemm, loaded with dlopen), in the same run on the same
// device arrays. Each result's error against a float64 product is printed (sampled entries); times are the best of 5
// repeats of `number` calls between device synchronizations, after a warm-up. Figures are printed, not asserted.
// Without a CUDA device or cuBLAS it says so and exits 0 (skipped).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bindings/builtin_modules.h"
#include "driver/build.h"
#include "runtime/call.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/device.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"
#include "script/interpreter.h"
#include "target/target.h"
#include "values/ir_values.h"

namespace {

using namespace tsch;
constexpr int N = 4096;
constexpr double kFlops = 2.0 * N * N * N;

// cuBLAS's C API, the few calls the bench makes (handles are pointers; enums are ints).
struct CuBLAS {
  void* handle = nullptr;
  int (*Create)(void**) = nullptr;
  int (*Sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*,
               int) = nullptr;
  int (*Hgemm)(void*, int, int, int, int, int, const uint16_t*, const void*, int, const void*, int, const uint16_t*,
               void*, int) = nullptr;
  int (*GetVersion)(void*, int*) = nullptr;
  std::string path;
};

// TSCH_CUBLAS, else the loader's libcublas.so.13 / .12 / libcublas.so, else the toolkit's.
bool load_cublas(CuBLAS& b, std::string& why) {
  std::vector<std::string> names;
  if (const char* p = std::getenv("TSCH_CUBLAS"); p && *p) names.push_back(p);
  for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) names.push_back(n);
  std::string home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";
  for (const char* n : {"/lib64/libcublas.so.13", "/lib64/libcublas.so.12", "/lib64/libcublas.so"})
    names.push_back(home + n);
  void* lib = nullptr;
  for (const auto& n : names) {
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      b.path = n;
      break;
    }
  }
  if (!lib) {
    why = "cuBLAS (libcublas.so) is not found (set TSCH_CUBLAS to its path)";
    return false;
  }
  b.Create = reinterpret_cast<decltype(b.Create)>(dlsym(lib, "cublasCreate_v2"));
  b.Sgemm = reinterpret_cast<decltype(b.Sgemm)>(dlsym(lib, "cublasSgemm_v2"));
  b.Hgemm = reinterpret_cast<decltype(b.Hgemm)>(dlsym(lib, "cublasHgemm"));
  b.GetVersion = reinterpret_cast<decltype(b.GetVersion)>(dlsym(lib, "cublasGetVersion_v2"));
  if (!b.Create || !b.Sgemm || !b.Hgemm) {
    why = b.path + " lacks cublasCreate_v2 / cublasSgemm_v2 / cublasHgemm";
    return false;
  }
  if (int r = b.Create(&b.handle); r != 0) {
    why = "cublasCreate failed (status " + std::to_string(r) + ")";
    return false;
  }
  return true;
}

// Best seconds per call over 5 repeats of `number` calls, the device synchronized around each.
double best_time(const std::function<void()>& f, runtime::DeviceAPI& api, int number) {
  f();
  api.sync(0);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < number; ++i) f();
    api.sync(0);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() / number);
  }
  return best;
}

// float16 bits <-> float (round to nearest even), for inputs and the check.
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
  int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // the bench's inputs are never this small
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(h);
}
float from_half(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::vector<float> host_values(const runtime::NDArray& a) {
  runtime::NDArrayRef h = runtime::to_host(a);
  std::vector<float> out(static_cast<size_t>(h->size()));
  for (int64_t i = 0; i < h->size(); ++i) {
    if (h->dtype().bits == 16)
      out[static_cast<size_t>(i)] = from_half(static_cast<const uint16_t*>(h->data())[i]);
    else
      out[static_cast<size_t>(i)] = static_cast<const float*>(h->data())[i];
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (runtime::cuda::device_count(&why) == 0) {
    std::printf("matmul_gpu: skipped: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  CuBLAS cublas;
  if (!load_cublas(cublas, why)) {
    std::printf("matmul_gpu: skipped: %s\n", why.c_str());
    return 0;
  }
  setenv("TSCH_STDLIB", TSCH_STDLIB_DIR, 0);
  // TSCH_BENCH_DIR: where matmul_gpu.tsch is when the bench runs away from its build tree.
  std::string dir = std::getenv("TSCH_BENCH_DIR") ? std::getenv("TSCH_BENCH_DIR") : TSCH_BENCH_DIR;
  script::register_builtin_modules();
  script::Interpreter interp;
  std::ifstream in(dir + "/matmul_gpu.tsch");
  if (!in) {
    std::fprintf(stderr, "matmul_gpu: cannot read %s/matmul_gpu.tsch\n", dir.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto globals = interp.make_main_globals(dir + "/matmul_gpu");
  try {
    interp.exec_source(SourceFile::make(dir + "/matmul_gpu.tsch", text.str()), globals);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_gpu: matmul_gpu.tsch failed: %s\n", e.what());
    return 1;
  }

  int cublas_version = 0;
  if (cublas.GetVersion) cublas.GetVersion(cublas.handle, &cublas_version);
  std::string arch = "sm_" + [] {
    std::string v = runtime::cuda::compute_version(0);
    v.erase(v.find('.'), 1);
    return v;
  }();
  std::printf("matmul %dx%dx%d on %s (%s); TFLOP/s = 2*N^3 / best time\n", N, N, N,
              runtime::cuda::device_name(0).c_str(), arch.c_str());
  std::printf("tsch: CUDA C -> PTX (NVRTC, -arch=%s) -> the driver's JIT; cuBLAS %d from %s (default math mode)\n\n",
              arch.c_str(), cublas_version, cublas.path.c_str());

  runtime::Device gpu{runtime::DeviceType::CUDA, 0};
  runtime::DeviceAPI& api = runtime::device_api(gpu);
  target::Target target = target::parse_target("cuda");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  // `matmul_gpu float16` times only the float16 kernels (every dtype without arguments).
  std::vector<std::string> dtypes(argv + 1, argv + argc);
  if (dtypes.empty()) dtypes = {"float32", "float16"};
  for (const std::string& dtype_text : dtypes) {
    const char* dtype_name = dtype_text.c_str();
    ir::DataType dtype = *ir::DataType::parse(dtype_name);
    bool half = dtype.bits == 16;
    // Inputs: uniform in [-1, 1]; float16 ones rounded to half. `values` keeps them as floats.
    auto fill = [&](runtime::NDArray& dev_array, std::vector<float>& values) {
      runtime::NDArrayRef h = runtime::make_array(dtype, {N, N});
      values.resize(static_cast<size_t>(h->size()));
      for (int64_t i = 0; i < h->size(); ++i) {
        float v = dist(rng);
        if (half) {
          uint16_t b = to_half(v);
          static_cast<uint16_t*>(h->data())[i] = b;
          v = from_half(b);
        } else {
          static_cast<float*>(h->data())[i] = v;
        }
        values[static_cast<size_t>(i)] = v;
      }
      runtime::copy_array(*h, dev_array);
    };
    runtime::NDArrayRef A = runtime::make_device_array(dtype, {N, N}, gpu),
                        B = runtime::make_device_array(dtype, {N, N}, gpu);
    runtime::NDArrayRef C = runtime::make_device_array(dtype, {N, N}, gpu),
                        C_ref = runtime::make_device_array(dtype, {N, N}, gpu);
    std::vector<float> a_values, b_values;
    fill(*A, a_values);
    fill(*B, b_values);
    // The largest error against a float64 product, over 512 sampled entries.
    std::vector<std::pair<int, int>> samples;
    std::uniform_int_distribution<int> pick(0, N - 1);
    for (int s = 0; s < 512; ++s) samples.emplace_back(pick(rng), pick(rng));
    auto max_error = [&](const runtime::NDArray& out) {
      std::vector<float> got = host_values(out);
      double worst = 0;
      for (auto [i, j] : samples) {
        double ref = 0;
        for (int k = 0; k < N; ++k)
          ref +=
              static_cast<double>(a_values[static_cast<size_t>(i) * N + k]) * b_values[static_cast<size_t>(k) * N + j];
        worst = std::max(worst, std::fabs(got[static_cast<size_t>(i) * N + j] - ref));
      }
      return worst;
    };
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
    const float one = 1, zero = 0;
    const uint16_t one_h = to_half(1), zero_h = 0;
    auto peer = [&] {
      if (half)
        cublas.Hgemm(cublas.handle, 0, 0, N, N, N, &one_h, B->data(), N, A->data(), N, &zero_h, C_ref->data(), N);
      else
        cublas.Sgemm(cublas.handle, 0, 0, N, N, N, &one, static_cast<const float*>(B->data()), N,
                     static_cast<const float*>(A->data()), N, &zero, static_cast<float*>(C_ref->data()), N);
    };
    double peer_s = best_time(peer, api, 10);
    std::printf("%s: cuBLAS %s: %.3f ms, %.1f TFLOP/s; max |error| against float64 = %.2g\n", dtype_name,
                half ? "cublasHgemm" : "cublasSgemm", peer_s * 1e3, kFlops / peer_s / 1e12, max_error(*C_ref));

    for (const script::Value& v : interp.to_vector(*globals->find(intern("variants")))) {
      std::vector<script::Value> item = interp.to_vector(v);
      std::string name = interp.str(item[0]), variant_dtype = interp.str(item[1]);
      if (variant_dtype != dtype_name) continue;
      ir::IRModule mod = item[2].as<bindings::IRModuleValue>()->module;
      runtime::CompiledModuleRef lib;
      try {
        lib = driver::build(mod, target);
      } catch (const std::exception& e) {
        std::printf("  %-44s build failed: %s\n", name.c_str(), e.what());
        continue;
      }
      runtime::PackedFunc f = runtime::get_function(lib, "main");
      std::vector<runtime::Any> args = {runtime::Any::of_ndarray(A), runtime::Any::of_ndarray(B),
                                        runtime::Any::of_ndarray(C)};
      double s = 0;
      try {
        s = best_time([&] { (*f)(args); }, api, 10);
      } catch (const std::exception& e) {
        std::printf("  %-44s failed: %s\n", name.c_str(), e.what());
        continue;
      }
      std::printf("  tsch %-44s %.3f ms, %5.1f TFLOP/s, %.2fx cuBLAS; max |error| = %.2g\n", name.c_str(), s * 1e3,
                  kFlops / s / 1e12, peer_s / s, max_error(*C));
    }
    std::printf("\n");
  }
  return 0;
}
