#include "relax/expr.h"

#include <fmt/format.h>

#include "ir/op.h"
#include "support/error.h"

namespace tsch::relax {

Var make_var(std::string name, StructInfo sinfo, bool dataflow) {
  return std::make_shared<VarNode>(std::move(name), std::move(sinfo), dataflow);
}

ConstantNode::ConstantNode(runtime::NDArrayRef d) : ExprNode(kKind), data(std::move(d)) {
  struct_info = tensor_sinfo(
      [&] {
        std::vector<ir::PrimExpr> dims;
        for (int64_t n : data->shape()) dims.push_back(ir::make_int(n, ir::DataType::int64()));
        return dims;
      }(),
      data->dtype());
}

Expr make_shape_expr(std::vector<ir::PrimExpr> values) {
  auto n = std::make_shared<ShapeExprNode>(std::move(values));
  n->struct_info = shape_sinfo(n->values);
  return n;
}

Expr make_tuple(std::vector<Expr> fields) {
  std::vector<StructInfo> sinfos;
  for (const auto& f : fields) sinfos.push_back(sinfo_of(f));
  auto n = std::make_shared<TupleNode>(std::move(fields));
  n->struct_info = tuple_sinfo(std::move(sinfos));
  return n;
}

Expr make_tuple_get_item(const Expr& tuple, int index) {
  const StructInfo& s = sinfo_of(tuple);
  auto n = std::make_shared<TupleGetItemNode>(tuple, index);
  if (auto* t = as<TupleSInfoNode>(s)) {
    TSCH_USER_ASSERT(index >= 0 && index < static_cast<int>(t->fields.size()), IndexError)
        << fmt::format("tuple index {} is out of range for a tuple of {} field{}", index, t->fields.size(),
                       t->fields.size() == 1 ? "" : "s");
    n->struct_info = t->fields[index];
  } else {
    TSCH_USER_ASSERT(s->kind == SInfoKind::Object, TypeError)
        << "cannot index a value of struct info " << sinfo_text(s) << ": only tuples can be indexed";
    n->struct_info = object_sinfo();
  }
  return n;
}

Expr make_string_imm(std::string s) {
  auto n = std::make_shared<StringImmNode>(std::move(s));
  n->struct_info = object_sinfo();
  return n;
}

Expr make_prim_value(ir::PrimExpr v) {
  auto n = std::make_shared<PrimValueNode>(v);
  n->struct_info = prim_sinfo(v->dtype, v);
  return n;
}

Expr make_constant(runtime::NDArrayRef data) { return std::make_shared<ConstantNode>(std::move(data)); }

Expr make_op(const std::string& name) {
  auto n = std::make_shared<OpNode>(name);
  n->struct_info = object_sinfo();
  return n;
}

Expr make_extern_func(std::string symbol) {
  auto n = std::make_shared<ExternFuncNode>(std::move(symbol));
  n->struct_info = opaque_func_sinfo(object_sinfo(), false);
  return n;
}

Expr make_global_var(std::string name, StructInfo sinfo) {
  auto n = std::make_shared<GlobalVarNode>(std::move(name));
  n->struct_info = std::move(sinfo);
  return n;
}

const StructInfo& sinfo_of(const Expr& e) {
  TSCH_INTERNAL_ASSERT(e && e->struct_info) << "relax expression without struct info";
  return e->struct_info;
}

StructInfo FunctionNode::func_struct_info() const {
  std::vector<StructInfo> ps;
  for (const auto& p : params) ps.push_back(p->struct_info);
  return func_sinfo(std::move(ps), ret_sinfo, is_pure);
}

}  // namespace tsch::relax
