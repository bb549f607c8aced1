// Sampling for tuning: perfect and partitioned tilings, categorical choices and compute
// locations, drawn as TVM's sampling.cc draws them: libstdc++'s distributions over TVM's
// linear congruential engine (support/random_engine.h), so a seed gives TVM's decisions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "support/random_engine.h"

namespace tsch::schedule {

namespace {

using Engine = support::LinearCongruentialEngine;

// TVM's SampleInt: uniform in [min, max_exclusive); a range of one value draws nothing.
int32_t sample_int(int64_t& rand_state, int32_t min, int32_t max_exclusive) {
  if (min + 1 == max_exclusive) return min;
  Engine engine(&rand_state);
  std::uniform_int_distribution<int32_t> dist(min, max_exclusive - 1);
  return dist(engine);
}

// TVM's SampleWithoutReplacement: k distinct values of [0, n), by a partial shuffle (k = 1
// and 2 drawn directly, as TVM does, since the draws must match).
std::vector<int32_t> sample_without_replacement(int64_t& rand_state, int32_t n, int32_t k) {
  if (k == 1) return {sample_int(rand_state, 0, n)};
  if (k == 2) {
    int32_t first = sample_int(rand_state, 0, n);
    int32_t second = sample_int(rand_state, 0, n - 1);
    if (second >= first) ++second;
    return {first, second};
  }
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  for (int32_t i = 0; i < k; ++i) {
    int32_t j = sample_int(rand_state, i, n);
    if (i != j) std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  order.resize(static_cast<size_t>(k));
  return order;
}

// One prime power of an extent's factorization. TVM's prime table reaches 65536 and treats a
// larger prime (at most one, last) as its own case, whose 2-way split draws the other way.
struct PrimePower {
  int64_t prime;
  int32_t exponent;
  bool beyond_table;
};

std::vector<PrimePower> factorize(int64_t n) {
  constexpr int64_t kTableEnd = 65536;
  std::vector<PrimePower> out;
  for (int64_t p = 2; p * p <= n; ++p) {
    int32_t e = 0;
    for (; n % p == 0; n /= p) ++e;
    if (e != 0) out.push_back({p, e, false});
  }
  if (n > 1) out.push_back({n, 1, n >= kTableEnd});
  return out;
}

int64_t power(int64_t base, int32_t exponent) {
  int64_t r = 1;
  for (int32_t i = 0; i < exponent; ++i) r *= base;
  return r;
}

// TVM's SamplePerfectTile without an innermost limit: each prime power's exponent spread
// over the parts uniformly (stars and bars).
std::vector<int64_t> sample_perfect_tile_once(int64_t& rand_state, int64_t extent, int32_t n_splits,
                                              const std::vector<PrimePower>& factors) {
  if (n_splits == 1) return {extent};
  if (extent == 1) return std::vector<int64_t>(static_cast<size_t>(n_splits), 1);
  if (n_splits == 2) {
    int64_t outer = 1, inner = 1;
    for (const PrimePower& f : factors) {
      if (f.beyond_table) {
        (sample_int(rand_state, 0, 2) ? inner : outer) *= f.prime;
        continue;
      }
      int32_t x = sample_int(rand_state, 0, f.exponent + 1);
      outer *= power(f.prime, x);
      inner *= power(f.prime, f.exponent - x);
    }
    return {outer, inner};
  }
  std::vector<int64_t> result(static_cast<size_t>(n_splits), 1);
  for (const PrimePower& f : factors) {
    if (f.exponent == 1) {
      result[static_cast<size_t>(sample_int(rand_state, 0, n_splits))] *= f.prime;
      continue;
    }
    // Bars: n_splits - 1 distinct positions among exponent + n_splits - 1.
    int32_t slots = f.exponent + n_splits - 1;
    std::vector<int32_t> bars = sample_without_replacement(rand_state, slots, n_splits - 1);
    std::sort(bars.begin(), bars.end());
    bars.push_back(slots);
    for (int32_t i = 0, last = -1; i < n_splits; ++i) {
      result[static_cast<size_t>(i)] *= power(f.prime, bars[static_cast<size_t>(i)] - last - 1);
      last = bars[static_cast<size_t>(i)];
    }
  }
  return result;
}

void check_tile_args(int64_t extent, int64_t n) {
  // TVM draws with 32-bit integers.
  TSCH_USER_ASSERT(extent >= 1 && extent <= INT32_MAX, ValueError)
      << "sampling tiles of a loop of extent " << extent << " is not supported yet (extents 1 to 2^31 - 1 are)";
  TSCH_USER_ASSERT_ARG(n >= 1, ValueError, "n") << "Cannot tile a loop to 0 or negative splits";
}

}  // namespace

std::vector<int64_t> sample_perfect_tile(int64_t extent, int64_t n, int64_t max_innermost_factor, int64_t& rand_state) {
  check_tile_args(extent, n);
  std::vector<PrimePower> factors = factorize(extent);
  auto n_splits = static_cast<int32_t>(n);
  if (max_innermost_factor == -1) return sample_perfect_tile_once(rand_state, extent, n_splits, factors);
  TSCH_USER_ASSERT_ARG(n >= 2, ValueError, "n") << "Cannot tile a loop into " << n << " splits";
  // Rejection, as TVM: the draws of rejected tilings count.
  while (true) {
    std::vector<int64_t> result = sample_perfect_tile_once(rand_state, extent, n_splits, factors);
    if (result.back() <= max_innermost_factor) return result;
  }
}

std::vector<int64_t> sample_partitioned_tile(int64_t extent, int64_t n, int64_t partition_pos, int64_t innerpart_factor,
                                             int64_t& rand_state) {
  check_tile_args(extent, n);
  std::vector<PrimePower> factors = factorize(extent);
  auto n_splits = static_cast<int32_t>(n);
  if (partition_pos == 0 && innerpart_factor == 1)
    return sample_perfect_tile_once(rand_state, extent, n_splits, factors);
  TSCH_USER_ASSERT_ARG(n >= 2, ValueError, "n") << "Cannot tile a loop into " << n << " splits";
  while (true) {
    std::vector<int64_t> result = sample_perfect_tile_once(rand_state, extent, n_splits, factors);
    int64_t inner = 1;
    for (size_t i = static_cast<size_t>(partition_pos); i < result.size(); ++i) inner *= result[i];
    if (inner % innerpart_factor == 0) return result;
  }
}

int64_t sample_categorical(const std::vector<double>& probs, int64_t& rand_state) {
  std::discrete_distribution<int32_t> dist(probs.begin(), probs.end());
  Engine engine(&rand_state);
  return dist(engine);
}

}  // namespace tsch::schedule

namespace tsch::schedule {

using namespace ir;

namespace {

// TVM's GetLoopIterType: data-parallel unless a block directly under the loop (blocks
// inside it are not looked into) binds it to an iterator of another kind.
class LoopIterKind : public IRVisitor {
 public:
  explicit LoopIterKind(const VarNode* var) : var_(var) {}
  bool data_parallel = true;

 protected:
  // Blocks nested in the block are not looked into.
  void visit_BlockRealize(const BlockRealizeNode& r) override {
    for (size_t i = 0; i < r.iter_values.size(); ++i) {
      if (r.block->iter_vars[i].type != IterType::DataPar &&
          uses_var(r.iter_values[i], [&](const VarNode* v) { return v == var_; }))
        data_parallel = false;
    }
  }

 private:
  const VarNode* var_;
};

bool loop_is_data_parallel(const ScheduleState& s, LoopSid loop) {
  LoopIterKind kind(s.loop_at(loop).loop_var.get());
  kind.visit(s.loop_at(loop).body);
  return kind.data_parallel;
}

// Whether `f` succeeds on a copy of the state (TVM's CanComputeAt / CanComputeInline).
template <typename F>
bool succeeds_on_copy(const ScheduleState& s, F&& f) {
  ScheduleState copy = s;
  try {
    f(copy);
    return true;
  } catch (const ScheduleError&) {
    return false;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace

ComputeLocations compute_location_candidates(const ScheduleState& s, BlockSid block) {
  ComputeLocations out;
  out.can_inline = succeeds_on_copy(s, [&](ScheduleState& c) { compute_inline(c, block); });
  std::vector<BlockSid> consumers = get_consumers(s, block);
  if (consumers.empty()) return out;
  // The deepest loop every consumer is under (TVM's boundary): one consumer's parent, or
  // the consumers' lowest common ancestor; none when that is a block.
  std::vector<LoopSid> loops = s.enclosing_loops(consumers[0]);
  size_t common = loops.size();
  if (consumers.size() == 1) {
    if (!s.loop(s.info(consumers[0])->parent)) return out;
  } else {
    for (BlockSid c : consumers) {
      std::vector<LoopSid> other = s.enclosing_loops(c);
      size_t k = 0;
      while (k < common && k < other.size() && other[k] == loops[k]) ++k;
      common = k;
    }
    // The consumers' common ancestor is the loop at common - 1 only if nothing but loops lies
    // between; a common block ancestor below the loops ends the candidates there.
    if (common == 0) return out;
  }
  size_t n = common;
  int last_data_parallel = -1;
  std::vector<bool> data_parallel(n);
  for (size_t i = 0; i < n; ++i) {
    data_parallel[i] = loop_is_data_parallel(s, loops[i]);
    if (data_parallel[i]) last_data_parallel = static_cast<int>(i);
  }
  // TVM's rules: skip unit loops; no data-parallel loop after a reduction loop; no trailing
  // reduction loops.
  bool visited_reduce = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t extent;
    if (as_const_int(s.loop_at(loops[i]).extent, &extent) && extent == 1) continue;
    if (data_parallel[i]) {
      if (visited_reduce) break;
    } else {
      visited_reduce = true;
      if (static_cast<int>(i) > last_data_parallel) break;
    }
    if (succeeds_on_copy(s, [&](ScheduleState& c) { compute_at(c, block, loops[i], true, -1); })) {
      out.loops.emplace_back(static_cast<int64_t>(i), loops[i]);
    }
  }
  return out;
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

namespace {

// Python's repr of a float, for messages.
std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  return s.find_first_of(".eE") == std::string::npos ? s + ".0" : s;
}

// TVM names an ExprRV's variable "v" + the size of its symbol table once the ExprRV is in it.
std::string expr_rv_name(const Schedule& sch, const InstructionCall& c) {
  size_t made = 0;
  for (const RV& rv : c.outputs) made += rv != nullptr;
  return "v" + std::to_string(sch.num_rvs() + made + 1);
}

// A decision given for a tiling: n positive factors whose product is the extent. (TVM quietly
// repairs one that is not; tsch refuses it, as a decision given by hand that does not tile
// the loop is a mistake.)
std::vector<int64_t> tile_decision(const TraceArg& given, int64_t n, int64_t extent) {
  std::vector<int64_t> factors;
  int64_t product = 1;
  bool ok = given.kind == TraceArg::Kind::List;
  for (const TraceArg& f : given.list) {
    TSCH_USER_ASSERT_ARG(f.kind == TraceArg::Kind::Int, TypeError, "decision") << "expected a list of int";
    factors.push_back(f.i);
    ok &= f.i >= 1 && !__builtin_mul_overflow(product, f.i, &product);
  }
  TSCH_USER_ASSERT_ARG(ok && static_cast<int64_t>(factors.size()) == n && product == extent, ValueError, "decision")
      << "the decision does not tile the loop";
  return factors;
}

// The factors as ExprRVs, and as the decision. A -1 factor (a loop of symbolic extent) is left
// to infer: sample_perfect_tile gives None for it (TVM 0.23), sample_partitioned_tile an
// ExprRV of -1, as TVM's do.
void output_tiles(Schedule& sch, InstructionCall& c, const std::vector<int64_t>& factors, bool none_for_infer) {
  std::vector<TraceArg> decision;
  for (int64_t f : factors) {
    c.outputs.push_back(f == -1 && none_for_infer ? RV()
                                                  : make_rv(RVNode::Kind::Expr, StmtSid(), f, expr_rv_name(sch, c)));
    decision.push_back(TraceArg::of_int(f));
  }
  c.decision = TraceArg::of_list(std::move(decision));
}

int64_t tile_parts(const InstructionCall& c) {
  int64_t n = c.attrs[0].as_int();
  // A tile of more than 64 loops has no use and would make as many loops in the IR.
  TSCH_USER_ASSERT_ARG(n >= 1 && n <= 64, ValueError, "n") << "n must be between 1 and 64, got " << n;
  return n;
}

void apply_sample_perfect_tile(Schedule& sch, InstructionCall& c) {
  LoopSid loop = sch.loop_sid(c.inputs[0]);
  int64_t n = tile_parts(c), max_inner = c.attrs[1].as_int();
  TSCH_USER_ASSERT_ARG(max_inner == -1 || max_inner >= 1, ValueError, "max_innermost_factor")
      << "max_innermost_factor must be positive, or -1 for no limit, got " << max_inner;
  int64_t extent;
  std::vector<int64_t> factors;
  if (!ir::as_const_int(sch.loop(loop).extent, &extent)) {
    factors.assign(static_cast<size_t>(n), 1);
    factors[0] = -1;
  } else if (!c.decision.is_none()) {
    factors = tile_decision(c.decision, n, extent);
  } else {
    factors = sample_perfect_tile(extent, n, max_inner, sch.rand_state());
  }
  output_tiles(sch, c, factors, true);
}

void apply_sample_partitioned_tile(Schedule& sch, InstructionCall& c) {
  LoopSid loop = sch.loop_sid(c.inputs[0]);
  int64_t n = tile_parts(c), partition_pos = c.attrs[1].as_int(), innerpart_factor = c.attrs[2].as_int();
  TSCH_USER_ASSERT_ARG(partition_pos >= 0 && partition_pos < n, ValueError, "partition_pos")
      << "partition_pos must be between 0 and n - 1 = " << n - 1 << ", got " << partition_pos;
  TSCH_USER_ASSERT_ARG(innerpart_factor >= 1, ValueError, "innerpart_factor")
      << "innerpart_factor must be positive, got " << innerpart_factor;
  int64_t extent;
  std::vector<int64_t> factors;
  if (!ir::as_const_int(sch.loop(loop).extent, &extent) || extent % innerpart_factor != 0) {
    // TVM's answer when no tiling has such an inner part: infer the outer factor.
    factors.assign(static_cast<size_t>(n), 1);
    factors[0] = -1;
  } else if (!c.decision.is_none()) {
    factors = tile_decision(c.decision, n, extent);
    int64_t inner = 1;
    for (size_t i = static_cast<size_t>(partition_pos); i < factors.size(); ++i) inner *= factors[i];
    TSCH_USER_ASSERT_ARG(inner % innerpart_factor == 0, ValueError, "decision")
        << "the factors from partition_pos on multiply to " << inner << ", not a multiple of innerpart_factor "
        << innerpart_factor;
  } else {
    factors = sample_partitioned_tile(extent, n, partition_pos, innerpart_factor, sch.rand_state());
  }
  output_tiles(sch, c, factors, false);
}

void apply_sample_categorical(Schedule& sch, InstructionCall& c) {
  const std::vector<TraceArg>& candidates = c.attrs[0].list;
  std::vector<double> probs;
  double total = 0;
  for (const TraceArg& p : c.attrs[1].list) {
    probs.push_back(p.kind == TraceArg::Kind::Float ? p.f : static_cast<double>(p.as_int()));
    TSCH_USER_ASSERT_ARG(std::isfinite(probs.back()) && probs.back() >= 0, ValueError, "probs")
        << "probabilities must be finite and non-negative, got " << float_repr(probs.back());
    total += probs.back();
  }
  for (const TraceArg& x : candidates)
    TSCH_USER_ASSERT_ARG(x.kind == TraceArg::Kind::Int, TypeError, "candidates") << "expected a list of int";
  TSCH_USER_ASSERT_ARG(candidates.size() == probs.size() && !candidates.empty(), ValueError, "probs")
      << "candidates and probs must have the same, non-zero length";
  TSCH_USER_ASSERT_ARG(total > 0 && std::isfinite(total), ValueError, "probs")
      << "the probabilities must not all be zero";
  int64_t choice = c.decision.is_none() ? sample_categorical(probs, sch.rand_state()) : c.decision.as_int();
  TSCH_USER_ASSERT_ARG(c.decision.is_none() || c.decision.kind == TraceArg::Kind::Int, TypeError, "decision")
      << "expected an int";
  TSCH_USER_ASSERT_ARG(choice >= 0 && choice < static_cast<int64_t>(candidates.size()), ValueError, "decision")
      << "the decision is not a candidate index";
  c.outputs.push_back(
      make_rv(RVNode::Kind::Expr, StmtSid(), candidates[static_cast<size_t>(choice)].i, expr_rv_name(sch, c)));
  c.decision = TraceArg::of_int(choice);
}

void apply_sample_compute_location(Schedule& sch, InstructionCall& c) {
  ComputeLocations where = compute_location_candidates(sch.state(), sch.block_sid(c.inputs[0]));
  // The choices as TVM numbers them: -2 inline (when possible), -1 root, else the position
  // of the loop among the first consumer's loops.
  std::vector<int64_t> choices;
  if (where.can_inline) choices.push_back(-2);
  choices.push_back(-1);
  for (const auto& [index, sid] : where.loops) choices.push_back(index);
  int64_t decision;
  if (c.decision.is_none()) {
    decision = choices[static_cast<size_t>(sample_int(sch.rand_state(), 0, static_cast<int32_t>(choices.size())))];
  } else {
    TSCH_USER_ASSERT_ARG(c.decision.kind == TraceArg::Kind::Int, TypeError, "decision") << "expected an int";
    decision = c.decision.i;
    TSCH_USER_ASSERT_ARG(std::find(choices.begin(), choices.end(), decision) != choices.end(), ValueError, "decision")
        << "not a valid location";
  }
  LoopSid sid = decision == -1 ? kRootLoop : decision == -2 ? kInlineLoop : LoopSid();
  for (const auto& [index, loop] : where.loops) {
    if (index == decision) sid = loop;
  }
  output_loops(c, {sid});
  c.decision = TraceArg::of_int(decision);
}

}  // namespace

void register_sampling_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "SamplePerfectTile", "sample_perfect_tile",
      {input("loop", ParamType::Loop), attr("n", ParamType::Int), attr("max_innermost_factor", ParamType::Int, "16"),
       decision_param()},
      OutputForm::List, apply_sample_perfect_tile,
      "sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None) -> list of ExprRV whose product is "
      "the extent."));
  kinds.push_back(define_kind(
      "SamplePartitionedTile", "sample_partitioned_tile",
      {input("loop", ParamType::Loop), attr("n", ParamType::Int), attr("partition_pos", ParamType::Int, "0"),
       attr("innerpart_factor", ParamType::Int, "1"), decision_param()},
      OutputForm::List, apply_sample_partitioned_tile,
      "sample_partitioned_tile(loop, n, partition_pos=0, innerpart_factor=1, decision=None) -> list of ExprRV "
      "whose product is the extent, the factors from partition_pos on multiplying to a multiple of "
      "innerpart_factor."));
  kinds.push_back(
      define_kind("SampleCategorical", "sample_categorical",
                  {attr("candidates", ParamType::IntList), attr("probs", ParamType::FloatList), decision_param()},
                  OutputForm::Single, apply_sample_categorical,
                  "sample_categorical(candidates, probs, decision=None) -> ExprRV: one candidate, drawn with the "
                  "given probabilities."));
  kinds.push_back(define_kind(
      "SampleComputeLocation", "sample_compute_location", {input("block", ParamType::Block), decision_param()},
      OutputForm::Single, apply_sample_compute_location,
      "sample_compute_location(block, decision=None) -> LoopRV (decision -1: stay at the root, -2: inline)."));
  for (size_t i = kinds.size() - 4; i < kinds.size(); ++i) kinds[i]->is_pure = true;
}

void register_postproc_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "EnterPostproc", "enter_postproc", {}, OutputForm::None, [](Schedule&, InstructionCall&) {},
      "enter_postproc(): mark where postprocessing starts (a trace drops what follows with "
      "remove_postproc=True)."));
  kinds.back()->is_postproc = true;
}

}  // namespace tsch::schedule
