// tensorize: put a tensor intrinsic's implementation in place of a block — or of the block
// blockize makes of a loop's subtree — once the block is shown to compute what the
// intrinsic's description computes (TVM's Tensorize with its TensorizeComparator).
//
// Matching walks the block and the description's root block side by side. Loops, block
// iterators and buffers of the block are mapped one to one onto the description's; the
// outermost block's regions fix where each buffer's tile starts (its base indices), and every
// access below must then sit at the description's index plus that base:
//
//   block C_o: reads C[vi_o*16 : +16, ...]       root: reads C[0:16, 0:16]   base (vi_o*16, ...)
//     for i_1 ...: C[vi_o*16 + vi_i, ...]  ~  for i ...: C[vii, ...]        (vi_o*16 + vi_i) - base == vii
//
// The block keeps its iterators, regions and init; its body becomes the implementation's, whose
// buffers are declared as views (T.match_buffer) of the tiles the block accesses. Each use gets
// its own copy of the implementation (fresh variables and buffers), as TVM deep-copies it.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/expr_pair_compare.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/tensor_intrin.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kTensorIntrinMismatchError, "TensorIntrinMismatchError",
                         "The stmt doesn't match the tensor intrin.", "The stmt {0} doesn't match the tensor intrin");

// The loop or block `s` is (a BlockRealize standing for its block); 0 for anything else.
StmtSid stmt_sid_of(const Stmt& s) {
  if (auto* f = as<ForNode>(s)) return sid_of(*f);
  if (auto* b = as<BlockNode>(s)) return sid_of(*b);
  if (auto* r = as<BlockRealizeNode>(s)) return sid_of(*r->block);
  return StmtSid();
}

// Two integer expressions of possibly different widths, both in the wider type.
std::pair<PrimExpr, PrimExpr> unify(PrimExpr a, PrimExpr b) {
  if (a->dtype == b->dtype) return {a, b};
  DataType t = a->dtype.bits >= b->dtype.bits ? a->dtype : b->dtype;
  return {a->dtype == t ? a : cast(t, a), b->dtype == t ? b : cast(t, b)};
}

class TensorizeComparator : public ExprPairComparator {
 public:
  // The block's buffer each description buffer stands for, and each of the block's buffers'
  // base indices (the start of the tile the description sees).
  std::unordered_map<const BufferNode*, Buffer> rhs_buffer_map;
  std::unordered_map<const BufferNode*, std::vector<PrimExpr>> buffer_indices;
  // The innermost loop or block that did not match, and the description's statement there.
  Stmt mismatch_lhs, mismatch_rhs;
  std::vector<std::string> messages;

  bool stmt(const Stmt& lhs, const Stmt& rhs) {
    bool equal = lhs == rhs || (lhs && rhs && lhs->kind == rhs->kind && stmt_(lhs, rhs));
    bool locatable = lhs && (lhs->kind == StmtKind::For || lhs->kind == StmtKind::Block);
    if (!equal && locatable && !mismatch_lhs) {
      mismatch_lhs = lhs;
      mismatch_rhs = rhs;
    }
    return equal;
  }

 private:
  bool error(const std::string& message) {
    messages.push_back(message);
    return false;
  }

  bool stmt_(const Stmt& lhs, const Stmt& rhs) {
    switch (lhs->kind) {
      case StmtKind::For: {
        auto *a = as<ForNode>(lhs), *b = as<ForNode>(rhs);
        if (!def_equal(a->loop_var, b->loop_var)) {
          return error(fmt::format("ForNode loop vars do not match: op->loop_var={} vs rhs->loop_var={}",
                                   a->loop_var->name, b->loop_var->name));
        }
        if (!expr(a->min, b->min))
          return error(fmt::format("ForNode min values do not match: op->min={} vs rhs->min={}", script(a->min),
                                   script(b->min)));
        if (!expr(a->extent, b->extent)) {
          return error(fmt::format("ForNode extent values do not match: op->extent={} vs rhs->extent={}",
                                   script(a->extent), script(b->extent)));
        }
        if (a->for_kind != b->for_kind || a->thread_tag != b->thread_tag) return error("ForNode kinds do not match");
        if (!annotations(a->annotations, b->annotations)) return error("ForNode annotation maps do not match");
        bind_domain(a->loop_var, a->min, a->extent);
        bind_domain(b->loop_var, b->min, b->extent);
        return stmt(a->body, b->body);
      }
      case StmtKind::SeqStmt: {
        auto *a = as<SeqStmtNode>(lhs), *b = as<SeqStmtNode>(rhs);
        if (a->seq.size() != b->seq.size())
          return error(fmt::format("CompareArray array size mismatch. lhs.size()={} vs rhs.size()={}", a->seq.size(),
                                   b->seq.size()));
        for (size_t i = 0; i < a->seq.size(); ++i)
          if (!stmt(a->seq[i], b->seq[i])) return false;
        return true;
      }
      case StmtKind::BufferStore: {
        auto *a = as<BufferStoreNode>(lhs), *b = as<BufferStoreNode>(rhs);
        return access(a->buffer, a->indices, b->buffer, b->indices) && expr(a->value, b->value);
      }
      case StmtKind::BlockRealize: {
        auto *a = as<BlockRealizeNode>(lhs), *b = as<BlockRealizeNode>(rhs);
        if (!is_scope_block_) {
          if (a->iter_values.size() != b->iter_values.size()) return error("BlockRealizeNode iter_values do not match");
          for (size_t i = 0; i < a->iter_values.size(); ++i) {
            if (!expr(a->iter_values[i], b->iter_values[i])) {
              return error(fmt::format(
                  "BlockRealizeNode iter_values do not match: op->iter_values[{}]={} vs rhs->iter_values[{}]={}", i,
                  script(a->iter_values[i]), i, script(b->iter_values[i])));
            }
          }
        }
        return expr(a->predicate, b->predicate) && stmt(Stmt(a->block), Stmt(b->block));
      }
      case StmtKind::Block:
        return block(as<BlockNode>(lhs), as<BlockNode>(rhs));
      case StmtKind::IfThenElse: {
        auto *a = as<IfThenElseNode>(lhs), *b = as<IfThenElseNode>(rhs);
        if (!expr(a->condition, b->condition) || !stmt(a->then_case, b->then_case)) return false;
        return (!a->else_case && !b->else_case) || (a->else_case && b->else_case && stmt(a->else_case, b->else_case));
      }
      case StmtKind::LetStmt: {
        auto *a = as<LetStmtNode>(lhs), *b = as<LetStmtNode>(rhs);
        return expr(a->value, b->value) && def_equal(a->var, b->var) && stmt(a->body, b->body);
      }
      case StmtKind::Evaluate:
        return expr(as<EvaluateNode>(lhs)->value, as<EvaluateNode>(rhs)->value);
      case StmtKind::Allocate:
      case StmtKind::DeclBuffer:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        break;
    }
    return error("statements of this kind are not compared by tensorize");
  }

  bool block(const BlockNode* a, const BlockNode* b) {
    for (const auto& iv : a->iter_vars) bind_domain(iv.var, iv.dom.min, iv.dom.extent);
    for (const auto& iv : b->iter_vars) bind_domain(iv.var, iv.dom.min, iv.dom.extent);
    // The scope block (the one tensorized) keeps its own iterators; every block below must
    // match one to one.
    if (!is_scope_block_) {
      bool same = a->iter_vars.size() == b->iter_vars.size();
      for (size_t i = 0; same && i < a->iter_vars.size(); ++i)
        same = def_equal(a->iter_vars[i].var, b->iter_vars[i].var) && a->iter_vars[i].type == b->iter_vars[i].type;
      if (!same) return error("BlockNode iter_vars do not match: block " + a->name + " vs " + b->name);
      same = a->alloc_buffers.size() == b->alloc_buffers.size();
      for (size_t i = 0; same && i < a->alloc_buffers.size(); ++i)
        same = buffer(a->alloc_buffers[i], b->alloc_buffers[i]);
      if (!same) return error("BlockNode alloc_buffers do not match: block " + a->name + " vs " + b->name);
      // An init of its own would be lost with the block's body: refused unless both have one.
      if (!a->init != !b->init || (a->init && !stmt(a->init, b->init)))
        return error("BlockNode init does not match: block " + a->name + " vs " + b->name);
    }
    if (a->writes.size() != b->writes.size()) {
      return error(fmt::format("BlockNode write buffers do not match: op->writes has {} regions vs rhs->writes {}",
                               a->writes.size(), b->writes.size()));
    }
    for (size_t i = 0; i < a->writes.size(); ++i)
      if (!region(a->writes[i], b->writes[i]))
        return error("BlockNode write buffers do not match: block " + a->name + " vs " + b->name);
    if (a->reads.size() != b->reads.size()) {
      return error(fmt::format("BlockNode read buffers regions do not match: op->reads has {} regions vs rhs->reads {}",
                               a->reads.size(), b->reads.size()));
    }
    for (size_t i = 0; i < a->reads.size(); ++i)
      if (!region(a->reads[i], b->reads[i]))
        return error("BlockNode read buffers regions do not match: block " + a->name + " vs " + b->name);
    is_scope_block_ = false;
    return stmt(a->body, b->body);
  }

  bool annotations(const AttrMap& a, const AttrMap& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a) {
      const AttrValue* other = find_attr(b, key);
      if (!other || other->kind != value.kind) return false;
      if (value.kind == AttrValue::Kind::Expr) {
        if (!expr(value.expr, other->expr)) return false;
      } else if (script(value) != script(*other)) {
        return false;
      }
    }
    return true;
  }

  // A variable of the block first met where the description defines one stands for it.
  bool def_equal(const Var& lhs, const Var& rhs) {
    if (lhs == rhs) return true;
    auto it = equal_map_.find(lhs.get());
    if (it != equal_map_.end()) return it->second == rhs;
    equal_map_[lhs.get()] = rhs;
    subst_[lhs.get()] = lhs->dtype == rhs->dtype ? PrimExpr(rhs) : cast(lhs->dtype, rhs);
    return true;
  }

  void bind_domain(const Var& v, const PrimExpr& min, const PrimExpr& extent) {
    dom_[v.get()] = arith::Interval{min, arith::simplify(sub(add(min, extent), make_int(1, extent->dtype)))};
  }

  // `lhs` (over the block's variables) equals `rhs` (over the description's) once each of the
  // block's variables is read as the description's it stands for.
  bool prove_equal(const PrimExpr& lhs, const PrimExpr& rhs) {
    auto [a, b] = unify(substitute(lhs, subst_), rhs);
    if (is_zero(arith::simplify(sub(a, b), dom_))) return true;
    return arith::can_prove(make_binary(ExprKind::EQ, a, b), dom_);
  }

  bool buffer(const Buffer& lhs, const Buffer& rhs) {
    if (lhs == rhs) return true;
    auto it = rhs_buffer_map.find(rhs.get());
    if (it != rhs_buffer_map.end()) return it->second == lhs;
    bool equal = def_equal(lhs->data, rhs->data) && lhs->dtype == rhs->dtype && lhs->scope == rhs->scope;
    if (!equal) {
      return error(fmt::format("CompareBuffer buffer mismatch. data: {} vs {}, dtypes: {} vs {}, scope(): {} vs {}",
                               lhs->name, rhs->name, lhs->dtype.to_string(), rhs->dtype.to_string(), lhs->scope,
                               rhs->scope));
    }
    rhs_buffer_map[rhs.get()] = lhs;
    return true;
  }

  static std::string region_text(const BufferRegion& r) {
    std::string s = r.buffer->name + "[";
    for (size_t i = 0; i < r.region.size(); ++i) {
      s += (i ? ", " : "") + script(r.region[i].min);
      if (!is_one(r.region[i].extent)) s += ":" + script(arith::simplify(add(r.region[i].min, r.region[i].extent)));
    }
    return s + "]";
  }

  bool region(const BufferRegion& lhs, const BufferRegion& rhs) {
    if (!buffer(lhs.buffer, rhs.buffer))
      return error("CompareBufferRegion returning false due to buffer mismatch: lhs->buffer=" + lhs.buffer->name +
                   " vs rhs->buffer=" + rhs.buffer->name);
    int offset = static_cast<int>(lhs.region.size()) - static_cast<int>(rhs.region.size());
    if (offset < 0) {
      return error(
          fmt::format("CompareBufferRegion returning false because buffer region sizes do not match: "
                      "lhs->region.size()={} vs rhs->region.size()={}",
                      lhs.region.size(), rhs.region.size()));
    }
    auto mismatch = [&](const std::string& what) {
      return error(what + ": " + region_text(lhs) + " vs " + region_text(rhs));
    };
    auto it = buffer_indices.find(lhs.buffer.get());
    if (it == buffer_indices.end()) {
      // The first region of a buffer (the scope block's) fixes its base indices.
      std::vector<PrimExpr> base;
      for (int i = 0; i < offset; ++i) {
        if (!is_one(lhs.region[i].extent))
          return mismatch(
              "CompareBufferRegion returning false because buffer extent high-dim region must be element-wise");
        base.push_back(lhs.region[i].min);
      }
      for (size_t i = 0; i < rhs.region.size(); ++i) {
        base.push_back(lhs.region[i + offset].min);
        if (!prove_equal(lhs.region[i + offset].extent, rhs.region[i].extent))
          return mismatch("CompareBufferRegion buffer extent mismatch");
      }
      buffer_indices.emplace(lhs.buffer.get(), std::move(base));
      return true;
    }
    const std::vector<PrimExpr>& base = it->second;
    for (int i = 0; i < offset; ++i) {
      if (!is_one(lhs.region[i].extent))
        return mismatch(
            "CompareBufferRegion returning false because buffer extent high-dim region must be element-wise");
      auto [x, y] = unify(base[i], lhs.region[i].min);
      if (!is_zero(arith::simplify(sub(x, y), dom_)))
        return mismatch("Buffer base index consistency check failed due to unequal index base");
    }
    for (size_t i = 0; i < rhs.region.size(); ++i) {
      if (!prove_equal(lhs.region[i + offset].extent, rhs.region[i].extent))
        return mismatch("CompareBufferRegion buffer region extent mismatch");
      auto [x, y] = unify(lhs.region[i + offset].min, base[i + offset]);
      if (!prove_equal(arith::simplify(sub(x, y), dom_), rhs.region[i].min))
        return mismatch("CompareBufferRegion buffer region min mismatch");
    }
    return true;
  }

  bool access(const Buffer& lb, const std::vector<PrimExpr>& li, const Buffer& rb,
              const std::vector<PrimExpr>& ri) override {
    if (!buffer(lb, rb)) return false;
    int offset = static_cast<int>(li.size()) - static_cast<int>(ri.size());
    if (offset < 0) {
      return error(
          fmt::format("CompareBufferAccess returning false because buffer indices sizes do not match: "
                      "lhs->indices.size()={} vs rhs->indices.size()={}",
                      li.size(), ri.size()));
    }
    auto it = buffer_indices.find(lb.get());
    if (it == buffer_indices.end()) return error("buffer " + lb->name + " is accessed but not in the block's regions");
    const std::vector<PrimExpr>& base = it->second;
    for (size_t i = 0; i < ri.size(); ++i) {
      auto [x, y] = unify(li[i + offset], base[i + offset]);
      if (!prove_equal(sub(x, y), ri[i])) {
        return error(fmt::format(
            "CompareBufferAccess buffer indices mismatch. lhs->indices[i + offset]={} vs rhs->indices[i]={}",
            script(li[i + offset]), script(ri[i])));
      }
    }
    return true;
  }

  bool expr(const PrimExpr& lhs, const PrimExpr& rhs) override {
    bool equal =
        lhs == rhs || (lhs->kind == rhs->kind && lhs->dtype.code == rhs->dtype.code && compare_operands(lhs, rhs));
    if (!equal) error("Expression mismatch: " + script(lhs) + " vs " + script(rhs));
    return equal;
  }

  bool var(const VarNode* lhs, const PrimExpr& rhs) override {
    auto it = equal_map_.find(lhs);
    return it != equal_map_.end() && it->second.get() == rhs.get();
  }

  bool is_scope_block_ = true;
  std::unordered_map<const VarNode*, Var> equal_map_;   // the block's variable -> the description's
  std::unordered_map<const VarNode*, PrimExpr> subst_;  // the same, as a substitution
  arith::VarDomain dom_;                                // loop and iterator ranges, both sides
};

// A copy of the implementation's body with its own variables, buffers and schedule identities
// (TVM deep-copies the implementation for each use).
// Where the block indexes in int64, the implementation's index variables (buffer fields,
// loops, iterators) become int64 and constants meeting them follow (TVM's
// IndexDataTypeNormalizer).
class Renewer : public IRMutator {
 public:
  Renewer(ScheduleState& s, DataType index) : s_(s), index_(index) {}

  Buffer renew(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    auto n = std::make_shared<BufferNode>(*b);
    n->data = fresh(b->data);
    auto renew_expr = [&](const PrimExpr& e) -> PrimExpr {
      if (!e) return e;
      if (auto* v = as<VarNode>(e); v && !vars_.count(v)) return fresh(std::static_pointer_cast<const VarNode>(e));
      return mutate(e);
    };
    for (auto& d : n->shape) d = widen(renew_expr(d));
    for (auto& d : n->strides) d = renew_expr(d);
    n->elem_offset = renew_expr(n->elem_offset);
    buffers_[b.get()] = n;
    return n;
  }

  using IRMutator::mutate;

 protected:
  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vars_.find(&v);
    return it == vars_.end() ? self : it->second;
  }
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr mutated = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(mutated);
    return std::make_shared<BufferLoadNode>(load->dtype, buffer(load->buffer), load->indices);
  }
  // Operands of two int widths meet at the wider one.
#define TSCH_X(K)                                                        \
  PrimExpr mutate_##K(const K##Node& n, const PrimExpr& self) override { \
    return widened_operands(IRMutator::mutate_##K(n, self));             \
  }
  TSCH_IR_BINARY_KINDS(TSCH_X)
#undef TSCH_X

  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    Var v = fresh(f.loop_var);
    auto out = std::make_shared<ForNode>(*as<ForNode>(IRMutator::mutate_For(f, self)));
    out->loop_var = v;
    out->min = promote(out->min, v->dtype);
    out->extent = promote(out->extent, v->dtype);
    out->sid = s_.fresh_sid();
    return out;
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    for (const auto& iv : b.iter_vars) fresh(iv.var);
    for (const auto& a : b.alloc_buffers) renew(a);
    for (const auto& m : b.match_buffers) renew(m.buffer);
    auto out = std::make_shared<BlockNode>(*as<BlockNode>(IRMutator::mutate_Block(b, self)));
    for (auto& iv : out->iter_vars) {
      iv.var = std::static_pointer_cast<const VarNode>(vars_.at(iv.var.get()));
      iv.dom = Range{promote(iv.dom.min, iv.var->dtype), promote(iv.dom.extent, iv.var->dtype)};
    }
    for (auto& a : out->alloc_buffers) a = buffer(a);
    for (auto& m : out->match_buffers) {
      m.buffer = buffer(m.buffer);
      m.source.buffer = buffer(m.source.buffer);
    }
    for (auto& r : out->reads) r.buffer = buffer(r.buffer);
    for (auto& r : out->writes) r.buffer = buffer(r.buffer);
    out->sid = s_.fresh_sid();
    return out;
  }
  Stmt mutate_LetStmt(const LetStmtNode& l, const Stmt&) override {
    Var v = fresh(l.var);
    return std::make_shared<LetStmtNode>(v, mutate(l.value), mutate(l.body));
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt mutated = IRMutator::mutate_BufferStore(n, self);
    auto* st = as<BufferStoreNode>(mutated);
    return std::make_shared<BufferStoreNode>(buffer(st->buffer), st->value, st->indices);
  }

 private:
  static PrimExpr widened_operands(const PrimExpr& t) {
    const PrimExpr &a = binary_a(t), &b = binary_b(t);
    if (a->dtype != b->dtype && a->dtype.is_int() && b->dtype.is_int() && a->dtype.lanes == 1 && b->dtype.lanes == 1) {
      DataType wide = a->dtype.bits > b->dtype.bits ? a->dtype : b->dtype;
      return make_binary(t->kind, promote(a, wide), promote(b, wide));
    }
    return t;
  }
  bool narrow(DataType t) const { return t.is_int() && t.lanes == 1 && t.bits < index_.bits; }
  PrimExpr widen(const PrimExpr& e) const { return e && narrow(e->dtype) ? promote(e, index_) : e; }
  static PrimExpr promote(const PrimExpr& e, DataType t) {
    if (!e || e->dtype == t || !e->dtype.is_int() || !t.is_int()) return e;
    if (auto* imm = as<IntImmNode>(e)) return make_int(imm->value, t);
    return cast(t, e);
  }
  Var fresh(const Var& v) {
    Var n = v->dtype.is_handle() ? copy_var(*v, v->name) : make_var(v->name, narrow(v->dtype) ? index_ : v->dtype);
    vars_[v.get()] = n;
    return n;
  }
  Buffer buffer(const Buffer& b) {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

  ScheduleState& s_;
  DataType index_;
  std::unordered_map<const VarNode*, PrimExpr> vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

const BlockNode& root_block(const PrimFunc& f) { return *as<BlockRealizeNode>(f->body)->block; }

// The region the implementation's root block declares for `b` (reads first, as TVM looks).
const BufferRegion* declared_region(const BlockNode& block, const Buffer& b) {
  for (const auto& r : block.reads)
    if (r.buffer == b) return &r;
  for (const auto& r : block.writes)
    if (r.buffer == b) return &r;
  return nullptr;
}

}  // namespace

void tensorize(ScheduleState& s, StmtSid block_or_loop, const std::string& intrin_name, bool preserve_unit_iters) {
  const TensorIntrin& intrin = get_tensor_intrin(intrin_name);
  // Step 1. The block to replace: the given one, or the outer block of the loop's subtree.
  LoopSid loop_sid = s.as_loop(block_or_loop);
  BlockSid block_sid = loop_sid ? blockize(s, loop_sid, preserve_unit_iters) : s.as_block(block_or_loop);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  Stmt lhs = std::make_shared<BlockRealizeNode>(*realize);

  // Step 2. Match the description.
  TensorizeComparator cmp;
  Stmt desc = substitute_simplify(intrin.desc->body, {}, {}, /*all=*/true);
  if (!cmp.stmt(lhs, desc)) {
    Stmt where = cmp.mismatch_lhs ? cmp.mismatch_lhs : Stmt(realize->block);
    Stmt pattern = cmp.mismatch_rhs ? cmp.mismatch_rhs : desc;
    std::string detail = "The stmt {0} doesn't match the tensor intrin\nThe pattern attempting to be matched:\n" +
                         script(where) + "\nDoes not match the tensorize description:\n" + script(pattern) + "\n";
    for (const auto& m : cmp.messages) detail += m + "\n";
    StmtSid loc = stmt_sid_of(where) ? stmt_sid_of(where) : StmtSid(block_sid);
    fail(s, kTensorIntrinMismatchError, {loc}, detail);
  }

  // Step 3. The implementation's buffers as views of the tiles the block accesses.
  DataType index = DataType::int32();
  for (const auto* regions : {&realize->block->reads, &realize->block->writes}) {
    for (const auto& r : *regions)
      for (const auto& range : r.region)
        if (range.min->dtype.bits > index.bits) index = range.min->dtype;
  }
  Renewer renewer(s, index);
  const BlockNode& impl_block = root_block(intrin.impl);
  std::vector<MatchBufferRegion> views;
  for (size_t i = 0; i < intrin.impl->params.size(); ++i) {
    Buffer impl = intrin.impl->buffer_of(intrin.impl->params[i]);
    Buffer desc = intrin.desc->buffer_of(intrin.desc->params[i]);
    auto cur = cmp.rhs_buffer_map.find(desc.get());
    if (cur == cmp.rhs_buffer_map.end()) {
      fail_not_supported(s, {block_sid},
                         "tensorize with intrinsic " + intrin_name +
                             ", whose description never accesses its parameter " + desc->name + " (block {0})");
    }
    const BufferRegion* declared = declared_region(impl_block, impl);
    if (!declared) {
      fail_not_supported(s, {block_sid},
                         "tensorize with intrinsic " + intrin_name +
                             ", whose implementation does not declare a region of " + impl->name + " (block {0})");
    }
    const std::vector<PrimExpr>& base = cmp.buffer_indices.at(cur->second.get());
    int offset = static_cast<int>(base.size()) - static_cast<int>(declared->region.size());
    if (offset < 0) {
      fail_not_supported(s, {block_sid},
                         "tensorize: the implementation of " + intrin_name + " declares more dimensions of " +
                             impl->name + " than block {0} accesses");
    }
    BufferRegion source{cur->second, {}};
    for (int d = 0; d < offset; ++d) source.region.push_back(Range{base[d], make_int(1, base[d]->dtype)});
    for (size_t d = 0; d < declared->region.size(); ++d) {
      const PrimExpr& min = base[d + offset];
      PrimExpr extent = declared->region[d].extent;
      source.region.push_back(Range{min, extent->dtype == min->dtype ? extent : cast(min->dtype, extent)});
    }
    views.push_back(MatchBufferRegion{renewer.renew(impl), source});
  }

  // Step 4. The block with the implementation's body.
  auto block = std::make_shared<BlockNode>(*realize->block);
  block->body = renewer.mutate(impl_block.body);
  block->match_buffers = views;
  for (const auto& [key, value] : impl_block.annotations) {
    // The schedule's value wins over the intrinsic's (TVM warns and keeps it).
    if (!find_attr(block->annotations, key)) set_attr(block->annotations, key, value);
  }
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate, block));
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_tensorize_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Tensorize", "tensorize",
      {input("block_or_loop", ParamType::BlockOrLoop), attr("tensor_intrin", ParamType::Str),
       attr("preserve_unit_iters", ParamType::Bool, "True")},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        tensorize(sch.state(), sch.block_or_loop_sid(c.inputs[0]), c.attrs[0].s, c.attrs[1].as_bool());
      },
      "tensorize(block_or_loop, tensor_intrin, preserve_unit_iters=True): replace a block (or the block blockize makes "
      "of a "
      "loop's subtree) by the implementation of a registered tensor intrinsic (tvm.tir.TensorIntrin.register) whose "
      "description it matches.",
      "the intrinsic is registered; the block matches the description: loops, iterators, buffers (dtype and scope), "
      "regions and accesses one to one, each buffer's accesses at the description's indices plus one base per buffer",
      "C_o over 16x16x16 tiles; tensorize(i_1, \"mma\")  ->  C_o's body is the intrinsic's, its buffers "
      "T.match_buffer views of the tiles"));
}

}  // namespace tsch::schedule
