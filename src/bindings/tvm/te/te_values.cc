// The te value classes (te_values.h): Tensor, Operation, and a reduction's value as `op.body`
// shows it; the tensors and operations create_prim_func takes.
#include "bindings/tvm/te/te_values.h"

#include <fmt/format.h>

#include "ir/printer.h"
#include "script/exceptions.h"
#include "te/operation.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

TypeRef tensor_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Tensor");
    type->set_module("tvm.te");
    type->def("__getitem__", "self, indices", [](Interpreter& interp, Args& a) {
      const TensorValue& tensor = *a[0].as<TensorValue>();
      std::vector<Value> items = a[1].as<script::Tuple>() ? interp.to_vector(a[1]) : std::vector<Value>{a[1]};
      if (items.size() != tensor.buffer()->shape.size()) {
        raise(ExcKind::IndexError, fmt::format("tensor {} has {} dimensions, indexed with {}", tensor.op->name,
                                               tensor.buffer()->shape.size(), items.size()));
      }
      std::vector<ir::PrimExpr> idx;
      for (const auto& i : items) idx.push_back(to_expr(interp, i, "tensor index"));
      return wrap(guard_ir([&] { return ir::buffer_load(tensor.buffer(), idx); }));
    });
    // A(i, j): the same as A[i, j] (TVM's Tensor.__call__).
    type->def("__call__", "self, *indices", [](Interpreter& interp, Args& a) {
      const TensorValue& tensor = *a[0].as<TensorValue>();
      std::vector<Value> items = a.varargs();
      if (items.size() != tensor.buffer()->shape.size()) {
        raise(ExcKind::IndexError, fmt::format("tensor {} has {} dimensions, indexed with {}", tensor.op->name,
                                               tensor.buffer()->shape.size(), items.size()));
      }
      std::vector<ir::PrimExpr> idx;
      for (const auto& i : items) idx.push_back(to_expr(interp, i, "tensor index"));
      return wrap(guard_ir([&] { return ir::buffer_load(tensor.buffer(), idx); }));
    });
    type->def_property("shape", [](Interpreter&, const Value& v) {
      std::vector<Value> dims;
      for (const auto& d : v.as<TensorValue>()->buffer()->shape) dims.push_back(wrap(d));
      return script::make_list(std::move(dims));
    });
    type->def_property("dtype", [](Interpreter&, const Value& v) {
      return script::make_str(v.as<TensorValue>()->buffer()->dtype.to_string());
    });
    // TVM's names: the operation's, `<op>.v<i>` for one of several outputs.
    type->def_property("name", [](Interpreter&, const Value& v) {
      const TensorValue& t = *v.as<TensorValue>();
      return script::make_str(t.op->outputs.size() > 1 ? t.op->name + ".v" + std::to_string(t.value_index)
                                                       : t.op->name);
    });
    type->def_property("value_index", [](Interpreter&, const Value& v) {
      return Value::integer(static_cast<int64_t>(v.as<TensorValue>()->value_index));
    });
    type->def_property("op", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<OperationValue>(v.as<TensorValue>()->op));
    });
    type->def_property("ndim", [](Interpreter&, const Value& v) {
      return Value::integer(static_cast<int64_t>(v.as<TensorValue>()->buffer()->shape.size()));
    });
    return type;
  }();
  return t;
}

// One value of a reduction as `op.body` shows it (TVM's tir.Reduce); printing only.
class ReduceBodyValue : public script::Object {
 public:
  ReduceBodyValue(te::Operation o, size_t index) : op(std::move(o)), value_index(index) {}
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("Reduce");
      type->set_module("tvm.tir.expr");
      type->def_property("value_index", [](Interpreter&, const Value& v) {
        return Value::integer(static_cast<int64_t>(v.as<ReduceBodyValue>()->value_index));
      });
      type->def_property("axis", [](Interpreter&, const Value& v) {
        std::vector<Value> out;
        for (const auto& ax : v.as<ReduceBodyValue>()->op->reduce->axis) out.push_back(wrap(ir::PrimExpr(ax.var)));
        return script::make_list(std::move(out));
      });
      return type;
    }();
    return t.get();
  }
  std::string repr_hook(Interpreter&) override {
    return te::reduce_script(*op->reduce, op->outputs.at(value_index)->dtype, value_index);
  }
  te::Operation op;
  size_t value_index;
};

TypeObject* TensorValue::type() const { return tensor_type().get(); }

std::string TensorValue::repr_hook(Interpreter&) {
  std::string shape = "[";
  for (size_t i = 0; i < buffer()->shape.size(); ++i) shape += (i ? ", " : "") + ir::script(buffer()->shape[i]);
  return fmt::format("Tensor(shape={}], op.name={})", shape, op->name);
}

std::string OperationValue::repr_hook(Interpreter&) {
  return std::string(op->kind == te::OperationNode::Kind::Compute ? "compute(" : "placeholder(") + op->name + ")";
}

te::Operation operation_arg(const Value& v) {
  if (auto* t = v.as<TensorValue>()) return t->op;
  if (auto* o = v.as<OperationValue>()) return o->op;
  return nullptr;
}

std::vector<te::FuncArg> te_func_args(Interpreter& interp, const Value& list, const std::string& what) {
  std::vector<te::FuncArg> args;
  for (const auto& v : interp.to_vector(list)) {
    if (auto* t = v.as<TensorValue>()) {
      args.push_back({t->op, nullptr, t->value_index});
      continue;
    }
    ir::PrimExpr e = to_expr(interp, v, what + " argument");
    auto* var = ir::as<ir::VarNode>(e);
    if (!var) raise(ExcKind::TypeError, what + ": arguments are tensors or scalar variables, got " + interp.repr(v));
    args.push_back({nullptr, std::static_pointer_cast<const ir::VarNode>(e)});
  }
  return args;
}

TypeObject* OperationValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Operation");
    type->set_module("tvm.te");
    type->def_property("name",
                       [](Interpreter&, const Value& v) { return script::make_str(v.as<OperationValue>()->op->name); });
    type->def_property("tag",
                       [](Interpreter&, const Value& v) { return script::make_str(v.as<OperationValue>()->op->tag); });
    type->def_property("num_outputs", [](Interpreter&, const Value&) { return Value::integer(1); });
    // The axes as their variables (TVM's IterVars convert to them in expressions).
    type->def_property("axis", [](Interpreter&, const Value& v) {
      std::vector<Value> out;
      for (const auto& ax : v.as<OperationValue>()->op->axis) out.push_back(wrap(ir::PrimExpr(ax.var)));
      return script::make_list(std::move(out));
    });
    type->def_property("reduce_axis", [](Interpreter&, const Value& v) {
      std::vector<Value> out;
      const auto& op = v.as<OperationValue>()->op;
      if (op->reduce) {
        for (const auto& ax : op->reduce->axis) out.push_back(wrap(ir::PrimExpr(ax.var)));
      }
      return script::make_list(std::move(out));
    });
    // TVM's op.body: the value of each output, a T.reduce for a reduction.
    type->def_property("body", [](Interpreter& interp, const Value& v) {
      const te::Operation& op = v.as<OperationValue>()->op;
      if (op->kind != te::OperationNode::Kind::Compute)
        raise(ExcKind::AttributeError, "'PlaceholderOp' object has no attribute 'body'");
      std::vector<Value> out;
      for (size_t i = 0; i < op->outputs.size(); ++i) {
        if (op->reduce)
          out.push_back(Value(std::make_shared<ReduceBodyValue>(op, i)));
        else
          out.push_back(wrap(op->bodies.empty() ? op->body : op->bodies.at(i)));
      }
      (void)interp;
      return script::make_list(std::move(out));
    });
    type->def_property("input_tensors", [](Interpreter&, const Value& v) {
      std::vector<Value> out;
      for (const auto& in : v.as<OperationValue>()->op->inputs) out.push_back(Value(std::make_shared<TensorValue>(in)));
      return script::make_list(std::move(out));
    });
    type->def("output", "self, index", [](Interpreter&, Args& a) {
      const te::Operation& op = a[0].as<OperationValue>()->op;
      int64_t i = a.get_int(1);
      if (i < 0 || static_cast<size_t>(i) >= op->outputs.size())
        a.value_error(1, fmt::format("an output index below {}", op->outputs.size()));
      return Value(std::make_shared<TensorValue>(op, static_cast<size_t>(i)));
    });
    type->def_property("num_outputs", [](Interpreter&, const Value& v) {
      return Value::integer(static_cast<int64_t>(v.as<OperationValue>()->op->outputs.size()));
    });
    return type;
  }();
  return t.get();
}

}  // namespace tsch::bindings
