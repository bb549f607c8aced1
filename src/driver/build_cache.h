// Repeated builds of the same code (the REPL, tuning) share one compiled module. The key is
// the lowered module's structural hash with the target and the options that change the
// generated code; a hash match is confirmed by comparing the printed modules (names
// included: they reach generated source and error messages), so neither a collision nor a
// renamed copy returns the wrong module. Bounded (least recently used dropped first) so a
// long search does not keep every JIT module alive; safe to use from several threads.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <string>

#include "driver/backend.h"

namespace tsch::driver {

struct BuildKey {
  uint64_t hash = 0;    // of the lowered module(s)
  std::string target;   // the target's string, with its host's
  std::string options;  // the BuildOptions that change the code
  bool operator==(const BuildKey& o) const { return hash == o.hash && target == o.target && options == o.options; }
};

BuildKey build_key(const LoweredModule& lowered, const target::Target& target, const BuildOptions& options);

class BuildCache {
 public:
  runtime::CompiledModuleRef find(const BuildKey& key, const LoweredModule& lowered);
  void insert(const BuildKey& key, const LoweredModule& lowered, runtime::CompiledModuleRef module);

 private:
  struct Entry {
    BuildKey key;
    LoweredModule lowered;
    std::string text;  // the printed modules, made at the first hash match
    runtime::CompiledModuleRef module;
  };
  static constexpr size_t kCapacity = 64;
  std::mutex mu_;
  std::list<Entry> entries_;
};

BuildCache& build_cache();

}  // namespace tsch::driver
