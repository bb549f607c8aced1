// The CUDA device as tsch's runtime sees it: the NVIDIA driver (libcuda.so.1) loaded with
// dlopen — never linked, so tsch builds and runs without it — and asked whether a device
// exists (cuInit, cuDeviceGetCount). Device memory and kernel launches are not there yet:
// arrays on cuda(n) are "not supported yet" where a device exists, and "no CUDA device"
// (with the reason: no driver, no device) where none does. TSCH_CUDA_DRIVER names another
// driver library, or "none".
#pragma once

#include <string>

namespace tsch::runtime {

// The number of CUDA devices (0 without a driver or device); `why_none` says why when 0.
int cuda_device_count(std::string* why_none = nullptr);

class DeviceAPI;
// The CUDA device API (the device registry installs it).
DeviceAPI* cuda_device_api();

}  // namespace tsch::runtime
