// cache_read / cache_write: stage a buffer through a copy in another storage scope (TVM's
// CacheRead / CacheWrite); set_scope: change the scope of a buffer allocated in the function.
//
//   cache_read(C, 0, "shared"):  a block "A_shared" copies A into A_shared and C — with every
//   other reader of A, or the consumer_blocks named — reads A_shared. As TVM places it: an
//   input of the scope is copied whole at the scope's start; a buffer written in the scope
//   right after its writer, inside the loops the writer shares with its first consumer (what
//   the writer wrote there). cache_write(C, 0, "local"): C writes C_local and a block
//   "C_local" after it copies C_local back to C, before the first block that still reads C
//   (inside the loops the two share); the consumer_blocks named read C_local itself.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/cache_loc_detector.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// Whether running `s` from its start reads `buffer` (or a match_buffer over it) before any
// statement writes it: the first iteration of a loop, both branches of a condition, nested
// blocks in order (an init before its body).
class ReadsFirst {
 public:
  explicit ReadsFirst(const Stmt& body, const Buffer& buffer) {
    aliases_.insert(buffer->data.get());
    for_each_stmt(body, [&](const Stmt& x) {
      if (auto* r = as<BlockRealizeNode>(x))
        for (const auto& m : r->block->match_buffers)
          if (aliases_.count(m.source.buffer->data.get())) aliases_.insert(m.buffer->data.get());
    });
  }

  bool visit(const Stmt& s) {
    if (!s) return false;
    switch (s->kind) {
      case StmtKind::SeqStmt:
        for (const auto& c : as<SeqStmtNode>(s)->seq)
          if (visit(c)) return true;
        return false;
      case StmtKind::For: {
        auto* f = as<ForNode>(s);
        return reads(f->min) || reads(f->extent) || visit(f->body);
      }
      case StmtKind::BlockRealize: {
        auto* r = as<BlockRealizeNode>(s);
        for (const auto& v : r->iter_values)
          if (reads(v)) return true;
        return reads(r->predicate) || visit(r->block->init) || visit(r->block->body);
      }
      case StmtKind::BufferStore: {
        auto* st = as<BufferStoreNode>(s);
        for (const auto& i : st->indices)
          if (reads(i)) return true;
        if (reads(st->value)) return true;
        if (aliases_.count(st->buffer->data.get())) written_ = true;
        return false;
      }
      case StmtKind::IfThenElse: {
        auto* i = as<IfThenElseNode>(s);
        if (reads(i->condition)) return true;
        bool before = written_;
        if (visit(i->then_case)) return true;
        bool after_then = written_;
        written_ = before;
        if (visit(i->else_case)) return true;
        written_ = after_then && (i->else_case ? written_ : before);
        return false;
      }
      case StmtKind::LetStmt: {
        auto* l = as<LetStmtNode>(s);
        return reads(l->value) || visit(l->body);
      }
      case StmtKind::Block:
      case StmtKind::Evaluate:
      case StmtKind::Allocate:
      case StmtKind::DeclBuffer:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        break;
    }
    // Any other statement: its reads count, in no particular order.
    bool found = false;
    for_each_expr(s, [&](const PrimExpr& e) { found = found || reads(e); });
    if (found) return true;
    for_each_stmt(s, [&](const Stmt& x) {
      if (auto* st = as<BufferStoreNode>(x); st && aliases_.count(st->buffer->data.get())) written_ = true;
    });
    return false;
  }

 private:
  bool reads(const PrimExpr& e) const {
    if (!e || written_) return false;
    bool found = false;
    for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* l = as<BufferLoadNode>(x)) found = found || aliases_.count(l->buffer->data.get()) > 0;
    });
    return found;
  }
  std::unordered_set<const VarNode*> aliases_;
  bool written_ = false;
};

bool reads_before_writing(const BlockNode& block, const Buffer& buffer) {
  return ReadsFirst(block.body, buffer).visit(block.body);
}

// The region of `region` (accessed by `block`) over the loops of its scope below loop
// `below` (all of them when 0): the loops outside stay symbolic.
std::vector<arith::Interval> scope_region(const ScheduleState& s, BlockSid block_sid, const BufferRegion& region,
                                          LoopSid below = LoopSid()) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  const BlockNode* block = &s.block_at(block_sid);
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i].var.get()] = realize->iter_values[i];
  arith::VarDomain dom, outer;  // the loops relaxed; the loops left symbolic
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  auto from = std::find(loops.begin(), loops.end(), below);
  auto first = from == loops.end() ? loops.begin() : from + 1;
  for (auto it = loops.begin(); it != loops.end(); ++it) {
    const ForNode* f = &s.loop_at(*it);
    (it >= first ? dom : outer)[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  }
  // The iterators of the blocks around the scope stay symbolic, inside their domains: the
  // clamp below needs them to see that `i * 16 + 15` of a 16-row tile stays inside the buffer.
  for (BlockSid up = s.scope_block(block_sid); up; up = s.scope_block(up)) {
    for (const auto& iv : s.block_at(up).iter_vars) outer[iv.var.get()] = arith::interval_of(iv.dom);
  }
  std::vector<arith::Interval> out;
  for (size_t d = 0; d < region.region.size(); ++d) {
    const Range& r = region.region[d];
    const PrimExpr& size = region.buffer->shape[d];
    arith::Interval whole = arith::interval_of(Range{make_int(0, size->dtype), size});
    arith::Interval lo = arith::eval_interval(substitute(r.min, bind), dom);
    arith::Interval hi = arith::eval_interval(
        substitute(arith::simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype))), bind), dom);
    if (!lo.min || !hi.min) {
      out.push_back(whole);
      continue;
    }
    // A loop whose extent names an outer loop (reverse_compute_at clamps it to
    // `T.min(j_0 * 24 + 23, 63) - j_0 * 24 + 1`) leaves that outer loop in the bounds after
    // one relaxation: relax again until only variables outside the scope remain.
    auto uses_scope_loop = [&](const PrimExpr& e) {
      return uses_var(e, [&](const VarNode* v) { return dom.count(v) > 0; });
    };
    for (int round = 0; round < 8 && lo.min && hi.max && (uses_scope_loop(lo.min) || uses_scope_loop(hi.max));
         ++round) {
      lo = arith::eval_interval(lo.min, dom);
      hi = arith::eval_interval(hi.max, dom);
    }
    if (!lo.min || !hi.max || uses_scope_loop(lo.min) || uses_scope_loop(hi.max)) {
      out.push_back(whole);
      continue;
    }
    // Loops of an imperfect split reach past the end (where the block's T.where stops the
    // access): the copy stays inside the buffer.
    out.push_back(arith::interval_clamp({arith::simplify(lo.min), arith::simplify(hi.max)}, whole, outer));
  }
  return out;
}

}  // namespace

Stmt copy_nest(ScheduleState& s, const std::string& name, const Buffer& src, const Buffer& dst,
               const std::vector<arith::Interval>& region, BlockSid& block_sid, bool compact, bool cache_is_dst) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  block->sid = s.fresh_sid();
  block_sid = sid_of(*block);
  std::vector<Var> loops;
  std::vector<PrimExpr> extents, bindings, indices;
  for (size_t d = 0; d < region.size(); ++d) {
    const PrimExpr& extent_of_dim = src->shape[d];
    DataType t = extent_of_dim->dtype;
    Var ax = make_var("ax" + std::to_string(d), t);
    Var v = make_var("v" + std::to_string(d), t);
    loops.push_back(ax);
    // The copy loops take the buffer's index type (int64 loops for an int64 shape, as TVM).
    PrimExpr extent =
        arith::simplify(cast(t, add(sub(region[d].max, region[d].min), make_int(1, region[d].max->dtype))));
    extents.push_back(extent);
    bindings.push_back(compact ? PrimExpr(ax) : arith::simplify(add(cast(t, region[d].min), ax)));
    indices.push_back(v);
    block->iter_vars.push_back(IterVar{v, Range{make_int(0, t), compact ? extent : extent_of_dim}, IterType::DataPar});
  }
  // The compact cache is indexed from 0, the other buffer from the region's start.
  std::vector<PrimExpr> src_indices = indices, dst_indices = indices;
  if (compact) {
    std::vector<PrimExpr>& shifted = cache_is_dst ? src_indices : dst_indices;
    for (size_t d = 0; d < region.size(); ++d)
      shifted[d] = arith::simplify(add(cast(indices[d]->dtype, region[d].min), indices[d]));
  }
  BufferRegion read{src, {}}, write{dst, {}};
  for (size_t d = 0; d < indices.size(); ++d) {
    read.region.push_back(Range{src_indices[d], make_int(1, indices[d]->dtype)});
    write.region.push_back(Range{dst_indices[d], make_int(1, indices[d]->dtype)});
  }
  block->reads = {read};
  block->writes = {write};
  block->body = std::make_shared<BufferStoreNode>(dst, buffer_load(src, src_indices), dst_indices);
  std::vector<LoopSpec> nest;
  for (size_t k = 0; k < loops.size(); ++k) nest.push_back({loops[k], nullptr, extents[k]});
  return make_loop_nest(s, nest, std::make_shared<BlockRealizeNode>(bindings, make_bool(true), block));
}

size_t top_level_index(const ScheduleState& s, StmtSid sid, BlockSid scope) {
  StmtSid top = sid;
  while (s.info(top)->parent != scope) top = s.info(top)->parent;
  const StmtNode* node = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
  const BlockNode* scope_block = &s.block_at(scope);
  if (auto* seq = as<SeqStmtNode>(peel_decls(scope_block->body).inner)) {
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (seq->seq[i].get() == node) return i;
    }
  }
  return 0;
}

namespace {

// The shape of a compact cache over `region`, or nothing where an extent names a loop or
// block iterator (a tile clamped at the buffer's edge): the scope block cannot allocate a
// buffer sized by its own iterators, so the cache keeps the buffer's shape.
std::optional<std::vector<PrimExpr>> compact_shape(const ScheduleState& s, BlockSid scope, const Buffer& buffer,
                                                   const std::vector<arith::Interval>& region) {
  std::unordered_set<const VarNode*> iterators;
  for_each_stmt(Stmt(std::make_shared<BlockNode>(s.block_at(s.root_of(s.info(scope)->func)))), [&](const Stmt& x) {
    if (auto* f = as<ForNode>(x)) iterators.insert(f->loop_var.get());
    if (auto* b = as<BlockNode>(x)) {
      for (const auto& iv : b->iter_vars) iterators.insert(iv.var.get());
    }
  });
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < region.size(); ++d) {
    shape.push_back(arith::simplify(
        cast(buffer->shape[d]->dtype, add(sub(region[d].max, region[d].min), make_int(1, region[d].max->dtype)))));
    if (uses_var(shape.back(), [&](const VarNode* v) { return iterators.count(v) > 0; })) return std::nullopt;
  }
  return shape;
}

// Accesses of a compact cache: indices and regions counted from the cached region's start.
BufferReindex region_shift(const std::vector<arith::Interval>& region) {
  BufferReindex shift;
  shift.indices = [region](const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < idx.size(); ++d)
      out.push_back(arith::simplify(sub(idx[d], cast(idx[d]->dtype, region[d].min))));
    return out;
  };
  shift.region = [region](const std::vector<Range>& rs) {
    std::vector<Range> out;
    for (size_t d = 0; d < rs.size(); ++d)
      out.push_back(Range{arith::simplify(sub(rs[d].min, cast(rs[d].min->dtype, region[d].min))), rs[d].extent});
    return out;
  };
  return shift;
}

TSCH_SCHEDULE_ERROR_KIND(kInvalidStorageScopeError, "InvalidStorageScopeError", "The input storage scope is invalid",
                         "The input storage scope is invalid.");

void check_scope(const ScheduleState& s, const std::string& scope) { check_storage_scope(s, scope); }

// Where cache_write's copy-back goes in the scope's body when it stays at the scope's top
// level: just before the first top-level statement after the producer's that holds a reader
// of `buffer` (other than the `consumers`, which read the cache); at the end of the body when
// nothing else in the scope reads it. A reader sharing the producer's top-level statement
// that TVM's CacheLocDetector could not place the copy before (it runs first in a shared loop)
// is refused, leaving the schedule unchanged.
size_t copy_back_position(const ScheduleState& s, BlockSid block_sid, BlockSid scope, const Buffer& buffer,
                          const std::unordered_set<BlockSid>& consumers) {
  size_t here = top_level_index(s, block_sid, scope);
  bool any_reader = false;
  size_t first_after = SIZE_MAX;
  for (BlockSid other : s.blocks_in(s.info(block_sid)->func)) {
    if (other == block_sid || other == scope || consumers.count(other)) continue;
    // Readers at any depth of the scope, except inside the producer itself.
    BlockSid up = s.scope_block(other);
    while (up && up != scope && up != block_sid) up = s.scope_block(up);
    if (up != scope) continue;
    bool touches = false;
    for (const auto& a : s.block_at(other).reads) touches |= a.buffer == buffer;
    if (!touches) continue;
    any_reader = true;
    size_t at = top_level_index(s, other, scope);
    if (at == here) {
      fail_not_supported(
          s, {block_sid, other},
          fmt::format(
              "cache_write of {} while block {{1}}, which reads it, runs before block {{0}} in a loop they share",
              buffer->name));
    }
    if (at > here) first_after = std::min(first_after, at);
  }
  if (!any_reader) return body_items(peel_decls(s.block_at(scope).body).inner).size();
  // A reader before the producer reads the old contents: the copy follows the producer.
  return first_after == SIZE_MAX ? here + 1 : first_after;
}

}  // namespace

void check_storage_scope(const ScheduleState& s, const std::string& scope) {
  if (!valid_storage_scope(scope))
    fail(s, kInvalidStorageScopeError, {}, "The input storage scope \"" + scope + "\" is invalid.");
}

namespace {

bool block_writes(const ScheduleState& s, BlockSid block, const Buffer& buffer) {
  return writes_buffer(&s.block_at(block), buffer);
}

// The blocks of the scope (at any depth) that read `buffer`, except those writing it and
// those inside a block that writes it: as TVM's CacheReadRewriter, which leaves the writer's
// whole subtree alone (a reader in there runs before the copy, which follows the writer).
std::vector<BlockSid> readers_in_scope(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  std::vector<BlockSid> out;
  for (BlockSid b : s.blocks_in(s.info(scope)->func)) {
    if (b == scope) continue;
    bool in_writer = false;
    BlockSid up = s.scope_block(b);
    for (; up && up != scope; up = s.scope_block(up)) in_writer = in_writer || block_writes(s, up, buffer);
    if (!up || in_writer) continue;
    bool reads = false;
    for (const auto& r : s.block_at(b).reads) reads |= r.buffer == buffer;
    if (reads && !block_writes(s, b, buffer)) out.push_back(b);
  }
  return out;
}

// Both cache primitives' rewrite of the scope: the `redirected` blocks access `cache`
// instead of `buffer` (re-indexed by `shift` when compact), and the copy nest goes into the
// body of loop `loc` at `pos` (the caller inserts it into the scope block's body itself).
class Rewriter : public IRMutator {
 public:
  Rewriter(const std::unordered_set<BlockSid>& redirected, const Buffer& src, const Buffer& cache,
           const BufferReindex* shift, StmtSid loc, size_t pos, const Stmt& nest)
      : redirected_(redirected), src_(src), cache_(cache), shift_(shift), loc_(loc), pos_(pos), nest_(nest) {}
  using IRMutator::mutate;
  Stmt insert(const Stmt& body) {
    ++inserted;
    return insert_into_body(body, pos_, nest_);
  }
  int inserted = 0;

 protected:
  Stmt mutate_BlockRealize(const BlockRealizeNode& realize, const Stmt& self) override {
    if (redirected_.count(sid_of(*realize.block))) return replace_buffer(self, src_, cache_, shift_);
    return IRMutator::mutate_BlockRealize(realize, self);
  }
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    Stmt t = IRMutator::mutate_For(loop, self);
    auto* f = as<ForNode>(t);
    if (sid_of(*f) != loc_) return t;
    auto out = std::make_shared<ForNode>(*f);
    out->body = insert(f->body);
    return out;
  }

 private:
  const std::unordered_set<BlockSid>& redirected_;
  Buffer src_, cache_;
  const BufferReindex* shift_;
  StmtSid loc_;
  size_t pos_;
  Stmt nest_;
};

// The named consumer blocks with the blocks nested in them (TVM: GetChildBlocks).
std::unordered_set<BlockSid> with_nested_blocks(const ScheduleState& s, const std::vector<BlockSid>& blocks) {
  std::unordered_set<BlockSid> out;
  for (BlockSid c : blocks) {
    out.insert(c);
    for (BlockSid b : s.blocks_in(s.info(c)->func)) {
      for (BlockSid up = s.scope_block(b); up; up = s.scope_block(up)) {
        if (up == c) out.insert(b);
      }
    }
  }
  return out;
}

// Where a copy goes: into the body of loop `loc` (or of the scope block) at `pos`, copying
// `region` of the buffer.
struct CacheSite {
  StmtSid loc;
  size_t pos = 0;
  std::vector<arith::Interval> region;
};

// Step 3 of both: the `redirected` blocks access `cache` instead of `buffer` (re-indexed by
// `shift` when compact), the copy nest goes in at `site`, and the scope allocates the cache.
void install_cache(ScheduleState& s, BlockSid scope, const std::unordered_set<BlockSid>& redirected,
                   const Buffer& buffer, const Buffer& cache, const BufferReindex* shift, const CacheSite& site,
                   const Stmt& nest, const char* primitive) {
  Rewriter rewrite(redirected, buffer, cache, shift, site.loc, site.pos, nest);
  auto new_scope = std::make_shared<BlockNode>(s.block_at(scope));
  new_scope->body = rewrite.mutate(new_scope->body);
  if (site.loc == scope) new_scope->body = rewrite.insert(new_scope->body);
  new_scope->alloc_buffers.push_back(cache);
  TSCH_INTERNAL_ASSERT(rewrite.inserted == 1) << primitive << ": the insertion point was not found";
  const BlockRealizeNode* realize = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate, new_scope));
}

// ---- cache_read's steps

// Step 1: a valid scope, a read index of the block, a buffer the block does not also write
// (it would read the copy and update it, and its results never reach the buffer). Returns
// the buffer.
Buffer check_cache_read(const ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name) {
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->reads.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, false);
  }
  Buffer src = block->reads[static_cast<size_t>(index)].buffer;
  for (const auto& w : block->writes) {
    if (w.buffer == src) {
      fail_not_supported(
          s, {block_sid},
          fmt::format("cache_read of {}, which block {{0}} also writes (cache_write caches both)", src->name));
    }
  }
  return src;
}

// TVM's NotSingleWriteBlock over the scope's child blocks: the buffer's writer, or 0 for an
// input of the scope.
BlockSid only_writer(const ScheduleState& s, BlockSid scope, const Buffer& src) {
  std::vector<BlockSid> writers;
  for (BlockSid b : s.child_blocks(scope)) {
    if (writes_buffer(&s.block_at(b), src)) writers.push_back(b);
  }
  if (writers.size() > 1) {
    fail(s, kNotSingleWriteBlock, {writers[0], writers[1]},
         "The buffer " + src->name +
             " is expected to be written by single block, but it is written by blocks {0} and {1}.");
  }
  return writers.empty() ? BlockSid() : writers[0];
}

// Case 1: the buffer is written in the scope. The copy follows the writer, covering what it
// writes below the insertion point.
CacheSite site_after_writer(const ScheduleState& s, BlockSid block_sid, BlockSid scope, BlockSid writer,
                            const Buffer& src, const std::vector<BlockSid>& readers,
                            const std::unordered_set<BlockSid>& consumers) {
  const BlockNode& scope_block = s.block_at(scope);
  CacheSite site{scope, 0, {}};
  std::unordered_set<BlockSid> related =
      consumers.empty() ? std::unordered_set<BlockSid>(readers.begin(), readers.end()) : consumers;
  related.erase(writer);
  if (related.empty()) {
    site.pos = body_items(scope_block.body).size();
  } else {
    CacheLocDetector detector(writer, scope, related);
    detector.visit(Stmt(std::make_shared<BlockNode>(scope_block)));
    if (detector.holds_both)
      fail_not_supported(s, {block_sid},
                         "cache_read where the writer of " + src->name + " and a consumer share a container block");
    if (detector.pos < 0 || !detector.loc)
      fail_not_supported(s, {block_sid}, "cache_read where its consumers run before the writer of " + src->name);
    site.loc = detector.loc;
    site.pos = static_cast<size_t>(detector.pos);
    // The position indexes the loop's (or scope's) own body; a sequence nested deeper (under
    // a branch inside the loop) has no insertion point here.
    Stmt body = site.loc == scope ? peel_decls(scope_block.body).inner : s.loop_at(s.as_loop(site.loc)).body;
    if (detector.seq && body.get() != detector.seq) {
      fail_not_supported(
          s, {block_sid},
          "cache_read where the writer of " + src->name + " and its first consumer meet under a branch or binding");
    }
  }
  // An undeclared container (loop_partition's blocks) writes what the blocks inside it do.
  arith::AccessRegions writer_regions = arith::effective_access_regions(s.block_at(writer));
  const BufferRegion* written = nullptr;
  for (const auto& w : writer_regions.writes) {
    if (w.buffer == src) written = &w;
  }
  site.region = scope_region(s, writer, *written, site.loc == scope ? LoopSid() : s.as_loop(site.loc));
  return site;
}

// Case 2: an input of the scope: the whole buffer (or what the scope block declares it
// reads), copied first. A declared region may reach past the buffer where the reads are
// guarded (a padding block's `T.if_then_else(1 <= h, X[h - 1], 0)`, relaxed by blockize
// without its condition): the copy stays inside the buffer, as nothing reads outside it.
CacheSite site_of_input(const ScheduleState& s, BlockSid scope, const Buffer& src) {
  const BufferRegion* declared = nullptr;
  for (const auto& r : s.block_at(scope).reads) {
    if (r.buffer == src) declared = &r;
  }
  arith::VarDomain outer;
  for (BlockSid up = scope; up; up = s.scope_block(up)) {
    for (const auto& iv : s.block_at(up).iter_vars) outer[iv.var.get()] = arith::interval_of(iv.dom);
  }
  CacheSite site{scope, 0, {}};
  for (size_t d = 0; d < src->shape.size(); ++d) {
    const PrimExpr& size = src->shape[d];
    Range r = declared ? declared->region[d] : Range{make_int(0, size->dtype), size};
    arith::Interval whole = arith::interval_of(Range{make_int(0, size->dtype), size});
    site.region.push_back(arith::interval_clamp(
        {r.min, arith::simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype)))}, whole, outer));
  }
  return site;
}

// A copy inside a loop, or with consumers outside the insertion point, keeps the buffer's
// shape (TVM's cache_full_region).
bool cache_full_region(const ScheduleState& s, BlockSid scope, const CacheSite& site,
                       const std::vector<BlockSid>& readers, const std::unordered_set<BlockSid>& consumers) {
  bool full = site.loc != scope;
  if (full) return true;
  for (BlockSid r : readers) {
    if (!consumers.empty() && !consumers.count(r)) continue;
    StmtSid up = r;
    while (up && up != site.loc) up = s.info(up)->parent;
    full = full || up != site.loc;
  }
  return full;
}

// ---- cache_write's steps

// Step 1: a valid scope, a write index of the block, the buffer's only writer in the scope
// (TVM's GetOnlyWriteBlock over the scope's child blocks: a block nested in the producer, as
// blockize leaves an init block in its T.init, writes through it). Returns the write region.
const BufferRegion& check_cache_write(const ScheduleState& s, BlockSid block_sid, int64_t index,
                                      const std::string& scope_name) {
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, true);
  }
  const BufferRegion& write = block->writes[static_cast<size_t>(index)];
  const Buffer& dst = write.buffer;
  for (BlockSid other : s.child_blocks(s.scope_block(block_sid))) {
    if (other == block_sid) continue;
    if (writes_buffer(&s.block_at(other), dst)) {
      fail(s, kNotSingleWriteBlock, {block_sid, other},
           "The buffer " + dst->name +
               " is expected to be written by single block, but it is written by blocks {0} and {1}.");
    }
  }
  return write;
}

// A block that reads what it writes before writing it, with no T.init to start the cache
// from (an update block left by decompose_reduction, blockized or not; an in-place update),
// would read the cache before anything stored to it: the buffer's values are not copied in.
// (A scope block that writes the buffer in one block and reads it in a later one is cached as
// TVM caches it.)
void check_not_read_before_written(const ScheduleState& s, BlockSid block_sid, const Buffer& dst) {
  const BlockNode* block = &s.block_at(block_sid);
  if (!block->init && reads_before_writing(*block, dst)) {
    fail_not_supported(
        s, {block_sid},
        "cache_write of " + dst->name + " written by block {0}, which reads " + dst->name +
            " before writing it and has no T.init: the cache would be read before anything is stored to it");
  }
}

// The consumers named read the cache itself: they must run after the producer and read only
// what it writes (`written`), or they would read the cache before (or where) nothing was
// stored in it (TVM does not ask; a reader of a parameter's old contents would silently
// change).
void check_consumers_read_written(const ScheduleState& s, BlockSid block_sid, const Buffer& dst,
                                  const std::vector<BlockSid>& consumer_blocks,
                                  const std::vector<arith::Interval>& written) {
  std::vector<BlockSid> order = s.blocks_in(s.info(block_sid)->func);
  for (BlockSid c : consumer_blocks) {
    if (std::find(order.begin(), order.end(), c) < std::find(order.begin(), order.end(), block_sid))
      fail_not_supported(
          s, {block_sid, c},
          "cache_write of " + dst->name + " read from the cache by block {1}, which runs before block {0}");
    for (const auto& r : s.block_at(c).reads) {
      if (r.buffer != dst) continue;
      std::vector<arith::Interval> read = scope_region(s, c, r);
      for (size_t d = 0; d < read.size(); ++d) {
        bool inside = arith::can_prove(make_binary(ExprKind::LE, written[d].min, read[d].min), {}) &&
                      arith::can_prove(make_binary(ExprKind::LE, read[d].max, written[d].max), {});
        if (!inside)
          fail_not_supported(s, {block_sid, c},
                             "cache_write of " + dst->name +
                                 " read from the cache by block {1}, which reads elements block {0} does not write");
      }
    }
  }
}

// Step 2: where the copy-back goes (TVM's CacheLocDetector): after the producer, before the
// first block still reading the buffer itself — inside the loops the two share, where they
// share any; else at the scope's top level, over what the producer writes there (`written`).
CacheSite copy_back_site(const ScheduleState& s, BlockSid block_sid, BlockSid scope, const BufferRegion& write,
                         const std::unordered_set<BlockSid>& consumers, const std::vector<arith::Interval>& written) {
  const Buffer& dst = write.buffer;
  std::unordered_set<BlockSid> related;
  for (BlockSid c : s.child_blocks(scope)) {
    if (c != block_sid && !consumers.count(c) && reads_buffer(&s.block_at(c), dst)) related.insert(c);
  }
  CacheSite site{scope, 0, {}};
  if (!related.empty()) {
    CacheLocDetector detector(block_sid, scope, related);
    detector.visit(Stmt(std::make_shared<BlockNode>(s.block_at(scope))));
    if (detector.holds_both)
      fail_not_supported(s, {block_sid},
                         "cache_write where block {0} and a reader of " + dst->name + " share a container block");
    if (detector.loc && detector.loc != scope && detector.pos >= 0) {
      site.loc = detector.loc;
      site.pos = static_cast<size_t>(detector.pos);
      if (detector.seq != s.loop_at(s.as_loop(site.loc)).body.get())
        fail_not_supported(
            s, {block_sid},
            "cache_write where block {0} and the next reader of " + dst->name + " meet under a branch or binding");
    }
  }
  if (site.loc == scope) site.pos = copy_back_position(s, block_sid, scope, dst, consumers);
  site.region = site.loc == scope ? written : scope_region(s, block_sid, write, s.as_loop(site.loc));
  return site;
}

}  // namespace

BlockSid cache_read(ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name,
                    const std::vector<BlockSid>& consumer_blocks) {
  // Step 1. Check.
  Buffer src = check_cache_read(s, block_sid, index, scope_name);
  BlockSid scope = s.scope_block(block_sid);
  // The consumers that read the copy: those named (with the blocks inside them), else all.
  std::unordered_set<BlockSid> consumers = with_nested_blocks(s, consumer_blocks);
  std::vector<BlockSid> readers = readers_in_scope(s, scope, src);
  // Step 2. Where the copy goes and what it copies (TVM's CacheRead); the cache is the
  // region's shape where it can be.
  BlockSid writer = only_writer(s, scope, src);
  CacheSite site =
      writer ? site_after_writer(s, block_sid, scope, writer, src, readers, consumers) : site_of_input(s, scope, src);
  bool full = cache_full_region(s, scope, site, readers, consumers);
  std::vector<PrimExpr> shape = src->shape;
  if (!full) {
    std::optional<std::vector<PrimExpr>> compact = compact_shape(s, scope, src, site.region);
    if (compact) shape = *compact;
    full = !compact;
  }
  Buffer cache = buffer_with(src, cache_name(src->name, scope_name), shape, scope_name);
  BlockSid copy_sid;
  Stmt nest = copy_nest(s, cache->name, src, cache, site.region, copy_sid, !full);
  // Step 3. The consumers read the cache (re-indexed from the region's start when compact).
  BufferReindex shift = region_shift(site.region);
  std::unordered_set<BlockSid> redirected;
  for (BlockSid r : readers) {
    if (consumers.empty() || consumers.count(r)) redirected.insert(r);
  }
  install_cache(s, scope, redirected, src, cache, full ? nullptr : &shift, site, nest, "cache_read");
  return copy_sid;
}

BlockSid cache_write(ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name,
                     const std::vector<BlockSid>& consumer_blocks) {
  // Step 1. Check.
  const BufferRegion& write = check_cache_write(s, block_sid, index, scope_name);
  Buffer dst = write.buffer;
  BlockSid scope = s.scope_block(block_sid);
  check_not_read_before_written(s, block_sid, dst);
  std::unordered_set<BlockSid> consumers = with_nested_blocks(s, consumer_blocks);
  std::vector<arith::Interval> written = scope_region(s, block_sid, write);
  check_consumers_read_written(s, block_sid, dst, consumer_blocks, written);
  // Step 2. Where the copy-back goes. At the scope's top level the cache is the shape of the
  // region the producer writes there and is indexed from the region's start; inside a loop it
  // is the buffer's shape (TVM's cache_full_region).
  CacheSite site = copy_back_site(s, block_sid, scope, write, consumers, written);
  std::optional<std::vector<PrimExpr>> shape;
  if (site.loc == scope) shape = compact_shape(s, scope, dst, site.region);
  Buffer cache = buffer_with(dst, cache_name(dst->name, scope_name), shape ? *shape : dst->shape, scope_name);
  BlockSid copy_sid;
  Stmt nest = copy_nest(s, cache->name, cache, dst, site.region, copy_sid, /*compact=*/shape.has_value(),
                        /*cache_is_dst=*/false);
  BufferReindex shift = region_shift(site.region);
  // Step 3. The producer and the consumers named access the cache; the copy-back goes in.
  std::unordered_set<BlockSid> redirected = consumers;
  redirected.insert(block_sid);
  install_cache(s, scope, redirected, dst, cache, shape ? &shift : nullptr, site, nest, "cache_write");
  return copy_sid;
}

void set_scope(ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name) {
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, true);
  }
  Buffer buffer = block->writes[static_cast<size_t>(index)].buffer;
  if (buffer->scope == scope_name) return;  // as TVM: the same scope changes nothing
  BlockSid root = s.root_of(s.info(block_sid)->func);
  if (!allocated_in_function(s, s.info(block_sid)->func, buffer)) {
    fail(s, kNonAllocatedBufferError, {block_sid},
         "The input buffer " + buffer->name +
             " is not allocated by a block. This means the buffer is either a function parameter or defined in "
             "`match_buffer` of "
             "a block.");
  }
  const BlockNode* root_block = &s.block_at(root);
  Stmt replaced = change_buffer(Stmt(std::make_shared<BlockNode>(*root_block)), buffer,
                                BufferChange{std::nullopt, scope_name, std::nullopt});
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate,
                                                     std::static_pointer_cast<const BlockNode>(replaced)));
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_cache_kinds(KindList& kinds) {
  for (bool read : {true, false}) {
    kinds.push_back(define_kind(
        read ? "CacheRead" : "CacheWrite", read ? "cache_read" : "cache_write",
        {input("block", ParamType::Block),
         attr(read ? "read_buffer_index" : "write_buffer_index", read ? ParamType::ReadIndex : ParamType::WriteIndex),
         attr("storage_scope", ParamType::Str), input("consumer_blocks", ParamType::Blocks, "None")},
        OutputForm::Single,
        [read](Schedule& sch, InstructionCall& c) {
          BlockSid block = sch.block_sid(c.inputs[0]);
          if (c.inputs[1].is_none()) c.inputs[1] = TraceArg::of_list({});
          std::vector<BlockSid> consumers;
          for (const TraceArg& b : c.inputs[1].list) consumers.push_back(sch.block_sid(b));
          int64_t index = c.attrs[0].as_int();
          output_blocks(c, {read ? cache_read(sch.state(), block, index, c.attrs[1].s, consumers)
                                 : cache_write(sch.state(), block, index, c.attrs[1].s, consumers)});
        },
        read
            ? "cache_read(block, read_buffer_index, storage_scope) -> BlockRV: read a buffer through a copy in "
              "storage_scope."
            : "cache_write(block, write_buffer_index, storage_scope, consumer_blocks=None) -> BlockRV: write through a "
              "copy in "
              "storage_scope, copied back before the next block that reads the buffer (consumer_blocks read the copy).",
        read ? "read_buffer_index names a buffer the block reads; the scope is a storage scope (shared, local, global, "
               "...)"
             : "write_buffer_index names a buffer the block writes; the scope is a storage scope",
        read ? "C reads A  ->  new block A_shared copies A into A_shared (scope \"shared\") and C reads A_shared"
             : "C writes C  ->  C writes C_local, and a new block C_local copies it to C"));
  }
  kinds.push_back(define_kind(
      "SetScope", "set_scope",
      {input("block", ParamType::Block), attr("buffer_index", ParamType::WriteIndex),
       attr("storage_scope", ParamType::Str)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        set_scope(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].s);
      },
      "set_scope(block, buffer_index, storage_scope): change the storage scope of a buffer the block writes.",
      "the buffer is allocated in the function (parameters keep global scope)",
      "Y = T.alloc_buffer((128, 128))  ->  Y = T.alloc_buffer((128, 128), scope=\"shared\")"));
}

}  // namespace tsch::schedule
