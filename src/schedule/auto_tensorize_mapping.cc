#include "schedule/auto_tensorize_mapping.h"

#include <map>
#include <unordered_map>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/expr_pair_compare.h"
#include "support/error.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// Compares the block's body (lhs) with the description's (rhs) as TVM's
// AutoTensorizeComparator does: the same operators, dtypes and constants, buffers paired one to
// one by dtype, and each buffer always accessed with the same indices; the indices themselves
// are recorded, not compared, since the mapping is what is sought.
class AutoTensorizeComparator : public ExprPairComparator {
 public:
  explicit AutoTensorizeComparator(AutoTensorizeMappingInfo& out) : out_(out) {}

  bool compare_blocks(const BlockNode& lhs, const BlockNode& rhs) {
    // Only spatial and reduction iterators can be laid out as the description's.
    for (const auto* block : {&lhs, &rhs}) {
      for (const IterVar& iv : block->iter_vars) {
        if (iv.type != IterType::DataPar && iv.type != IterType::CommReduce) return false;
        bind(iv);
      }
    }
    out_.lhs_iters = lhs.iter_vars;
    out_.rhs_iters = rhs.iter_vars;
    return stmt(lhs.body, rhs.body);
  }

  // The indices each buffer is accessed with, lhs simplified under the iterators' ranges.
  std::vector<std::pair<const BufferNode*, std::vector<PrimExpr>>> lhs_indices, rhs_indices;

 private:
  void bind(const IterVar& iv) {
    dom_[iv.var.get()] = arith::Interval{
        iv.dom.min, arith::simplify(sub(add(iv.dom.min, iv.dom.extent), make_int(1, iv.dom.extent->dtype)))};
  }

  // TVM's SimplifyNonTrivialExpr: an index that folds to a constant (a unit iterator) keeps its
  // variable, so the iterator still shows which buffers it indexes.
  PrimExpr simplify_index(const PrimExpr& e) const {
    PrimExpr s = arith::simplify_folding_points(e, dom_);
    return s->kind == ExprKind::IntImm ? e : s;
  }

  bool equal_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      if (a[i]->dtype != b[i]->dtype || !is_zero(arith::simplify_folding_points(sub(a[i], b[i]), dom_))) return false;
    }
    return true;
  }

  static std::vector<PrimExpr>* find(std::vector<std::pair<const BufferNode*, std::vector<PrimExpr>>>& m,
                                     const BufferNode* b) {
    for (auto& [k, v] : m)
      if (k == b) return &v;
    return nullptr;
  }

  // Buffers pair one to one by dtype; scope and shape are left to cache_read/write and padding.
  // (A buffer met on both sides, a description taken from the block's own function, pairs
  // with itself like any other, so the proposer finds it.)
  bool buffer(const Buffer& lhs, const Buffer& rhs) {
    for (const auto& [l, r] : out_.lhs_buffer_map) {
      if (l == lhs || r == rhs) return l == lhs && r == rhs;
    }
    if (lhs->dtype != rhs->dtype) return false;
    out_.lhs_buffer_map.emplace_back(lhs, rhs);
    return true;
  }

  bool access(const Buffer& lb, const std::vector<PrimExpr>& li, const Buffer& rb,
              const std::vector<PrimExpr>& ri) override {
    if (!buffer(lb, rb)) return false;
    std::vector<PrimExpr>* seen_lhs = find(lhs_indices, lb.get());
    if (!seen_lhs) {
      if (find(rhs_indices, rb.get())) return false;
      // The description indexes with its iterators only (or C[0] for a scalar).
      bool scalar = ri.size() == 1 && ri[0]->kind == ExprKind::IntImm && is_zero(ri[0]);
      for (const PrimExpr& index : ri)
        if (index->kind != ExprKind::Var && !scalar) return false;
      std::vector<PrimExpr> simplified;
      for (const PrimExpr& index : li) simplified.push_back(simplify_index(index));
      lhs_indices.emplace_back(lb.get(), std::move(simplified));
      rhs_indices.emplace_back(rb.get(), ri);
      out_.rhs_buffer_indices.emplace_back(rb, ri);
      return true;
    }
    std::vector<PrimExpr>* seen_rhs = find(rhs_indices, rb.get());
    return seen_rhs && equal_indices(li, *seen_lhs) && equal_indices(ri, *seen_rhs);
  }

  bool stmt(const Stmt& lhs, const Stmt& rhs) {
    if (!lhs || !rhs || lhs->kind != rhs->kind) return false;
    // A body of one store is what workloads and descriptions have; anything else does not map.
    if (lhs->kind != StmtKind::BufferStore) return false;
    auto *a = as<BufferStoreNode>(lhs), *b = as<BufferStoreNode>(rhs);
    return access(a->buffer, a->indices, b->buffer, b->indices) && expr(a->value, b->value);
  }

  // No shortcut for one node on both sides: its buffer accesses must still be recorded.
  bool expr(const PrimExpr& lhs, const PrimExpr& rhs) override {
    return lhs->kind == rhs->kind && lhs->dtype == rhs->dtype && compare_operands(lhs, rhs);
  }

  // A variable outside buffer indices: the same one on both sides each time.
  bool var(const VarNode* lhs, const PrimExpr& rhs) override {
    auto [it, fresh] = var_map_.emplace(lhs, as<VarNode>(rhs));
    return it->second == as<VarNode>(rhs);
  }

  AutoTensorizeMappingInfo& out_;
  arith::VarDomain dom_;  // both blocks' iterator ranges
  std::unordered_map<const VarNode*, const VarNode*> var_map_;
};

// Which buffers (by position in lhs_buffer_map) a variable indexes, as a bit string.
using BufferMask = std::vector<bool>;

// TVM's AutoTensorizeMappingProposer: each block iterator goes to the description iterator
// that indexes exactly the paired buffers and has its kind; those of one description iterator
// fuse in block order. Nothing when an iterator has several candidates or a description
// iterator none.
std::optional<ProposedIndexMap> propose_mapping(const AutoTensorizeMappingInfo& info,
                                                const AutoTensorizeComparator& cmp) {
  size_t n = info.lhs_buffer_map.size();
  auto position = [&](const BufferNode* b, bool rhs) {
    for (size_t i = 0; i < n; ++i)
      if ((rhs ? info.lhs_buffer_map[i].second : info.lhs_buffer_map[i].first).get() == b) return i;
    TSCH_INTERNAL_ASSERT(false) << "auto tensorize: a buffer accessed but not paired";
    return n;
  };
  // Step 1. The buffer masks of the description's iterators and of the block's.
  std::unordered_map<const VarNode*, BufferMask> rhs_masks, lhs_masks;
  for (const auto& [rb, indices] : cmp.rhs_indices) {
    size_t pos = position(rb, true);
    for (const PrimExpr& index : indices) {
      TSCH_USER_ASSERT(index->kind == ExprKind::Var, ValueError)
          << "Buffer index " << script(index) << " other than variables in tensor intrinsics is not supported";
      BufferMask& m = rhs_masks[as<VarNode>(index)];
      m.resize(n);
      m[pos] = true;
    }
  }
  for (const auto& [lb, indices] : cmp.lhs_indices) {
    size_t pos = position(lb, false);
    for (const PrimExpr& index : indices) {
      uses_var(index, [&](const VarNode* v) {
        BufferMask& m = lhs_masks[v];
        m.resize(n);
        m[pos] = true;
        return false;
      });
    }
  }
  // Step 2. Each block iterator's candidates: description iterators of its mask and kind.
  ProposedIndexMap map;
  std::vector<PrimExpr> fused(info.rhs_iters.size());
  std::vector<bool> used(info.rhs_iters.size(), false);
  for (const IterVar& iv : info.lhs_iters) map.params.push_back(std::make_shared<VarNode>(iv.var->name, iv.var->dtype));
  for (size_t i = 0; i < info.lhs_iters.size(); ++i) {
    const IterVar& iv = info.lhs_iters[i];
    auto mask = lhs_masks.find(iv.var.get());
    std::vector<size_t> candidates;
    for (size_t r = 0; r < info.rhs_iters.size() && mask != lhs_masks.end(); ++r) {
      auto rmask = rhs_masks.find(info.rhs_iters[r].var.get());
      if (rmask != rhs_masks.end() && rmask->second == mask->second && info.rhs_iters[r].type == iv.type)
        candidates.push_back(r);
    }
    // Step 3. Fuse: ((v0 * e1 + v1) * e2 + v2) ...; unmatched iterators lead, unfused.
    if (candidates.empty()) {
      map.outputs.push_back(map.params[i]);
    } else if (candidates.size() == 1) {
      size_t r = candidates[0];
      fused[r] = fused[r] ? add(mul(fused[r], iv.dom.extent), map.params[i]) : PrimExpr(map.params[i]);
      used[r] = true;
    } else {
      return std::nullopt;  // several description iterators fit: ambiguous, as TVM refuses
    }
  }
  for (size_t r = 0; r < info.rhs_iters.size(); ++r) {
    if (!used[r]) return std::nullopt;
    map.outputs.push_back(arith::simplify(fused[r]));
  }
  return map;
}

}  // namespace

std::optional<AutoTensorizeMappingInfo> get_auto_tensorize_mapping_info(const ScheduleState& s, BlockSid block_sid,
                                                                        const PrimFunc& desc) {
  // Step 1. The description's block: the one block under its root's loops.
  auto* scope = as<BlockRealizeNode>(desc->body);
  TSCH_USER_ASSERT(scope != nullptr, ValueError)
      << "get_auto_tensorize_mapping_info: the description has no root block";
  Stmt st = scope->block->body;
  while (auto* f = as<ForNode>(st)) st = f->body;
  auto* desc_block = as<BlockRealizeNode>(st);
  TSCH_USER_ASSERT(desc_block != nullptr, ValueError)
      << "get_auto_tensorize_mapping_info: the description's root block must hold loops around one block";
  // Step 2. Compare the bodies, collecting buffers, indices and iterators.
  AutoTensorizeMappingInfo info;
  AutoTensorizeComparator cmp(info);
  if (!cmp.compare_blocks(*s.info(block_sid)->realize->block, *desc_block->block)) return std::nullopt;
  // Step 3. Propose the layout.
  std::optional<ProposedIndexMap> map = propose_mapping(info, cmp);
  if (!map) return std::nullopt;
  info.mappings.push_back(std::move(*map));
  return info;
}

}  // namespace tsch::schedule
