#include "te/operation.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "arith/block_access.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"

namespace tsch::te {
namespace {

// Buffers to the operations that own them. Operations are kept weakly: a tensor nobody holds
// any more is gone from here too.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const ir::BufferNode*, std::weak_ptr<const OperationNode>>& registry() {
  static std::unordered_map<const ir::BufferNode*, std::weak_ptr<const OperationNode>> r;
  return r;
}

void record(const Operation& op) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  // Forget the entries whose operations are gone before adding one.
  for (auto it = r.begin(); it != r.end();) it = it->second.expired() ? r.erase(it) : std::next(it);
  for (const auto& b : op->outputs) r[b.get()] = op;
}

// The operations whose tensors `e` reads, in order of first read.
void collect_inputs(const ir::PrimExpr& e, std::vector<Operation>& out) {
  if (!e) return;
  ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
    auto* load = ir::as<ir::BufferLoadNode>(x);
    if (!load) return;
    Operation op = operation_of(load->buffer.get());
    if (!op) return;
    for (const auto& seen : out) {
      if (seen == op) return;
    }
    out.push_back(op);
  });
}

class FuncBuilder {
 public:
  explicit FuncBuilder(std::unordered_map<const OperationNode*, std::string>* block_names)
      : block_names_(block_names) {}

  ir::PrimFunc build(const std::vector<FuncArg>& args) {
    auto func = std::make_shared<ir::PrimFuncNode>();
    std::unordered_set<const OperationNode*> is_arg;
    for (const auto& a : args) {
      if (a.op) {
        is_arg.insert(a.op.get());
        const ir::Buffer& buffer = a.op->outputs.at(a.value_index);
        // TVM's create_prim_func names a tensor's handle "var_" + its name.
        ir::Var handle = ir::make_var("var_" + buffer->name, ir::DataType::handle());
        func->params.push_back(handle);
        func->buffer_map.emplace_back(handle, buffer);
        arg_buffers_.insert(buffer.get());
      } else {
        func->params.push_back(a.var);
      }
    }
    // Step 1. Every operation the arguments depend on, inputs before their users.
    for (const auto& a : args) {
      if (a.op) visit(a.op);
    }
    // Step 2. A block (in its loop nest) per compute; computes that are not arguments are
    // intermediate buffers of the root block.
    std::vector<ir::Stmt> stmts;
    std::vector<ir::Buffer> allocs;
    for (const Operation& op : order_) {
      if (op->kind == OperationNode::Kind::Placeholder) {
        TSCH_USER_ASSERT(is_arg.count(op.get()), ValueError)
            << "create_prim_func: the placeholder " << op->name << " is read but is not in the argument list";
        continue;
      }
      for (const auto& b : op->outputs) {
        if (!arg_buffers_.count(b.get())) allocs.push_back(b);
      }
      stmts.push_back(compute_stmt(*op));
    }
    auto root = std::make_shared<ir::BlockNode>();
    root->name = "root";
    root->alloc_buffers = allocs;
    root->body = ir::make_seq(stmts);
    if (!root->body) root->body = std::make_shared<ir::EvaluateNode>(ir::make_int(0));
    func->body = std::make_shared<ir::BlockRealizeNode>(std::vector<ir::PrimExpr>{}, ir::make_bool(true), root);
    func->attrs.emplace_back("global_symbol", ir::AttrValue::of_str("main"));
    func->attrs.emplace_back("tir.noalias", ir::AttrValue::of_bool(true));
    return func;
  }

 private:
  void visit(const Operation& op) {
    if (visited_.count(op.get())) return;
    visited_.insert(op.get());
    for (const auto& in : op->inputs) visit(in);
    order_.push_back(op);
  }

  std::string fresh(const std::string& name) {
    int& n = names_[name];
    std::string out = n == 0 ? name : name + "_" + std::to_string(n);
    ++n;
    return out;
  }

  ir::Stmt compute_stmt(const OperationNode& op) {
    std::vector<ir::IterVar> axes = op.axis;
    if (op.reduce) axes.insert(axes.end(), op.reduce->axis.begin(), op.reduce->axis.end());
    // Loops named as the axes, block iterators v_<axis>, bound to the loops.
    std::vector<ir::Var> loops;
    std::vector<ir::IterVar> iters;
    std::vector<ir::PrimExpr> bindings;
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> to_iter;
    for (const auto& ax : axes) {
      ir::DataType t = ax.dom.extent->dtype;
      ir::Var loop = ir::make_var(ax.var->name, t);
      ir::Var iter = ir::make_var("v_" + ax.var->name, t);
      loops.push_back(loop);
      iters.push_back(ir::IterVar{iter, ax.dom, ax.type});
      bindings.push_back(loop);
      to_iter[ax.var.get()] = iter;
    }
    std::vector<ir::PrimExpr> store_at;
    for (size_t i = 0; i < op.axis.size(); ++i) store_at.push_back(to_iter.at(op.axis[i].var.get()));
    if (op.bodies.size() > 1) return multi_value_stmt(op, axes, loops, bindings);
    auto block = std::make_shared<ir::BlockNode>();
    block->name = fresh(op.name);
    if (block_names_) (*block_names_)[&op] = block->name;
    block->iter_vars = iters;
    block->annotations = op.attrs;
    if (op.reduce && !op.reduce->sources.empty()) {
      // A tuple reduction: each combined value bound first (v_<output>), then stored, as TVM's
      // create_prim_func writes it — every combiner reads the accumulators before the stores.
      const Reduce& r = *op.reduce;
      std::vector<ir::Stmt> init, stores;
      std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
      for (size_t i = 0; i < r.sources.size(); ++i) {
        vmap[r.lhs_vars[i].get()] = ir::buffer_load(op.outputs[i], store_at);
        vmap[r.rhs_vars[i].get()] = ir::substitute(r.sources[i], to_iter);
        init.push_back(std::make_shared<ir::BufferStoreNode>(op.outputs[i], r.identities[i], store_at));
      }
      std::vector<std::pair<ir::Var, ir::PrimExpr>> lets;
      for (size_t i = 0; i < r.sources.size(); ++i) {
        ir::PrimExpr value = ir::substitute(r.combiners[i], vmap);
        if (r.condition) value = ir::select(ir::substitute(r.condition, to_iter), value, vmap.at(r.lhs_vars[i].get()));
        ir::Var v = ir::make_var("v_" + op.outputs[i]->name, op.outputs[i]->dtype);
        lets.emplace_back(v, value);
        stores.push_back(std::make_shared<ir::BufferStoreNode>(op.outputs[i], v, store_at));
      }
      ir::Stmt body = ir::make_seq(stores);
      for (size_t i = lets.size(); i-- > 0;)
        body = std::make_shared<ir::LetStmtNode>(lets[i].first, lets[i].second, body);
      block->init = ir::make_seq(init);
      block->body = body;
    } else if (op.reduce) {
      const Reduce& r = *op.reduce;
      ir::DataType t = op.buffer->dtype;
      block->init = std::make_shared<ir::BufferStoreNode>(op.buffer, reduce_identity(r, t), store_at);
      ir::PrimExpr acc = ir::buffer_load(op.buffer, store_at);
      ir::PrimExpr value = reduce_combine(r, acc, ir::substitute(r.source, to_iter));
      if (r.condition) value = ir::select(ir::substitute(r.condition, to_iter), value, acc);
      block->body = std::make_shared<ir::BufferStoreNode>(op.buffer, value, store_at);
    } else {
      block->body = std::make_shared<ir::BufferStoreNode>(op.buffer, ir::substitute(op.body, to_iter), store_at);
    }
    arith::AccessRegions regions = arith::infer_access_regions(block->body, block->init);
    block->reads = regions.reads;
    block->writes = regions.writes;
    ir::Stmt body = std::make_shared<ir::BlockRealizeNode>(bindings, ir::make_bool(true), block);
    for (size_t i = loops.size(); i-- > 0;) {
      body = std::make_shared<ir::ForNode>(loops[i], iters[i].dom.min, iters[i].dom.extent, ir::ForKind::Serial, body);
    }
    return body;
  }

  // Several values: a block per output (`<name>.v<i>`), all under the same loops, as TVM's
  // create_prim_func makes them.
  ir::Stmt multi_value_stmt(const OperationNode& op, const std::vector<ir::IterVar>& axes,
                            const std::vector<ir::Var>& loops, const std::vector<ir::PrimExpr>& bindings) {
    std::vector<ir::Stmt> blocks;
    for (size_t out = 0; out < op.bodies.size(); ++out) {
      std::vector<ir::IterVar> iters;
      std::unordered_map<const ir::VarNode*, ir::PrimExpr> to_iter;
      for (const auto& ax : axes) {
        ir::Var iter = ir::make_var("v_" + ax.var->name, ax.dom.extent->dtype);
        iters.push_back(ir::IterVar{iter, ax.dom, ax.type});
        to_iter[ax.var.get()] = iter;
      }
      std::vector<ir::PrimExpr> store_at;
      for (const auto& ax : op.axis) store_at.push_back(to_iter.at(ax.var.get()));
      auto block = std::make_shared<ir::BlockNode>();
      block->name = fresh(op.name + ".v" + std::to_string(out));
      if (block_names_ && out == 0) (*block_names_)[&op] = block->name;
      block->iter_vars = iters;
      block->annotations = op.attrs;
      block->body =
          std::make_shared<ir::BufferStoreNode>(op.outputs[out], ir::substitute(op.bodies[out], to_iter), store_at);
      arith::AccessRegions regions = arith::infer_access_regions(block->body, block->init);
      block->reads = regions.reads;
      block->writes = regions.writes;
      blocks.push_back(std::make_shared<ir::BlockRealizeNode>(bindings, ir::make_bool(true), block));
    }
    ir::Stmt body = ir::make_seq(blocks);
    for (size_t i = loops.size(); i-- > 0;) {
      body = std::make_shared<ir::ForNode>(loops[i], axes[i].dom.min, axes[i].dom.extent, ir::ForKind::Serial, body);
    }
    return body;
  }

  std::unordered_map<const OperationNode*, std::string>* block_names_;
  std::unordered_set<const ir::BufferNode*> arg_buffers_;
  std::unordered_set<const OperationNode*> visited_;
  std::vector<Operation> order_;
  std::map<std::string, int> names_;
};

}  // namespace

ir::PrimExpr reduce_identity(const Reduce& r, ir::DataType t) {
  ReduceKind kind = r.kind;
  if (kind == ReduceKind::Custom) return r.identity;
  if (kind == ReduceKind::Sum) return ir::make_const(t, 0);
  // min starts from the largest value, max from the smallest
  return kind == ReduceKind::Min ? ir::max_value(t) : ir::min_value(t);
}

ir::PrimExpr reduce_combine(const Reduce& r, ir::PrimExpr acc, ir::PrimExpr x) {
  switch (r.kind) {
    case ReduceKind::Custom:
      return ir::substitute(r.combiner, {{r.lhs.get(), acc}, {r.rhs.get(), x}});
    case ReduceKind::Sum:
      return ir::add(std::move(acc), std::move(x));
    case ReduceKind::Max:
      return ir::make_binary(ir::ExprKind::Max, std::move(acc), std::move(x));
    case ReduceKind::Min:
      return ir::make_binary(ir::ExprKind::Min, std::move(acc), std::move(x));
  }
  return acc;
}

Operation placeholder(std::vector<ir::PrimExpr> shape, ir::DataType dtype, std::string name) {
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::Placeholder;
  op->name = name;
  op->buffer = ir::make_buffer(std::move(name), dtype, std::move(shape));
  op->outputs = {op->buffer};
  record(op);
  return op;
}

// A compute's name, tag, attributes and axes (data parallel, over the shape).
static std::shared_ptr<OperationNode> compute_head(const std::vector<ir::PrimExpr>& shape,
                                                   const std::vector<ir::Var>& axis, const std::string& name,
                                                   std::string tag, ir::AttrMap attrs) {
  TSCH_USER_ASSERT(axis.size() == shape.size(), ValueError)
      << "te.compute: " << axis.size() << " index variables for a shape of " << shape.size() << " dimensions";
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::Compute;
  op->name = name;
  op->tag = std::move(tag);
  op->attrs = std::move(attrs);
  for (size_t i = 0; i < shape.size(); ++i) {
    op->axis.push_back(
        ir::IterVar{axis[i], ir::Range{ir::make_int(0, shape[i]->dtype), shape[i]}, ir::IterType::DataPar});
  }
  return op;
}

Operation compute(std::vector<ir::PrimExpr> shape, std::vector<ir::Var> axis, ir::PrimExpr value,
                  std::optional<Reduce> reduce, std::string name, std::string tag, ir::AttrMap attrs) {
  std::shared_ptr<OperationNode> op = compute_head(shape, axis, name, std::move(tag), std::move(attrs));
  ir::DataType dtype = reduce ? reduce->source->dtype : value->dtype;
  op->body = value;
  op->reduce = std::move(reduce);
  collect_inputs(op->body, op->inputs);
  if (op->reduce) {
    collect_inputs(op->reduce->source, op->inputs);
    collect_inputs(op->reduce->condition, op->inputs);
  }
  op->buffer = ir::make_buffer(std::move(name), dtype, std::move(shape));
  op->outputs = {op->buffer};
  op->bodies = {op->body};
  record(op);
  return op;
}

Operation compute_outputs(std::vector<ir::PrimExpr> shape, std::vector<ir::Var> axis, std::vector<ir::PrimExpr> values,
                          std::optional<Reduce> reduce, std::string name, std::string tag, ir::AttrMap attrs) {
  std::shared_ptr<OperationNode> op = compute_head(shape, axis, name, std::move(tag), std::move(attrs));
  std::vector<ir::DataType> dtypes;
  if (reduce) {
    for (const auto& s : reduce->sources) dtypes.push_back(s->dtype);
    for (const auto& s : reduce->sources) collect_inputs(s, op->inputs);
    collect_inputs(reduce->condition, op->inputs);
  } else {
    for (const auto& v : values) dtypes.push_back(v->dtype);
    for (const auto& v : values) collect_inputs(v, op->inputs);
  }
  TSCH_INTERNAL_ASSERT(dtypes.size() > 1) << "compute_outputs makes several outputs";
  for (size_t i = 0; i < dtypes.size(); ++i)
    op->outputs.push_back(ir::make_buffer(name + "_v" + std::to_string(i), dtypes[i], shape));
  op->buffer = op->outputs[0];
  op->bodies = std::move(values);
  if (!op->bodies.empty()) op->body = op->bodies[0];
  op->reduce = std::move(reduce);
  record(op);
  return op;
}

Operation operation_of(const ir::BufferNode* buffer) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(buffer);
  return it == registry().end() ? nullptr : it->second.lock();
}

ir::PrimFunc create_prim_func(const std::vector<FuncArg>& args,
                              std::unordered_map<const OperationNode*, std::string>* block_names) {
  return FuncBuilder(block_names).build(args);
}

}  // namespace tsch::te
