#include "runtime/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "support/error.h"

namespace tsch::runtime {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, PackedFunc> functions;
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: functions may be looked up during exit
  return *r;
}

}  // namespace

void register_global_func(const std::string& name, PackedFunc f, bool override) {
  TSCH_USER_ASSERT(!name.empty(), ValueError) << "expect string function name";
  TSCH_INTERNAL_ASSERT(f != nullptr) << "registering a null function as " << name;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, inserted] = r.functions.emplace(name, f);
  if (inserted) return;
  TSCH_USER_ASSERT(override, RuntimeError)
      << "Global Function `" << name << "` is already registered; pass override=True to replace it";
  it->second = std::move(f);
}

PackedFunc find_global_func(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second;
}

PackedFunc get_global_func(const std::string& name) {
  PackedFunc f = find_global_func(name);
  TSCH_USER_ASSERT(f != nullptr, ValueError) << "Cannot find global function " << name;
  return f;
}

bool remove_global_func(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.functions.erase(name) > 0;
}

std::vector<std::string> list_global_func_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.functions) names.push_back(name);
  return names;
}

}  // namespace tsch::runtime
