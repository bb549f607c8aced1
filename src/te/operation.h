// Tensor expressions (TVM's te): operations that produce tensors — placeholders (inputs) and
// computes (a value per output index, or a reduction over reduce axes) — and
// create_prim_func, which turns a set of them into a schedulable PrimFunc with TVM's block
// and iterator names. A tensor is read as a load of its operation's buffer, so a compute's
// body is an ordinary TIR expression; the operation a buffer belongs to is looked up when
// functions are created.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/buffer.h"
#include "ir/module.h"
#include "ir/stmt.h"

namespace tsch::te {

// Custom: a te.comm_reducer's combiner and identity.
enum class ReduceKind { Sum, Max, Min, Custom };

// `te.sum(source, axis=[k], where=cond)`: the reduction a compute's value is.
struct Reduce {
  ReduceKind kind = ReduceKind::Sum;
  ir::PrimExpr source;
  std::vector<ir::IterVar> axis;
  ir::PrimExpr condition;  // null: always
  // Custom: combiner(lhs, rhs) — lhs the accumulator — and the identity element.
  ir::Var lhs, rhs;
  ir::PrimExpr combiner, identity;
  // A tuple reduction (te.comm_reducer over tuples, TVM's argmax): per output its source,
  // accumulator and value variables, combiner (of all of them) and identity. Empty for one
  // value (the fields above).
  std::vector<ir::PrimExpr> sources, combiners, identities;
  std::vector<ir::Var> lhs_vars, rhs_vars;
};

// The reduction's identity for values of type `t`, and `acc` combined with `x` (one value).
ir::PrimExpr reduce_identity(const Reduce& r, ir::DataType t);
ir::PrimExpr reduce_combine(const Reduce& r, ir::PrimExpr acc, ir::PrimExpr x);
// Output `value_index` of a reduction as TVM prints `op.body[i]`: `T.reduce(T.comm_reducer(
// lambda x, y: x + y, [T.float32(0.0)]), source=[...], init=[], axis=[T.iter_var(...)], ...)`.
std::string reduce_script(const Reduce& r, ir::DataType t, size_t value_index);

struct OperationNode;
using Operation = std::shared_ptr<const OperationNode>;

struct OperationNode {
  enum class Kind { Placeholder, Compute };
  Kind kind = Kind::Placeholder;
  std::string name;
  std::string tag;
  ir::AttrMap attrs;
  ir::Buffer buffer;  // the output tensor: its shape, dtype and the loads that read it
  // Every output (`buffer` is the first): a compute of several values has one per value
  // (TVM's op.output(i), buffers `<name>_v<i>`).
  std::vector<ir::Buffer> outputs;
  // Compute: the output axes (one per dimension), the value or the reduction.
  std::vector<ir::IterVar> axis;
  ir::PrimExpr body;
  std::vector<ir::PrimExpr> bodies;  // several values: one per output (body is the first)
  std::optional<Reduce> reduce;
  // The operations whose tensors the value reads (found from its loads).
  std::vector<Operation> inputs;
};

Operation placeholder(std::vector<ir::PrimExpr> shape, ir::DataType dtype, std::string name);
// `axis` holds the index variables the value was built with (named as the lambda's
// parameters); `value` is the element value, or `reduce` the reduction.
Operation compute(std::vector<ir::PrimExpr> shape, std::vector<ir::Var> axis, ir::PrimExpr value,
                  std::optional<Reduce> reduce, std::string name, std::string tag, ir::AttrMap attrs);
// A compute of several outputs: `values` (one each), or a tuple `reduce`.
Operation compute_outputs(std::vector<ir::PrimExpr> shape, std::vector<ir::Var> axis, std::vector<ir::PrimExpr> values,
                          std::optional<Reduce> reduce, std::string name, std::string tag, ir::AttrMap attrs);

// The operation whose output `buffer` is, or null.
Operation operation_of(const ir::BufferNode* buffer);

// An argument of create_prim_func: a tensor (its operation) or a scalar variable.
struct FuncArg {
  Operation op;
  ir::Var var;
  size_t value_index = 0;  // which output of op
};

// TVM's te.create_prim_func: `args` become the parameters in order; every compute they depend
// on becomes a block, in dependency order (blocks named after their operations, iterators
// v_<axis>, reductions with T.init); computes outside `args` get buffers allocated in the root
// block. UserError (ValueError) when a placeholder an output reads is not an argument.
// `block_names` (optional) receives the block each compute became.
ir::PrimFunc create_prim_func(const std::vector<FuncArg>& args,
                              std::unordered_map<const OperationNode*, std::string>* block_names = nullptr);

}  // namespace tsch::te
