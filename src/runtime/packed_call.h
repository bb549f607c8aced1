// Compiled code calling the global function registry (TIR's T.call_packed): the C ABI the
// code generator packs arguments into, and the entry it calls. Exceptions never cross the
// generated frames: tsch_call_packed catches what the function raises, keeps it, and
// returns kStatusPackedCallFailed; the kernel returns that status up to call_compiled, which
// rethrows the exception in the caller.
#pragma once

#include <cstdint>
#include <exception>

extern "C" {

// A buffer argument: its data and its shape as declared (the kernel's buffer, not a copy).
struct TschArrayArg {
  void* data;
  const int64_t* shape;
  int32_t ndim;
  uint8_t code;  // ir::DataType::Code
  uint8_t bits;
  uint16_t lanes;
  int64_t elem_offset;  // in elements
};

// One argument: `value` holds an int64, a double's bits, a C string or a TschArrayArg*.
struct TschPackedArg {
  int32_t type_code;
  int32_t reserved;
  int64_t value;
};

// Calls the registered function `name` with `args`; stores an int or bool result in
// `*result` (0 otherwise). Returns 0 or runtime::kStatusPackedCallFailed.
int32_t tsch_call_packed(const char* name, const TschPackedArg* args, int32_t num_args, int64_t* result);
}

namespace tsch::runtime {

enum PackedArgCode : int32_t { kPackedInt = 0, kPackedFloat = 1, kPackedStr = 2, kPackedArray = 3, kPackedHandle = 4 };

// The exception the last failed packed call raised (null when none), cleared by taking it.
std::exception_ptr take_packed_call_error();

// The kernels a host function launches by name (a CUDA build's host code calls
// T.call_packed("main_kernel", A.data, ..., 8, 128)): the module being called installs its
// launcher for the call, and tsch_call_packed offers each name to it before the registry.
class KernelLauncher {
 public:
  virtual ~KernelLauncher() = default;
  // Launches kernel `name` with the packed arguments (its parameters, then the launch extents);
  // false when `name` is not one of its kernels. Failures are exceptions.
  virtual bool launch(const char* name, const TschPackedArg* args, int32_t num_args) const = 0;
};

// Installs `launcher` (may be null) on this thread for the scope's lifetime.
class ScopedKernelLauncher {
 public:
  explicit ScopedKernelLauncher(const KernelLauncher* launcher);
  ~ScopedKernelLauncher();
  ScopedKernelLauncher(const ScopedKernelLauncher&) = delete;
  ScopedKernelLauncher& operator=(const ScopedKernelLauncher&) = delete;

 private:
  const KernelLauncher* saved_;
};
// The launcher installed on this thread, or null.
const KernelLauncher* kernel_launcher();

}  // namespace tsch::runtime
