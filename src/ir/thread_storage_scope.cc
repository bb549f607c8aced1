#include "ir/thread_storage_scope.h"

namespace tsch::ir {

bool storage_shared_by_thread(const std::string& scope, const std::string& thread_tag) {
  auto starts = [&](const char* p) { return thread_tag.rfind(p, 0) == 0; };
  if (scope == "warp") return thread_tag == "threadIdx.x";
  if (scope.substr(0, scope.find('.')) == "shared") return starts("threadIdx") || starts("vthread");
  return false;
}

}  // namespace tsch::ir
