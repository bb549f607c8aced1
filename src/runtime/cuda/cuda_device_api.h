// The CUDA device as tsch's runtime sees it, over the driver (cuda_driver.h): presence
// (`tvm.cuda(0).exist`), device memory (cuMemAlloc), copies between host and device, and
// synchronization. Without a driver or device every use is "no CUDA device: <why>".
#pragma once

#include <string>

namespace tsch::runtime {

// The number of CUDA devices (0 without a driver or device); `why_none` says why when 0.
int cuda_device_count(std::string* why_none = nullptr);

class DeviceAPI;
// The CUDA device API (the device registry installs it).
DeviceAPI* cuda_device_api();

}  // namespace tsch::runtime
