// What the Relax passes share: rebuilding functions and modules, a BlockBuilder that emits
// normalized bindings (TVM's relax::BlockBuilder, reduced to what the passes here need), and
// substitution of variables in expressions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"
#include "relax/expr.h"
#include "transform/pass.h"

namespace tsch::relax {

// `mod` with each Relax function replaced by `fn(name, f)` (the others kept).
ir::IRModule map_relax_functions(const ir::IRModule& mod,
                                 const std::function<Function(const std::string&, const Function&)>& fn);

// A copy of `f` with a new body.
Function with_body(const Function& f, SeqExpr body);

// Collects bindings into blocks. Vars it creates are plain (non-dataflow) unless the block
// being built is a dataflow block.
class BlockBuilder {
 public:
  BlockBuilder() : names_(std::make_shared<std::unordered_map<std::string, int>>()) {}
  // A builder for a nested sequence (an if/else branch) that shares this one's names.
  BlockBuilder nested() const {
    BlockBuilder b;
    b.names_ = names_;
    return b;
  }
  // `prefix`, or prefix1, prefix2, ... once taken (TVM's NameSupply without underscore).
  std::string fresh_name(const std::string& prefix);
  void begin_block(bool dataflow);
  void end_block();
  // Binds `value` to a fresh variable named fresh_name(`name`) with the value's struct info.
  Var emit(const Expr& value, const std::string& name);
  void emit_binding(Binding b);
  bool in_dataflow() const { return current_.is_dataflow; }
  // The blocks built (the open one closed first).
  std::vector<BindingBlock> finish();

 private:
  std::vector<BindingBlock> blocks_;
  BindingBlock current_;
  std::shared_ptr<std::unordered_map<std::string, int>> names_;
};

// `seq` rebuilt binding by binding into `bb`: each binding's value is what `rewrite` returns
// for it (it may emit bindings of its own first); match_casts are kept; if/else branches are
// rewritten the same way, each into a nested builder.
using BindingRewrite = std::function<Expr(BlockBuilder& bb, const Binding& binding)>;
SeqExpr rewrite_bindings(const SeqExpr& seq, BlockBuilder bb, const BindingRewrite& rewrite);

// The bytes a tensor of `shape` and `dtype` takes (simplified; symbolic when the shape is).
ir::PrimExpr storage_bytes(const std::vector<ir::PrimExpr>& shape, ir::DataType dtype);

using VarMap = std::unordered_map<const ExprNode*, Expr>;
// `e` with variables replaced as `vmap` says (other nodes rebuilt only where something changed).
Expr substitute(const Expr& e, const VarMap& vmap);

// A Relax module pass with TVM's name (`relax.transform.X()` in scripts).
transform::Pass relax_module_pass(const std::string& name, int opt_level,
                                  std::function<ir::IRModule(const ir::IRModule&)> run);

}  // namespace tsch::relax
