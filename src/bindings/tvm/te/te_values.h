// TE values in scripts (te_values.cc): tensors and operations; and the stage schedule's
// (te_schedule_values.cc): te.create_schedule, Schedule, Stage, te.thread_axis, and what
// tvm.lower / tvm.build make of a schedule.
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"
#include "ir/printer.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "te/operation.h"
#include "te/schedule.h"

namespace tsch::bindings {

// A tensor: an operation's output (TVM's te.Tensor).
class TensorValue : public script::Object {
 public:
  explicit TensorValue(te::Operation o, size_t index = 0) : op(std::move(o)), value_index(index) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override;
  const ir::Buffer& buffer() const { return op->outputs.at(value_index); }
  te::Operation op;
  size_t value_index;  // which output of op (TVM's Tensor.value_index)
};

// An operation (TVM's te.Operation: `C.op`).
class OperationValue : public script::Object {
 public:
  explicit OperationValue(te::Operation o) : op(std::move(o)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override;
  te::Operation op;
};

// tvm.te.Tensor (te_values.cc).
script::TypeRef tensor_type();
// te.sum(...) (te_reduce_values.cc): only a compute's value may be one.
class ReduceValue : public script::Object {
 public:
  explicit ReduceValue(te::Reduce r) : reduce(std::move(r)) {}
  script::TypeObject* type() const override;
  te::Reduce reduce;
};

// te.reduce_axis, te.comm_reducer, te.sum / max / min into tvm.te (te_reduce_values.cc).
void def_reduce_functions(script::Namespace& ns);

// te.thread_axis("blockIdx.x") (te_thread_axis.cc): what a stage's bind binds a loop to.
class ThreadAxisValue : public script::Object {
 public:
  explicit ThreadAxisValue(te::ThreadAxis a) : axis(std::move(a)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override {
    std::string dom = axis.extent ? "T.Range(0, " + ir::script(axis.extent) + ")" : "None";
    return "T.iter_var(" + axis.var->name + ", " + dom + ", \"ThreadIndex\", \"" + axis.tag + "\")";
  }
  te::ThreadAxis axis;
};

// te.thread_axis into tvm.te (te_thread_axis.cc).
void def_thread_axis(script::Namespace& ns);

// The operation of a tensor or operation value, or null.
te::Operation operation_arg(const script::Value& v);
// create_prim_func's argument list: tensors and scalar variables.
std::vector<te::FuncArg> te_func_args(script::Interpreter& interp, const script::Value& list, const std::string& what);

// te.create_schedule, te.thread_axis and the Schedule / Stage types, into tvm.te.
void install_te_schedule(script::Interpreter& interp, script::Namespace& ns);
// tvm.lower(s, args, name=) / tvm.build(s, args, ...) of a stage schedule: the module holding
// the scheduled function named `name`; nullopt when `inp` is not a stage schedule.
std::optional<ir::IRModule> te_schedule_module(script::Interpreter& interp, const script::Value& inp,
                                               const script::Value& args, const std::string& name);

}  // namespace tsch::bindings
