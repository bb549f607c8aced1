#include "driver/build_cache.h"

#include "ir/printer.h"
#include "ir/structural_hash.h"

namespace tsch::driver {

namespace {

std::string text_of(const LoweredModule& m) {
  return ir::script(m.mod) + (m.emulation ? "\nemulation\n" + ir::script(m.emulation) : "");
}

}  // namespace

BuildKey build_key(const LoweredModule& lowered, const target::Target& target, const BuildOptions& options) {
  BuildKey key;
  key.hash = ir::structural_hash(lowered.mod);
  if (lowered.emulation) key.hash = key.hash * 0x9E3779B97F4A7C15ull + ir::structural_hash(lowered.emulation);
  if (lowered.emulation_optional) key.hash = ~key.hash;
  key.target = target->str() + (target->host ? "\nhost " + target->host->str() : "");
  key.options = std::string(options.interrupt_checks ? "" : "no interrupt checks;") +
                (options.poison_allocations ? "poison;" : "") + (options.reverse_thread_order ? "reverse;" : "");
  return key;
}

runtime::CompiledModuleRef BuildCache::find(const BuildKey& key, const LoweredModule& lowered) {
  std::string text;  // printed once, only when some entry's key matches
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (!(it->key == key)) continue;
    if (text.empty()) text = text_of(lowered);
    if (it->text.empty()) it->text = text_of(it->lowered);
    if (it->text != text) continue;
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().module;
  }
  return nullptr;
}

void BuildCache::insert(const BuildKey& key, const LoweredModule& lowered, runtime::CompiledModuleRef module) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.push_front(Entry{key, lowered, "", std::move(module)});
  if (entries_.size() > kCapacity) entries_.pop_back();
}

BuildCache& build_cache() {
  static BuildCache cache;
  return cache;
}

}  // namespace tsch::driver
