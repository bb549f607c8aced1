// Visitors and mutators over expressions and statements. Mutators return the same node when
// nothing below it changed, so unchanged subtrees stay shared (Halide IRMutator style).
#pragma once

#include <functional>
#include <unordered_map>

#include "ir/module.h"

namespace tsch::ir {

// The per-node methods below are stamped out from the node lists (TSCH_IR_EXPR_KINDS,
// TSCH_IR_STMT_KINDS) and dispatched by a switch with no default: a node kind added to a
// list has no default method until one is written (the build fails to link), and each
// visitor may override exactly the nodes it cares about.
class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  // Every node passes through these (override them to see all nodes); the default visits the
  // node's children through its per-node method.
  virtual void visit(const PrimExpr& e);
  virtual void visit(const Stmt& s);
  virtual void visit_buffer_region(const BufferRegion& r);

 protected:
  void visit_children(const PrimExpr& e);
  void visit_children(const Stmt& s);
  // One per node kind, e.g. visit_For(const ForNode&): visits the node's children.
#define TSCH_X(K) virtual void visit_##K(const K##Node& n);
  TSCH_IR_EXPR_KINDS(TSCH_X)
  TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual PrimExpr mutate(const PrimExpr& e);
  virtual Stmt mutate(const Stmt& s);

 protected:
  PrimExpr mutate_children(const PrimExpr& e);
  Stmt mutate_children(const Stmt& s);
  std::vector<PrimExpr> mutate_all(const std::vector<PrimExpr>& v, bool& changed);
  Range mutate_range(const Range& r, bool& changed);
  BufferRegion mutate_region(const BufferRegion& r, bool& changed);
  // One per node kind, e.g. mutate_For(const ForNode&, const Stmt& self): mutates the node's
  // children and returns `self` when none changed, else the rebuilt node.
#define TSCH_X(K) virtual PrimExpr mutate_##K(const K##Node& n, const PrimExpr& self);
  TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
#define TSCH_X(K) virtual Stmt mutate_##K(const K##Node& n, const Stmt& self);
  TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
};

// Calls f on every expression node (pre-order), including those inside statements.
void for_each_expr(const Stmt& s, const std::function<void(const PrimExpr&)>& f);
void for_each_expr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f);
// Calls f on every statement node (pre-order).
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);

// The buffers over `data` that `body` loads, stores or names in a block's regions or match
// buffers and that no DeclBuffer in `body` declares, in order of first use.
std::vector<Buffer> buffers_over_data(const Stmt& body, const Var& data);

bool uses_var(const PrimExpr& e, const std::function<bool(const VarNode*)>& pred);
// Replaces variables by expressions.
PrimExpr substitute(const PrimExpr& e, const std::unordered_map<const VarNode*, PrimExpr>& vmap);
Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, PrimExpr>& vmap);

}  // namespace tsch::ir
