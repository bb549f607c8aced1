// get_block, get_loops, get_child_blocks: handles to blocks and loops by name and position.
#include <fmt/format.h>

#include "schedule/error.h"
#include "schedule/primitives.h"

namespace tsch::schedule {

uint64_t get_block(const ScheduleState& s, const std::string& name, const std::string& func) {
  if (!s.mod()->find(func)) fail("get_block", {}, fmt::format("Cannot find a function named \"{}\" in the module", func));
  std::vector<uint64_t> found;
  for (uint64_t b : s.blocks_in(func)) {
    if (s.block(b)->name == name) found.push_back(b);
  }
  if (found.empty()) fail("get_block", {}, fmt::format("Cannot find a block with the name: {}", name));
  if (found.size() > 1) fail("get_block", found, fmt::format("Found {} blocks with the name: {}", found.size(), name));
  return found[0];
}

std::vector<uint64_t> get_loops(const ScheduleState& s, uint64_t block) { return s.enclosing_loops(block); }

std::vector<uint64_t> get_child_blocks(const ScheduleState& s, uint64_t block_or_loop) {
  return s.child_blocks(block_or_loop);
}

}  // namespace tsch::schedule
