// How TVM prints a compute's reduction (`op.body`): TVMScript's T.reduce form, with the
// reducer as a T.comm_reducer lambda over its accumulator and value variables. Tensors read
// print with their buffers' names (`B_rf`; TVM prints the tensor's, `B.rf`).
#include <fmt/format.h>

#include "ir/op.h"
#include "ir/printer.h"
#include "te/operation.h"

namespace tsch::te {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// Constants keep their type (`T.float32(0.0)`, `T.bool(True)`), as TVM prints them in a list.
std::string typed(const ir::PrimExpr& e) {
  if (auto* i = ir::as<ir::IntImmNode>(e)) {
    if (e->dtype.is_bool()) return i->value ? "T.bool(True)" : "T.bool(False)";
    return fmt::format("T.{}({})", e->dtype.to_string(), i->value);
  }
  return ir::script(e);
}

}  // namespace

std::string reduce_script(const Reduce& r, ir::DataType t, size_t value_index) {
  std::vector<std::string> params, results, identities, sources, axes;
  if (!r.sources.empty()) {
    for (const auto& v : r.lhs_vars) params.push_back(v->name);
    for (const auto& v : r.rhs_vars) params.push_back(v->name);
    for (const auto& c : r.combiners) results.push_back(ir::script(c));
    for (const auto& i : r.identities) identities.push_back(typed(i));
    for (const auto& s : r.sources) sources.push_back(ir::script(s));
  } else {
    ir::Var x = r.kind == ReduceKind::Custom ? r.lhs : ir::make_var("x", t);
    ir::Var y = r.kind == ReduceKind::Custom ? r.rhs : ir::make_var("y", t);
    params = {x->name, y->name};
    results.push_back(ir::script(reduce_combine(r, x, y)));
    identities.push_back(typed(reduce_identity(r, t)));
    sources.push_back(ir::script(r.source));
  }
  for (const auto& ax : r.axis) {
    axes.push_back(fmt::format("T.iter_var({}, T.Range({}, {}), \"CommReduce\", \"\")", ax.var->name,
                               ir::script(ax.dom.min), ir::script(ax.dom.extent)));
  }
  std::string body = results.size() == 1 ? results[0] : "(" + join(results) + ")";
  return fmt::format(
      "T.reduce(T.comm_reducer(lambda {}: {}, [{}]), source=[{}], init=[], axis=[{}], condition={}, value_index={})",
      join(params), body, join(identities), join(sources), join(axes),
      typed(r.condition ? r.condition : ir::make_bool(true)), value_index);
}

}  // namespace tsch::te
