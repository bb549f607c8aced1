// Script values for loops and blocks (`sch.get(loop_rv)` returns a tvm.tir.For, a block
// handle a tvm.tir.Block): printable as TVMScript, with TVM's read-only fields.
#pragma once

#include "ir/stmt.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

class StmtValue : public script::Object {
 public:
  explicit StmtValue(ir::Stmt s) : stmt(std::move(s)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter& interp) override;
  bool get_attr_hook(script::Interpreter& interp, Symbol name, script::Value& out) override;
  // Owning: callers that hold a node inside a larger tree alias the tree's owner.
  ir::Stmt stmt;
};

script::Value wrap(ir::Stmt s);
// tvm.tir.For / tvm.tir.Block (isinstance).
script::TypeRef for_stmt_type();
script::TypeRef block_stmt_type();
// tvm.tir.ForKind and tvm.tir.Evaluate (For's constructor is on its type).
void install_stmt_constructors(script::Namespace& ns);
// tvm.tir.stmt_functor.pre_order_visit over the statements under `s` (part of `root`).
void pre_order_visit(script::Interpreter& interp, const ir::Stmt& root, const ir::Stmt& s, const script::Value& fn);
void post_order_visit(script::Interpreter& interp, const ir::Stmt& root, const ir::Stmt& s, const script::Value& fn);

}  // namespace tsch::bindings
