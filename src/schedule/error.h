// Schedule errors: a refused primitive names itself, the loops and blocks concerned, and what
// was expected against what was found. The IR is left unchanged (TVM's ScheduleError).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "schedule/state.h"

namespace tsch::schedule {

class ScheduleError : public std::runtime_error {
 public:
  ScheduleError(std::string primitive, std::string message, std::vector<uint64_t> nodes)
      : std::runtime_error(message), primitive(std::move(primitive)), nodes(std::move(nodes)) {}
  std::string primitive;
  std::vector<uint64_t> nodes;  // loops/blocks to mark in the rendered IR
};

[[noreturn]] inline void fail(const std::string& primitive, std::vector<uint64_t> nodes, const std::string& message) {
  throw ScheduleError(primitive, message, std::move(nodes));
}

// TVM's detailed report: the primitive, the module with the nodes underlined, the message.
std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error);

// "loop \"j\"" / "block \"C\"" for messages.
std::string describe(const ScheduleState& state, uint64_t sid);

}  // namespace tsch::schedule
