// Relax struct info (TVM's relax/struct_info.h): what is known statically about a value —
// an object, a primitive scalar, a shape, a tensor (shape and dtype, each possibly unknown),
// a tuple, or a function. Symbolic dimensions are TIR int64 variables shared between the
// struct infos of one function. Nodes are immutable and shared.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tsch::relax {

enum class SInfoKind : uint8_t { Object, Prim, Shape, Tensor, Tuple, Func };

struct StructInfoNode {
  explicit StructInfoNode(SInfoKind k) : kind(k) {}
  virtual ~StructInfoNode() = default;
  const SInfoKind kind;
};
using StructInfo = std::shared_ptr<const StructInfoNode>;

template <typename T>
const T* as(const StructInfo& s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

struct ObjectSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Object;
  ObjectSInfoNode() : StructInfoNode(kKind) {}
};

// `R.Prim("int64")`, or `R.Prim(value=n)` when the value is known.
struct PrimSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Prim;
  PrimSInfoNode(ir::DataType t, ir::PrimExpr v) : StructInfoNode(kKind), dtype(t), value(std::move(v)) {}
  ir::DataType dtype;
  ir::PrimExpr value;  // may be null
};

// `R.Shape([1, n])` (values known) or `R.Shape(ndim=2)`; ndim -1 = unknown.
struct ShapeSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Shape;
  ShapeSInfoNode(std::optional<std::vector<ir::PrimExpr>> v, int n)
      : StructInfoNode(kKind), values(std::move(v)), ndim(values ? static_cast<int>(values->size()) : n) {}
  std::optional<std::vector<ir::PrimExpr>> values;
  int ndim;
};

// `R.Tensor((1, n), "float32")`: the shape's dims (when known), the dtype (void = unknown),
// ndim (-1 = unknown). TVM allows the shape to be any shape-valued expression; tsch keeps the
// dims (a ShapeExpr's values), which is what scripts write.
struct TensorSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Tensor;
  TensorSInfoNode(std::optional<std::vector<ir::PrimExpr>> s, ir::DataType t, int n)
      : StructInfoNode(kKind), shape(std::move(s)), dtype(t), ndim(shape ? static_cast<int>(shape->size()) : n) {}
  std::optional<std::vector<ir::PrimExpr>> shape;
  ir::DataType dtype;  // void: unknown
  int ndim;
  bool unknown_dtype() const { return dtype.is_void(); }
};

struct TupleSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Tuple;
  explicit TupleSInfoNode(std::vector<StructInfo> f) : StructInfoNode(kKind), fields(std::move(f)) {}
  std::vector<StructInfo> fields;
};

// `R.Callable((params...), ret, purity)`; params absent = opaque (any arguments).
struct FuncSInfoNode : StructInfoNode {
  static constexpr SInfoKind kKind = SInfoKind::Func;
  FuncSInfoNode(std::optional<std::vector<StructInfo>> p, StructInfo r, bool pure)
      : StructInfoNode(kKind), params(std::move(p)), ret(std::move(r)), purity(pure) {}
  std::optional<std::vector<StructInfo>> params;
  StructInfo ret;
  bool purity;
};

StructInfo object_sinfo();
StructInfo prim_sinfo(ir::DataType dtype, ir::PrimExpr value = nullptr);
StructInfo shape_sinfo(std::vector<ir::PrimExpr> values);
StructInfo shape_sinfo_ndim(int ndim);
StructInfo tensor_sinfo(std::vector<ir::PrimExpr> shape, ir::DataType dtype);
StructInfo tensor_sinfo_ndim(int ndim, ir::DataType dtype);
StructInfo tuple_sinfo(std::vector<StructInfo> fields);
// The empty tuple: what a statement without a value (R.print) produces.
StructInfo void_sinfo();
bool is_void(const StructInfo& s);
StructInfo func_sinfo(std::vector<StructInfo> params, StructInfo ret, bool purity);
StructInfo opaque_func_sinfo(StructInfo ret, bool purity);

// Equal as written, variables compared by identity (the printer's "can the annotation be
// left out" test; within one function, symbolic vars are shared).
bool sinfo_equal(const StructInfo& a, const StructInfo& b);

// TVM's IsBaseOf: every value described by `derived` is also described by `base`
// (`R.Tensor(ndim=2)` is a base of `R.Tensor((3, 4), "float32")`). Symbolic dims must be
// provably equal; `maybe` is set when only a run-time check could decide.
bool sinfo_is_base_of(const StructInfo& base, const StructInfo& derived, bool* maybe = nullptr);

// The TIR variables a struct info mentions, in first-occurrence order.
void collect_sinfo_vars(const StructInfo& s, std::vector<ir::Var>& out);

// `s` with its dims rewritten by `f` (symbolic substitution after a call).
StructInfo map_sinfo_dims(const StructInfo& s, const std::function<ir::PrimExpr(const ir::PrimExpr&)>& f);

// TVM's EraseToWellDefined: dims that use variables outside `defined` become unknown.
StructInfo erase_to_well_defined(const StructInfo& s, const std::function<bool(const ir::VarNode*)>& defined);

// "R.Tensor((1, n), dtype=\"float32\")": free variables keep their names (messages).
std::string sinfo_text(const StructInfo& s);

}  // namespace tsch::relax
