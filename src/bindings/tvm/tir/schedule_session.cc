// What the REPL sees of a schedule value (schedule_session.h).
#include "bindings/tvm/tir/schedule_session.h"

#include "bindings/tvm/tir/schedule_values.h"
#include "ir/printer.h"

namespace tsch::bindings {

bool is_schedule(const Value& v) { return v.as<ScheduleValue>() != nullptr; }

std::string schedule_module_text(const Value& sch) { return ir::script(sch.as<ScheduleValue>()->sch.mod()); }

const void* schedule_module_identity(const Value& sch) { return sch.as<ScheduleValue>()->sch.mod().get(); }

std::string schedule_function_text(const Value& sch, const std::string& func, bool* found) {
  ir::PrimFunc f = sch.as<ScheduleValue>()->sch.mod()->prim_func(func);
  *found = f != nullptr;
  return f ? ir::script(f, func) : std::string();
}

std::string schedule_trace_text(const Value& sch) { return sch.as<ScheduleValue>()->sch.trace().str(); }

std::vector<std::string> schedule_block_names(const Value& sch) {
  const schedule::ScheduleState& state = sch.as<ScheduleValue>()->sch.state();
  std::vector<std::string> names;
  for (const auto& [func, f] : state.mod()->prim_funcs()) {
    for (schedule::BlockSid b : state.blocks_in(func)) names.push_back(state.block_at(b).name);
  }
  return names;
}

Value schedule_snapshot(const Value& sch) { return Value(std::make_shared<ScheduleValue>(*sch.as<ScheduleValue>())); }

void schedule_restore(const Value& sch, const Value& snapshot) {
  *sch.as<ScheduleValue>() = *snapshot.as<ScheduleValue>();
}

}  // namespace tsch::bindings
