// Relax expressions, bindings and functions (TVM's relax/expr.h). Every expression carries
// its struct info once normalized (the front end and the BlockBuilder infer it for each
// binding). A function body is a SeqExpr: binding blocks (dataflow or not), then a result.
// Nodes are immutable once shared; Vars compare by identity.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/function.h"
#include "relax/struct_info.h"
#include "runtime/ndarray.h"

namespace tsch::relax {

#define TSCH_RELAX_EXPR_KINDS(X) \
  X(Var)                         \
  X(Constant)                    \
  X(Tuple)                       \
  X(TupleGetItem)                \
  X(ShapeExpr)                   \
  X(PrimValue)                   \
  X(StringImm)                   \
  X(DataTypeImm)                 \
  X(Call)                        \
  X(If)                          \
  X(SeqExpr)                     \
  X(GlobalVar)                   \
  X(ExternFunc)                  \
  X(Op)

enum class ExprKind : uint8_t {
#define TSCH_X(name) name,
  TSCH_RELAX_EXPR_KINDS(TSCH_X)
#undef TSCH_X
};

struct ExprNode {
  explicit ExprNode(ExprKind k) : kind(k) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  StructInfo struct_info;  // null until normalized
};
using Expr = std::shared_ptr<const ExprNode>;

template <typename T>
const T* as(const Expr& e) {
  return e && e->kind == T::kKind ? static_cast<const T*>(e.get()) : nullptr;
}

// A variable bound once: a parameter or the left side of a binding. A dataflow variable
// (`is_dataflow`) is visible only inside its dataflow block.
struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  VarNode(std::string n, StructInfo s, bool dataflow) : ExprNode(kKind), name(std::move(n)), is_dataflow(dataflow) {
    struct_info = std::move(s);
  }
  std::string name;
  bool is_dataflow;
};
using Var = std::shared_ptr<const VarNode>;
Var make_var(std::string name, StructInfo sinfo, bool dataflow = false);

struct ConstantNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Constant;
  explicit ConstantNode(runtime::NDArrayRef d);
  runtime::NDArrayRef data;
};

struct TupleNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Tuple;
  explicit TupleNode(std::vector<Expr> f) : ExprNode(kKind), fields(std::move(f)) {}
  std::vector<Expr> fields;
};

struct TupleGetItemNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::TupleGetItem;
  TupleGetItemNode(Expr t, int i) : ExprNode(kKind), tuple(std::move(t)), index(i) {}
  Expr tuple;
  int index;
};

// `R.shape([1, n])`: a shape value.
struct ShapeExprNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::ShapeExpr;
  explicit ShapeExprNode(std::vector<ir::PrimExpr> v) : ExprNode(kKind), values(std::move(v)) {}
  std::vector<ir::PrimExpr> values;
};

// `R.prim_value(1)`: a TIR scalar as a Relax value.
struct PrimValueNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::PrimValue;
  explicit PrimValueNode(ir::PrimExpr v) : ExprNode(kKind), value(std::move(v)) {}
  ir::PrimExpr value;
};

struct StringImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::StringImm;
  explicit StringImmNode(std::string v) : ExprNode(kKind), value(std::move(v)) {}
  std::string value;
};

struct DataTypeImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::DataTypeImm;
  explicit DataTypeImmNode(ir::DataType v) : ExprNode(kKind), value(v) {}
  ir::DataType value;
};

// A reference to a function of the module (`cls.linear0`).
struct GlobalVarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::GlobalVar;
  explicit GlobalVarNode(std::string n) : ExprNode(kKind), name(std::move(n)) {}
  std::string name;
};

// A function outside the module, found by name at run time (`R.ExternFunc("env.linear")`;
// the callee of call_dps_packed and call_packed).
struct ExternFuncNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::ExternFunc;
  explicit ExternFuncNode(std::string s) : ExprNode(kKind), global_symbol(std::move(s)) {}
  std::string global_symbol;
};

// An operator (`relax.call_tir`); see op.h.
struct OpNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Op;
  explicit OpNode(std::string n) : ExprNode(kKind), name(std::move(n)) {}
  std::string name;
};

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallNode(Expr o, std::vector<Expr> a, ir::AttrMap at, std::vector<StructInfo> s)
      : ExprNode(kKind), op(std::move(o)), args(std::move(a)), attrs(std::move(at)), sinfo_args(std::move(s)) {}
  Expr op;  // Op, GlobalVar, ExternFunc or Var
  std::vector<Expr> args;
  ir::AttrMap attrs;
  std::vector<StructInfo> sinfo_args;
};

struct Binding {
  Var var;
  Expr value;
  StructInfo match_sinfo;  // set: a MatchCast (`R.match_cast(value, sinfo)`), else a VarBinding
  bool is_match_cast() const { return match_sinfo != nullptr; }
};

struct BindingBlock {
  std::vector<Binding> bindings;
  bool is_dataflow = false;
};

struct SeqExprNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::SeqExpr;
  SeqExprNode(std::vector<BindingBlock> b, Expr r) : ExprNode(kKind), blocks(std::move(b)), body(std::move(r)) {}
  std::vector<BindingBlock> blocks;
  Expr body;
};
using SeqExpr = std::shared_ptr<const SeqExprNode>;

struct IfNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::If;
  IfNode(Expr c, SeqExpr t, SeqExpr f)
      : ExprNode(kKind), cond(std::move(c)), true_branch(std::move(t)), false_branch(std::move(f)) {}
  Expr cond;
  SeqExpr true_branch, false_branch;
};

// `@R.function def name(params) -> ret: body`.
struct FunctionNode final : ir::BaseFuncNode {
  std::vector<Var> params;
  SeqExpr body;
  StructInfo ret_sinfo;
  bool is_pure = true;

  ir::FuncKind func_kind() const override { return ir::FuncKind::RelaxFunction; }
  const char* type_key() const override { return "relax.expr.Function"; }
  std::shared_ptr<ir::BaseFuncNode> copy() const override { return std::make_shared<FunctionNode>(*this); }
  StructInfo func_struct_info() const;
};
using Function = std::shared_ptr<const FunctionNode>;

inline Function as_relax_function(const ir::BaseFunc& f) {
  return f && f->func_kind() == ir::FuncKind::RelaxFunction ? std::static_pointer_cast<const FunctionNode>(f) : nullptr;
}

// A module-level `name = R.ExternFunc("symbol")`.
struct ExternFuncDeclNode final : ir::BaseFuncNode {
  std::string global_symbol_name;
  ir::FuncKind func_kind() const override { return ir::FuncKind::ExternFunc; }
  const char* type_key() const override { return "relax.expr.ExternFunc"; }
  std::shared_ptr<ir::BaseFuncNode> copy() const override { return std::make_shared<ExternFuncDeclNode>(*this); }
};

// Helpers that build normalized nodes (struct info set).
Expr make_shape_expr(std::vector<ir::PrimExpr> values);
Expr make_tuple(std::vector<Expr> fields);
Expr make_tuple_get_item(const Expr& tuple, int index);  // UserError (IndexError) when out of range
Expr make_string_imm(std::string s);
Expr make_prim_value(ir::PrimExpr v);
Expr make_constant(runtime::NDArrayRef data);
Expr make_op(const std::string& name);
Expr make_extern_func(std::string symbol);
Expr make_global_var(std::string name, StructInfo sinfo);

// The struct info of `e`; an internal error when it has none.
const StructInfo& sinfo_of(const Expr& e);

}  // namespace tsch::relax
