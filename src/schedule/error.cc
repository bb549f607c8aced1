#include "schedule/error.h"

#include <fmt/format.h>

#include "ir/printer.h"

namespace tsch::schedule {

std::string describe(const ScheduleState& state, uint64_t sid) {
  if (const ir::ForNode* f = state.loop(sid)) return fmt::format("loop \"{}\"", f->loop_var->name);
  if (const ir::BlockNode* b = state.block(sid)) return fmt::format("block \"{}\"", b->name);
  return "a loop or block that is no longer in the schedule";
}

std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error) {
  ir::PrintOptions options;
  for (uint64_t sid : error.nodes) {
    if (const NodeInfo* i = state.info(sid)) options.highlight.push_back(i->node);
  }
  std::string ir = ir::script(state.mod(), options);
  return fmt::format("An error occurred in the schedule primitive '{}'.\nThe IR with diagnostic is:\n{}\nError message: {}",
                     error.primitive, ir, error.what());
}

}  // namespace tsch::schedule
