// The handles a tvm.tir.Schedule returns — BlockRV, LoopRV, ExprRV (an ExprRV is a tir.Var
// in TVM: it converts to its variable and does arithmetic as it) — and tvm.tir.ScheduleError.
// Below the IR values' conversions (to_expr takes an ExprRV) and the schedule bindings.
#pragma once

#include <string>

#include "schedule/schedule.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class RVValue : public script::Object {
 public:
  explicit RVValue(schedule::RV r) : rv(std::move(r)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override;
  schedule::RV rv;
};
script::TypeRef rv_type(schedule::RVNode::Kind kind);
Value wrap_rv(const schedule::RV& rv);

// The variable of an ExprRV, null for any other value.
const ir::Var* expr_rv_var(const Value& v);

// tvm.tir.ScheduleError (a RuntimeError, as TVM's derives from TVMError).
script::TypeRef schedule_error_type();
// The script exception for a refusal: message as rendered, `kind` the condition's name.
script::Value make_schedule_error(const schedule::RenderedScheduleError& e);

}  // namespace tsch::bindings
