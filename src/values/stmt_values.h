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
  // The node's own shared_ptr, never an alias of a parent's: holding the value counts in the
  // node's use_count, as a Python reference counts in TVM's refcount.
  ir::Stmt stmt;
};

script::Value wrap(ir::Stmt s);
// tvm.tir.For / tvm.tir.Block / tvm.tir.BlockRealize (isinstance and constructors).
script::TypeRef for_stmt_type();
script::TypeRef block_stmt_type();
script::TypeRef block_realize_stmt_type();
// tvm.tir.ForKind and tvm.tir.Evaluate (For's constructor is on its type).
void install_stmt_constructors(script::Namespace& ns);
// tvm.tir.stmt_functor.pre_order_visit / post_order_visit over the statements under `s`;
// fn gets each statement's own node.
void pre_order_visit(script::Interpreter& interp, const ir::Stmt& s, const script::Value& fn);
void post_order_visit(script::Interpreter& interp, const ir::Stmt& s, const script::Value& fn);

}  // namespace tsch::bindings
