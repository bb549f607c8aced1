// What the REPL needs from tvm.tir.Schedule values without knowing their class: recognise
// them, read their module and trace, list block names, and snapshot / restore them (undo).
#pragma once

#include <string>
#include <vector>

#include "script/value.h"

namespace tsch::bindings {

bool is_schedule(const script::Value& v);
// The TVMScript text of the schedule's module, or of one function of it.
std::string schedule_module_text(const script::Value& sch);
// Changes exactly when a primitive changes the module (modules are immutable and shared).
const void* schedule_module_identity(const script::Value& sch);
std::string schedule_function_text(const script::Value& sch, const std::string& func, bool* found);
std::string schedule_trace_text(const script::Value& sch);
// Names of the blocks of the functions in the schedule, in IR order.
std::vector<std::string> schedule_block_names(const script::Value& sch);
// An independent copy of the schedule (module, trace, sampling state).
script::Value schedule_snapshot(const script::Value& sch);
// Makes `sch` what `snapshot` was, in place, so every name bound to `sch` sees it.
void schedule_restore(const script::Value& sch, const script::Value& snapshot);

}  // namespace tsch::bindings
