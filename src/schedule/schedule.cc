#include "schedule/schedule.h"

#include <fmt/format.h>

#include <cstdlib>

#include "arith/scalable_expression.h"
#include "arith/simplify.h"
#include "arith/verify_well_formed.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "support/error.h"
#include "support/random_engine.h"

namespace tsch::schedule {

namespace {

Schedule::ChangeCheck& change_check() {
  static Schedule::ChangeCheck check;
  return check;
}

// TSCH_CHECK_REFUSALS=1 (the schedule fuzzer): a primitive that refuses must not have changed
// the module first ("check first, rewrite second"); the rollback would hide it.
void check_refusal(const ScheduleState& after, const ScheduleState& before, const std::string& report) {
  static const bool enabled = std::getenv("TSCH_CHECK_REFUSALS") != nullptr;
  if (!enabled || after.mod() == before.mod()) return;
  ir::StructuralDiff d = ir::structural_diff(before.mod(), after.mod());
  throw UserError(UserErrorKind::RuntimeError, "TSCH_CHECK_REFUSALS: the primitive changed the module before refusing" +
                                                   (d.equal ? std::string(" (to an equal copy)") : " at " + d.path) +
                                                   "\n" + report);
}

}  // namespace

ErrorRenderLevel parse_error_render_level(const std::string& text) {
  if (text == "detail") return ErrorRenderLevel::Detail;
  if (text == "fast") return ErrorRenderLevel::Fast;
  if (text == "none") return ErrorRenderLevel::None;
  throw UserError(UserErrorKind::ValueError,
                  "error_render_level must be \"detail\", \"fast\" or \"none\", got \"" + text + "\"",
                  "error_render_level");
}

Schedule::Schedule(ir::IRModule mod, int64_t seed_value, int64_t debug_mask, ErrorRenderLevel level)
    : state_(mod), original_(std::move(mod)), debug_mask_(debug_mask), render_level_(level) {
  seed(seed_value);
}

void Schedule::work_on(const std::string& func_name) {
  TSCH_USER_ASSERT_ARG(state_.mod()->prim_func(func_name), ValueError, "func_name")
      << "no function named \"" << func_name << "\" in the module";
  state_.set_func_name(func_name);
}

void Schedule::seed(int64_t value) { rand_state_ = support::LinearCongruentialEngine::normalize_seed(value); }

int64_t Schedule::fork_seed() { return support::LinearCongruentialEngine(&rand_state_).fork_seed(); }

Schedule Schedule::copy() {
  Schedule out = *this;
  // TVM's Copy takes the forked seed as the state as it is, without normalizing it.
  out.rand_state_ = fork_seed();
  return out;
}

void Schedule::set_change_check(ChangeCheck check) { change_check() = std::move(check); }

void Schedule::resume_change_check(const ScheduleState& before) {
  change_check_suspended_ = false;
  if (change_check() && !edited_outside_trace_ && !(state_.mod() == before.mod())) change_check()(*this, before);
}

std::string Schedule::render(const ScheduleError& error, const ScheduleState& at) const {
  switch (render_level_) {
    case ErrorRenderLevel::Detail:
      return render_schedule_error(at, error);
    case ErrorRenderLevel::Fast:
      return error.fast_error_string();
    case ErrorRenderLevel::None:
      return "(not rendered)";
  }
  return error.what();
}

std::vector<RV> Schedule::apply(const InstructionKind& kind, std::vector<TraceArg> inputs, std::vector<TraceArg> attrs,
                                TraceArg decision) {
  InstructionCall call{std::move(inputs), std::move(attrs), std::move(decision), {}};
  // The primitive receives expressions of ExprRVs evaluated; the trace keeps them as given.
  std::vector<std::pair<size_t, TraceArg>> given_inputs, given_attrs;
  auto resolve_all = [this](std::vector<TraceArg>& args, std::vector<std::pair<size_t, TraceArg>>& given) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind != TraceArg::Kind::Expr && !args[i].uses_expr_rvs()) continue;
      TraceArg value = resolve(args[i]);
      given.emplace_back(i, std::exchange(args[i], std::move(value)));
    }
  };
  try {
    resolve_all(call.inputs, given_inputs);
    resolve_all(call.attrs, given_attrs);
  } catch (const UserError& e) {
    if (e.param.empty()) throw UserError(e.kind, kind.method + ": " + e.what());
    throw;
  }
  ScheduleState saved = state_;
  int64_t saved_rand = rand_state_;
  auto restore = [&] {
    state_ = saved;
    rand_state_ = saved_rand;
  };
  try {
    kind.apply(*this, call);
  } catch (ScheduleError& e) {
    ScheduleState refused = std::move(state_);
    restore();
    e.primitive = kind.report_name();
    check_refusal(refused, saved, render_schedule_error(saved, e));
    throw RenderedScheduleError(render(e, saved), e.kind->name);
  } catch (const UserError& e) {
    restore();
    // A mistake in an argument the core cannot name: say which primitive refused it.
    if (e.param.empty()) throw UserError(e.kind, kind.method + ": " + e.what());
    throw;
  } catch (...) {
    restore();
    throw;
  }
  if (!(state_.mod() == saved.mod())) {
    try {
      if (debug_mask_ != 0) {
        for (const auto& [name, func] : state_.mod()->prim_funcs()) {
          // A function that read past a buffer before (TVM's tests schedule such functions)
          // may still; one that did not must not start to.
          ir::PrimFunc before = ir::as_prim_func(saved.mod()->lookup(name));
          bool was_in_bounds = !before || arith::verify_well_formed(before, arith::kBounds).empty();
          std::vector<std::string> problems =
              arith::verify_well_formed(func, was_in_bounds ? arith::kAllChecks : arith::kStructure);
          TSCH_INTERNAL_ASSERT(problems.empty())
              << kind.name << " left function " << name << " ill-formed: " << problems[0];
        }
      }
      if (change_check() && !change_check_suspended_ && !edited_outside_trace_) change_check()(*this, saved);
    } catch (...) {
      restore();
      throw;
    }
  }
  for (const RV& rv : call.outputs) {
    if (rv) symbols_.insert(rv);
  }
  for (auto& [i, arg] : given_inputs) {
    if (i < call.inputs.size()) call.inputs[i] = std::move(arg);
  }
  for (auto& [i, arg] : given_attrs) {
    if (i < call.attrs.size()) call.attrs[i] = std::move(arg);
  }
  auto inst = std::make_shared<InstructionNode>();
  inst->kind = &kind;
  inst->inputs = std::move(call.inputs);
  inst->attrs = std::move(call.attrs);
  inst->outputs = call.outputs;
  trace_.append(std::move(inst), std::move(call.decision));
  return call.outputs;
}

std::vector<RV> Schedule::apply(const std::string& kind_name, std::vector<TraceArg> inputs, std::vector<TraceArg> attrs,
                                TraceArg decision) {
  const InstructionKind* kind = InstructionKind::find(kind_name);
  TSCH_INTERNAL_ASSERT(kind) << "no instruction kind " << kind_name;
  return apply(*kind, std::move(inputs), std::move(attrs), std::move(decision));
}

void Schedule::check_known(const RV& rv) const {
  TSCH_USER_ASSERT(symbols_.count(rv), IndexError) << "Cannot find the corresponding RandomVariable: the handle was "
                                                      "made by another schedule, or removed with remove_rv";
}

void Schedule::remove_rv(const RV& rv) {
  check_known(rv);
  symbols_.erase(rv);
}

ir::PrimExpr Schedule::substitute_rvs(const ir::PrimExpr& e) const {
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> values;
  ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
    auto* v = ir::as<ir::VarNode>(x);
    if (!v || values.count(v)) return;
    RV rv = rv_of_var(v);
    if (!rv) return;  // a variable of the script's own: it stays (TVM's Get does the same)
    check_known(rv);
    values[v] = ir::make_int(rv->value, v->dtype);
  });
  try {
    return ir::substitute(e, values);
  } catch (const ir::IRError& err) {
    throw UserError(UserErrorKind::ValueError, std::string("cannot evaluate ") + ir::script(e) + ": " + err.what());
  }
}

ir::PrimExpr Schedule::evaluate(const ir::PrimExpr& e) const {
  ir::PrimExpr v = substitute_rvs(e);
  try {
    return arith::simplify(v);
  } catch (const ir::IRError& err) {
    throw UserError(UserErrorKind::ValueError, std::string("cannot evaluate ") + ir::script(e) + ": " + err.what());
  }
}

TraceArg Schedule::resolve(const TraceArg& arg) const {
  if (arg.kind == TraceArg::Kind::IndexMap) {
    std::vector<ir::PrimExpr> outputs;
    for (const ir::PrimExpr& o : arg.map_outputs) outputs.push_back(substitute_rvs(o));
    return TraceArg::of_index_map(arg.map_params, std::move(outputs));
  }
  if (arg.kind != TraceArg::Kind::Expr) return arg;
  ir::PrimExpr v = evaluate(arg.expr);
  if (auto* i = ir::as<ir::IntImmNode>(v))
    return v->dtype.is_bool() ? TraceArg::of_bool(i->value != 0) : TraceArg::of_int(i->value);
  if (auto* f = ir::as<ir::FloatImmNode>(v)) return TraceArg::of_float(f->value);
  // A split factor such as `T.vscale() * 4` stays an expression (of no ExprRV).
  if (v->dtype.is_int() && arith::contains_vscale(v) && arith::is_vscale_constant(v)) return TraceArg::of_expr(v);
  throw UserError(UserErrorKind::TypeError, "the expression " + ir::script(arg.expr) +
                                                " does not evaluate to a constant (it gives " + ir::script(v) + ")");
}

LoopSid Schedule::loop_sid(const TraceArg& arg) const {
  TSCH_USER_ASSERT(arg.kind == TraceArg::Kind::Ref && arg.ref && arg.ref->kind == RVNode::Kind::Loop, TypeError)
      << "expected a LoopRV";
  check_known(arg.ref);
  LoopSid sid = arg.ref->loop_sid();
  if (sid == kRootLoop || sid == kInlineLoop) return sid;
  TSCH_USER_ASSERT(state_.loop(sid), ValueError)
      << "the loop no longer exists in the IRModule (an earlier primitive such as split or fuse replaced it)";
  return sid;
}

BlockSid Schedule::block_sid(const TraceArg& arg) const {
  TSCH_USER_ASSERT(arg.kind == TraceArg::Kind::Ref && arg.ref && arg.ref->kind == RVNode::Kind::Block, TypeError)
      << "expected a BlockRV";
  check_known(arg.ref);
  BlockSid sid = state_.as_block(arg.ref->sid);
  TSCH_USER_ASSERT(sid, ValueError) << "the block no longer exists in the IRModule (an earlier primitive removed it)";
  return sid;
}

StmtSid Schedule::block_or_loop_sid(const TraceArg& arg) const {
  TSCH_USER_ASSERT(arg.kind == TraceArg::Kind::Ref && arg.ref && arg.ref->kind != RVNode::Kind::Expr, TypeError)
      << "expected a BlockRV or LoopRV";
  return arg.ref->kind == RVNode::Kind::Loop ? StmtSid(loop_sid(arg)) : StmtSid(block_sid(arg));
}

const ir::ForNode& Schedule::loop(LoopSid sid) const {
  const ir::ForNode* f = state_.loop(sid);
  TSCH_INTERNAL_ASSERT(f) << "sid " << sid << " is not a loop";
  return *f;
}

const ir::BlockNode& Schedule::block(BlockSid sid) const {
  const ir::BlockNode* b = state_.block(sid);
  TSCH_INTERNAL_ASSERT(b) << "sid " << sid << " is not a block";
  return *b;
}

// ---- typed shortcuts

namespace {
TraceArg ref(const RV& rv) { return TraceArg::of_ref(rv); }
std::vector<TraceArg> refs(const std::vector<RV>& rvs) {
  std::vector<TraceArg> out;
  for (const RV& rv : rvs) out.push_back(ref(rv));
  return out;
}
}  // namespace

RV Schedule::get_block(const std::string& name, const std::string& func_name) {
  return apply("GetBlock", {},
               {TraceArg::of_str(name), func_name.empty() ? TraceArg::none() : TraceArg::of_str(func_name)})[0];
}
std::vector<RV> Schedule::get_loops(const RV& block) { return apply("GetLoops", {ref(block)}, {}); }
std::vector<RV> Schedule::split(const RV& loop, const std::vector<std::optional<int64_t>>& factors,
                                bool preserve_unit_iters, bool disable_predication) {
  std::vector<TraceArg> inputs{ref(loop)};
  for (const auto& f : factors) inputs.push_back(f ? TraceArg::of_int(*f) : TraceArg::none());
  return apply("Split", std::move(inputs),
               {TraceArg::of_bool(preserve_unit_iters), TraceArg::of_bool(disable_predication)});
}
RV Schedule::fuse(const std::vector<RV>& loops, bool preserve_unit_iters) {
  return apply("Fuse", refs(loops), {TraceArg::of_bool(preserve_unit_iters)})[0];
}
void Schedule::reorder(const std::vector<RV>& loops) { apply("Reorder", refs(loops), {}); }
void Schedule::parallel(const RV& loop) { apply("Parallel", {ref(loop)}, {}); }
void Schedule::vectorize(const RV& loop) { apply("Vectorize", {ref(loop)}, {}); }
void Schedule::unroll(const RV& loop) { apply("Unroll", {ref(loop)}, {}); }
void Schedule::bind(const RV& loop, const std::string& thread_axis) {
  apply("Bind", {ref(loop)}, {TraceArg::of_str(thread_axis)});
}
void Schedule::compute_at(const RV& block, const RV& loop, bool preserve_unit_loops, int64_t index) {
  apply("ComputeAt", {ref(block), ref(loop)}, {TraceArg::of_bool(preserve_unit_loops), TraceArg::of_int(index)});
}
void Schedule::reverse_compute_at(const RV& block, const RV& loop, bool preserve_unit_loops, int64_t index) {
  apply("ReverseComputeAt", {ref(block), ref(loop)}, {TraceArg::of_bool(preserve_unit_loops), TraceArg::of_int(index)});
}
void Schedule::compute_inline(const RV& block) { apply("ComputeInline", {ref(block)}, {}); }
void Schedule::reverse_compute_inline(const RV& block) { apply("ReverseComputeInline", {ref(block)}, {}); }
RV Schedule::cache_read(const RV& block, int64_t read_buffer_index, const std::string& scope,
                        const std::vector<RV>& consumer_blocks) {
  std::vector<TraceArg> consumers;
  for (const RV& c : consumer_blocks) consumers.push_back(ref(c));
  return apply("CacheRead", {ref(block), TraceArg::of_list(consumers)},
               {TraceArg::of_int(read_buffer_index), TraceArg::of_str(scope)})[0];
}
RV Schedule::cache_write(const RV& block, int64_t write_buffer_index, const std::string& scope) {
  return apply("CacheWrite", {ref(block), TraceArg::of_list({})},
               {TraceArg::of_int(write_buffer_index), TraceArg::of_str(scope)})[0];
}
RV Schedule::rfactor(const RV& loop, int64_t factor_axis) {
  return apply("RFactor", {ref(loop)}, {TraceArg::of_int(factor_axis)})[0];
}
RV Schedule::decompose_reduction(const RV& block, const RV& loop) {
  return apply("DecomposeReduction", {ref(block), ref(loop)}, {})[0];
}
void Schedule::storage_align(const RV& block, int64_t buffer_index, int64_t axis, int64_t factor, int64_t offset) {
  apply("StorageAlign", {ref(block)},
        {TraceArg::of_int(buffer_index), TraceArg::of_int(axis), TraceArg::of_int(factor), TraceArg::of_int(offset)});
}
void Schedule::set_scope(const RV& block, int64_t buffer_index, const std::string& scope) {
  apply("SetScope", {ref(block)}, {TraceArg::of_int(buffer_index), TraceArg::of_str(scope)});
}
void Schedule::annotate(const RV& block_or_loop, const std::string& key, const TraceArg& value) {
  apply("Annotate", {ref(block_or_loop), value}, {TraceArg::of_str(key)});
}
std::vector<RV> Schedule::sample_perfect_tile(const RV& loop, int64_t n, int64_t max_innermost_factor) {
  return apply("SamplePerfectTile", {ref(loop)}, {TraceArg::of_int(n), TraceArg::of_int(max_innermost_factor)});
}

}  // namespace tsch::schedule
