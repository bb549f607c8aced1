#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "support/error.h"

namespace tsch::runtime::cuda {
namespace {

struct Loaded {
  DriverAPI api{};
  int count = 0;
  std::string why;  // why there is no device
};

template <typename F>
bool bind(void* lib, F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  return slot != nullptr;
}

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded out;
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
    DriverAPI& a = out.api;
    std::string missing;
    auto need = [&](auto& slot, const char* symbol) {
      if (!bind(lib, slot, symbol)) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    };
    need(a.Init, "cuInit");
    need(a.DeviceGetCount, "cuDeviceGetCount");
    need(a.DeviceGet, "cuDeviceGet");
    need(a.DeviceGetAttribute, "cuDeviceGetAttribute");
    need(a.DeviceGetName, "cuDeviceGetName");
    need(a.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    need(a.CtxSetCurrent, "cuCtxSetCurrent");
    need(a.CtxSynchronize, "cuCtxSynchronize");
    need(a.MemAlloc, "cuMemAlloc_v2");
    need(a.MemFree, "cuMemFree_v2");
    need(a.MemcpyHtoD, "cuMemcpyHtoD_v2");
    need(a.MemcpyDtoH, "cuMemcpyDtoH_v2");
    need(a.MemcpyDtoD, "cuMemcpyDtoD_v2");
    need(a.ModuleLoadDataEx, "cuModuleLoadDataEx");
    need(a.ModuleUnload, "cuModuleUnload");
    need(a.ModuleGetFunction, "cuModuleGetFunction");
    need(a.FuncSetAttribute, "cuFuncSetAttribute");
    need(a.LaunchKernel, "cuLaunchKernel");
    need(a.EventCreate, "cuEventCreate");
    need(a.EventRecord, "cuEventRecord");
    need(a.EventSynchronize, "cuEventSynchronize");
    need(a.EventElapsedTime, "cuEventElapsedTime");
    need(a.EventDestroy, "cuEventDestroy_v2");
    need(a.GetErrorName, "cuGetErrorName");
    need(a.GetErrorString, "cuGetErrorString");
    if (!missing.empty()) {
      out.why = name + " lacks " + missing;
      return out;
    }
    if (CUresult r = a.Init(0); r != 0) {
      out.why = "cuInit failed (CUDA error " + std::to_string(r) + ")";
      return out;
    }
    int n = 0;
    if (CUresult r = a.DeviceGetCount(&n); r != 0 || n == 0) {
      out.why =
          r != 0 ? "cuDeviceGetCount failed (CUDA error " + std::to_string(r) + ")" : "the driver reports no device";
      return out;
    }
    out.count = n;
    return out;
  }();
  return l;
}

struct Contexts {
  std::mutex mutex;
  std::vector<CUcontext> by_device;
};

Contexts& contexts() {
  static auto* c = new Contexts();  // never destroyed: arrays freed at exit still need them
  return *c;
}

}  // namespace

int device_count(std::string* why_none) {
  const Loaded& l = loaded();
  if (why_none) *why_none = l.why;
  return l.count;
}

const DriverAPI& driver_for(int device_id) {
  const Loaded& l = loaded();
  TSCH_USER_ASSERT(l.count > 0, RuntimeError)
      << "no CUDA device: " << l.why << " (a CUDA build's functions run on the CPU emulation with arrays on tvm.cpu())";
  TSCH_USER_ASSERT(device_id >= 0 && device_id < l.count, RuntimeError)
      << "no CUDA device cuda(" << device_id << "): the driver reports " << l.count << " device(s)";
  return l.api;
}

void check(CUresult r, const char* what) {
  if (r == 0) return;
  const DriverAPI& a = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (a.GetErrorName) a.GetErrorName(r, &name);
  if (a.GetErrorString) a.GetErrorString(r, &text);
  TSCH_USER_ASSERT(false, RuntimeError) << "CUDA error in " << what << ": "
                                        << (name ? name : "error " + std::to_string(r)) << ": "
                                        << (text ? text : "(no description)");
}

void set_device(int device_id) {
  const DriverAPI& a = driver_for(device_id);
  Contexts& c = contexts();
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.by_device.size() < static_cast<size_t>(device_count()))
      c.by_device.resize(static_cast<size_t>(device_count()), nullptr);
    ctx = c.by_device[static_cast<size_t>(device_id)];
    if (!ctx) {
      CUdevice dev = 0;
      check(a.DeviceGet(&dev, device_id), "cuDeviceGet");
      check(a.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
      c.by_device[static_cast<size_t>(device_id)] = ctx;
    }
  }
  check(a.CtxSetCurrent(ctx), "cuCtxSetCurrent");
}

std::string device_name(int device_id) {
  const DriverAPI& a = driver_for(device_id);
  CUdevice dev = 0;
  check(a.DeviceGet(&dev, device_id), "cuDeviceGet");
  char name[256] = {0};
  check(a.DeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
  return name;
}

std::string compute_version(int device_id) {
  const DriverAPI& a = driver_for(device_id);
  CUdevice dev = 0;
  check(a.DeviceGet(&dev, device_id), "cuDeviceGet");
  int major = 0, minor = 0;
  check(a.DeviceGetAttribute(&major, kAttrComputeCapabilityMajor, dev), "cuDeviceGetAttribute");
  check(a.DeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, dev), "cuDeviceGetAttribute");
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace tsch::runtime::cuda
