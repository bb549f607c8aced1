// Devices as TVM's runtime names them (DLPack's device types: cpu = 1, cuda = 2, ...) and
// the device API behind each: memory, copies, synchronization, presence. The CPU's is here;
// a GPU runtime registers its own (issue #18); a device without one is a clear error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tsch::runtime {

enum class DeviceType : int32_t {
  CPU = 1,
  CUDA = 2,
  CUDAHost = 3,
  OpenCL = 4,
  Vulkan = 7,
  Metal = 8,
  VPI = 9,
  ROCM = 10,
  ExtDev = 12,
  WebGPU = 15,
  Hexagon = 16,
};

struct Device {
  DeviceType type = DeviceType::CPU;
  int32_t id = 0;

  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  // "cpu(0)", "cuda(1)", as TVM prints a device.
  std::string str() const;
};

inline Device cpu(int32_t id = 0) { return {DeviceType::CPU, id}; }

// TVM's names: "cpu", "cuda", "opencl", ...
std::string device_type_name(DeviceType t);
// A device from TVM's spellings ("llvm", "cpu", "c", "cuda", "gpu", "nvptx", "cl", "opencl",
// "vulkan", "metal", "rocm", "ext_dev", "webgpu", "hexagon") or a DeviceType number; a
// UserError (ValueError) otherwise.
Device device_from_name(const std::string& name, int32_t id);
Device device_from_code(int64_t type, int32_t id);

// Measures the time between start() and stop() of work queued on a device (TVM's Timer): the
// host's clock around a synchronization by default, CUDA events on a CUDA device.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Seconds between start and stop (waits for the device to reach stop).
  virtual double seconds() = 0;
};

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  virtual bool exists(int32_t id) = 0;
  virtual void* alloc(int32_t id, size_t nbytes, size_t alignment) = 0;
  virtual void free(int32_t id, void* ptr) = 0;
  // Copies between host memory and the device (or within it).
  virtual void copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) = 0;
  virtual void sync(int32_t id) = 0;
  // A timer for work on device `id`.
  virtual std::unique_ptr<DeviceTimer> timer(int32_t id);
};

// The API of `type`, or null when tsch has none for it.
DeviceAPI* find_device_api(DeviceType type);
// The API of `dev`; a UserError (RuntimeError, "not supported yet: ...") when tsch has none.
DeviceAPI& device_api(Device dev);
// Installs the API for a device type (the CUDA runtime does, when a driver is present).
void register_device_api(DeviceType type, DeviceAPI* api);

}  // namespace tsch::runtime
