// Sampling for tuning: perfect tilings and categorical choices, deterministic for a given
// random state (a 64-bit linear congruential generator, as TVM's schedules use one).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/kind_registration.h"

namespace tsch::schedule {

namespace {

uint64_t next(uint64_t& state) {
  // Knuth's MMIX constants; the high bits are used.
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return state >> 33;
}

void tilings(int64_t extent, int64_t parts, int64_t max_innermost, std::vector<int64_t>& current,
             std::vector<std::vector<int64_t>>& out) {
  if (parts == 1) {
    if (max_innermost <= 0 || extent <= max_innermost) {
      current.push_back(extent);
      out.push_back(current);
      current.pop_back();
    }
    return;
  }
  for (int64_t d = 1; d <= extent; ++d) {
    if (extent % d != 0) continue;
    current.push_back(d);
    tilings(extent / d, parts - 1, max_innermost, current, out);
    current.pop_back();
  }
}

}  // namespace

// The prime factors of n, with multiplicity. Trial division stops at 10^6: a cofactor left
// then counts as one factor (it may be composite, which only leaves some tilings out).
std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p <= 1000000 && p * p <= n; ++p) {
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  }
  if (n > 1) out.push_back(n);
  return out;
}

// How many tilings `tilings` would list, saturating at `cap`.
int64_t count_tilings(int64_t extent, int64_t parts, int64_t max_innermost, int64_t cap) {
  if (parts == 1) return max_innermost <= 0 || extent <= max_innermost ? 1 : 0;
  int64_t total = 0;
  for (int64_t d = 1; d <= extent && total < cap; ++d)
    if (extent % d == 0) total += count_tilings(extent / d, parts - 1, max_innermost, cap - total);
  return std::min(total, cap);
}

std::vector<int64_t> sample_perfect_tile(int64_t extent, int64_t n, int64_t max_innermost_factor, uint64_t& rand_state) {
  // Small spaces: every tiling listed, one drawn uniformly.
  constexpr int64_t kEnumerate = 100000;
  if (extent <= (int64_t{1} << 16) && count_tilings(extent, n, max_innermost_factor, kEnumerate + 1) <= kEnumerate) {
    std::vector<std::vector<int64_t>> all;
    std::vector<int64_t> current;
    tilings(extent, n, max_innermost_factor, current, all);
    if (all.empty()) {
      std::vector<int64_t> trivial(static_cast<size_t>(n), 1);
      trivial[0] = extent;
      return trivial;
    }
    return all[next(rand_state) % all.size()];
  }
  // Large spaces (many parts, or a long loop), as TVM samples: the innermost factor among
  // the divisors within the limit, then each remaining prime factor to a random outer part.
  std::vector<int64_t> factors(static_cast<size_t>(n), 1);
  std::vector<int64_t> primes = prime_factors(extent);
  std::vector<int64_t> divisors{1};
  for (size_t i = 0; i < primes.size();) {
    size_t j = i;
    while (j < primes.size() && primes[j] == primes[i]) ++j;
    size_t count = divisors.size();
    int64_t power = 1;
    for (size_t k = i; k < j; ++k) {
      power *= primes[i];
      for (size_t m = 0; m < count; ++m)
        if (max_innermost_factor <= 0 || divisors[m] <= max_innermost_factor / power) divisors.push_back(divisors[m] * power);
    }
    i = j;
  }
  int64_t inner = n == 1 ? extent : divisors[next(rand_state) % divisors.size()];
  factors.back() = inner;
  for (int64_t p : prime_factors(extent / inner)) factors[next(rand_state) % static_cast<uint64_t>(n - 1)] *= p;
  return factors;
}

int64_t sample_categorical(const std::vector<double>& probs, uint64_t& rand_state) {
  double total = 0;
  for (double p : probs) total += p;
  // next() gives 31 uniform bits: r is uniform in [0, total).
  double r = std::ldexp(static_cast<double>(next(rand_state)), -31) * total;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (r < probs[i]) return static_cast<int64_t>(i);
    r -= probs[i];
  }
  return static_cast<int64_t>(probs.size()) - 1;
}

}  // namespace tsch::schedule

namespace tsch::schedule {

using namespace ir;

namespace {

// TVM's GetLoopIterType: data-parallel unless some block under the loop binds it to an
// iterator of another kind.
bool loop_is_data_parallel(const ScheduleState& s, uint64_t loop) {
  const VarNode* var = s.loop_at(loop).loop_var.get();
  bool data_parallel = true;
  for_each_stmt(s.loop_at(loop).body, [&](const Stmt& st) {
    auto* r = as<BlockRealizeNode>(st);
    if (!r) return;
    for (size_t i = 0; i < r->iter_values.size(); ++i) {
      if (r->block->iter_vars[i].type != IterType::DataPar && uses_var(r->iter_values[i], [&](const VarNode* v) { return v == var; }))
        data_parallel = false;
    }
  });
  return data_parallel;
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

ComputeLocations compute_location_candidates(const ScheduleState& s, uint64_t block) {
  ComputeLocations out;
  out.can_inline = succeeds_on_copy(s, [&](ScheduleState& c) { compute_inline(c, block); });
  std::vector<uint64_t> consumers = get_consumers(s, block);
  if (consumers.empty()) return out;
  // The deepest loop every consumer is under (TVM's boundary): one consumer's parent, or
  // the consumers' lowest common ancestor; none when that is a block.
  std::vector<uint64_t> loops = s.enclosing_loops(consumers[0]);
  size_t common = loops.size();
  if (consumers.size() == 1) {
    if (!s.loop(s.info(consumers[0])->parent)) return out;
  } else {
    for (uint64_t c : consumers) {
      std::vector<uint64_t> other = s.enclosing_loops(c);
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

void apply_sample_perfect_tile(Schedule& sch, InstructionCall& c) {
  uint64_t loop = sch.loop_sid(c.inputs[0]);
  int64_t n = c.attrs[0].as_int(), max_inner = c.attrs[1].as_int();
  // A tile of more than 64 loops has no use and would make as many loops in the IR.
  TSCH_USER_ASSERT_ARG(n >= 1 && n <= 64, ValueError, "n") << "n must be between 1 and 64, got " << n;
  TSCH_USER_ASSERT_ARG(max_inner == -1 || max_inner >= 1, ValueError, "max_innermost_factor")
      << "max_innermost_factor must be positive, or -1 for no limit, got " << max_inner;
  int64_t extent;
  std::vector<int64_t> factors;
  if (!ir::as_const_int(sch.loop(loop).extent, &extent)) {
    factors.assign(static_cast<size_t>(n), 1);
    factors[0] = -1;
  } else if (!c.decision.is_none()) {
    int64_t product = 1;
    bool ok = c.decision.kind == TraceArg::Kind::List;
    for (const TraceArg& f : c.decision.list) {
      TSCH_USER_ASSERT_ARG(f.kind == TraceArg::Kind::Int, TypeError, "decision") << "expected a list of int";
      factors.push_back(f.i);
      ok &= f.i >= 1 && !__builtin_mul_overflow(product, f.i, &product);
    }
    TSCH_USER_ASSERT_ARG(ok && static_cast<int64_t>(factors.size()) == n && product == extent, ValueError, "decision")
        << "the decision does not tile the loop";
  } else {
    factors = sample_perfect_tile(extent, n, max_inner, sch.rand_state());
  }
  std::vector<TraceArg> decision;
  for (int64_t f : factors) {
    // TVM 0.23: the factor left to infer (-1, a loop of symbolic extent) is None, no handle.
    c.outputs.push_back(f == -1 ? RV() : make_rv(RVNode::Kind::Expr, 0, f, expr_rv_name(sch, c)));
    decision.push_back(TraceArg::of_int(f));
  }
  c.decision = TraceArg::of_list(std::move(decision));
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
  for (const TraceArg& x : candidates) TSCH_USER_ASSERT_ARG(x.kind == TraceArg::Kind::Int, TypeError, "candidates") << "expected a list of int";
  TSCH_USER_ASSERT_ARG(candidates.size() == probs.size() && !candidates.empty(), ValueError, "probs")
      << "candidates and probs must have the same, non-zero length";
  TSCH_USER_ASSERT_ARG(total > 0 && std::isfinite(total), ValueError, "probs") << "the probabilities must not all be zero";
  int64_t choice = c.decision.is_none() ? sample_categorical(probs, sch.rand_state()) : c.decision.as_int();
  TSCH_USER_ASSERT_ARG(c.decision.is_none() || c.decision.kind == TraceArg::Kind::Int, TypeError, "decision") << "expected an int";
  TSCH_USER_ASSERT_ARG(choice >= 0 && choice < static_cast<int64_t>(candidates.size()), ValueError, "decision")
      << "the decision is not a candidate index";
  c.outputs.push_back(make_rv(RVNode::Kind::Expr, 0, candidates[static_cast<size_t>(choice)].i, expr_rv_name(sch, c)));
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
    std::vector<double> probs(choices.size(), 1.0);
    decision = choices[static_cast<size_t>(sample_categorical(probs, sch.rand_state()))];
  } else {
    TSCH_USER_ASSERT_ARG(c.decision.kind == TraceArg::Kind::Int, TypeError, "decision") << "expected an int";
    decision = c.decision.i;
    TSCH_USER_ASSERT_ARG(std::find(choices.begin(), choices.end(), decision) != choices.end(), ValueError, "decision")
        << "not a valid location";
  }
  uint64_t sid = decision == -1 ? kRootLoop : decision == -2 ? kInlineLoop : 0;
  for (const auto& [index, loop] : where.loops) {
    if (index == decision) sid = loop;
  }
  output_loops(c, {sid});
  c.decision = TraceArg::of_int(decision);
}

}  // namespace

void register_sampling_kinds(KindList& kinds) {
  kinds.push_back(define_kind("SamplePerfectTile", "sample_perfect_tile",
                              {input("loop", ParamType::Loop), attr("n", ParamType::Int), attr("max_innermost_factor", ParamType::Int, "16"),
                               decision_param()},
                              OutputForm::List, apply_sample_perfect_tile,
                              "sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None) -> list of ExprRV whose product is "
                              "the extent."));
  kinds.push_back(define_kind("SampleCategorical", "sample_categorical",
                              {attr("candidates", ParamType::IntList), attr("probs", ParamType::FloatList), decision_param()},
                              OutputForm::Single, apply_sample_categorical,
                              "sample_categorical(candidates, probs, decision=None) -> ExprRV: one candidate, drawn with the "
                              "given probabilities."));
  kinds.push_back(define_kind("SampleComputeLocation", "sample_compute_location", {input("block", ParamType::Block), decision_param()},
                              OutputForm::Single, apply_sample_compute_location,
                              "sample_compute_location(block, decision=None) -> LoopRV (decision -1: stay at the root, -2: inline)."));
  for (size_t i = kinds.size() - 3; i < kinds.size(); ++i) kinds[i]->is_pure = true;
}

void register_postproc_kinds(KindList& kinds) {
  kinds.push_back(define_kind("EnterPostproc", "enter_postproc", {}, OutputForm::None, [](Schedule&, InstructionCall&) {},
                              "enter_postproc(): mark where postprocessing starts (a trace drops what follows with "
                              "remove_postproc=True)."));
  kinds.back()->is_postproc = true;
}

}  // namespace tsch::schedule
