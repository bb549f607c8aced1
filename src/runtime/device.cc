#include "runtime/device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "runtime/cuda/cuda_device_api.h"
#include "support/error.h"

namespace tsch::runtime {
namespace {

const std::map<DeviceType, const char*>& names() {
  static const std::map<DeviceType, const char*> table = {
      {DeviceType::CPU, "cpu"},       {DeviceType::CUDA, "cuda"},       {DeviceType::CUDAHost, "cuda_host"},
      {DeviceType::OpenCL, "opencl"}, {DeviceType::Vulkan, "vulkan"},   {DeviceType::Metal, "metal"},
      {DeviceType::VPI, "vpi"},       {DeviceType::ROCM, "rocm"},       {DeviceType::ExtDev, "ext_dev"},
      {DeviceType::WebGPU, "webgpu"}, {DeviceType::Hexagon, "hexagon"},
  };
  return table;
}

class CPUDeviceAPI final : public DeviceAPI {
 public:
  bool exists(int32_t) override { return true; }
  void* alloc(int32_t, size_t nbytes, size_t alignment) override {
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  }
  void free(int32_t, void* ptr) override { std::free(ptr); }
  void copy(const void* from, Device, void* to, Device, size_t nbytes) override { std::memmove(to, from, nbytes); }
  void sync(int32_t) override {}
};

struct Apis {
  std::mutex mutex;
  std::map<DeviceType, DeviceAPI*> table;
};

Apis& apis() {
  static auto* a = [] {
    auto* out = new Apis();
    static CPUDeviceAPI cpu_api;
    out->table[DeviceType::CPU] = &cpu_api;
    out->table[DeviceType::CUDA] = cuda_device_api();
    return out;
  }();
  return *a;
}

// The host's clock, the device synchronized before each reading.
class HostTimer final : public DeviceTimer {
 public:
  HostTimer(DeviceAPI& api, int32_t id) : api_(api), id_(id) {}
  void start() override {
    api_.sync(id_);
    begin_ = std::chrono::steady_clock::now();
  }
  void stop() override {
    api_.sync(id_);
    end_ = std::chrono::steady_clock::now();
  }
  double seconds() override { return std::chrono::duration<double>(end_ - begin_).count(); }

 private:
  DeviceAPI& api_;
  int32_t id_;
  std::chrono::steady_clock::time_point begin_, end_;
};

}  // namespace

std::unique_ptr<DeviceTimer> DeviceAPI::timer(int32_t id) { return std::make_unique<HostTimer>(*this, id); }

std::string device_type_name(DeviceType t) {
  auto it = names().find(t);
  return it == names().end() ? "device_type_" + std::to_string(static_cast<int32_t>(t)) : it->second;
}

std::string Device::str() const { return device_type_name(type) + "(" + std::to_string(id) + ")"; }

Device device_from_name(const std::string& name, int32_t id) {
  static const std::map<std::string, DeviceType> spellings = {
      {"llvm", DeviceType::CPU},      {"cpu", DeviceType::CPU},         {"c", DeviceType::CPU},
      {"cuda", DeviceType::CUDA},     {"gpu", DeviceType::CUDA},        {"nvptx", DeviceType::CUDA},
      {"cl", DeviceType::OpenCL},     {"opencl", DeviceType::OpenCL},   {"vulkan", DeviceType::Vulkan},
      {"metal", DeviceType::Metal},   {"rocm", DeviceType::ROCM},       {"ext_dev", DeviceType::ExtDev},
      {"webgpu", DeviceType::WebGPU}, {"hexagon", DeviceType::Hexagon},
  };
  // TVM takes the kind of a target string: "cuda -arch=sm_80" is cuda.
  std::string kind = name.substr(0, name.find(' '));
  auto it = spellings.find(kind);
  TSCH_USER_ASSERT(it != spellings.end(), ValueError) << "Unknown device type: " << name;
  return {it->second, id};
}

Device device_from_code(int64_t type, int32_t id) {
  auto it = names().find(static_cast<DeviceType>(type));
  TSCH_USER_ASSERT(it != names().end(), ValueError) << "Unknown device type: " << type;
  return {it->first, id};
}

DeviceAPI* find_device_api(DeviceType type) {
  Apis& a = apis();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto it = a.table.find(type);
  return it == a.table.end() ? nullptr : it->second;
}

DeviceAPI& device_api(Device dev) {
  DeviceAPI* api = find_device_api(dev.type);
  TSCH_USER_ASSERT(api != nullptr, RuntimeError)
      << "not supported yet: device " << dev.str() << " (tsch runs on the cpu; the " << device_type_name(dev.type)
      << " runtime is not there yet)";
  return *api;
}

void register_device_api(DeviceType type, DeviceAPI* api) {
  Apis& a = apis();
  std::lock_guard<std::mutex> lock(a.mutex);
  a.table[type] = api;
}

}  // namespace tsch::runtime
