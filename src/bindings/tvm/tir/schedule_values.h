// tvm.tir.Schedule in scripts: the value classes the schedule bindings share. The schedule
// itself is schedule::Schedule; these only convert values (tvm_schedule.cc: the Schedule
// class and its methods, generated from the instruction registry; schedule_args.cc: script
// arguments to instruction inputs and attributes; schedule_trace_values.cc: Trace,
// Instruction and InstructionKind; the RV handles and ScheduleError are in
// values/schedule_rv_values.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "values/schedule_rv_values.h"
#include "values/tvm_errors.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class ScheduleValue : public script::Object {
 public:
  explicit ScheduleValue(schedule::Schedule s) : sch(std::move(s)), identity(next_identity()) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "<tvm.tir.Schedule>"; }
  schedule::Schedule sch;
  // Which schedule a StmtSRef belongs to: a copy is another schedule with its own srefs.
  uint64_t identity;

 private:
  static uint64_t next_identity() {
    static uint64_t counter = 0;
    return ++counter;
  }
};
script::TypeRef schedule_type();

// TVM's StmtSRef: a loop or block of one schedule's state (`.stmt`, `.parent`). The
// schedule's module keeps the statement alive; two srefs are the same when they name the
// same statement of the same schedule (schedule_state_values.cc).
class StmtSRefValue : public script::Object {
 public:
  StmtSRefValue(std::shared_ptr<ScheduleValue> owner, schedule::StmtSid sid) : owner(std::move(owner)), sid(sid) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override;
  std::shared_ptr<ScheduleValue> owner;
  schedule::StmtSid sid;
};
script::TypeRef stmt_sref_type();
// The loop or block an sref names, null once it is gone from the schedule.
const ir::StmtNode* sref_stmt(const StmtSRefValue& r);
// tvm.tir.ScheduleState over a schedule's state (`sch.state`, or `tir.ScheduleState(mod)`).
Value make_schedule_state(std::shared_ptr<ScheduleValue> owner);
// The `debug_mask` argument a[i] of Schedule / ScheduleState: "none", "all" or an int mask.
int64_t debug_mask_of(script::Args& a, size_t i);
// tvm.tir.ScheduleState, StmtSRef, BlockScope, Dependency, DepKind in `tir_ns` and the
// schedule namespace; tvm.tir.schedule.state.
void install_schedule_state(script::Namespace& tir_ns, script::Namespace& schedule_ns);
// Script arguments of a primitive call (self first) to the instruction's inputs, attributes
// and decision. A block given by name is looked up with a traced get_block.
struct ConvertedCall {
  std::vector<schedule::TraceArg> inputs, attrs;
  schedule::TraceArg decision;
  // transform_layout's index map returned IndexMap.AXIS_SEPARATOR: set_axis_separator follows.
  std::vector<int64_t> axis_separators;
};
ConvertedCall convert_call(Interpreter& interp, script::Args& a, ScheduleValue& self,
                           const schedule::InstructionKind& kind);

// `lambda i, j: (i // 16, j, i % 16)` (the text a trace prints) back to an index map; the
// parameters take `dtypes` (int32 where not given).
schedule::TraceArg parse_index_map(Interpreter& interp, const std::string& text,
                                   const std::vector<ir::DataType>& dtypes = {});

// Raises a core's UserError as the script exception; an error naming a parameter reads as
// Python's "argument 2, 'n' to sample_perfect_tile: ...".
[[noreturn]] void raise_user_error(const UserError& e, const std::string& function,
                                   const std::vector<std::string>& params);

Value make_trace_value(schedule::Trace trace);
void install_trace_types(script::Namespace& schedule_ns);

}  // namespace tsch::bindings
