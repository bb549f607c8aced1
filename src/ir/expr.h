// TensorIR expressions (PrimExpr): immutable nodes shared by reference. A node's kind tells
// its concrete type; ir::as<T>(e) casts when it matches. Variables and buffers compare by
// identity (the node pointer), as in TVM.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tsch::ir {

// One list of expression kinds drives dispatch in visitors, mutators, printer and equality.
#define TSCH_IR_EXPR_KINDS(X) \
  X(IntImm)                   \
  X(FloatImm)                 \
  X(StringImm)                \
  X(Var)                      \
  X(Add)                      \
  X(Sub)                      \
  X(Mul)                      \
  X(Div)                      \
  X(Mod)                      \
  X(FloorDiv)                 \
  X(FloorMod)                 \
  X(Min)                      \
  X(Max)                      \
  X(EQ)                       \
  X(NE)                       \
  X(LT)                       \
  X(LE)                       \
  X(GT)                       \
  X(GE)                       \
  X(And)                      \
  X(Or)                       \
  X(Not)                      \
  X(Select)                   \
  X(Cast)                     \
  X(BufferLoad)               \
  X(Call)                     \
  X(Ramp)                     \
  X(Broadcast)                \
  X(Let)

enum class ExprKind : uint8_t {
#define TSCH_X(name) name,
  TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
};

struct ExprNode {
  ExprNode(ExprKind k, DataType t) : kind(k), dtype(t) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  DataType dtype;
};
using PrimExpr = std::shared_ptr<const ExprNode>;

template <typename T>
const T* as(const PrimExpr& e) {
  return e && e->kind == T::kKind ? static_cast<const T*>(e.get()) : nullptr;
}

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  int64_t value;
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  double value;
};

struct StringImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::StringImm;
  explicit StringImmNode(std::string v) : ExprNode(kKind, DataType::handle()), value(std::move(v)) {}
  std::string value;
};

// TVM's PointerType(PrimType(element_type), storage_scope): what a handle variable points to
// (`T.handle("float32", "shared")`). An empty scope is TVM's "global".
struct PointerType {
  DataType element_type;
  std::string storage_scope = "global";
  bool operator==(const PointerType& o) const {
    return element_type == o.element_type && storage_scope == o.storage_scope;
  }
  bool operator!=(const PointerType& o) const { return !(*this == o); }
};

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  VarNode(std::string n, DataType t, bool size_var = false, std::optional<PointerType> pointer = std::nullopt)
      : ExprNode(kKind, t), name(std::move(n)), is_size_var(size_var), type_annotation(std::move(pointer)) {}
  // Named once by the front end when a script assigns it (`n = T.int64()`), before any use.
  mutable std::string name;
  bool is_size_var;
  // Set only on handle variables that know what they point to (TVM's PointerType annotation);
  // the others' annotation is TVM's PrimType(dtype).
  std::optional<PointerType> type_annotation;
};
using Var = std::shared_ptr<const VarNode>;

template <ExprKind K>
struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = K;
  BinaryNode(DataType t, PrimExpr x, PrimExpr y) : ExprNode(K, t), a(std::move(x)), b(std::move(y)) {}
  PrimExpr a, b;
};
using AddNode = BinaryNode<ExprKind::Add>;
using SubNode = BinaryNode<ExprKind::Sub>;
using MulNode = BinaryNode<ExprKind::Mul>;
using DivNode = BinaryNode<ExprKind::Div>;  // truncating for ints
using ModNode = BinaryNode<ExprKind::Mod>;  // truncating for ints
using FloorDivNode = BinaryNode<ExprKind::FloorDiv>;
using FloorModNode = BinaryNode<ExprKind::FloorMod>;
using MinNode = BinaryNode<ExprKind::Min>;
using MaxNode = BinaryNode<ExprKind::Max>;
using EQNode = BinaryNode<ExprKind::EQ>;
using NENode = BinaryNode<ExprKind::NE>;
using LTNode = BinaryNode<ExprKind::LT>;
using LENode = BinaryNode<ExprKind::LE>;
using GTNode = BinaryNode<ExprKind::GT>;
using GENode = BinaryNode<ExprKind::GE>;
using AndNode = BinaryNode<ExprKind::And>;
using OrNode = BinaryNode<ExprKind::Or>;

// The binary operators, whose nodes share one shape (BinaryNode<K>).
#define TSCH_IR_BINARY_KINDS(X) \
  X(Add)                        \
  X(Sub)                        \
  X(Mul)                        \
  X(Div)                        \
  X(Mod)                        \
  X(FloorDiv)                   \
  X(FloorMod)                   \
  X(Min)                        \
  X(Max)                        \
  X(EQ)                         \
  X(NE)                         \
  X(LT)                         \
  X(LE)                         \
  X(GT)                         \
  X(GE)                         \
  X(And)                        \
  X(Or)
// `case ExprKind::Add: case ExprKind::Sub: ...` for every binary kind, in a switch.
#define TSCH_IR_BINARY_CASE(K) case ExprKind::K:

inline bool is_binary(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Or; }
// The operands of any binary node.
inline const PrimExpr& binary_a(const PrimExpr& e) { return static_cast<const AddNode*>(e.get())->a; }
inline const PrimExpr& binary_b(const PrimExpr& e) { return static_cast<const AddNode*>(e.get())->b; }

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  explicit NotNode(PrimExpr x) : ExprNode(kKind, x->dtype), a(std::move(x)) {}
  PrimExpr a;
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  SelectNode(PrimExpr c, PrimExpr t, PrimExpr f)
      : ExprNode(kKind, t->dtype), condition(std::move(c)), true_value(std::move(t)), false_value(std::move(f)) {}
  PrimExpr condition, true_value, false_value;
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  CastNode(DataType t, PrimExpr v) : ExprNode(kKind, t), value(std::move(v)) {}
  PrimExpr value;
};

struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

struct BufferLoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::BufferLoad;
  BufferLoadNode(DataType t, Buffer b, std::vector<PrimExpr> i)
      : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
  Buffer buffer;
  std::vector<PrimExpr> indices;
};

// A call of a built-in operator ("exp", "if_then_else", "call_extern", ...).
struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallNode(DataType t, std::string o, std::vector<PrimExpr> a)
      : ExprNode(kKind, t), op(std::move(o)), args(std::move(a)) {}
  std::string op;
  std::vector<PrimExpr> args;
};

struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  RampNode(PrimExpr b, PrimExpr s, int l)
      : ExprNode(kKind, b->dtype.with_lanes(l)), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  PrimExpr base, stride;
  int lanes;
};

struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  BroadcastNode(PrimExpr v, int l) : ExprNode(kKind, v->dtype.with_lanes(l)), value(std::move(v)), lanes(l) {}
  PrimExpr value;
  int lanes;
};

struct LetNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Let;
  LetNode(Var v, PrimExpr val, PrimExpr b)
      : ExprNode(kKind, b->dtype), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  PrimExpr value, body;
};

struct Range {
  PrimExpr min, extent;
};

}  // namespace tsch::ir
