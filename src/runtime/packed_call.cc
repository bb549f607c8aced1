#include "runtime/packed_call.h"

#include <cstring>
#include <mutex>

#include "runtime/module.h"
#include "runtime/registry.h"
#include "support/error.h"

namespace tsch::runtime {
namespace {

// One slot for the whole process: a packed call in a parallel loop fails on a worker thread,
// and the thread that called the kernel takes the error. The first failure is kept.
struct ErrorSlot {
  std::mutex mutex;
  std::exception_ptr error;
};

ErrorSlot& slot() {
  static auto* s = new ErrorSlot();
  return *s;
}

Any to_any(const TschPackedArg& a) {
  switch (a.type_code) {
    case kPackedInt:
      return Any::of_int(a.value);
    case kPackedFloat: {
      double d;
      std::memcpy(&d, &a.value, sizeof d);
      return Any::of_float(d);
    }
    case kPackedStr:
      return Any::of_str(reinterpret_cast<const char*>(a.value));
    case kPackedArray: {
      const auto* arr = reinterpret_cast<const TschArrayArg*>(a.value);
      ir::DataType dtype{static_cast<ir::DataType::Code>(arr->code), arr->bits, arr->lanes};
      Shape shape(arr->shape, arr->shape + arr->ndim);
      void* first = static_cast<uint8_t*>(arr->data) + arr->elem_offset * element_bytes(dtype);
      return Any::of_ndarray(borrow_memory(dtype, std::move(shape), first));
    }
    default:
      break;
  }
  TSCH_USER_ASSERT(false, TypeError) << "not supported yet: a handle argument to a packed function";
  return Any();
}

thread_local const KernelLauncher* current_launcher = nullptr;

}  // namespace

ScopedKernelLauncher::ScopedKernelLauncher(const KernelLauncher* launcher) : saved_(current_launcher) {
  current_launcher = launcher;
}
ScopedKernelLauncher::~ScopedKernelLauncher() { current_launcher = saved_; }

const KernelLauncher* kernel_launcher() { return current_launcher; }

std::exception_ptr take_packed_call_error() {
  std::lock_guard<std::mutex> lock(slot().mutex);
  std::exception_ptr e = slot().error;
  slot().error = nullptr;
  return e;
}

}  // namespace tsch::runtime

extern "C" int32_t tsch_call_packed(const char* name, const TschPackedArg* args, int32_t num_args, int64_t* result) {
  using namespace tsch::runtime;
  *result = 0;
  try {
    if (const KernelLauncher* launcher = kernel_launcher(); launcher && launcher->launch(name, args, num_args))
      return 0;
    PackedFunc f = get_global_func(name);
    std::vector<Any> in;
    in.reserve(static_cast<size_t>(num_args));
    for (int32_t i = 0; i < num_args; ++i) in.push_back(to_any(args[i]));
    Any out = (*f)(in);
    if (out.kind() == Any::Kind::Int || out.kind() == Any::Kind::Bool) *result = out.as_int();
    return 0;
  } catch (...) {
    std::lock_guard<std::mutex> lock(slot().mutex);
    if (!slot().error) slot().error = std::current_exception();
    return kStatusPackedCallFailed;
  }
}
