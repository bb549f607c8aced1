// Instruction inputs, attributes and decisions (schedule::TraceArg) as script values and back
// (schedule_trace_args.cc), for the Trace and Instruction values of schedule_trace_values.cc.
#pragma once

#include "schedule/instruction.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// An input or attribute as TVM hands it to Python (handles, numbers, strings, lists, index maps).
script::Value arg_value(script::Interpreter& interp, const schedule::TraceArg& a);
// A decision as TVM hands it to Python: IntImm objects of int32 (TVM's Integer), in a list
// for a tiling (`trace.decisions[inst].value`); and back.
script::Value decision_value(script::Interpreter& interp, const schedule::TraceArg& a);
schedule::TraceArg decision_arg(script::Interpreter& interp, const script::Value& v);
// A script value as an instruction input or attribute (Instruction(...) built by hand, as
// TVM's tests do): handles, None, numbers (T.int32(32) and T.bool(True) too), str, lists.
schedule::TraceArg value_arg(script::Interpreter& interp, const script::Value& v);

}  // namespace tsch::bindings
