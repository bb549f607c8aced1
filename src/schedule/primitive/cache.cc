// cache_read / cache_write: stage a buffer through a copy in another storage scope (TVM's
// CacheRead / CacheWrite); set_scope: change the scope of a buffer allocated in the function.
//
//   cache_read(C, 0, "shared"):  a block "A_shared" copies A into A_shared before C's loop
//   nest, and C reads A_shared. cache_write(C, 0, "local"): C writes C_local and a block
//   "C_local" after it copies C_local back to C.
#include <fmt/format.h>

#include <functional>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "schedule/kind_registration.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The region of `region` (accessed by `block`) over all loops of its scope.
std::vector<arith::Interval> scope_region(const ScheduleState& s, uint64_t block_sid, const BufferRegion& region) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  const BlockNode* block = &s.block_at(block_sid);
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i].var.get()] = realize->iter_values[i];
  arith::VarDomain dom;
  for (uint64_t l : s.enclosing_loops(block_sid)) {
    const ForNode* f = &s.loop_at(l);
    dom[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  }
  std::vector<arith::Interval> out;
  for (size_t d = 0; d < region.region.size(); ++d) {
    const Range& r = region.region[d];
    const PrimExpr& size = region.buffer->shape[d];
    arith::Interval whole = arith::interval_of(Range{make_int(0, size->dtype), size});
    arith::Interval lo = arith::eval_interval(substitute(r.min, bind), dom);
    arith::Interval hi = arith::eval_interval(substitute(arith::simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype))), bind), dom);
    if (!lo.min || !hi.min) {
      out.push_back(whole);
      continue;
    }
    // A loop whose extent names an outer loop (reverse_compute_at clamps it to
    // `T.min(j_0 * 24 + 23, 63) - j_0 * 24 + 1`) leaves that outer loop in the bounds after
    // one relaxation: relax again until only variables outside the scope remain.
    auto uses_scope_loop = [&](const PrimExpr& e) { return uses_var(e, [&](const VarNode* v) { return dom.count(v) > 0; }); };
    for (int round = 0; round < 8 && lo.min && hi.max && (uses_scope_loop(lo.min) || uses_scope_loop(hi.max)); ++round) {
      lo = arith::eval_interval(lo.min, dom);
      hi = arith::eval_interval(hi.max, dom);
    }
    if (!lo.min || !hi.max || uses_scope_loop(lo.min) || uses_scope_loop(hi.max)) {
      out.push_back(whole);
      continue;
    }
    // Loops of an imperfect split reach past the end (where the block's T.where stops the
    // access): the copy stays inside the buffer.
    out.push_back(arith::interval_clamp({arith::simplify(lo.min), arith::simplify(hi.max)}, whole, {}));
  }
  return out;
}

// for ax0, ax1 in T.grid(...): with T.block(name): v0, v1 = ...; dst[v] = src[v]
Stmt copy_nest(ScheduleState& s, const std::string& name, const Buffer& src, const Buffer& dst,
               const std::vector<arith::Interval>& region, uint64_t& block_sid) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  block->sid = block_sid = s.fresh_sid();
  std::vector<Var> loops;
  std::vector<PrimExpr> extents, bindings, indices;
  for (size_t d = 0; d < region.size(); ++d) {
    const PrimExpr& extent_of_dim = src->shape[d];
    DataType t = extent_of_dim->dtype;
    Var ax = make_var("ax" + std::to_string(d), t);
    Var v = make_var("v" + std::to_string(d), t);
    loops.push_back(ax);
    // The copy loops take the buffer's index type (int64 loops for an int64 shape, as TVM).
    extents.push_back(arith::simplify(cast(t, add(sub(region[d].max, region[d].min), make_int(1, region[d].max->dtype)))));
    bindings.push_back(arith::simplify(add(cast(t, region[d].min), ax)));
    indices.push_back(v);
    block->iter_vars.push_back(IterVar{v, Range{make_int(0, t), extent_of_dim}, IterType::DataPar});
  }
  BufferRegion read{src, {}}, write{dst, {}};
  for (const auto& idx : indices) {
    read.region.push_back(Range{idx, make_int(1, idx->dtype)});
    write.region.push_back(Range{idx, make_int(1, idx->dtype)});
  }
  block->reads = {read};
  block->writes = {write};
  block->body = std::make_shared<BufferStoreNode>(dst, buffer_load(src, indices), indices);
  std::vector<LoopSpec> nest;
  for (size_t k = 0; k < loops.size(); ++k) nest.push_back({loops[k], nullptr, extents[k]});
  return make_loop_nest(s, nest, std::make_shared<BlockRealizeNode>(bindings, make_bool(true), block));
}

// The top-level statement of the scope that holds `sid`, as its index in the scope's body.
size_t top_level_index(const ScheduleState& s, uint64_t sid, uint64_t scope) {
  uint64_t top = sid;
  while (s.info(top)->parent != scope) top = s.info(top)->parent;
  const StmtNode* node = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
  const BlockNode* scope_block = &s.block_at(scope);
  if (auto* seq = as<SeqStmtNode>(scope_block->body)) {
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (seq->seq[i].get() == node) return i;
    }
  }
  return 0;
}

TSCH_SCHEDULE_ERROR_KIND(kInvalidStorageScopeError, "InvalidStorageScopeError", "The input storage scope is invalid",
                         "The input storage scope is invalid.");
TSCH_SCHEDULE_ERROR_KIND(kNotSingleWriteBlock, "NotSingleWriteBlock", "The buffer is allowed to be written by single block.",
                         "The buffer is expected to be written by single block.");

void check_scope(const ScheduleState& s, const std::string& scope) {
  if (!valid_storage_scope(scope)) fail(s, kInvalidStorageScopeError, {}, "The input storage scope \"" + scope + "\" is invalid.");
}

// The rewrite both cache primitives share: the block accesses `cache` instead of `buffer`,
// the copy nest goes into the scope's body at `position`, and the scope allocates the cache.
void install_cache(ScheduleState& s, uint64_t block_sid, uint64_t scope, size_t position, const Buffer& buffer,
                   const Buffer& cache, const Stmt& nest) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  Stmt replaced = replace_buffer(Stmt(std::make_shared<BlockNode>(s.block_at(block_sid))), buffer, cache);
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate,
                                                          std::static_pointer_cast<const BlockNode>(replaced)));
  rebuild_scope(s, scope, [&](BlockNode& b) {
    b.body = insert_into_body(b.body, position, nest);
    b.alloc_buffers.push_back(cache);
  });
}

// The copy nest goes between the producer and the consumers at the top level of the scope;
// where another block that `writes` (or reads) `buffer` shares the block's top-level
// statement (after compute_at), that position would copy before the data exists or after
// it is read. TVM finds a position inside the shared loops; tsch refuses, leaving the
// schedule unchanged.
void check_copy_position(const ScheduleState& s, const char* primitive, uint64_t block_sid, uint64_t scope,
                         const Buffer& buffer, bool writers) {
  size_t here = top_level_index(s, block_sid, scope);
  for (uint64_t other : s.blocks_in(s.info(block_sid)->func)) {
    if (other == block_sid || other == scope || s.scope_block(other) != scope) continue;
    const auto& accesses = writers ? s.block_at(other).writes : s.block_at(other).reads;
    bool touches = false;
    for (const auto& a : accesses) touches |= a.buffer == buffer;
    if (touches && top_level_index(s, other, scope) == here) {
      fail_not_supported(s, {block_sid, other},
                         fmt::format("{} of {} while block {{1}}, which {} it, is in the same loop nest as block {{0}}", primitive,
                                     buffer->name, writers ? "writes" : "reads"));
    }
  }
}

}  // namespace

uint64_t cache_read(ScheduleState& s, uint64_t block_sid, int64_t index, const std::string& scope_name) {
  // Step 1. Check.
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->reads.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, false);
  }
  uint64_t scope = s.scope_block(block_sid);
  const BufferRegion& read = block->reads[static_cast<size_t>(index)];
  Buffer src = read.buffer;
  for (const auto& w : block->writes) {
    // The block would read the copy and update it, and its results never reach `src`.
    if (w.buffer == src) {
      fail_not_supported(s, {block_sid}, fmt::format("cache_read of {}, which block {{0}} also writes (cache_write caches both)", src->name));
    }
  }
  check_copy_position(s, "cache_read", block_sid, scope, src, /*writers=*/true);
  // Step 2. The cache buffer, the copy block, and the consumer reading the cache.
  Buffer cache = buffer_with(src, cache_name(src->name, scope_name), src->shape, scope_name);
  uint64_t copy_sid = 0;
  Stmt nest = copy_nest(s, cache->name, src, cache, scope_region(s, block_sid, read), copy_sid);
  // The copy runs before the consumer.
  install_cache(s, block_sid, scope, top_level_index(s, block_sid, scope), src, cache, nest);
  return copy_sid;
}

uint64_t cache_write(ScheduleState& s, uint64_t block_sid, int64_t index, const std::string& scope_name) {
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, true);
  }
  uint64_t scope = s.scope_block(block_sid);
  const BufferRegion& write = block->writes[static_cast<size_t>(index)];
  Buffer dst = write.buffer;
  for (uint64_t other : s.blocks_in(s.info(block_sid)->func)) {
    if (other == block_sid) continue;
    for (const auto& w : s.block_at(other).writes) {
      if (w.buffer == dst) {
        fail(s, kNotSingleWriteBlock, {block_sid, other},
             "The buffer " + dst->name + " is expected to be written by single block, but it is written by blocks {0} and {1}.");
      }
    }
  }
  check_copy_position(s, "cache_write", block_sid, scope, dst, /*writers=*/false);
  Buffer cache = buffer_with(dst, cache_name(dst->name, scope_name), dst->shape, scope_name);
  uint64_t copy_sid = 0;
  Stmt nest = copy_nest(s, cache->name, cache, dst, scope_region(s, block_sid, write), copy_sid);
  // The copy back runs after the producer.
  install_cache(s, block_sid, scope, top_level_index(s, block_sid, scope) + 1, dst, cache, nest);
  return copy_sid;
}

void set_scope(ScheduleState& s, uint64_t block_sid, int64_t index, const std::string& scope_name) {
  check_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, index, true);
  }
  Buffer buffer = block->writes[static_cast<size_t>(index)].buffer;
  if (buffer->scope == scope_name) return;  // as TVM: the same scope changes nothing
  uint64_t root = s.root_of(s.info(block_sid)->func);
  if (!allocated_in_function(s, s.info(block_sid)->func, buffer)) {
    fail(s, kNonAllocatedBufferError, {block_sid},
         "The input buffer " + buffer->name +
             " is not allocated by a block. This means the buffer is either a function parameter or defined in `match_buffer` of "
             "a block.");
  }
  const BlockNode* root_block = &s.block_at(root);
  Stmt replaced = change_buffer(Stmt(std::make_shared<BlockNode>(*root_block)), buffer, BufferChange{std::nullopt, scope_name});
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, std::static_pointer_cast<const BlockNode>(replaced)));
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_cache_kinds(KindList& kinds) {
  for (bool read : {true, false}) {
    kinds.push_back(define_kind(
        read ? "CacheRead" : "CacheWrite", read ? "cache_read" : "cache_write",
        {input("block", ParamType::Block), attr(read ? "read_buffer_index" : "write_buffer_index", read ? ParamType::ReadIndex : ParamType::WriteIndex),
         attr("storage_scope", ParamType::Str), input("consumer_blocks", ParamType::Blocks, "None")},
        OutputForm::Single,
        [read](Schedule& sch, InstructionCall& c) {
          uint64_t block = sch.block_sid(c.inputs[0]);
          if (c.inputs[1].is_none()) c.inputs[1] = TraceArg::of_list({});
          TSCH_USER_ASSERT_ARG(c.inputs[1].list.empty(), NotImplementedError, "consumer_blocks")
              << "not supported yet: caching for some of the consumers only (consumer_blocks)";
          int64_t index = c.attrs[0].as_int();
          output_blocks(c, {read ? cache_read(sch.state(), block, index, c.attrs[1].s) : cache_write(sch.state(), block, index, c.attrs[1].s)});
        },
        read ? "cache_read(block, read_buffer_index, storage_scope) -> BlockRV: read a buffer through a copy in storage_scope."
             : "cache_write(block, write_buffer_index, storage_scope) -> BlockRV: write through a copy in storage_scope.",
        read ? "read_buffer_index names a buffer the block reads; the scope is a storage scope (shared, local, global, ...)"
             : "write_buffer_index names a buffer the block writes; the scope is a storage scope",
        read ? "C reads A  ->  new block A_shared copies A into A_shared (scope \"shared\") and C reads A_shared"
             : "C writes C  ->  C writes C_local, and a new block C_local copies it to C"));
  }
  kinds.push_back(define_kind(
      "SetScope", "set_scope",
      {input("block", ParamType::Block), attr("buffer_index", ParamType::WriteIndex), attr("storage_scope", ParamType::Str)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) { set_scope(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].s); },
      "set_scope(block, buffer_index, storage_scope): change the storage scope of a buffer the block writes.",
      "the buffer is allocated in the function (parameters keep global scope)",
      "Y = T.alloc_buffer((128, 128))  ->  Y = T.alloc_buffer((128, 128), scope=\"shared\")"));
}

}  // namespace tsch::schedule
