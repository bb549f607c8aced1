// Functions and modules: PrimFunc (a TensorIR function) and IRModule (named functions).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tsch::ir {

struct PrimFuncNode {
  std::vector<Var> params;
  // Parameters that are buffers: handle var -> buffer, in parameter order.
  std::vector<std::pair<Var, Buffer>> buffer_map;
  Stmt body;
  // A function without a "global_symbol" attribute is private (`@T.prim_func(private=True)`).
  AttrMap attrs;
  DataType ret_type = DataType::void_();

  // The buffer bound to a parameter, or null.
  Buffer buffer_of(const Var& param) const;
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

struct IRModuleNode {
  // In definition order; names are unique.
  std::vector<std::pair<std::string, PrimFunc>> functions;

  PrimFunc find(const std::string& name) const;
};
using IRModule = std::shared_ptr<const IRModuleNode>;

}  // namespace tsch::ir
