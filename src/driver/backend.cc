#include "driver/backend.h"

#include <map>
#include <mutex>

namespace tsch::driver {

void register_builtin_backends();  // backends.cc

namespace {

std::map<std::string, Backend>& table() {
  static std::map<std::string, Backend> backends;
  return backends;
}

// Filled on first use: the code generators are static libraries, whose self-registering
// globals the linker would drop.
const std::map<std::string, Backend>& backends() {
  static std::once_flag once;
  std::call_once(once, register_builtin_backends);
  return table();
}

}  // namespace

void register_backend(const std::string& kind, Backend backend) { table()[kind] = std::move(backend); }

const Backend* find_backend(const std::string& kind) {
  auto it = backends().find(kind);
  return it == backends().end() ? nullptr : &it->second;
}

std::vector<std::string> backend_kinds() {
  std::vector<std::string> kinds;
  for (const auto& entry : backends()) kinds.push_back(entry.first);
  return kinds;
}

}  // namespace tsch::driver
