#include "support/stack_guard.h"

#include <pthread.h>

#include <cstdint>

namespace tsch {
namespace {

// The lowest usable address of this thread's stack (stacks grow down), found once per thread.
uintptr_t stack_low_end() {
  static thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uintptr_t>(addr);
  }();
  return low;
}

}  // namespace

bool stack_nearly_exhausted(size_t reserve) {
  uintptr_t low = stack_low_end();
  if (low == 0) return false;  // unknown: rely on the depth limit alone
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here < low + reserve;
}

}  // namespace tsch
