// The helpers the Converter shares (schedule_converter.h): index maps and pad values read
// back from a trace's text, and called with fresh index variables.
#include "bindings/tvm/tir/schedule_converter.h"

namespace tsch::bindings {

using schedule::RVNode;
using schedule::TraceArg;

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

}  // namespace tsch::bindings
