// transform_block_layout: re-index a block's iteration space by a bijective affine map of its
// iterators (TVM's TransformBlockLayout, beside TransformLayout in TVM's
// layout_transformation.cc); its registration is with transform_layout's, in transform_layout.cc.
#include <fmt/format.h>

#include <optional>
#include <unordered_set>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/iter_map_symbolic.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

std::vector<PrimExpr> simplified(const std::vector<PrimExpr>& indices, const arith::VarDomain& dom) {
  std::vector<PrimExpr> out;
  for (const auto& i : indices) out.push_back(arith::simplify(i, dom));
  return out;
}

TSCH_SCHEDULE_ERROR_KIND(kNotTrivialBindingError, "NotTrivialBindingError",
                         "The binding values of the block are not variables of outer loops.",
                         "The binding values of the {0} are not variables of outer loops.");
TSCH_SCHEDULE_ERROR_KIND(
    kIndexMapNotApplicableToBlockIterError, "IndexMapNotApplicableToBlockIterError",
    "The index map can't be applied to block iters because the number of parameters mismatch.",
    "The index map can't be applied to block iters of {0} because the number of parameters mismatch.");
TSCH_SCHEDULE_ERROR_KIND(
    kOpaqueNewIterTypeError, "OpaqueNewIterTypeError",
    "Cannot detect the new block iter type because it contains more than one type of original iter vars.",
    "Cannot detect the block iter type for a new iter value in {0} because it contains more than one type of "
    "original iter vars.");
TSCH_SCHEDULE_ERROR_KIND(kNonSingleChildBlockError, "NonSingleChildBlockError.block_layout",
                         "The loops above the block hold more than the block",
                         "The loops above block {0} hold more than the block: transform_block_layout rebuilds them");

// Whether `e` is provably >= 0: built by + and * from non-negative constants and shape
// variables of the function's parameters (which a buffer's shape makes non-negative).
bool non_negative(const PrimExpr& e, const std::unordered_set<const VarNode*>& shape_vars) {
  int64_t c;
  if (as_const_int(e, &c)) return c >= 0;
  if (auto* v = as<VarNode>(e)) return shape_vars.count(v) > 0;
  if (e->kind == ExprKind::Add || e->kind == ExprKind::Mul)
    return non_negative(binary_a(e), shape_vars) && non_negative(binary_b(e), shape_vars);
  return false;
}

// Simplifies the indices of every load and store and the block's regions (TVM's
// BlockBufferAccessSimplifier).
class AccessSimplifier : public IRMutator {
 public:
  explicit AccessSimplifier(const arith::VarDomain& dom) : dom_(dom) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr mutated = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(mutated);
    return std::make_shared<BufferLoadNode>(load->dtype, load->buffer, simplified(load->indices, dom_));
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt mutated = IRMutator::mutate_BufferStore(n, self);
    auto* store = as<BufferStoreNode>(mutated);
    return std::make_shared<BufferStoreNode>(store->buffer, store->value, simplified(store->indices, dom_));
  }

 private:
  const arith::VarDomain& dom_;
};

// Step 1. The loops above the block: from 0, one chain holding only the block, bound trivially;
// and one map parameter per iterator.
void check_trivial_nest(const ScheduleState& s, BlockSid block_sid, const std::vector<Var>& params) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  for (LoopSid l : loops) {
    if (!is_zero(s.loop_at(l).min)) fail(s, kLoopNotStartWithZeroError, {l});
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    const StmtNode* below = i + 1 < loops.size() ? static_cast<const StmtNode*>(&s.loop_at(loops[i + 1])) : realize;
    if (s.loop_at(loops[i]).body.get() != below) fail(s, kNonSingleChildBlockError, {block_sid});
  }
  bool trivial = loops.size() == realize->iter_values.size() && is_one(realize->predicate);
  for (size_t i = 0; trivial && i < loops.size(); ++i)
    trivial = realize->iter_values[i].get() == s.loop_at(loops[i]).loop_var.get();
  if (!trivial) fail(s, kNotTrivialBindingError, {block_sid});
  if (params.size() != block->iter_vars.size()) {
    fail(s, kIndexMapNotApplicableToBlockIterError, {block_sid},
         fmt::format("The index map can't be applied to block iters of {{0}} because the number of parameters "
                     "mismatch. Expected: {}, "
                     "actual: {}",
                     params.size(), block->iter_vars.size()));
  }
}

// Step 2's result: per output of the map its extent and the iterators it combines, and the
// detected map to invert (affine, or over symbolic domains a fusion of whole iterators).
struct BlockLayoutMap {
  bool symbolic = false;
  std::vector<PrimExpr> new_extents;
  std::vector<std::vector<const VarNode*>> sources;
  arith::IterMapResult map;
  arith::SymbolicFuseResult symbolic_map;
};

void affine_layout_map(const ScheduleState& s, const std::vector<PrimExpr>& outputs, const std::vector<Var>& params,
                       const std::vector<PrimExpr>& domain_extents, BlockLayoutMap& m) {
  arith::LoopExtents extents;
  for (size_t i = 0; i < params.size(); ++i) as_const_int(domain_extents[i], &extents[params[i].get()]);
  m.map = arith::detect_iter_map(outputs, extents, true);
  if (!m.map.ok)
    fail(s, kNotBijectiveAffineIndexMapError, {}, "The index map is not bijective affine: the map " + m.map.error);
  for (const auto& sum : m.map.sums) {
    m.new_extents.push_back(make_int(sum.extent));
    m.sources.emplace_back();
    for (const auto& split : sum.splits) m.sources.back().push_back(split.source);
  }
}

// A fusion is a bijection for extents that are not negative (two negative extents would
// fuse into a positive one): each must be built from the parameters' shape variables.
void check_extents_non_negative(const ScheduleState& s, BlockSid block_sid,
                                const std::vector<PrimExpr>& domain_extents) {
  std::unordered_set<const VarNode*> shape_vars;
  for (const auto& [param, b] : s.mod()->prim_func(s.info(block_sid)->func)->buffer_map) {
    for (const auto& dim : b->shape) {
      if (auto* v = as<VarNode>(dim)) shape_vars.insert(v);
    }
  }
  for (size_t i = 0; i < domain_extents.size(); ++i) {
    if (!non_negative(domain_extents[i], shape_vars)) {
      fail_not_supported(s, {block_sid},
                         "transform_block_layout of {0}, whose iterator " +
                             s.block_at(block_sid).iter_vars[i].var->name + " has extent " +
                             ir::script(domain_extents[i]) +
                             ", which tsch cannot prove non-negative (from the parameters' shapes)");
    }
  }
}

void symbolic_layout_map(const ScheduleState& s, BlockSid block_sid, std::vector<PrimExpr>& outputs,
                         const std::vector<Var>& params, const std::vector<PrimExpr>& domain_extents,
                         BlockLayoutMap& m) {
  // The map's other variables must come from the domains (so they are defined here).
  std::string stranger = arith::bind_to_scope(outputs, params, domain_extents);
  if (!stranger.empty()) {
    fail_not_supported(s, {block_sid},
                       "transform_block_layout of {0}, whose iterators have symbolic domains, through a map using " +
                           stranger + ", which the domains do not use");
  }
  check_extents_non_negative(s, block_sid, domain_extents);
  m.symbolic_map = arith::detect_symbolic_fuse(outputs, params, domain_extents);
  if (!m.symbolic_map.ok) {
    fail_not_supported(s, {block_sid},
                       "transform_block_layout of {0}, whose iterators have symbolic domains, through a map that does "
                       "not fuse whole iterators: the map " +
                           m.symbolic_map.error);
  }
  for (const auto& sum : m.symbolic_map.sums) {
    m.new_extents.push_back(sum.extent);
    m.sources.emplace_back();
    for (const auto& digit : sum.digits) m.sources.back().push_back(digit.source);
  }
}

// Step 2. The map over the iterators' domains: bijective affine, with its inverse; over
// symbolic domains, a fusion of whole iterators (arith/iter_map_symbolic.h). `outputs`' free
// variables may be bound to the domains' here.
BlockLayoutMap block_layout_map(const ScheduleState& s, BlockSid block_sid, std::vector<PrimExpr>& outputs,
                                const std::vector<Var>& params) {
  const BlockNode* block = &s.block_at(block_sid);
  std::vector<PrimExpr> domain_extents;
  BlockLayoutMap m;
  for (size_t i = 0; i < params.size(); ++i) {
    int64_t n;
    const IterVar& iv = block->iter_vars[i];
    if (!is_zero(iv.dom.min))
      fail_not_supported(s, {block_sid}, "transform_block_layout of a block whose iterators do not start at 0 ({0})");
    m.symbolic |= !as_const_int(iv.dom.extent, &n);
    domain_extents.push_back(iv.dom.extent);
  }
  if (!m.symbolic)
    affine_layout_map(s, outputs, params, domain_extents, m);
  else
    symbolic_layout_map(s, block_sid, outputs, params, domain_extents, m);
  return m;
}

// The new iterator for output k: the dtype of the old ones it uses, the type of those it
// combines (one type, unless of extent 1).
IterVar new_block_iter(const ScheduleState& s, BlockSid block_sid, const std::vector<Var>& params,
                       const std::vector<PrimExpr>& outputs, const BlockLayoutMap& m, size_t k) {
  const BlockNode* block = &s.block_at(block_sid);
  DataType t = block->iter_vars.empty() ? DataType::int32() : block->iter_vars[0].var->dtype;
  for (size_t i = 0; i < params.size(); ++i) {
    if (uses_var(outputs[k], [&](const VarNode* v) { return v == params[i].get(); }))
      t = block->iter_vars[i].var->dtype;
  }
  PrimExpr extent = m.new_extents[k]->dtype == t ? m.new_extents[k] : arith::simplify(cast(t, m.new_extents[k]));
  std::optional<IterType> type;
  bool mixed = false;
  for (const VarNode* source : m.sources[k]) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (source != params[i].get()) continue;
      IterType it = block->iter_vars[i].type;
      if (type && *type != it) mixed = true;
      type = it;
    }
  }
  if (is_one(extent)) type = IterType::DataPar;
  if (mixed && !is_one(extent)) {
    fail(s, kOpaqueNewIterTypeError, {block_sid},
         "Cannot detect the block iter type for new iter value " + ir::script(outputs[k]) +
             " in {0} because it contains more than one type of original iter vars.");
  }
  Var v = make_var("v" + std::to_string(k), t);
  return IterVar{v, Range{make_int(0, t), extent}, type.value_or(IterType::DataPar)};
}

// Each old iterator as an expression of the new ones, through the map's inverse.
std::unordered_map<const VarNode*, PrimExpr> old_iters_in_new(const BlockNode& block, const std::vector<Var>& params,
                                                              const std::vector<PrimExpr>& outputs,
                                                              const BlockLayoutMap& m,
                                                              const std::vector<PrimExpr>& new_vars,
                                                              const arith::VarDomain& new_dom) {
  std::unordered_map<const VarNode*, PrimExpr> inverse =
      m.symbolic ? arith::inverse_symbolic_fuse(m.symbolic_map, new_vars) : arith::inverse_iter_map(m.map, new_vars);
  std::unordered_map<const VarNode*, PrimExpr> old_to_new;
  for (size_t i = 0; i < params.size(); ++i) {
    auto it = inverse.find(params[i].get());
    PrimExpr value =
        it == inverse.end() ? make_int(0, block.iter_vars[i].var->dtype) : arith::simplify(it->second, new_dom);
    // A unit iterator the map passes through whole stays that new iterator (TVM's form), not 0.
    for (size_t k = 0; it == inverse.end() && k < outputs.size(); ++k) {
      if (outputs[k].get() == params[i].get()) value = new_vars[k];
    }
    old_to_new[block.iter_vars[i].var.get()] = cast(block.iter_vars[i].var->dtype, value);
  }
  return old_to_new;
}

// Step 3. The block over the new iterators: one per output, its body reading the old ones
// through the inverse map, its accesses simplified over the new domain.
std::shared_ptr<BlockNode> relaid_block(const ScheduleState& s, BlockSid block_sid, const std::vector<Var>& params,
                                        const std::vector<PrimExpr>& outputs, const BlockLayoutMap& m) {
  const BlockNode* block = &s.block_at(block_sid);
  auto copy = std::make_shared<BlockNode>(*block);
  copy->iter_vars.clear();
  std::vector<PrimExpr> new_vars;
  arith::VarDomain new_dom;
  for (size_t k = 0; k < outputs.size(); ++k) {
    IterVar iv = new_block_iter(s, block_sid, params, outputs, m, k);
    DataType t = iv.var->dtype;
    copy->iter_vars.push_back(iv);
    new_vars.push_back(iv.var);
    new_dom[iv.var.get()] = arith::Interval{make_int(0, t), arith::simplify(sub(iv.dom.extent, make_int(1, t)))};
  }
  std::unordered_map<const VarNode*, PrimExpr> old_to_new =
      old_iters_in_new(*block, params, outputs, m, new_vars, new_dom);
  AccessSimplifier simplify(new_dom);
  copy->body = simplify.mutate(substitute(block->body, old_to_new));
  if (block->init) copy->init = simplify.mutate(substitute(block->init, old_to_new));
  for (auto* regions : {&copy->reads, &copy->writes}) {
    for (auto& r : *regions) {
      for (auto& range : r.region)
        range = Range{arith::simplify(substitute(range.min, old_to_new), new_dom), range.extent};
    }
  }
  return copy;
}

}  // namespace

// transform_block_layout: re-index a block's iteration space by a bijective affine map of its
// iterators (TVM's TransformBlockLayout); the block gets one iterator (and one loop) per
// output of the map, and its body reads the old iterators through the inverse map.
//
//   for i, j in T.grid(128, 128): vi, vj = i, j        lambda i, j: (i * 128 + j,)
//   ───────────────────────────────────────────▶  for ax0 in range(16384): v0 = ax0; B[v0 // 128, v0 % 128] = ...
void transform_block_layout(ScheduleState& s, BlockSid block_sid, const std::vector<Var>& params,
                            const std::vector<PrimExpr>& map_outputs) {
  std::vector<PrimExpr> outputs = map_outputs;  // its free variables may be bound below
  check_trivial_nest(s, block_sid, params);
  BlockLayoutMap m = block_layout_map(s, block_sid, outputs, params);
  std::shared_ptr<BlockNode> copy = relaid_block(s, block_sid, params, outputs, m);
  // Step 4. New loops, one per new iterator, in place of the old nest.
  std::vector<LoopSpec> specs;
  std::vector<PrimExpr> values;
  for (size_t k = 0; k < copy->iter_vars.size(); ++k) {
    Var ax = make_var("ax" + std::to_string(k), copy->iter_vars[k].var->dtype);
    specs.push_back({ax, nullptr, copy->iter_vars[k].dom.extent});
    values.push_back(ax);
  }
  Stmt nest = make_loop_nest(s, specs, std::make_shared<BlockRealizeNode>(values, make_bool(true), copy));
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  s.replace(loops.empty() ? StmtSid(block_sid) : StmtSid(loops.front()), nest);
}

}  // namespace tsch::schedule
