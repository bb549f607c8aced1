// Schedule state (DESIGN-NOTES §3): the module being scheduled, with a stable identity
// (sid) on every loop and block, and an index from sid to the node, its parent and its
// block realize, rebuilt after each change. Primitives change the IR only through replace().
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"
#include "schedule/sid.h"

namespace tsch::schedule {

struct NodeInfo {
  const ir::StmtNode* node = nullptr;             // ForNode or BlockNode
  StmtSid parent;                                 // enclosing loop or block (none: 0)
  const ir::BlockRealizeNode* realize = nullptr;  // for blocks (null for the function root)
  std::string func;                               // the function holding it
  std::weak_ptr<const ir::StmtNode> ref;          // the node itself, not counted as a holder
};

// What ScheduleState::check_replacement finds.
struct ReplaceCheck {
  bool kind_mismatch = false;  // the statement kinds do not fit (a TypeError in TVM)
  std::string message;         // empty: the replacement may go ahead
};

class ScheduleState {
 public:
  // Gives every loop and block of `mod` that has none a fresh sid, on the node itself; the
  // module's functions stay the same objects unless a node occurs twice in it (then that
  // occurrence is copied with a fresh sid, so that a sid names one node).
  explicit ScheduleState(ir::IRModule mod);

  const ir::IRModule& mod() const { return mod_; }
  // The function primitives work on (work_on); empty when the module has several.
  const std::string& func_name() const { return func_name_; }
  void set_func_name(std::string name) { func_name_ = std::move(name); }

  const NodeInfo* info(StmtSid sid) const;
  // The loop or block `sid` names, or null when it names something else or nothing (for
  // asking "is this a loop?").
  const ir::ForNode* loop(StmtSid sid) const;
  const ir::BlockNode* block(StmtSid sid) const;
  // The checked ways from a StmtSid back to a typed one: empty (0) when `sid` is not a loop
  // (block) of the schedule.
  LoopSid as_loop(StmtSid sid) const { return loop(sid) ? LoopSid(sid.value) : LoopSid(); }
  BlockSid as_block(StmtSid sid) const { return block(sid) ? BlockSid(sid.value) : BlockSid(); }
  // The same where `sid` must be a loop (block) of the schedule: anything else is a bug
  // (InternalError), never a null dereference. The script layer has checked user handles.
  const ir::ForNode& loop_at(LoopSid sid) const;
  const ir::BlockNode& block_at(BlockSid sid) const;
  // The sid of the root block of a function.
  BlockSid root_of(const std::string& func) const;

  // The loops enclosing `sid` up to its scope block, outermost first.
  std::vector<LoopSid> enclosing_loops(StmtSid sid) const;
  // The nearest enclosing block (scope), 0 when none.
  BlockSid scope_block(StmtSid sid) const;
  // Blocks directly under `sid` (not nested in another block), in IR order.
  std::vector<BlockSid> child_blocks(StmtSid sid) const;
  // Every block in function `func`, in IR order (excluding the root).
  std::vector<BlockSid> blocks_in(const std::string& func) const;

  // A sid no node has: unique process-wide, since schedules share the nodes they were given.
  // The IR node stores it untyped; the caller wraps it by the node's kind.
  static uint64_t fresh_sid();

  // Replaces the loop or block (its BlockRealize) `sid` by `replacement` and rebuilds the
  // path to the function root; everything else stays shared.
  void replace(StmtSid sid, const ir::Stmt& replacement);
  // TVM's ScheduleState.replace, the one scripts call (state_replace.cc): replaces the loop or
  // block `sid` by `tgt` (a loop or BlockRealize for a loop, a block for a block), writing in
  // place each node on the way up that nothing else holds and copying the rest, so that IR
  // held elsewhere stays unchanged. Loops of `tgt` over a replaced loop's variable, and the
  // blocks `block_sref_reuse` maps replaced blocks to, keep the replaced node's sid; the other
  // sids of the replaced subtree vanish. `other_module_holders`: references to the module the
  // caller owns besides the state's.
  // The checks before replace_copy_on_write: the kinds TVM's Replace accepts (a loop by a loop
  // or a BlockRealize, a block by a block; `kind_mismatch`, TVM's TypeError), and a block
  // with as many iterators as its BlockRealize binds (TVM accepts other counts and the IR is
  // then broken for everything that reads it). An empty message: `tgt` may replace `sid`.
  ReplaceCheck check_replacement(StmtSid sid, const ir::Stmt& tgt) const;
  void replace_copy_on_write(StmtSid sid, const ir::Stmt& tgt,
                             const std::vector<std::pair<const ir::BlockNode*, ir::Block>>& block_sref_reuse,
                             long other_module_holders);
  // The loop or block `sid` names, as a reference of its own (null when none).
  ir::Stmt stmt_ref(StmtSid sid) const;
  // Rebinds the parameter buffer `from` of function `func` to `to` (a relayout of a
  // parameter); the body is rewritten separately through replace().
  void replace_param_buffer(const std::string& func, const ir::Buffer& from, const ir::Buffer& to);

  // Set only by te's legacy-schedule lowering. rfactor refuses a loop whose T.where can skip
  // one of its values for every iteration of the other reduction loops (a symbolic extent
  // below the split factor): that lane's X_rf entry would never be initialised. The legacy
  // lowering moves every rf init out of the reduction loops (decompose_reduction), which makes
  // it right, so there rfactor accepts and lists the blocks for the lowering to confirm.
  bool rfactor_init_decomposed_later = false;
  // Set only by te's legacy-schedule lowering too: TVM's TE lowering lets compute_at move a
  // stage whose tensor is also an argument (the schedule-primitives tutorial's
  // `s[B].compute_at(s[C], C.op.axis[0])` with tvm.lower(s, [A, B, C])). Accepted when the
  // consumers' loops provably still compute every element of the output; refused otherwise.
  bool compute_at_covered_outputs = false;
  std::vector<BlockSid> rfactor_blocks_to_decompose;

 private:
  void rebuild_index();
  ir::IRModule mod_;
  std::string func_name_;
  std::unordered_map<StmtSid, NodeInfo> index_;
  std::unordered_map<std::string, BlockSid> roots_;
};

}  // namespace tsch::schedule
