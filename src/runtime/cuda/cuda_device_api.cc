#include "runtime/cuda/cuda_device_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "runtime/device.h"
#include "support/error.h"

namespace tsch::runtime {
namespace {

using CUresult = int;

struct DriverProbe {
  int count = 0;
  std::string why;  // why there is no device
};

const DriverProbe& probe() {
  static const DriverProbe p = [] {
    DriverProbe out;
    // TSCH_CUDA_DRIVER: another driver library, or "none" (tests that must not depend on the
    // machine having a GPU).
    const char* chosen = std::getenv("TSCH_CUDA_DRIVER");
    std::string name = chosen && *chosen ? chosen : "libcuda.so.1";
    if (name == "none") {
      out.why = "TSCH_CUDA_DRIVER=none keeps the NVIDIA driver unloaded";
      return out;
    }
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      out.why = "the NVIDIA driver (" + name + ") is not found";
      return out;
    }
    auto init = reinterpret_cast<CUresult (*)(unsigned)>(dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<CUresult (*)(int*)>(dlsym(lib, "cuDeviceGetCount"));
    if (!init || !count) {
      out.why = "" + name + " lacks cuInit / cuDeviceGetCount";
      return out;
    }
    if (CUresult r = init(0); r != 0) {
      out.why = "cuInit failed (CUDA error " + std::to_string(r) + ")";
      return out;
    }
    int n = 0;
    if (CUresult r = count(&n); r != 0 || n == 0) {
      out.why = r != 0 ? "cuDeviceGetCount failed (CUDA error " + std::to_string(r) + ")" : "the driver reports no device";
      return out;
    }
    out.count = n;
    return out;
  }();
  return p;
}

class CUDADeviceAPI final : public DeviceAPI {
 public:
  bool exists(int32_t id) override { return id >= 0 && id < cuda_device_count(); }
  void* alloc(int32_t id, size_t, size_t) override { unavailable(id); }
  void free(int32_t, void*) override {}
  void copy(const void*, Device, void*, Device to, size_t) override { unavailable(to.id); }
  void sync(int32_t id) override { unavailable(id); }

 private:
  [[noreturn]] static void unavailable(int32_t id) {
    std::string why;
    int n = cuda_device_count(&why);
    TSCH_USER_ASSERT(n > 0, RuntimeError) << "no CUDA device: " << why << " (a CUDA build's functions run on the CPU emulation with "
                                          << "arrays on tvm.cpu())";
    TSCH_USER_ASSERT(id < n, RuntimeError) << "no CUDA device cuda(" << id << "): the driver reports " << n << " device(s)";
    TSCH_USER_ASSERT(false, RuntimeError) << "not supported yet: arrays on cuda(" << id << ") (tsch's CUDA runtime does not "
                                          << "manage device memory yet; a CUDA build's functions run on the CPU emulation with "
                                          << "arrays on tvm.cpu())";
    std::abort();  // not reached: the assertion above throws
  }
};

}  // namespace

int cuda_device_count(std::string* why_none) {
  const DriverProbe& p = probe();
  if (why_none) *why_none = p.why;
  return p.count;
}

DeviceAPI* cuda_device_api() {
  static CUDADeviceAPI api;
  return &api;
}

}  // namespace tsch::runtime
