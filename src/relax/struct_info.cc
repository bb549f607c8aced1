#include "relax/struct_info.h"

#include <fmt/format.h>

#include <functional>

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::relax {

using ir::PrimExpr;

StructInfo object_sinfo() {
  static StructInfo s = std::make_shared<ObjectSInfoNode>();
  return s;
}
StructInfo prim_sinfo(ir::DataType dtype, PrimExpr value) {
  return std::make_shared<PrimSInfoNode>(dtype, std::move(value));
}
StructInfo shape_sinfo(std::vector<PrimExpr> values) { return std::make_shared<ShapeSInfoNode>(std::move(values), -1); }
StructInfo shape_sinfo_ndim(int ndim) { return std::make_shared<ShapeSInfoNode>(std::nullopt, ndim); }
StructInfo tensor_sinfo(std::vector<PrimExpr> shape, ir::DataType dtype) {
  return std::make_shared<TensorSInfoNode>(std::move(shape), dtype, -1);
}
StructInfo tensor_sinfo_ndim(int ndim, ir::DataType dtype) {
  return std::make_shared<TensorSInfoNode>(std::nullopt, dtype, ndim);
}
StructInfo tuple_sinfo(std::vector<StructInfo> fields) { return std::make_shared<TupleSInfoNode>(std::move(fields)); }
StructInfo void_sinfo() {
  static StructInfo s = tuple_sinfo({});
  return s;
}
bool is_void(const StructInfo& s) {
  auto* t = as<TupleSInfoNode>(s);
  return t && t->fields.empty();
}
StructInfo func_sinfo(std::vector<StructInfo> params, StructInfo ret, bool purity) {
  return std::make_shared<FuncSInfoNode>(std::move(params), std::move(ret), purity);
}
StructInfo opaque_func_sinfo(StructInfo ret, bool purity) {
  return std::make_shared<FuncSInfoNode>(std::nullopt, std::move(ret), purity);
}

namespace {

bool dims_equal(const std::optional<std::vector<PrimExpr>>& a, const std::optional<std::vector<PrimExpr>>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!ir::expr_deep_equal((*a)[i], (*b)[i])) return false;
  }
  return true;
}

bool list_equal(const std::vector<StructInfo>& a, const std::vector<StructInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!sinfo_equal(a[i], b[i])) return false;
  }
  return true;
}

// Whether two dims are equal: provably (true), provably not (false), or only at run time.
enum class Tri { Yes, No, Maybe };
Tri dims_match(const PrimExpr& base, const PrimExpr& derived) {
  if (ir::expr_deep_equal(base, derived)) return Tri::Yes;
  PrimExpr diff = arith::simplify(ir::make_binary(ir::ExprKind::Sub, ir::cast(ir::DataType::int64(), base),
                                                  ir::cast(ir::DataType::int64(), derived)));
  int64_t c;
  if (ir::as_const_int(diff, &c)) return c == 0 ? Tri::Yes : Tri::No;
  return Tri::Maybe;
}

bool dims_base_of(const std::vector<PrimExpr>& base, const std::vector<PrimExpr>& derived, bool* maybe) {
  if (base.size() != derived.size()) return false;
  for (size_t i = 0; i < base.size(); ++i) {
    Tri t = dims_match(base[i], derived[i]);
    if (t == Tri::No) return false;
    if (t == Tri::Maybe) {
      if (!maybe) return false;  // only a run-time check could decide: not provable
      *maybe = true;
    }
  }
  return true;
}

}  // namespace

bool sinfo_equal(const StructInfo& a, const StructInfo& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case SInfoKind::Object:
      return true;
    case SInfoKind::Prim: {
      auto *x = as<PrimSInfoNode>(a), *y = as<PrimSInfoNode>(b);
      if (x->dtype != y->dtype || (x->value == nullptr) != (y->value == nullptr)) return false;
      return !x->value || ir::expr_deep_equal(x->value, y->value);
    }
    case SInfoKind::Shape: {
      auto *x = as<ShapeSInfoNode>(a), *y = as<ShapeSInfoNode>(b);
      return x->ndim == y->ndim && dims_equal(x->values, y->values);
    }
    case SInfoKind::Tensor: {
      auto *x = as<TensorSInfoNode>(a), *y = as<TensorSInfoNode>(b);
      return x->dtype == y->dtype && x->ndim == y->ndim && dims_equal(x->shape, y->shape);
    }
    case SInfoKind::Tuple:
      return list_equal(as<TupleSInfoNode>(a)->fields, as<TupleSInfoNode>(b)->fields);
    case SInfoKind::Func: {
      auto *x = as<FuncSInfoNode>(a), *y = as<FuncSInfoNode>(b);
      if (x->purity != y->purity || x->params.has_value() != y->params.has_value()) return false;
      if (x->params && !list_equal(*x->params, *y->params)) return false;
      return sinfo_equal(x->ret, y->ret);
    }
  }
  return false;
}

bool sinfo_is_base_of(const StructInfo& base, const StructInfo& derived, bool* maybe) {
  if (base->kind == SInfoKind::Object) return true;
  if (base->kind != derived->kind) {
    // An Object may still turn out to be anything at run time.
    if (derived->kind == SInfoKind::Object && maybe) *maybe = true;
    return derived->kind == SInfoKind::Object && maybe;
  }
  switch (base->kind) {
    case SInfoKind::Object:
      return true;
    case SInfoKind::Prim: {
      auto *b = as<PrimSInfoNode>(base), *d = as<PrimSInfoNode>(derived);
      if (b->dtype != d->dtype) return false;
      if (!b->value) return true;
      if (!d->value) {
        if (maybe) *maybe = true;
        return maybe != nullptr;
      }
      Tri t = dims_match(b->value, d->value);
      if (t == Tri::Maybe) {
        if (!maybe) return false;
        *maybe = true;
      }
      return t != Tri::No;
    }
    case SInfoKind::Shape: {
      auto *b = as<ShapeSInfoNode>(base), *d = as<ShapeSInfoNode>(derived);
      if (b->ndim != -1 && d->ndim != -1 && b->ndim != d->ndim) return false;
      if (b->ndim != -1 && d->ndim == -1) {
        if (maybe) *maybe = true;
        return maybe != nullptr;
      }
      if (!b->values) return true;
      if (!d->values) {
        if (maybe) *maybe = true;
        return maybe != nullptr;
      }
      return dims_base_of(*b->values, *d->values, maybe);
    }
    case SInfoKind::Tensor: {
      auto *b = as<TensorSInfoNode>(base), *d = as<TensorSInfoNode>(derived);
      if (!b->unknown_dtype() && b->dtype != d->dtype) {
        if (d->unknown_dtype() && maybe) {
          *maybe = true;
        } else {
          return false;
        }
      }
      if (b->ndim != -1 && d->ndim != -1 && b->ndim != d->ndim) return false;
      bool need_check = (b->ndim != -1 && d->ndim == -1) || (b->shape && !d->shape);
      if (need_check) {
        if (maybe) *maybe = true;
        return maybe != nullptr;
      }
      if (!b->shape) return true;
      return dims_base_of(*b->shape, *d->shape, maybe);
    }
    case SInfoKind::Tuple: {
      auto *b = as<TupleSInfoNode>(base), *d = as<TupleSInfoNode>(derived);
      if (b->fields.size() != d->fields.size()) return false;
      for (size_t i = 0; i < b->fields.size(); ++i) {
        if (!sinfo_is_base_of(b->fields[i], d->fields[i], maybe)) return false;
      }
      return true;
    }
    case SInfoKind::Func: {
      auto *b = as<FuncSInfoNode>(base), *d = as<FuncSInfoNode>(derived);
      if (b->purity && !d->purity) return false;
      if (!b->params) return sinfo_is_base_of(b->ret, d->ret, maybe);
      if (!d->params || b->params->size() != d->params->size()) return false;
      // Parameters are contravariant.
      for (size_t i = 0; i < b->params->size(); ++i) {
        if (!sinfo_is_base_of((*d->params)[i], (*b->params)[i], maybe)) return false;
      }
      return sinfo_is_base_of(b->ret, d->ret, maybe);
    }
  }
  return false;
}

void collect_sinfo_vars(const StructInfo& s, std::vector<ir::Var>& out) {
  auto add_expr = [&](const PrimExpr& e) {
    if (!e) return;
    ir::for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* v = ir::as<ir::VarNode>(x)) {
        for (const auto& seen : out) {
          if (seen.get() == v) return;
        }
        out.push_back(std::static_pointer_cast<const ir::VarNode>(x));
      }
    });
  };
  switch (s->kind) {
    case SInfoKind::Object:
      break;
    case SInfoKind::Prim:
      add_expr(as<PrimSInfoNode>(s)->value);
      break;
    case SInfoKind::Shape:
      if (auto& v = as<ShapeSInfoNode>(s)->values) {
        for (const auto& e : *v) add_expr(e);
      }
      break;
    case SInfoKind::Tensor:
      if (auto& v = as<TensorSInfoNode>(s)->shape) {
        for (const auto& e : *v) add_expr(e);
      }
      break;
    case SInfoKind::Tuple:
      for (const auto& f : as<TupleSInfoNode>(s)->fields) collect_sinfo_vars(f, out);
      break;
    case SInfoKind::Func: {
      auto* f = as<FuncSInfoNode>(s);
      if (f->params) {
        for (const auto& p : *f->params) collect_sinfo_vars(p, out);
      }
      collect_sinfo_vars(f->ret, out);
      break;
    }
  }
}

StructInfo map_sinfo_dims(const StructInfo& s, const std::function<PrimExpr(const PrimExpr&)>& f) {
  auto map_dims = [&](const std::vector<PrimExpr>& dims) {
    std::vector<PrimExpr> out;
    for (const auto& d : dims) out.push_back(f(d));
    return out;
  };
  switch (s->kind) {
    case SInfoKind::Object:
      return s;
    case SInfoKind::Prim: {
      auto* p = as<PrimSInfoNode>(s);
      return p->value ? prim_sinfo(p->dtype, f(p->value)) : s;
    }
    case SInfoKind::Shape: {
      auto* p = as<ShapeSInfoNode>(s);
      return p->values ? shape_sinfo(map_dims(*p->values)) : s;
    }
    case SInfoKind::Tensor: {
      auto* p = as<TensorSInfoNode>(s);
      return p->shape ? tensor_sinfo(map_dims(*p->shape), p->dtype) : s;
    }
    case SInfoKind::Tuple: {
      std::vector<StructInfo> fields;
      for (const auto& x : as<TupleSInfoNode>(s)->fields) fields.push_back(map_sinfo_dims(x, f));
      return tuple_sinfo(std::move(fields));
    }
    case SInfoKind::Func: {
      auto* p = as<FuncSInfoNode>(s);
      if (!p->params) return opaque_func_sinfo(map_sinfo_dims(p->ret, f), p->purity);
      std::vector<StructInfo> params;
      for (const auto& x : *p->params) params.push_back(map_sinfo_dims(x, f));
      return func_sinfo(std::move(params), map_sinfo_dims(p->ret, f), p->purity);
    }
  }
  return s;
}

StructInfo erase_to_well_defined(const StructInfo& s, const std::function<bool(const ir::VarNode*)>& defined) {
  auto ok = [&](const PrimExpr& e) {
    bool good = true;
    ir::for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* v = ir::as<ir::VarNode>(x); v && !defined(v)) good = false;
    });
    return good;
  };
  auto dims_ok = [&](const std::vector<PrimExpr>& dims) {
    for (const auto& d : dims) {
      if (!ok(d)) return false;
    }
    return true;
  };
  switch (s->kind) {
    case SInfoKind::Object:
      return s;
    case SInfoKind::Prim: {
      auto* p = as<PrimSInfoNode>(s);
      return p->value && !ok(p->value) ? prim_sinfo(p->dtype) : s;
    }
    case SInfoKind::Shape: {
      auto* p = as<ShapeSInfoNode>(s);
      return p->values && !dims_ok(*p->values) ? shape_sinfo_ndim(p->ndim) : s;
    }
    case SInfoKind::Tensor: {
      auto* p = as<TensorSInfoNode>(s);
      return p->shape && !dims_ok(*p->shape) ? tensor_sinfo_ndim(p->ndim, p->dtype) : s;
    }
    case SInfoKind::Tuple: {
      std::vector<StructInfo> fields;
      for (const auto& x : as<TupleSInfoNode>(s)->fields) fields.push_back(erase_to_well_defined(x, defined));
      return tuple_sinfo(std::move(fields));
    }
    case SInfoKind::Func:
      return s;
  }
  return s;
}

namespace {

std::string dim_text(const PrimExpr& e) {
  int64_t c;
  if (ir::as_const_int(e, &c)) return std::to_string(c);
  return ir::script(e);
}

std::string dims_text(const std::vector<PrimExpr>& dims, bool tuple) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dim_text(dims[i]);
  if (tuple) return "(" + s + (dims.size() == 1 ? ",)" : ")");
  return "[" + s + "]";
}

}  // namespace

std::string sinfo_text(const StructInfo& s) {
  switch (s->kind) {
    case SInfoKind::Object:
      return "R.Object";
    case SInfoKind::Prim: {
      auto* p = as<PrimSInfoNode>(s);
      if (p->value) return "R.Prim(value=" + dim_text(p->value) + ")";
      return "R.Prim(\"" + p->dtype.to_string() + "\")";
    }
    case SInfoKind::Shape: {
      auto* p = as<ShapeSInfoNode>(s);
      if (p->values) return "R.Shape(" + dims_text(*p->values, false) + ")";
      return fmt::format("R.Shape(ndim={})", p->ndim);
    }
    case SInfoKind::Tensor: {
      auto* p = as<TensorSInfoNode>(s);
      std::vector<std::string> parts;
      if (p->shape) parts.push_back(dims_text(*p->shape, true));
      if (!p->unknown_dtype()) parts.push_back("dtype=\"" + p->dtype.to_string() + "\"");
      if (!p->shape && p->ndim != -1) parts.push_back(fmt::format("ndim={}", p->ndim));
      if (parts.empty()) return "R.Tensor";
      return "R.Tensor(" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
    }
    case SInfoKind::Tuple: {
      auto* p = as<TupleSInfoNode>(s);
      if (p->fields.empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < p->fields.size(); ++i) out += (i ? ", " : "") + sinfo_text(p->fields[i]);
      return out + ")";
    }
    case SInfoKind::Func: {
      auto* p = as<FuncSInfoNode>(s);
      if (!p->params) return "R.Callable";
      std::string out = "R.Callable((";
      for (size_t i = 0; i < p->params->size(); ++i) out += (i ? ", " : "") + sinfo_text((*p->params)[i]);
      if (p->params->size() == 1) out += ",";
      return out + "), " + sinfo_text(p->ret) + (p->purity ? ", True)" : ", False)");
    }
  }
  return "?";
}

}  // namespace tsch::relax
