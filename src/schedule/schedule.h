// tvm.tir.Schedule as a C++ object (TVM's traced ConcreteSchedule): the state, the trace,
// the random state, and one entry point that applies an instruction — checking its
// handles, rolling the state back when the primitive refuses, recording it when it
// succeeds. The script bindings, the TE stage API and a tuner all drive schedules through it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "schedule/error.h"
#include "schedule/instruction.h"
#include "schedule/state.h"
#include "schedule/trace.h"
#include "support/error.h"

namespace tsch::schedule {

// How much of a refused primitive's report is rendered (TVM's error_render_level).
enum class ErrorRenderLevel { Detail, Fast, None };
ErrorRenderLevel parse_error_render_level(const std::string& text);  // UserError if unknown

// A refusal as scripts see it: the report rendered at the schedule's level.
class RenderedScheduleError : public std::runtime_error {
 public:
  RenderedScheduleError(const std::string& message, std::string kind)
      : std::runtime_error(message), kind(std::move(kind)) {}
  std::string kind;  // the condition's name (ScheduleErrorKind::name)
};

// Loop handles standing for "stay at the root" and "inline" (sample_compute_location's
// decisions -1 and -2; TVM's LoopRV::ComputeRootLoop / ComputeInlineLoop).
// No node has these sids: only compute_at's apply sees them.
constexpr LoopSid kRootLoop{UINT64_MAX - 1};
constexpr LoopSid kInlineLoop{UINT64_MAX};

class Schedule {
 public:
  // `seed` -1 draws a random seed. `debug_mask` non-zero verifies the module after each
  // primitive (verify_well_formed).
  explicit Schedule(ir::IRModule mod, int64_t seed = -1, int64_t debug_mask = 0,
                    ErrorRenderLevel level = ErrorRenderLevel::Detail);

  const ScheduleState& state() const { return state_; }
  ScheduleState& state() { return state_; }
  const ir::IRModule& mod() const { return state_.mod(); }
  const ir::IRModule& original() const { return original_; }
  // For a bare tvm.tir.ScheduleState, which runs no primitives (so no check mode compares with
  // the original): without it, the state is the only holder of its functions, as TVM's is,
  // and ScheduleState.replace may write them in place. original() is null afterwards.
  void drop_original() { original_.reset(); }
  // ScheduleState.replace changed the module outside the trace (as TVM's, the trace does not
  // record it): the trace no longer gives the module, nor does the module compute what the
  // original does, so the check modes stop checking this schedule.
  void mark_edited_outside_trace() { edited_outside_trace_ = true; }
  bool edited_outside_trace() const { return edited_outside_trace_; }
  const Trace& trace() const { return trace_; }
  const std::string& func_working_on() const { return state_.func_name(); }
  void work_on(const std::string& func_name);
  ErrorRenderLevel error_render_level() const { return render_level_; }
  int64_t debug_mask() const { return debug_mask_; }

  // Random state (TVM's Seed / ForkSeed over support::LinearCongruentialEngine): a seeded
  // schedule samples exactly as TVM's does. `seed` -1 draws one from the device.
  void seed(int64_t seed);
  int64_t fork_seed();
  int64_t& rand_state() { return rand_state_; }
  // TVM's Schedule.copy: the same module, trace and handles, sampling from a seed forked
  // off this schedule's state (so this one's state advances).
  Schedule copy();

  // Applies one instruction and records it. A refusal (ScheduleError) or a user error leaves
  // the state and the trace exactly as they were; a refusal is rethrown as
  // RenderedScheduleError at the render level.
  std::vector<RV> apply(const InstructionKind& kind, std::vector<TraceArg> inputs, std::vector<TraceArg> attrs,
                        TraceArg decision = TraceArg::none());
  std::vector<RV> apply(const std::string& kind_name, std::vector<TraceArg> inputs, std::vector<TraceArg> attrs,
                        TraceArg decision = TraceArg::none());
  // Drops trace entries past `size` (a script call that failed after a traced get_block).
  void truncate_trace(size_t size) { trace_.truncate(size); }

  // Checked handle access for apply functions: a UserError (ValueError) when the handle is
  // of the wrong kind or no longer names anything in the module.
  LoopSid loop_sid(const TraceArg& arg) const;
  BlockSid block_sid(const TraceArg& arg) const;
  StmtSid block_or_loop_sid(const TraceArg& arg) const;
  const ir::ForNode& loop(LoopSid sid) const;
  const ir::BlockNode& block(BlockSid sid) const;

  // The handles this schedule has given out (TVM's symbol table): a copy knows those of the
  // schedule it copies, not the ones either makes later. Using another handle is an
  // IndexError; remove_rv forgets one.
  bool has_rv(const RV& rv) const { return symbols_.count(rv) > 0; }
  size_t num_rvs() const { return symbols_.size(); }
  void remove_rv(const RV& rv);
  // The value of an expression over this schedule's ExprRVs (TVM's Schedule.Get of a
  // PrimExpr): each ExprRV's variable replaced by its sampled value, then simplified. An
  // ExprRV this schedule does not know is an IndexError.
  ir::PrimExpr evaluate(const ir::PrimExpr& e) const;
  // The same without simplifying (an index map's outputs, as TVM substitutes them).
  ir::PrimExpr substitute_rvs(const ir::PrimExpr& e) const;
  // The argument as a primitive receives it: an Expr evaluated to its Int (or Bool), an
  // IndexMap's outputs with the ExprRVs' values; anything else as it is.
  TraceArg resolve(const TraceArg& arg) const;

  // Called after each primitive that changed the module, with the state before it; throwing
  // rolls the primitive back (TSCH_CHECK_BUILD builds and compares through this).
  using ChangeCheck = std::function<void(const Schedule& sch, const ScheduleState& before)>;
  static void set_change_check(ChangeCheck check);
  // Holds the change check back until resume_change_check(), which runs it once on the
  // module as it is then: for a caller whose steps are right only together (te's legacy
  // rfactor, made right by the decompose_reduction that follows it).
  void suspend_change_check() { change_check_suspended_ = true; }
  void resume_change_check(const ScheduleState& before);

  // Typed shortcuts for C++ callers; each goes through apply().
  RV get_block(const std::string& name, const std::string& func_name = "");
  std::vector<RV> get_loops(const RV& block);
  std::vector<RV> split(const RV& loop, const std::vector<std::optional<int64_t>>& factors,
                        bool preserve_unit_iters = true, bool disable_predication = false);
  RV fuse(const std::vector<RV>& loops, bool preserve_unit_iters = true);
  void reorder(const std::vector<RV>& loops);
  void parallel(const RV& loop);
  void vectorize(const RV& loop);
  void unroll(const RV& loop);
  void bind(const RV& loop, const std::string& thread_axis);
  void compute_at(const RV& block, const RV& loop, bool preserve_unit_loops = false, int64_t index = -1);
  void reverse_compute_at(const RV& block, const RV& loop, bool preserve_unit_loops = false, int64_t index = -1);
  void compute_inline(const RV& block);
  void reverse_compute_inline(const RV& block);
  // consumer_blocks: the blocks that read the cache (empty: every reader of the buffer, as TVM).
  RV cache_read(const RV& block, int64_t read_buffer_index, const std::string& scope,
                const std::vector<RV>& consumer_blocks = {});
  RV cache_write(const RV& block, int64_t write_buffer_index, const std::string& scope);
  RV rfactor(const RV& loop, int64_t factor_axis);
  RV decompose_reduction(const RV& block, const RV& loop);
  void storage_align(const RV& block, int64_t buffer_index, int64_t axis, int64_t factor, int64_t offset);
  void set_scope(const RV& block, int64_t buffer_index, const std::string& scope);
  void annotate(const RV& block_or_loop, const std::string& key, const TraceArg& value);
  std::vector<RV> sample_perfect_tile(const RV& loop, int64_t n, int64_t max_innermost_factor = 16);

 private:
  std::string render(const ScheduleError& error, const ScheduleState& at) const;

  void check_known(const RV& rv) const;

  ScheduleState state_;
  std::unordered_set<RV> symbols_;
  bool change_check_suspended_ = false;
  bool edited_outside_trace_ = false;
  ir::IRModule original_;
  Trace trace_;
  int64_t rand_state_ = 1;
  int64_t debug_mask_ = 0;
  ErrorRenderLevel render_level_ = ErrorRenderLevel::Detail;
};

}  // namespace tsch::schedule
