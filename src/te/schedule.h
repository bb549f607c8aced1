// The classic TE stage schedule (TVM's te.create_schedule, s[C].split, ...). A stage records
// what the script asked for, as TVM's legacy schedule does — its iteration variables and
// their relations (split, fuse, reorder), where it is computed (root, inline, at a loop of a
// consumer), loop annotations — and caching steps add stages. Nothing is lowered from this
// record directly: `to_prim_func` replays it as tir.Schedule primitives on create_prim_func's
// output (schedule_lower.cc), so the stage schedule computes exactly what the tir
// primitives accept, and every stage call is checked by such a replay when it is made.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "te/operation.h"

namespace tsch::te {

// How a stage's loop is marked (TVM's IterVarAttr).
struct LoopAnnotation {
  enum class Kind { Vectorize, Parallel, Unroll, Bind, Pragma };
  Kind kind;
  ir::Var iter_var;
  std::string text;    // Bind: the thread tag; Pragma: the pragma's name
  ir::PrimExpr value;  // Pragma: its value; Bind: the thread axis's extent (either may be null)
  ir::Var thread_var;  // Bind: the thread axis's variable (te.thread_axis(...).var)
};

// One step of a stage's iteration space, in call order.
struct IterRelation {
  enum class Kind { Split, Fuse, Reorder };
  Kind kind;
  // Split: parent -> outer, inner by factor or nparts; Fuse: outer, inner -> fused;
  // Reorder: the variables in their new order.
  std::vector<ir::Var> vars;
  std::optional<int64_t> factor, nparts;
};

enum class AttachKind { Root, Inline, At };

struct Stage {
  int id = 0;
  Operation op;         // the operation the stage computes (for a cache stage, its copy)
  Operation origin_op;  // the operation it was made for (op until rfactor replaces it)
  // How the stage came to be: an operation of the computation, or a cache or rfactor step.
  enum class Origin { Op, CacheRead, CacheWrite, Rfactor } origin = Origin::Op;
  std::string scope;         // cache stages: the storage scope
  Operation cached;          // CacheRead: the tensor read through the cache
  std::vector<int> readers;  // CacheRead: the stages that read the cache
  int cache_write_of = -1;   // CacheWrite: the stage that now copies this one's result out
  // Rfactor: the reduction stage factored, along which of its variables, where the factored
  // axis goes, and that stage's variables and splits before (they make the loops factored).
  int rfactor_of = -1;
  ir::Var rfactor_var;
  int factor_axis = 0;
  std::vector<ir::Var> rfactor_root;
  std::vector<IterRelation> rfactor_relations;

  std::vector<ir::Var> root;            // axes, then reduce axes
  std::vector<ir::Var> all;             // every variable the stage ever had
  std::vector<ir::IterType> all_types;  // their kinds (data parallel or reduction)
  std::vector<ir::Var> leaf;            // the current loop order
  std::vector<IterRelation> relations;
  std::vector<LoopAnnotation> annotations;
  // storage_align: the output buffer's dimension (of a root axis), factor, offset.
  struct Align {
    int dim;
    int64_t factor, offset;
  };
  std::vector<Align> aligns;
  AttachKind attach = AttachKind::Root;
  int attach_stage = -1;
  ir::Var attach_var;
  std::vector<int> inputs;  // the stages whose results this one reads
  bool is_output = false;

  bool is_placeholder() const { return op->kind == OperationNode::Kind::Placeholder; }
  ir::IterType type_of(const ir::VarNode* v) const;
};

// A thread axis for bind: `te.thread_axis("blockIdx.x")` (optionally with a domain).
struct ThreadAxis {
  std::string tag;
  ir::Var var;
  ir::PrimExpr extent;  // te.thread_axis((0, n), tag): n; null without a domain
};

class Schedule {
 public:
  // te.create_schedule(ops): a stage for every operation the outputs depend on.
  explicit Schedule(const std::vector<Operation>& outputs);

  const std::vector<Stage>& stages() const { return stages_; }
  const std::vector<Operation>& outputs() const { return outputs_; }
  const std::vector<int>& step_order() const { return step_order_; }
  // The stage computing `op` (after cache_write, the stage that writes the tensor out), or
  // -1. Operations are looked up by the result tensor the script holds.
  int stage_of(const OperationNode* op) const;
  const Stage& stage(int id) const;

  // Stage calls. Each checks its arguments as TVM's legacy schedule does (UserError with
  // TVM's message), then replays the whole schedule on the default arguments — a call the
  // tir primitives refuse leaves the schedule as it was and rethrows the refusal.
  std::pair<ir::Var, ir::Var> split(int stage, const ir::Var& parent, std::optional<int64_t> factor,
                                    std::optional<int64_t> nparts);
  std::vector<ir::Var> tile(int stage, const ir::Var& x, const ir::Var& y, int64_t x_factor, int64_t y_factor);
  ir::Var fuse(int stage, const std::vector<ir::Var>& vars);
  void reorder(int stage, const std::vector<ir::Var>& order);
  void annotate(int stage, LoopAnnotation annotation);
  // s[B].set_store_predicate(tx.var.equal(0)): only the form TVM's cross-thread reduction
  // tutorial uses, a reduction whose reduce axes are bound to the threads compared with 0 —
  // what the cross-thread lowering does already (one thread stores the result); others are
  // NotImplementedError.
  void set_store_predicate(int stage, const ir::PrimExpr& predicate);
  void storage_align(int stage, const ir::Var& axis, int64_t factor, int64_t offset);
  void compute_at(int stage, int parent, const ir::Var& var);
  void compute_inline(int stage);
  void compute_root(int stage);
  // s.cache_read(A, scope, readers) / s.cache_write(C, scope): the new stage's id. A compute
  // of several outputs caches all of them in one stage (the binding checks all were given).
  int cache_read(const Operation& tensor, const std::string& scope, const std::vector<int>& readers);
  int cache_write(int stage, const std::string& scope);
  // s.rfactor(B, ki, factor_axis): the factored stage's id (TVM's "B.rf"); B's stage then
  // reduces over it (TVM's "B.repl": axes ax0, ..., reduce axis <ki>_v).
  int rfactor(int stage, const ir::Var& axis, int factor_axis);

  // The scheduled computation as a PrimFunc named `name` with `args` as its parameters.
  ir::PrimFunc to_prim_func(const std::vector<FuncArg>& args, const std::string& name) const;
  // The parameters tvm.lower gets when the script gives none: the placeholders, then the outputs.
  std::vector<FuncArg> default_args() const;

 private:
  Stage& mut(int id);
  size_t leaf_position(const Stage& s, const ir::Var& v) const;
  // Runs `change` on a copy, replays the copy, and keeps it only if the replay succeeds.
  template <class F>
  auto checked(F&& change);
  bool depends_on(int consumer, int producer) const;

  std::vector<Operation> outputs_;
  std::vector<Stage> stages_;    // producers before their consumers
  std::vector<int> step_order_;  // the stages cache and rfactor steps made, in call order
  int next_id_ = 0;
};

}  // namespace tsch::te
