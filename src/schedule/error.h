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
  // TVM's FastErrorString: the condition without names ("ScheduleError: ..."), shown at
  // error_render_level="fast". Empty: the message is shown.
  std::string fast;
};

[[noreturn]] inline void fail(const std::string& primitive, std::vector<uint64_t> nodes, const std::string& message) {
  throw ScheduleError(primitive, message, std::move(nodes));
}

// Conditions several primitives refuse, declared once with TVM's fast and detailed messages.
[[noreturn]] void fail_loop_not_start_with_zero(const ScheduleState& s, const std::string& primitive, uint64_t loop);
[[noreturn]] void fail_has_annotation_or_thread_binding(const ScheduleState& s, const std::string& primitive, uint64_t loop);
// `detail` says what makes the block an output (the buffer it writes).
[[noreturn]] void fail_output_block(const std::string& primitive, uint64_t block, const std::string& detail);
[[noreturn]] void fail_block_not_found(const std::string& primitive, const std::string& name);

// TVM's detailed report: the primitive, the module with the nodes underlined, the message.
std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error);

// "loop \"j\"" / "block \"C\"" for messages.
std::string describe(const ScheduleState& state, uint64_t sid);

}  // namespace tsch::schedule
