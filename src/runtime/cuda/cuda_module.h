// Kernels on a real GPU: a device module's PTX loaded into a device's context once
// (cuModuleLoadDataEx, the driver's JIT log in the error), and the launches a CUDA build's
// host code makes by name — T.call_packed("main_kernel", A.data, ..., n, 8, 128): the
// kernel's parameters (device pointers, scalars converted to the parameter's type), then its
// launch extents in the order of the kernel's `tir.kernel_launch_params` tags.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "runtime/packed_call.h"

namespace tsch::runtime::cuda {

struct KernelInfo {
  std::string name;
  std::vector<ir::DataType> params;      // handle for a pointer, else the scalar's type
  std::vector<std::string> launch_tags;  // "blockIdx.x", "threadIdx.x", ...
};

// The kernel table an exported CUDA build carries: a line per kernel, its name, parameter
// types and launch tags separated by tabs (types and tags by commas). decode throws
// runtime::BuildError for a malformed table.
std::string encode_kernel_table(const std::vector<KernelInfo>& kernels);
std::vector<KernelInfo> decode_kernel_table(const std::string& text);

class CUDAKernelLauncher final : public KernelLauncher {
 public:
  // `ptx` is asked for once, on the first launch (NVRTC runs only where a GPU runs).
  CUDAKernelLauncher(std::function<std::string()> ptx, std::vector<KernelInfo> kernels, int device_id);
  ~CUDAKernelLauncher() override;
  bool launch(const char* name, const TschPackedArg* args, int32_t num_args) const override;

 private:
  struct Loaded;
  const Loaded& load() const;

  std::function<std::string()> ptx_;
  std::vector<KernelInfo> kernels_;
  int device_id_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<Loaded> loaded_;
};

// The launchers of one device module's kernels, one per device, made on first use (a
// module's kernels are loaded into each device's context once).
class KernelLaunchers {
 public:
  KernelLaunchers(std::function<std::string()> ptx, std::vector<KernelInfo> kernels)
      : ptx_(std::move(ptx)), kernels_(std::move(kernels)) {}
  std::shared_ptr<const KernelLauncher> on(int device_id) const;
  const std::vector<KernelInfo>& kernels() const { return kernels_; }

 private:
  std::function<std::string()> ptx_;
  std::vector<KernelInfo> kernels_;
  mutable std::mutex mu_;
  mutable std::map<int, std::shared_ptr<const KernelLauncher>> by_device_;
};

}  // namespace tsch::runtime::cuda
