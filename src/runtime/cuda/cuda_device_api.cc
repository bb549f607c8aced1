#include "runtime/cuda/cuda_device_api.h"

#include "runtime/cuda/cuda_driver.h"
#include "runtime/device.h"
#include "support/error.h"

namespace tsch::runtime {
namespace {

// CUDA events recorded on the default stream around the work (TVM's CUDA timer).
class CUDAEventTimer final : public DeviceTimer {
 public:
  explicit CUDAEventTimer(int32_t id) : id_(id), d_(cuda::driver_for(id)) {
    cuda::set_device(id);
    cuda::check(d_.EventCreate(&begin_, 0), "cuEventCreate");
    cuda::check(d_.EventCreate(&end_, 0), "cuEventCreate");
  }
  ~CUDAEventTimer() override {
    d_.EventDestroy(begin_);
    d_.EventDestroy(end_);
  }
  void start() override {
    cuda::set_device(id_);
    cuda::check(d_.EventRecord(begin_, nullptr), "cuEventRecord");
  }
  void stop() override {
    cuda::set_device(id_);
    cuda::check(d_.EventRecord(end_, nullptr), "cuEventRecord");
  }
  double seconds() override {
    cuda::set_device(id_);
    cuda::check(d_.EventSynchronize(end_), "cuEventSynchronize");
    float ms = 0;
    cuda::check(d_.EventElapsedTime(&ms, begin_, end_), "cuEventElapsedTime");
    return static_cast<double>(ms) / 1e3;
  }

 private:
  int32_t id_;
  const cuda::DriverAPI& d_;
  cuda::CUevent begin_ = nullptr, end_ = nullptr;
};

class CUDADeviceAPI final : public DeviceAPI {
 public:
  bool exists(int32_t id) override { return id >= 0 && id < cuda_device_count(); }
  void* alloc(int32_t id, size_t nbytes, size_t) override {
    const cuda::DriverAPI& d = cuda::driver_for(id);
    cuda::set_device(id);
    cuda::CUdeviceptr ptr = 0;
    // cuMemAlloc aligns to 256 bytes, more than any vector access needs.
    cuda::check(d.MemAlloc(&ptr, nbytes == 0 ? 1 : nbytes), "cuMemAlloc");
    return reinterpret_cast<void*>(ptr);
  }
  void free(int32_t id, void* ptr) override {
    if (!ptr || id < 0 || id >= cuda_device_count()) return;
    const cuda::DriverAPI& d = cuda::driver_for(id);
    // At exit the driver may be shutting down already; a failed free then loses nothing.
    try {
      cuda::set_device(id);
    } catch (const UserError&) {
      return;
    }
    (void)d.MemFree(reinterpret_cast<cuda::CUdeviceptr>(ptr));
  }
  void copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    bool from_gpu = from_dev.type == DeviceType::CUDA, to_gpu = to_dev.type == DeviceType::CUDA;
    int32_t id = from_gpu ? from_dev.id : to_dev.id;
    const cuda::DriverAPI& d = cuda::driver_for(id);
    cuda::set_device(id);
    // Copies on the legacy default stream: they wait for the kernels launched before them.
    auto dptr = [](const void* p) { return reinterpret_cast<cuda::CUdeviceptr>(p); };
    if (from_gpu && to_gpu) {
      cuda::check(d.MemcpyDtoD(dptr(to), dptr(from), nbytes), "cuMemcpyDtoD");
    } else if (from_gpu) {
      cuda::check(d.MemcpyDtoH(to, dptr(from), nbytes), "cuMemcpyDtoH");
    } else {
      cuda::check(d.MemcpyHtoD(dptr(to), from, nbytes), "cuMemcpyHtoD");
    }
  }
  void sync(int32_t id) override {
    const cuda::DriverAPI& d = cuda::driver_for(id);
    cuda::set_device(id);
    cuda::check(d.CtxSynchronize(), "cuCtxSynchronize");
  }
  std::unique_ptr<DeviceTimer> timer(int32_t id) override { return std::make_unique<CUDAEventTimer>(id); }
};

}  // namespace

int cuda_device_count(std::string* why_none) { return cuda::device_count(why_none); }

DeviceAPI* cuda_device_api() {
  static CUDADeviceAPI api;
  return &api;
}

}  // namespace tsch::runtime
