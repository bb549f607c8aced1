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

namespace {

// Where the source of an index map or pad value read back from a trace runs: the trace
// prints constants as TVMScript (`T.float32(0.0)`), so `T` is bound as in a script.
script::NamespaceRef lambda_globals(Interpreter& interp) {
  auto globals = std::make_shared<script::Namespace>();
  interp.exec_source(SourceFile::make("<trace>", "from tvm.script import tir as T\n"), globals);
  return globals;
}

}  // namespace

namespace schedule_args {

Value eval_lambda(Interpreter& interp, const std::string& text) {
  auto globals = lambda_globals(interp);
  interp.exec_source(SourceFile::make("<index_map>", "index_map = " + text + "\n"), globals);
  return *globals->find(intern("index_map"));
}

bool is_sequence(const Value& v) { return v.as<script::List>() || v.as<script::Tuple>(); }

const RVNode* rv_of(const Value& v, RVNode::Kind kind) {
  auto* rv = v.as<RVValue>();
  return rv && rv->rv->kind == kind ? rv->rv.get() : nullptr;
}

// Calls an index map (or pad value) function with fresh index variables.
TraceArg call_index_map(Interpreter& interp, const Value& fn, std::vector<ir::Var> params) {
  std::vector<Value> args;
  for (const auto& v : params) args.push_back(wrap(ir::PrimExpr(v)));
  Value result = interp.call(fn, args);
  std::vector<Value> items = is_sequence(result) ? interp.to_vector(result) : std::vector<Value>{result};
  std::vector<ir::PrimExpr> outputs;
  for (const Value& v : items) outputs.push_back(to_expr(interp, v, "index map output"));
  return TraceArg::of_index_map(std::move(params), std::move(outputs));
}

}  // namespace schedule_args

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
