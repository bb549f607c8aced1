// TensorIR functions (PrimFunc) and modules (IRModule: global names to functions of any
// kind, plus module attributes). Code that only handles TensorIR walks `prim_funcs()` and
// keeps the other functions as they are.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/function.h"

namespace tsch::ir {

struct PrimFuncNode final : BaseFuncNode {
  std::vector<Var> params;
  // Parameters that are buffers: handle var -> buffer, in parameter order.
  std::vector<std::pair<Var, Buffer>> buffer_map;
  Stmt body;
  DataType ret_type = DataType::void_();

  FuncKind func_kind() const override { return FuncKind::PrimFunc; }
  const char* type_key() const override { return "tir.PrimFunc"; }
  std::shared_ptr<BaseFuncNode> copy() const override { return std::make_shared<PrimFuncNode>(*this); }

  // The buffer bound to a parameter, or null.
  Buffer buffer_of(const Var& param) const;
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

// The PrimFunc behind `f`, or null when `f` is another kind of function.
inline PrimFunc as_prim_func(const BaseFunc& f) {
  return f && f->func_kind() == FuncKind::PrimFunc ? std::static_pointer_cast<const PrimFuncNode>(f) : nullptr;
}

struct IRModuleNode {
  // In definition order; names are unique. (TVM keeps a hash map; its printer sorts.)
  std::vector<std::pair<std::string, BaseFunc>> functions;
  // Module attributes (`I.module_attrs({...})`).
  AttrMap attrs;

  // The function named `name`, or null.
  BaseFunc lookup(const std::string& name) const;
  // The PrimFunc named `name`, or null when there is none or it is another kind.
  PrimFunc prim_func(const std::string& name) const;
  // The PrimFuncs, in definition order.
  std::vector<std::pair<std::string, PrimFunc>> prim_funcs() const;
  bool has_only_prim_funcs() const;
  // Binds `name` to `func`: replaces the function of that name in place, else appends.
  void set(const std::string& name, BaseFunc func);
  // Removes the function named `name`; false when there is none.
  bool remove(const std::string& name);
};
using IRModule = std::shared_ptr<const IRModuleNode>;

// A module of one PrimFunc.
IRModule module_of(const std::string& name, PrimFunc func);

}  // namespace tsch::ir
