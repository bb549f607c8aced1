// The state of the prim_func being parsed, reachable from T.* functions (T.reads,
// T.alloc_buffer, T.func_attr, ...) while the front end walks the function body.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/source.h"

namespace tsch::frontend {

struct BlockFrame {
  std::string name;
  std::vector<ir::IterVar> iter_vars;
  std::vector<ir::PrimExpr> iter_values;
  std::optional<std::vector<ir::BufferRegion>> reads, writes;
  ir::PrimExpr predicate;
  ir::AttrMap annotations;
  std::vector<ir::Buffer> alloc_buffers;
  std::vector<ir::MatchBufferRegion> match_buffers;
  ir::Stmt init;
  bool no_realize = false;
  // Bindings to check against their iterators' domains once the block is read: a T.where
  // (written after the T.axis lines) lets an imperfect split's binding reach past it.
  struct BindingCheck {
    std::string name;
    ir::PrimExpr binding;
    ir::Range dom;
    SourceLoc loc;
  };
  std::vector<BindingCheck> binding_checks;
};

class TirBuilder {
 public:
  TirBuilder();
  ~TirBuilder();
  TirBuilder(const TirBuilder&) = delete;
  TirBuilder& operator=(const TirBuilder&) = delete;

  // The builder of the innermost prim_func being parsed, or null outside one.
  static TirBuilder* current();

  // The innermost block; raises "<what> must be used inside a block" when there is none.
  BlockFrame& block(const std::string& what);
  bool in_block() const { return !blocks.empty(); }
  // Pops the innermost block frame and completes it around `stmts`: its T.reads / T.writes
  // inferred where not written, its realize with the bindings and T.where. Errors point at
  // `loc` (the `with T.block` statement).
  ir::Stmt close_block(std::vector<ir::Stmt> stmts, SourceLoc loc);
  // The buffers whose data pointers a block being closed may use (TVM's buffer_var_map while
  // it completes a block): the parameters', the root's and enclosing blocks' allocations and
  // match_buffers, the T.decl_buffer declarations in scope and the block's own match_buffers.
  std::vector<ir::Buffer> data_owners(const std::vector<ir::MatchBufferRegion>& own_matches) const;

  ir::AttrMap func_attrs;
  std::vector<ir::Var> params;
  std::vector<std::pair<ir::Var, ir::Buffer>> buffer_map;
  std::vector<ir::Buffer> root_allocs;
  // A `T.decl_buffer` statement just evaluated: it scopes over the rest of the body, as an
  // allocation (no `data=`) or a declaration over existing data.
  struct PendingDecl {
    ir::Buffer buffer;
    bool allocates = false;
  };
  std::optional<PendingDecl> pending_decl;
  // The buffers of the T.decl_buffer statements whose scope is being parsed: a block's
  // inferred regions count uses of their data pointers (TVM's buffer_var_map).
  std::vector<ir::Buffer> decls;
  // A `T.allocate_const` just evaluated (its body still empty): it scopes over the rest of
  // the body likewise.
  std::shared_ptr<const ir::AllocateConstNode> pending_const;
  std::vector<BlockFrame> blocks;
  bool in_init = false;

 private:
  TirBuilder* previous_;
};

}  // namespace tsch::frontend
