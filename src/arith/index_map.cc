// Index maps (index_map.h).
#include "arith/index_map.h"

#include <fmt/format.h>

#include <unordered_map>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::arith {

namespace {

// An integer index expression (constants, variables, + - * // %) rebuilt in another integer
// type; null for anything else.
ir::PrimExpr retyped_index(const ir::PrimExpr& e, ir::DataType t) {
  if (!e->dtype.is_int() || !t.is_int()) return nullptr;
  int64_t c;
  if (ir::as_const_int(e, &c)) return ir::make_int(c, t);
  if (ir::as<ir::VarNode>(e)) return e->dtype == t ? e : nullptr;
  if (auto* cast = ir::as<ir::CastNode>(e)) return retyped_index(cast->value, t);
  switch (e->kind) {
    case ir::ExprKind::Add:
    case ir::ExprKind::Sub:
    case ir::ExprKind::Mul:
    case ir::ExprKind::FloorDiv:
    case ir::ExprKind::FloorMod: {
      ir::PrimExpr a = retyped_index(ir::binary_a(e), t), b = retyped_index(ir::binary_b(e), t);
      return a && b ? ir::make_binary(e->kind, a, b) : nullptr;
    }
    default:
      return nullptr;
  }
}

}  // namespace

std::vector<ir::PrimExpr> map_indices(const IndexMap& m, const std::vector<ir::PrimExpr>& indices) {
  if (indices.size() != m.params.size()) {
    throw UserError(UserErrorKind::ValueError,
                    fmt::format("the index map takes {} indices, got {}", m.params.size(), indices.size()));
  }
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
  for (size_t i = 0; i < indices.size(); ++i) {
    ir::PrimExpr x = indices[i];
    if (x->dtype != m.params[i]->dtype) x = ir::cast(m.params[i]->dtype, x);
    vmap[m.params[i].get()] = x;
  }
  std::vector<ir::PrimExpr> out;
  for (const auto& e : m.outputs) out.push_back(simplify(ir::substitute(e, vmap)));
  return out;
}

std::vector<ir::PrimExpr> map_shape(const IndexMap& m, const std::vector<ir::PrimExpr>& shape) {
  if (shape.size() != m.params.size())
    throw UserError(UserErrorKind::ValueError, "map_shape: the shape's rank differs from the index map's");
  VarDomain dom;
  for (size_t i = 0; i < shape.size(); ++i) {
    ir::PrimExpr extent = shape[i]->dtype == m.params[i]->dtype ? shape[i] : ir::cast(m.params[i]->dtype, shape[i]);
    dom[m.params[i].get()] = {ir::make_int(0, m.params[i]->dtype),
                              simplify(ir::sub(extent, ir::make_int(1, extent->dtype)))};
  }
  std::vector<ir::PrimExpr> out;
  for (const auto& e : m.outputs) {
    Interval r = eval_interval(e, dom);
    if (!r.min || !r.max) throw UserError(UserErrorKind::ValueError, "map_shape: cannot bound " + ir::script(e));
    out.push_back(simplify(ir::add(ir::sub(r.max, r.min), ir::make_int(1, r.max->dtype))));
  }
  return out;
}

IndexMap inverse_index_map(const IndexMap& m, const std::vector<ir::PrimExpr>& shape) {
  if (shape.size() != m.params.size())
    throw UserError(UserErrorKind::ValueError, fmt::format("inverse: the index map takes {} indices, the shape has {}",
                                                           m.params.size(), shape.size()));
  LoopExtents extents;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t e;
    if (!ir::as_const_int(shape[i], &e))
      throw UserError(UserErrorKind::NotImplementedError, "not supported yet: IndexMap.inverse of a symbolic shape");
    extents[m.params[i].get()] = e;
  }
  IterMapResult iter = detect_iter_map(m.outputs, extents, /*require_bijective=*/true);
  if (!iter.ok)
    throw UserError(UserErrorKind::ValueError, "Index map T.index_map(" + index_map_lambda(m) +
                                                   ") is not bijective affine: the map " + iter.error);
  IndexMap inverse;
  for (size_t i = 0; i < m.outputs.size(); ++i)
    inverse.params.push_back(ir::make_var(fmt::format("axis{}", i), m.outputs[i]->dtype));
  std::vector<ir::PrimExpr> axes(inverse.params.begin(), inverse.params.end());
  auto inverted = inverse_iter_map(iter, axes);
  for (const auto& p : m.params) {
    auto it = inverted.find(p.get());
    inverse.outputs.push_back(it == inverted.end() ? ir::make_int(0, p->dtype) : simplify(it->second));
  }
  return inverse;
}

bool equivalent_index_maps(const IndexMap& a, const IndexMap& b) {
  if (b.params.size() != a.params.size() || b.outputs.size() != a.outputs.size()) return false;
  std::vector<ir::PrimExpr> params(a.params.begin(), a.params.end());
  std::vector<ir::PrimExpr> mapped = map_indices(b, params);
  for (size_t i = 0; i < mapped.size(); ++i) {
    // Index maps over int64 and int32 indices (IndexMap.from_func's and a buffer's) compare
    // as TVM's analyzer does, by value.
    if (mapped[i]->dtype != a.outputs[i]->dtype) mapped[i] = retyped_index(mapped[i], a.outputs[i]->dtype);
    if (!mapped[i]) return false;
    if (!ir::is_zero(simplify(ir::sub(a.outputs[i], mapped[i])))) return false;
  }
  return true;
}

std::string index_map_lambda(const IndexMap& m) {
  std::string params, outputs;
  for (size_t i = 0; i < m.params.size(); ++i) params += (i ? ", " : "") + m.params[i]->name;
  for (size_t i = 0; i < m.outputs.size(); ++i) outputs += (i ? ", " : "") + ir::script(m.outputs[i]);
  return fmt::format("lambda {}: ({}{})", params, outputs, m.outputs.size() == 1 ? "," : "");
}

}  // namespace tsch::arith
