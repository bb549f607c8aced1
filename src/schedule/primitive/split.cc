// split: replace a loop by nested loops whose extents are the factors (TVM's Split).
//
//   for i in range(128):            sch.split(i, factors=[None, 4])      for i_0, i_1 in T.grid(32, 4):
//     ... vi = i ...                ─────────────────────────────────▶     ... vi = i_0 * 4 + i_1 ...
//
// At most one factor may be None (inferred by ceil-division); when the product exceeds the
// extent, blocks under the loop get the predicate `i_0 * 4 + i_1 < extent` (T.where).
#include <fmt/format.h>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "schedule/kind_registration.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNoFactorError, "NoFactorError", "At least one factor is required", "At least one factor is required to split loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kNotSingleInferFactorError, "NotSingleInferFactorError", "only one factor can be specified as -1 or none",
                         "Only one factor can be specified as -1 or none");
TSCH_SCHEDULE_ERROR_KIND(kNonPositiveFactorError, "NonPositiveFactorError",
                         "All the constant factors are required to be positive. However, some constant input factor is zero or negative.",
                         "All the constant factors are required to be positive.");
TSCH_SCHEDULE_ERROR_KIND(kFactorOverflowError, "FactorOverflowError", "The factors do not fit the dtype of the loop",
                         "The factors do not fit the dtype of loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kWrongFactorProductError, "WrongFactorProductError",
                         "The product of factors is not larger than or equal to the extent of loop",
                         "The product of factors is not larger than or equal to the extent of loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kSymbolicShapeError, "SymbolicShapeError",
                         "The min and extent values of the loop are required to be known at compile time. However, dynamic shape has "
                         "been detected.",
                         "Detected dynamic shape in either min or extent of a loop {0}");

}  // namespace

std::vector<uint64_t> split(ScheduleState& s, uint64_t loop_sid, const std::vector<std::optional<int64_t>>& factors,
                            bool preserve_unit_iters, bool disable_predication) {
  // Step 1. Check the loop and the factors.
  const ForNode* loop = &s.loop_at(loop_sid);
  if (!loop->annotations.empty() || loop->for_kind == ForKind::ThreadBinding) {
    fail(s, kHasAnnotationOrThreadBindingError, {loop_sid});
  }
  if (!is_zero(loop->min)) fail(s, kLoopNotStartWithZeroError, {loop_sid});
  if (factors.empty()) fail(s, kNoFactorError, {loop_sid});
  int inferred = -1;
  int64_t product = 1;
  DataType t = loop->loop_var->dtype;
  // The new loops' extents, and the index they rebuild (i_0 * f_1 + i_1 ...), are values of
  // the loop's dtype: a product past its range would wrap (2**62 on an int32 loop printed
  // T.grid(1, 4611686018427387904) and ran wrong).
  const int64_t dtype_max = t.bits >= 64 ? INT64_MAX : (int64_t{1} << (t.bits - 1)) - 1;
  auto too_large = [&](const std::string& what, int64_t value) {
    fail(s, kFactorOverflowError, {loop_sid}, fmt::format("{} (= {}) does not fit the dtype {} of loop {{0}}", what, value, t.to_string()));
  };
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (inferred >= 0) fail(s, kNotSingleInferFactorError, {loop_sid});
      inferred = static_cast<int>(i);
      continue;
    }
    if (*factors[i] <= 0) {
      fail(s, kNonPositiveFactorError, {loop_sid},
           fmt::format("All the constant factors are required to be positive. However, the factor at position {} is {}", i, *factors[i]));
    }
    if (*factors[i] > dtype_max) too_large(fmt::format("the factor at position {}", i), *factors[i]);
    if (__builtin_mul_overflow(product, *factors[i], &product) || product > dtype_max) too_large("the product of the factors", product);
  }
  int64_t extent = 0;
  bool const_extent = as_const_int(loop->extent, &extent);
  if (inferred >= 0 && const_extent) {
    int64_t covered = 0;  // the inferred factor times the others: at least the extent
    if (__builtin_mul_overflow((extent + product - 1) / product, product, &covered) || covered > dtype_max)
      too_large("the extent covered by the factors", (extent + product - 1) / product * product);
  }
  std::vector<PrimExpr> extents;
  for (const auto& f : factors) extents.push_back(f ? make_int(*f, t) : PrimExpr());
  if (inferred >= 0) {
    extents[static_cast<size_t>(inferred)] =
        arith::simplify(floordiv(add(loop->extent, make_int(product - 1, t)), make_int(product, t)));
  } else if (const_extent && product < extent) {
    fail(s, kWrongFactorProductError, {loop_sid});
  } else if (!const_extent) {
    fail(s, kSymbolicShapeError, {loop_sid}, "The extent of loop {0} is symbolic: one factor must be None");
  }

  // Step 2. New loops i_0, i_1, ... and the value they give the old loop variable.
  std::vector<Var> vars;
  PrimExpr value = make_int(0, t);
  for (size_t i = 0; i < factors.size(); ++i) {
    Var v = new_loop_var(loop->loop_var->name + "_" + std::to_string(i), t);
    vars.push_back(v);
    bool unit = is_one(extents[i]);
    PrimExpr contribution = (unit && !preserve_unit_iters) ? make_int(0, t) : PrimExpr(v);
    value = add(mul(value, extents[i]), contribution);
  }
  arith::VarDomain dom = loop_domain(s, loop_sid);
  dom.erase(loop->loop_var.get());
  for (size_t i = 0; i < vars.size(); ++i) dom[vars[i].get()] = arith::interval_of(Range{make_int(0, t), extents[i]});
  // Imperfect splits are guarded by a predicate on every block below.
  PrimExpr predicate;
  bool exact = const_extent && inferred < 0 ? product == extent : false;
  if (const_extent && inferred >= 0) {
    int64_t outer;
    exact = as_const_int(extents[static_cast<size_t>(inferred)], &outer) && outer * product == extent;
  }
  if (!exact && !disable_predication) predicate = make_binary(ExprKind::LT, arith::simplify(value, dom), loop->extent);

  // Step 3. Rewrite.
  Stmt body = substitute_bindings(loop->body, {{loop->loop_var.get(), value}}, dom, predicate);
  std::vector<LoopSpec> loops;
  for (size_t i = 0; i < vars.size(); ++i) loops.push_back({vars[i], make_int(0, t), extents[i]});
  std::vector<uint64_t> sids;
  s.replace(loop_sid, make_loop_nest(s, loops, body, &sids));
  return sids;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_split_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Split", "split",
      {input("loop", ParamType::Loop), input("factors", ParamType::Factors), attr("preserve_unit_iters", ParamType::Bool, "True"),
       attr("disable_predication", ParamType::Bool, "False")},
      OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        uint64_t loop = sch.loop_sid(c.inputs[0]);
        std::vector<std::optional<int64_t>> factors;
        for (size_t i = 1; i < c.inputs.size(); ++i) {
          const TraceArg& f = c.inputs[i];
          if (f.is_none() || (f.kind == TraceArg::Kind::Int && f.i == -1) || (f.kind == TraceArg::Kind::Ref && !f.ref)) {
            factors.push_back(std::nullopt);  // -1 (or sample_perfect_tile's None) means "infer", like None
          } else if (f.kind == TraceArg::Kind::Int) {
            factors.push_back(f.i);
          } else {
            TSCH_USER_ASSERT_ARG(f.kind == TraceArg::Kind::Ref && f.ref->kind == RVNode::Kind::Expr, TypeError, "factors")
                << "expected a list of int or None";
            factors.push_back(f.ref->value);
          }
        }
        output_loops(c, split(sch.state(), loop, factors, c.attrs[0].as_bool(), c.attrs[1].as_bool()));
      },
      "split(loop, factors, preserve_unit_iters=True, disable_predication=False) -> list of LoopRV\n"
      "Replace the loop by nested loops with the given extents; at most one factor may be None.",
      "the loop still exists; at most one factor is None (or -1); the factors' product covers the extent "
      "(a larger product adds a T.where guard)",
      "for i in range(128):              ->  for i_0, i_1 in T.grid(32, 4):\n"
      "    vi = T.axis.spatial(128, i)           vi = T.axis.spatial(128, i_0 * 4 + i_1)"));
}

}  // namespace tsch::schedule
