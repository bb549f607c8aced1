// fuse_reduction_epilogue: fold a bias epilogue into the sum that produces its input (TVM's
// FuseReductionEpilogue). The reduction then accumulates straight into the epilogue's output:
// its init starts from the bias, and the epilogue block goes away. The intermediate buffer stays allocated, unused:
// TVM's tests expect it in the fused function (its source drops it; its tests keep it).
//
//   temp[vi, vj] = 0 (init)                      sch.fuse_reduction_epilogue(  D[vi, vj] = C[vi, vj] (init)
//   temp[vi, vj] = temp[vi, vj] + A * B          "multiply", "add")            D[vi, vj] = D[vi, vj] + A * B
//   D[vi, vj] = temp[vi, vj] + C[vi, vj]     ─────────────────────────────▶
//
// The epilogues TVM recognises: Bias `temp + C`, BiasReLU `max(temp + C, 0)` and
// `max(temp, 0)`, Clipping `min(max(temp, lo), hi)` (each with its operands either way round).
// As TVM's documentation warns, BiasReLU and Clipping become per-iteration there: the fused
// block clamps after every step of the sum (init max(C, 0), then max(D + A * B, 0)), which in
// general is not the clamp of the finished sum. tsch recognises them and refuses (not
// supported: an accepted schedule computes what the original computes). Bias keeps the result
// (up to the order of a floating-point sum).
//
// Beyond TVM's checks, tsch refuses ("not supported yet") what TVM would rewrite into a
// different computation: a reduction that is not a sum from 0 (the fused init replaces the
// init), an epilogue that reads the sum at another element than the reduction writes or over
// another domain, another reader of the intermediate buffer (TVM leaves it reading a buffer
// nobody writes any more), and a block between the two that the earlier store would overtake.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/block_scope.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/inline_checks.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(
    kNotSingleWriteBufferError, "NotSingleReadWriteBuffer", "The block is allowed to write only a single buffer region",
    "The block is only allowed to write a single buffer region, but it writes more region(s): {0}");

enum class EpilogueKind { Bias, BiasReLU, Clipping };

// What the epilogue does to the sum: add `addend` (Bias, BiasReLU), clamp at 0 (BiasReLU), or
// clamp to [lower, upper] (Clipping). Expressions in the epilogue's iterators.
struct Epilogue {
  EpilogueKind kind;
  PrimExpr addend, lower, upper;
};

bool is_zero_value(const PrimExpr& e) {
  if (is_zero(e)) return true;
  auto* f = as<FloatImmNode>(e);
  return f && f->value == 0.0;
}

// TVM's AnalyzeEpiloguePattern, in its order: Bias, Clipping min-of-max, Clipping max-of-min,
// then BiasReLU.
std::optional<Epilogue> match_epilogue(const PrimExpr& value, const Buffer& temp) {
  auto is_temp = [&](const PrimExpr& e) {
    auto* load = as<BufferLoadNode>(e);
    return load && load->buffer == temp;
  };
  // temp + C or C + temp: exactly one side is the sum.
  auto bias_of = [&](const PrimExpr& e) -> PrimExpr {
    auto* sum = as<AddNode>(e);
    if (!sum || is_temp(sum->a) == is_temp(sum->b)) return nullptr;
    return is_temp(sum->a) ? sum->b : sum->a;
  };
  auto other_than_temp = [&](const PrimExpr& a, const PrimExpr& b) -> PrimExpr {
    if (is_temp(a)) return b;
    if (is_temp(b)) return a;
    return nullptr;
  };
  if (PrimExpr addend = bias_of(value)) return Epilogue{EpilogueKind::Bias, addend, nullptr, nullptr};
  if (auto* outer = as<MinNode>(value)) {
    auto* inner = as<MaxNode>(outer->a);
    PrimExpr upper = outer->b;
    if (!inner) {
      inner = as<MaxNode>(outer->b);
      upper = outer->a;
    }
    if (inner) {
      if (PrimExpr lower = other_than_temp(inner->a, inner->b))
        return Epilogue{EpilogueKind::Clipping, nullptr, lower, upper};
    }
  }
  if (auto* outer = as<MaxNode>(value)) {
    auto* inner = as<MinNode>(outer->a);
    PrimExpr lower = outer->b;
    if (!inner) {
      inner = as<MinNode>(outer->b);
      lower = outer->a;
    }
    if (inner) {
      if (PrimExpr upper = other_than_temp(inner->a, inner->b))
        return Epilogue{EpilogueKind::Clipping, nullptr, lower, upper};
    }
  }
  if (auto* outer = as<MaxNode>(value)) {
    const PrimExpr* operand = is_zero_value(outer->a) ? &outer->b : is_zero_value(outer->b) ? &outer->a : nullptr;
    if (operand) {
      if (PrimExpr addend = bias_of(*operand)) return Epilogue{EpilogueKind::BiasReLU, addend, nullptr, nullptr};
      if (is_temp(*operand))
        return Epilogue{EpilogueKind::BiasReLU, make_const((*operand)->dtype, 0), nullptr, nullptr};
    }
  }
  return std::nullopt;
}

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!expr_deep_equal(a[i], b[i])) return false;
  }
  return true;
}

std::vector<PrimExpr> substitute_all(const std::vector<PrimExpr>& es,
                                     const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  std::vector<PrimExpr> out;
  for (const PrimExpr& e : es) out.push_back(substitute(e, vmap));
  return out;
}

// The sum's update `temp[idx] = temp[idx] + x` (x + temp[idx] too), x not reading temp, after
// an init `temp[idx] = 0`: what the fused block may start from the epilogue's value instead.
bool is_sum_from_zero(const BlockNode& block, const Buffer& temp) {
  auto* init = as<BufferStoreNode>(block.init);
  auto* update = as<BufferStoreNode>(block.body);
  if (!init || !update || init->buffer != temp || update->buffer != temp) return false;
  if (!is_zero_value(init->value) || !same_indices(init->indices, update->indices)) return false;
  auto* sum = as<AddNode>(update->value);
  if (!sum) return false;
  auto is_self = [&](const PrimExpr& e) {
    auto* load = as<BufferLoadNode>(e);
    return load && load->buffer == temp && same_indices(load->indices, update->indices);
  };
  const PrimExpr* term = is_self(sum->a) ? &sum->b : is_self(sum->b) ? &sum->a : nullptr;
  if (!term) return false;
  bool reads_temp = false;
  for_each_expr(*term, [&](const PrimExpr& e) {
    if (auto* load = as<BufferLoadNode>(e); load && load->buffer == temp) reads_temp = true;
  });
  return !reads_temp;
}

// Step 1. TVM's checks, in its order: the scope, the single buffer the reduction writes, a
// reduction block, a complete epilogue, an intermediate (not output) buffer. Returns temp,
// the buffer the reduction writes.
Buffer check_reduction_and_epilogue(const ScheduleState& s, BlockSid reduction_sid, BlockSid epilogue_sid) {
  if (!s.info(epilogue_sid)->parent) fail(s, kRootBlockError, {epilogue_sid});
  check_stage_pipeline(s, s.scope_block(epilogue_sid));
  const BlockNode* reduction = &s.block_at(reduction_sid);
  if (reduction->writes.size() != 1) {
    fail(s, kNotSingleWriteBufferError, {reduction_sid},
         fmt::format("The block is only allowed to write a single buffer region, but it writes {} region(s): {{0}}",
                     reduction->writes.size()));
  }
  Buffer temp = reduction->writes[0].buffer;
  if (!s.info(reduction_sid)->parent) fail(s, kRootBlockError, {reduction_sid});
  check_reduction_block(s, reduction_sid);
  check_complete_block(s, epilogue_sid);
  if (is_output_block(s, reduction_sid)) fail(s, kNotOutputBlockError, {reduction_sid});
  return temp;
}

// What Step 2 found: the epilogue's store `D[...] = f(temp[...])`, its one load of temp, and
// which epilogue f is.
struct EpiloguePattern {
  const BufferStoreNode* store = nullptr;
  const BufferLoadNode* temp_load = nullptr;
  Epilogue epilogue;
};

// Step 2. TVM's pattern (BodyPatternAllowFusion): an unguarded `D[...] = f(temp[...])` with
// f one of the three epilogues and temp loaded once; a producer with a reduction iterator.
EpiloguePattern epilogue_pattern(const ScheduleState& s, BlockSid reduction_sid, BlockSid epilogue_sid,
                                 const Buffer& temp) {
  const BlockRealizeNode* epilogue_realize = s.info(epilogue_sid)->realize;
  auto* store = as<BufferStoreNode>(s.block_at(epilogue_sid).body);
  bool guarded = epilogue_realize->predicate && !is_one(epilogue_realize->predicate);
  if (guarded || !store) fail(s, kReverseBodyAnalysisError, {epilogue_sid});
  std::vector<const BufferLoadNode*> temp_loads;
  auto collect = [&](const PrimExpr& e) {
    for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* load = as<BufferLoadNode>(x); load && load->buffer == temp) temp_loads.push_back(load);
    });
  };
  for (const PrimExpr& idx : store->indices) collect(idx);
  collect(store->value);
  if (temp_loads.empty()) fail(s, kReverseBodyAnalysisError, {epilogue_sid});
  std::optional<Epilogue> ep = match_epilogue(store->value, temp);
  if (!ep || temp_loads.size() != 1) fail(s, kReverseBodyAnalysisError, {epilogue_sid});
  bool has_reduction_iter = false;
  for (const IterVar& iv : s.block_at(reduction_sid).iter_vars) has_reduction_iter |= iv.type == IterType::CommReduce;
  if (!has_reduction_iter) fail(s, kReverseBodyAnalysisError, {epilogue_sid});
  return EpiloguePattern{store, temp_loads[0], *ep};
}

// The epilogue's iterators stand for the reduction's spatial ones, in order (TVM's mapping),
// so they must range alike and address the same element of temp and of the output. Returns
// the map from the epilogue's iterators to the reduction's.
std::unordered_map<const VarNode*, PrimExpr> check_same_elements(const ScheduleState& s, BlockSid reduction_sid,
                                                                 BlockSid epilogue_sid, const Buffer& temp,
                                                                 const EpiloguePattern& p) {
  const BlockNode* reduction = &s.block_at(reduction_sid);
  const BlockNode* epilogue = &s.block_at(epilogue_sid);
  std::vector<const IterVar*> spatial;
  for (const IterVar& iv : reduction->iter_vars) {
    if (iv.type == IterType::DataPar) spatial.push_back(&iv);
  }
  bool same_domain = spatial.size() == epilogue->iter_vars.size();
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t i = 0; same_domain && i < spatial.size(); ++i) {
    const IterVar& e = epilogue->iter_vars[i];
    same_domain =
        expr_deep_equal(e.dom.min, spatial[i]->dom.min) && expr_deep_equal(e.dom.extent, spatial[i]->dom.extent);
    vmap[e.var.get()] = spatial[i]->var;
  }
  if (!same_domain)
    fail_not_supported(s, {reduction_sid, epilogue_sid},
                       "fusing block {1}, whose iterators range otherwise than the spatial ones of block {0}");
  auto* update = as<BufferStoreNode>(reduction->body);
  if (!same_indices(substitute_all(p.temp_load->indices, vmap), update->indices) ||
      !same_indices(substitute_all(p.store->indices, vmap), update->indices)) {
    fail_not_supported(s, {reduction_sid, epilogue_sid},
                       "fusing block {1}, which reads " + temp->name + " or writes " + p.store->buffer->name +
                           " at another element than block {0} accumulates");
  }
  return vmap;
}

// Nothing writes temp any more: no other block may use it (TVM keeps them reading it); and
// the reduction must not read the output.
void check_buffers_unshared(const ScheduleState& s, BlockSid reduction_sid, BlockSid epilogue_sid, const Buffer& temp,
                            const Buffer& out) {
  for (const BufferRegion& r : s.block_at(reduction_sid).reads) {
    if (r.buffer == out)
      fail_not_supported(s, {reduction_sid, epilogue_sid},
                         "fusing into block {0}, which reads " + out->name + ", the output of block {1}");
  }
  for (BlockSid b : s.blocks_in(s.info(epilogue_sid)->func)) {
    if (b == reduction_sid || b == epilogue_sid || is_under(s, b, reduction_sid) || is_under(s, b, epilogue_sid))
      continue;
    const BlockNode* other = &s.block_at(b);
    if (reads_buffer(other, temp) || writes_buffer(other, temp))
      fail_not_supported(s, {b, reduction_sid}, "fusing away " + temp->name + ", which block {0} reads too");
  }
}

// The epilogue's work moves up to the reduction: no block in between may write what it
// reads, or use its output.
void check_nothing_between(const ScheduleState& s, BlockSid reduction_sid, BlockSid epilogue_sid, const Buffer& temp,
                           const Buffer& out) {
  std::vector<BlockSid> order = s.child_blocks(s.scope_block(epilogue_sid));
  auto pos_r = std::find(order.begin(), order.end(), reduction_sid);
  auto pos_e = std::find(order.begin(), order.end(), epilogue_sid);
  if (pos_r == order.end() || pos_e == order.end() || pos_e < pos_r)
    fail_not_supported(s, {reduction_sid, epilogue_sid}, "fusing block {1}, which does not follow block {0}");
  for (auto it = pos_r + 1; it != pos_e; ++it) {
    const BlockNode* between = &s.block_at(*it);
    bool clash = reads_buffer(between, out) || writes_buffer(between, out);
    for (const BufferRegion& r : s.block_at(epilogue_sid).reads)
      clash |= r.buffer != temp && writes_buffer(between, r.buffer);
    if (clash)
      fail_not_supported(s, {*it, epilogue_sid},
                         "fusing block {1} past block {0}, which uses what block {1} reads or writes");
  }
}

// Replaces loads of `from` by loads of `to` at the same indices.
class ToOutput : public IRMutator {
 public:
  ToOutput(const Buffer& f, const Buffer& t) : from_(f), to_(t) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr m = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(m);
    if (load->buffer == from_) return std::make_shared<BufferLoadNode>(load->dtype, to_, load->indices);
    return m;
  }

 private:
  const Buffer& from_;
  const Buffer& to_;
};

// The fused block's reads: what the bias reads (its regions, in the epilogue's order), then the
// reduction's reads but temp (TVM's order: C first, then A, B).
std::vector<BufferRegion> fused_reads(const BlockNode& reduction, const BlockNode& epilogue, const Buffer& temp,
                                      const PrimExpr& addend,
                                      const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  std::unordered_set<const BufferNode*> operand_buffers;
  for_each_expr(addend, [&](const PrimExpr& x) {
    if (auto* load = as<BufferLoadNode>(x)) operand_buffers.insert(load->buffer.get());
  });
  std::vector<BufferRegion> reads;
  for (const BufferRegion& r : epilogue.reads) {
    if (!operand_buffers.count(r.buffer.get())) continue;
    std::vector<Range> region;
    for (const Range& range : r.region)
      region.push_back(Range{substitute(range.min, vmap), substitute(range.extent, vmap)});
    reads.push_back(BufferRegion{r.buffer, region});
  }
  for (const BufferRegion& r : reduction.reads) {
    if (r.buffer == temp) continue;
    bool known = false;
    for (const BufferRegion& k : reads) {
      bool same = k.buffer == r.buffer && k.region.size() == r.region.size();
      for (size_t d = 0; same && d < r.region.size(); ++d)
        same = expr_deep_equal(k.region[d].min, r.region[d].min) &&
               expr_deep_equal(k.region[d].extent, r.region[d].extent);
      known |= same;
    }
    if (!known) reads.push_back(r);
  }
  return reads;
}

// Step 4's block: the reduction accumulating in the output, starting from the bias.
std::shared_ptr<BlockNode> fused_block(const BlockNode& reduction, const BlockNode& epilogue, const Buffer& temp,
                                       const EpiloguePattern& p,
                                       const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  const Buffer& out = p.store->buffer;
  PrimExpr addend = substitute(p.epilogue.addend, vmap);
  std::vector<PrimExpr> out_indices = substitute_all(p.store->indices, vmap);
  auto* update = as<BufferStoreNode>(reduction.body);
  ToOutput to_output(temp, out);
  auto block = std::make_shared<BlockNode>(reduction);
  block->init = std::make_shared<BufferStoreNode>(out, addend, out_indices);
  block->body = std::make_shared<BufferStoreNode>(out, to_output.mutate(update->value), update->indices);
  block->writes.clear();
  for (const BufferRegion& w : reduction.writes)
    block->writes.push_back(w.buffer == temp ? BufferRegion{out, w.region} : w);
  block->reads = fused_reads(reduction, epilogue, temp, addend, vmap);
  return block;
}

}  // namespace

void fuse_reduction_epilogue(ScheduleState& s, BlockSid reduction_sid, BlockSid epilogue_sid) {
  // Steps 1-2. TVM's checks and pattern.
  Buffer temp = check_reduction_and_epilogue(s, reduction_sid, epilogue_sid);
  EpiloguePattern p = epilogue_pattern(s, reduction_sid, epilogue_sid, temp);
  // Step 3. What tsch asks besides, so that the fused block computes what the two did.
  if (s.scope_block(reduction_sid) != s.scope_block(epilogue_sid))
    fail_not_supported(s, {reduction_sid, epilogue_sid}, "fusing blocks {0} and {1} of different scopes");
  if (!is_sum_from_zero(s.block_at(reduction_sid), temp))
    fail_not_supported(s, {reduction_sid},
                       "fusing an epilogue into block {0}, which is not a single sum `" + temp->name +
                           "[...] = " + temp->name + "[...] + x` starting from 0");
  std::unordered_map<const VarNode*, PrimExpr> vmap = check_same_elements(s, reduction_sid, epilogue_sid, temp, p);
  check_buffers_unshared(s, reduction_sid, epilogue_sid, temp, p.store->buffer);
  check_nothing_between(s, reduction_sid, epilogue_sid, temp, p.store->buffer);
  if (!removable_subtree(s, epilogue_sid))
    fail_not_supported(s, {epilogue_sid}, "removing block {0}, which shares its statement");
  // TVM fuses ReLU and clipping too, clamping after every step of the sum (its documentation
  // warns that results differ): max(a + b, 0) is not max(max(a, 0) + b, 0). An accepted schedule
  // computes what the original does, so tsch recognises them and refuses.
  if (p.epilogue.kind != EpilogueKind::Bias) {
    fail_not_supported(s, {reduction_sid, epilogue_sid},
                       std::string("fusing the ") + (p.epilogue.kind == EpilogueKind::BiasReLU ? "ReLU" : "clipping") +
                           " epilogue {1} into {0}: TVM clamps after every step of the sum, which changes the result");
  }
  // Step 4. Rewrite: the reduction accumulates in the output, starting from the bias; the
  // epilogue goes away (temp's allocation stays).
  auto block = fused_block(s.block_at(reduction_sid), s.block_at(epilogue_sid), temp, p, vmap);
  const BlockRealizeNode* reduction_realize = s.info(reduction_sid)->realize;
  s.replace(reduction_sid,
            std::make_shared<BlockRealizeNode>(reduction_realize->iter_values, reduction_realize->predicate, block));
  remove_from_scope(s, epilogue_sid, nullptr);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_fuse_reduction_epilogue_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "FuseReductionEpilogue", "fuse_reduction_epilogue",
      {input("reduction_block", ParamType::Block), input("epilogue_block", ParamType::Block)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        fuse_reduction_epilogue(sch.state(), sch.block_sid(c.inputs[0]), sch.block_sid(c.inputs[1]));
      },
      "fuse_reduction_epilogue(reduction_block, epilogue_block): fold a bias epilogue into the sum producing its "
      "input; the "
      "reduction then starts from the bias and accumulates into the epilogue's output. TVM also fuses ReLU and "
      "clipping "
      "epilogues by clamping after every step of the sum, which changes the result: tsch refuses them.",
      "the reduction block is a reduction writing one intermediate buffer, a sum from 0; the epilogue is a complete, "
      "unguarded "
      "block `D[...] = temp[...] + C` (operands either way round) reading temp once, at the element the reduction "
      "writes, over the same domain; no other block uses temp",
      "temp[vi, vj] += A[vi, vk] * B[vj, vk]; D[vi, vj] = temp[vi, vj] + C[vi, vj]  ->  init D[vi, vj] = C[vi, vj]; "
      "D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vj, vk] (block add removed; temp stays allocated, unused)"));
}

}  // namespace tsch::schedule
