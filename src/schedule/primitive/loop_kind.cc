// parallel, vectorize, unroll, bind: change a loop's kind. Parallel and vectorized loops may
// only feed data-parallel block iterators; threadIdx bindings may also feed reductions.
#include <fmt/format.h>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kWrongBlockIterTypeError, "WrongBlockIterTypeError",
                         "The loop kind cannot be fulfilled with regard to some of its underlying block",
                         "The loop kind cannot be fulfilled with regard to block {1}");
TSCH_SCHEDULE_ERROR_KIND(
    kLoopNotBoundError, "LoopNotBoundError",
    "The loop kind cannot be fulfilled: a block under the loop does not depend on it",
    "The loop kind cannot be fulfilled with regard to block {1}, whose iterators do not depend on loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kIncompleteBlockUnderLoopError, "IncompleteBlockError.loop_kind",
                         "The loop kind cannot be fulfilled: a block under the loop is not complete",
                         "The loop kind cannot be fulfilled with regard to block {1}, which is not a complete block");
TSCH_SCHEDULE_ERROR_KIND(kNotAffineBindingError, "NotAffineBindingError",
                         "The loop kind cannot be fulfilled: a block under the loop does not have an affine binding",
                         "The loop kind cannot be fulfilled with regard to block {1}, whose binding is not affine");
TSCH_SCHEDULE_ERROR_KIND(
    kNotCompactDataFlowError, "NotCompactDataFlowError",
    "The loop kind cannot be fulfilled: a block under the loop is neither complete nor a reduction",
    "The loop kind cannot be fulfilled with regard to block {1}, which is neither complete nor a reduction block");
TSCH_SCHEDULE_ERROR_KIND(kInvalidThreadAxisError, "InvalidThreadAxisError", "The thread axis is invalid",
                         "The thread axis is invalid for loop {0}");

}  // namespace

// Every block below the loop whose non-data-parallel iterator is bound using the loop var.
void check_data_parallel(const ScheduleState& s, LoopSid loop_sid, const char* kind) {
  std::string fast = fmt::format("The \"{}\" cannot be fulfilled with regard to some of its underlying block", kind);
  const ForNode* loop = &s.loop_at(loop_sid);
  const VarNode* var = loop->loop_var.get();
  int64_t extent = 0;
  bool single_iteration = as_const_int(loop->extent, &extent) && extent == 1;
  auto uses_loop_var = [&](const PrimExpr& e) { return uses_var(e, [&](const VarNode* v) { return v == var; }); };
  // The blocks right under the loop (a nested block runs inside one instance of its parent,
  // which the checks below cover; it may depend on the loop through its parent's iterators).
  for (const BlockRealizeNode* r : realizes_under(loop->body)) {
    // The iterations must be independent instances of each block below (TVM: every block is
    // complete or a reduction, with the loop var only in data-parallel bindings).
    std::vector<LoopSid> loops = s.enclosing_loops(sid_of(*r->block));
    std::unordered_set<const VarNode*> loop_vars;
    for (LoopSid l : loops) loop_vars.insert(s.loop_at(l).loop_var.get());
    for (const PrimExpr& value : r->iter_values) {
      if (!is_quasi_affine(value, [&](const VarNode* v) { return loop_vars.count(v) > 0; })) {
        fail(s, kNotAffineBindingError, {loop_sid, sid_of(*r->block)},
             fmt::format(
                 "The \"{}\" cannot be fulfilled with regard to block {{1}}: its binding {} is not a quasi-affine "
                 "expression of the loops",
                 kind, ir::script(value)),
             fast);
      }
    }
    // A reduction whose output is indexed by a reduction iterator does not split into
    // independent instances (TVM's compact data flow).
    if (r->block->init) {
      for_each_stmt(r->block->body, [&](const Stmt& st) {
        if (auto* store = as<BufferStoreNode>(st); store && reduction_var_in(*r->block, store->indices)) {
          fail(s, kNotCompactDataFlowError, {loop_sid, sid_of(*r->block)},
               fmt::format(
                   "The \"{}\" cannot be fulfilled with regard to block {{1}}: it is neither a complete block nor a "
                   "reduction block (it stores to {} at an index of a reduction iterator)",
                   kind, store->buffer->name),
               fast);
        }
      });
    }
    bool bound_to_loop = false, all_data_parallel = true;
    for (size_t i = 0; i < r->iter_values.size(); ++i) {
      bound_to_loop |= uses_loop_var(r->iter_values[i]);
      all_data_parallel &= r->block->iter_vars[i].type == IterType::DataPar;
    }
    if (!bound_to_loop && !single_iteration) {
      fail(s, kLoopNotBoundError, {loop_sid, sid_of(*r->block)},
           fmt::format(
               "The \"{}\" cannot be fulfilled with regard to block {{1}}: its iterators do not depend on loop {{0}}, "
               "so every iteration would run the same block instance and write the same locations",
               kind),
           fast);
    }
    if (all_data_parallel) {
      for (const auto& w : r->block->writes)
        for (const auto& rd : r->block->reads)
          if (rd.buffer.get() == w.buffer.get())
            fail(
                s, kIncompleteBlockUnderLoopError, {loop_sid, sid_of(*r->block)},
                fmt::format("The \"{}\" cannot be fulfilled with regard to block {{1}}: it is not a complete block (it "
                            "reads buffer {}, which it writes), so its iterations may depend on each other",
                            kind, w.buffer->name),
                fast);
    }
    for (size_t i = 0; i < r->iter_values.size(); ++i) {
      if (r->block->iter_vars[i].type == IterType::DataPar) continue;
      if (uses_var(r->iter_values[i], [&](const VarNode* v) { return v == var; })) {
        fail(
            s, kWrongBlockIterTypeError, {loop_sid, sid_of(*r->block)},
            fmt::format("The \"{}\" cannot be fulfilled with regard to block {{1}} because some block iter whose block "
                        "binding contains the loop var is not a data parallel block iter",
                        kind),
            fast);
      }
    }
  }
}

void check_parallel_loops_above(const ScheduleState& s, BlockSid block_sid) {
  for (LoopSid l : s.enclosing_loops(block_sid)) {
    ForKind kind = s.loop_at(l).for_kind;
    if (kind == ForKind::Parallel) check_data_parallel(s, l, "parallel");
    if (kind == ForKind::Vectorized) check_data_parallel(s, l, "vectorize");
  }
}

namespace {

void set_kind(ScheduleState& s, LoopSid loop_sid, ForKind kind, const std::string& thread = {}) {
  auto copy = std::make_shared<ForNode>(s.loop_at(loop_sid));
  copy->for_kind = kind;
  copy->thread_tag = thread;
  s.replace(loop_sid, copy);
}

}  // namespace

void parallel(ScheduleState& s, LoopSid loop) {
  check_data_parallel(s, loop, "parallel");
  set_kind(s, loop, ForKind::Parallel);
}

void vectorize(ScheduleState& s, LoopSid loop) {
  check_data_parallel(s, loop, "vectorize");
  set_kind(s, loop, ForKind::Vectorized);
}

void unroll(ScheduleState& s, LoopSid loop) { set_kind(s, loop, ForKind::Unrolled); }

void bind(ScheduleState& s, LoopSid loop, const std::string& thread_axis) {
  static const char* valid[] = {"blockIdx.x",  "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                                "threadIdx.z", "vthread",    "vthread.x",  "vthread.y",   "vthread.z"};
  if (std::find(std::begin(valid), std::end(valid), thread_axis) == std::end(valid)) {
    fail(s, kInvalidThreadAxisError, {loop},
         fmt::format("\"{}\" is not a thread axis: expected blockIdx.x/y/z, threadIdx.x/y/z or vthread.x/y/z",
                     thread_axis));
  }
  // Cross-thread reductions may bind threadIdx to reduction loops.
  if (thread_axis.rfind("threadIdx", 0) != 0) check_data_parallel(s, loop, "bind");
  set_kind(s, loop, ForKind::ThreadBinding, thread_axis);
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_loop_kind_kinds(KindList& kinds) {
  struct LoopKind {
    const char* name;
    const char* method;
    void (*fn)(ScheduleState&, LoopSid);
    const char* doc;
    const char* checks;
    const char* example;
  };
  for (LoopKind k :
       {LoopKind{"Parallel", "parallel", parallel, "parallel(loop): run the loop's iterations on threads.",
                 "the loop's iterators are all data-parallel (no reduction carried), it starts at 0, and nothing else "
                 "binds it",
                 "for i in range(128):  ->  for i in T.parallel(128):"},
        LoopKind{"Vectorize", "vectorize", vectorize, "vectorize(loop): make the loop a vector operation.",
                 "as parallel: the loop carries no reduction", "for j_1 in range(4):  ->  for j_1 in T.vectorized(4):"},
        LoopKind{"Unroll", "unroll", unroll, "unroll(loop): unroll the loop.", "the loop exists",
                 "for k in range(4):  ->  for k in T.unroll(4):"}}) {
    kinds.push_back(define_kind(
        k.name, k.method, {input("loop", ParamType::Loop)}, OutputForm::None,
        [fn = k.fn](Schedule& sch, InstructionCall& c) { fn(sch.state(), sch.loop_sid(c.inputs[0])); }, k.doc, k.checks,
        k.example));
  }
  kinds.push_back(define_kind(
      "Bind", "bind", {input("loop", ParamType::Loop), attr("thread_axis", ParamType::Str)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) { schedule::bind(sch.state(), sch.loop_sid(c.inputs[0]), c.attrs[0].s); },
      "bind(loop, thread_axis): bind the loop to a GPU thread axis such as \"threadIdx.x\".",
      "the thread tag is blockIdx.x/y/z, threadIdx.x/y/z or vthread.*; the loop carries no reduction",
      "for i_0 in range(32):  ->  for i_0 in T.thread_binding(32, thread=\"blockIdx.x\"):"));
}

}  // namespace tsch::schedule
