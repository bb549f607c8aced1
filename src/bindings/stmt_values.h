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

}  // namespace tsch::bindings
