// The NVIDIA driver API as tsch uses it, loaded with dlopen("libcuda.so.1") — never linked,
// so tsch builds and runs on machines without it (TSCH_CUDA_DRIVER names another library, or
// "none"). One primary context per device, made current on the calling thread before each
// use; every failure is a UserError (RuntimeError) naming the call and CUDA's error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsch::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

// The entry points tsch calls (the _v2 ABI of cuMemAlloc and the copies).
struct DriverAPI {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int*);
  CUresult (*DeviceGet)(CUdevice*, int);
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*DeviceGetName)(char*, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)();
  CUresult (*MemAlloc)(CUdeviceptr*, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*ModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*FuncSetAttribute)(CUfunction, int, int);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void**, void**);
  CUresult (*EventCreate)(CUevent*, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*GetErrorName)(CUresult, const char**);
  CUresult (*GetErrorString)(CUresult, const char**);
};

// Device attributes tsch asks for (CUdevice_attribute).
constexpr int kAttrMaxThreadsPerBlock = 1;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
// CUfunction_attribute: the dynamic shared memory a kernel may be launched with.
constexpr int kFuncAttrMaxDynamicSharedBytes = 8;

// The number of devices (0 without a driver or device); `why_none` says why when 0.
int device_count(std::string* why_none = nullptr);
// The driver, for a device that exists: "no CUDA device: <why>" otherwise (RuntimeError).
const DriverAPI& driver_for(int device_id);
// Makes device `id`'s primary context current on this thread (retained once per process).
void set_device(int device_id);
// Raises RuntimeError "CUDA error in <what>: <name>: <description>" when r is not success.
void check(CUresult r, const char* what);
// "NVIDIA H200", "9.0": what the driver says of device `id`.
std::string device_name(int device_id);
std::string compute_version(int device_id);

}  // namespace tsch::runtime::cuda
