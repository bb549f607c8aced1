// Script arguments of a schedule primitive to the instruction's inputs and attributes, by
// the parameter types its kind declares (schedule/instruction.h).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "arith/scalable_expression.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_converter.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/printer.h"
#include "schedule/primitives.h"
#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using schedule::ParamSpec;
using schedule::ParamType;
using schedule::RVNode;
using schedule::Slot;
using schedule::TraceArg;
using script::Args;
using script::ExcKind;
using script::raise;

using schedule_args::call_index_map;
using schedule_args::Converter;
using schedule_args::eval_lambda;

ConvertedCall convert_call(Interpreter& interp, Args& a, ScheduleValue& self, const schedule::InstructionKind& kind) {
  ConvertedCall out;
  Converter c(interp, a, self);
  for (size_t k = 0; k < kind.params.size(); ++k) c.convert(kind.params[k], k + 1, out);
  if (!c.axis_separators.empty() && kind.name != "TransformLayout") {
    raise(ExcKind::ValueError, "IndexMap.AXIS_SEPARATOR is only taken by transform_layout");
  }
  out.axis_separators = c.axis_separators;
  return out;
}

TraceArg parse_index_map(Interpreter& interp, const std::string& text, const std::vector<ir::DataType>& dtypes) {
  Value fn = eval_lambda(interp, text);
  auto* script_fn = fn.as<script::Function>();
  if (!script_fn) raise(ExcKind::ValueError, "not an index map: " + text);
  std::vector<ir::Var> params;
  for (size_t d = 0; d < script_fn->params->size(); ++d) {
    params.push_back(
        ir::make_var(symbol_name((*script_fn->params)[d].name), d < dtypes.size() ? dtypes[d] : ir::DataType::int32()));
  }
  return call_index_map(interp, fn, std::move(params));
}

void raise_user_error(const UserError& e, const std::string& function, const std::vector<std::string>& params) {
  ExcKind kind = script::exception_kind_of(e.kind);
  for (size_t i = 0; i < params.size(); ++i) {
    if (!e.param.empty() && params[i] == e.param) {
      raise(kind, fmt::format("argument {}, '{}' to {}: {}", i + 1, e.param, function, e.what()));
    }
  }
  raise(kind, e.what());
}

}  // namespace tsch::bindings
