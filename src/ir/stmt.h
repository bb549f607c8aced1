// TensorIR statements: loops, blocks (with iteration variables, access regions, init and
// allocations), stores, sequences, conditionals. Immutable and shared like expressions.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace tsch::ir {

// Annotation and attribute values: what T.func_attr / T.block_attr / loop annotations hold.
struct AttrValue {
  enum class Kind { Int, Float, Str, Bool, Expr, Array, Map };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  PrimExpr expr;
  std::vector<AttrValue> array;
  std::vector<std::pair<std::string, AttrValue>> map;

  // Defined below the class: clang with libstdc++ 12 rejects the implicit constructor while
  // `std::pair<std::string, AttrValue>` is still incomplete.
  AttrValue();
  static AttrValue of_int(int64_t v);
  static AttrValue of_bool(bool v);
  static AttrValue of_str(std::string v);
};
inline AttrValue::AttrValue() = default;
inline AttrValue AttrValue::of_int(int64_t v) {
  AttrValue a;
  a.kind = Kind::Int;
  a.i = v;
  return a;
}
inline AttrValue AttrValue::of_bool(bool v) {
  AttrValue a;
  a.kind = Kind::Bool;
  a.b = v;
  return a;
}
inline AttrValue AttrValue::of_str(std::string v) {
  AttrValue a;
  a.kind = Kind::Str;
  a.s = std::move(v);
  return a;
}
using AttrMap = std::vector<std::pair<std::string, AttrValue>>;
const AttrValue* find_attr(const AttrMap& attrs, const std::string& key);
// Sets `key` (replacing its value in place, else appending) / removes it (false when absent).
void set_attr(AttrMap& attrs, const std::string& key, AttrValue value);
bool erase_attr(AttrMap& attrs, const std::string& key);

#define TSCH_IR_STMT_KINDS(X) \
  X(BufferStore)              \
  X(For)                      \
  X(Block)                    \
  X(BlockRealize)             \
  X(SeqStmt)                  \
  X(IfThenElse)               \
  X(LetStmt)                  \
  X(Evaluate)                 \
  X(Allocate)                 \
  X(DeclBuffer)               \
  X(AllocateConst)            \
  X(AttrStmt)

enum class StmtKind : uint8_t {
#define TSCH_X(name) name,
  TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
};

struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
};
using Stmt = std::shared_ptr<const StmtNode>;

template <typename T>
const T* as(const Stmt& s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

struct BufferStoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BufferStore;
  BufferStoreNode(Buffer b, PrimExpr v, std::vector<PrimExpr> i)
      : StmtNode(kKind), buffer(std::move(b)), value(std::move(v)), indices(std::move(i)) {}
  Buffer buffer;
  PrimExpr value;
  std::vector<PrimExpr> indices;
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  ForNode(Var v, PrimExpr mn, PrimExpr ext, ForKind k, Stmt b)
      : StmtNode(kKind),
        loop_var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        body(std::move(b)) {}
  Var loop_var;
  PrimExpr min, extent;
  ForKind for_kind;
  Stmt body;
  std::string thread_tag;  // for ThreadBinding
  // A ThreadBinding loop written `T.launch_thread(...)` (TVM's thread_extent AttrStmt): the
  // same launch, printed in that form.
  bool launch_thread = false;
  AttrMap annotations;
  // TVM's ForNode::step (v0.23): the loop runs min, min + step, ... below min + extent. Null
  // is a unit step; lowering's canonicalize_loop rewrites other steps into unit-step loops.
  PrimExpr step;
  bool has_trivial_step() const;
  // Schedule identity: kept when a primitive rewrites the loop in place (reorder keeps its
  // loops), fresh for loops a primitive creates. 0 until a schedule first sees the node, which
  // then sets it on the node itself (so a schedule's IR is the very IR it was given, as in TVM);
  // sids are unique process-wide. Not part of the node's value: equality and hashing skip it.
  mutable uint64_t sid = 0;
};

inline bool ForNode::has_trivial_step() const {
  return !step || (step->kind == ExprKind::IntImm && static_cast<const IntImmNode*>(step.get())->value == 1);
}

enum class IterType : uint8_t { DataPar, CommReduce, Ordered, Opaque };

struct IterVar {
  Var var;
  Range dom;
  IterType type = IterType::DataPar;
};

struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

struct MatchBufferRegion {
  Buffer buffer;
  BufferRegion source;
};

struct BlockNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  BlockNode() : StmtNode(kKind) {}
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads, writes;
  Stmt init;  // may be null
  std::vector<Buffer> alloc_buffers;
  std::vector<MatchBufferRegion> match_buffers;
  AttrMap annotations;
  Stmt body;
  mutable uint64_t sid = 0;  // schedule identity, as ForNode::sid
};
using Block = std::shared_ptr<const BlockNode>;

struct BlockRealizeNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BlockRealize;
  BlockRealizeNode(std::vector<PrimExpr> values, PrimExpr pred, Block b)
      : StmtNode(kKind), iter_values(std::move(values)), predicate(std::move(pred)), block(std::move(b)) {}
  std::vector<PrimExpr> iter_values;
  PrimExpr predicate;  // bool; true when absent
  Block block;
};

struct SeqStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::SeqStmt;
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(kKind), seq(std::move(s)) {}
  std::vector<Stmt> seq;
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  IfThenElseNode(PrimExpr c, Stmt t, Stmt e)
      : StmtNode(kKind), condition(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  PrimExpr condition;
  Stmt then_case, else_case;  // else may be null
};

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  LetStmtNode(Var v, PrimExpr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  PrimExpr value;
  Stmt body;
};

// TVM's AttrStmt: `body` under an attribute `attr_key` of `node` with `value` — hints such as
// pragmas (`with T.attr(node, "pragma_x", 1):`). The node is an expression (a variable, a
// string, a constant); TVM's may be any object.
struct AttrStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AttrStmt;
  AttrStmtNode(PrimExpr n, std::string key, PrimExpr v, Stmt b)
      : StmtNode(kKind), node(std::move(n)), attr_key(std::move(key)), value(std::move(v)), body(std::move(b)) {}
  PrimExpr node;
  std::string attr_key;
  PrimExpr value;
  Stmt body;
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  explicit EvaluateNode(PrimExpr v) : StmtNode(kKind), value(std::move(v)) {}
  PrimExpr value;
};

// Lowered code: an allocation of `buffer`'s data around `body`, the buffer declared over it
// (TVM's Allocate + DeclBuffer pair; printed `X = T.decl_buffer(shape, dtype)`).
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  Buffer buffer;
  Stmt body;
};

// Lowered code: `buffer` declared over data that exists already (its data variable belongs
// to a parameter or an enclosing allocation), e.g. the one-dimensional view of a parameter
// after flattening (printed `A_1 = T.decl_buffer((n,), data=A.data)`).
struct DeclBufferNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::DeclBuffer;
  DeclBufferNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  Buffer buffer;
  Stmt body;
};

// TVM's AllocateConst: constant data bound to the handle `buffer_var` over `body`
// (`p = T.allocate_const([1.0, 2.0], "float32", [2])`); buffers read it through
// `data=p` (a DeclBuffer, or a buffer declared without a statement). The values are
// row-major, floats in `float_data` (already rounded to `dtype`), integers in `int_data`.
struct AllocateConstNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AllocateConst;
  AllocateConstNode(Var v, DataType t, std::vector<PrimExpr> e, Stmt s)
      : StmtNode(kKind), buffer_var(std::move(v)), dtype(t), extents(std::move(e)), body(std::move(s)) {}
  Var buffer_var;
  DataType dtype;
  std::vector<PrimExpr> extents;
  std::vector<double> float_data;
  std::vector<int64_t> int_data;
  AttrMap annotations;
  Stmt body;
  size_t size() const { return dtype.is_float() ? float_data.size() : int_data.size(); }
};

// Builds a SeqStmt, flattening nested sequences; one statement stays itself.
Stmt make_seq(std::vector<Stmt> stmts);

// A loop bound to a GPU thread axis (T.thread_binding).
inline bool is_thread_loop(const Stmt& s) {
  auto* f = as<ForNode>(s);
  return f && f->for_kind == ForKind::ThreadBinding;
}

}  // namespace tsch::ir
