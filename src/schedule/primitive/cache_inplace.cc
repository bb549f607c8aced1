// cache_inplace: a block that reads and writes the same buffer (an in-place operation, often an
// opaque call on the buffer's data) works on a copy in another storage scope (TVM's
// CacheInplace: a cache_read then a cache_write of that buffer for that block). The copy in
// goes right before the block and the copy back right after it, in the body of its innermost
// loop (or of its scope block); the block's accesses, regions and uses of the buffer's data
// pointer move to the copy.
//
//   for i0 in range(1):                          for i0 in range(1):
//     with T.block("ext_call"):                    for ax0 in range(64): data_io_local[..] = data_io[..]
//       T.reads(data_io[0:64])           ->        with T.block("ext_call"):
//       T.writes(data_io[0:64])                      ... call_impl(data_io_local.data)
//       T.call_extern("call_impl", data_io.data)   for ax0 in range(64): data_io[..] = data_io_local[..]
//
//   cache_inplace(ext_call, 0, "local") -> [the copy-in block, the copy-back block]
#include <fmt/format.h>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNotReadWriteError, "NotReadWriteError",
                         "The target block does not both read & write target buffer.",
                         "The target block {0} does not both read & write target buffer {1}.");

// The block's region of `buffer` among `regions`, or null; several are refused (TVM asserts one).
const BufferRegion* only_region(const ScheduleState& s, BlockSid block_sid, const std::vector<BufferRegion>& regions,
                                const Buffer& buffer) {
  const BufferRegion* found = nullptr;
  for (const auto& r : regions) {
    if (r.buffer != buffer) continue;
    if (found)
      fail_not_supported(
          s, {block_sid},
          fmt::format("cache_inplace where block {{0}} lists {} twice among its reads or writes", buffer->name));
    found = &r;
  }
  return found;
}

}  // namespace

std::vector<BlockSid> cache_inplace(ScheduleState& s, BlockSid block_sid, int64_t index,
                                    const std::string& scope_name) {
  // Step 1. Check: a storage scope, a buffer the block reads, which it also writes.
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->reads.size()))
    fail_buffer_index_out_of_range(s, block_sid, index, false);
  Buffer buffer = block->reads[static_cast<size_t>(index)].buffer;
  BlockSid scope = s.scope_block(block_sid);
  if (!scope) fail(s, kRootBlockError, {block_sid});
  const BufferRegion* read = only_region(s, block_sid, block->reads, buffer);
  const BufferRegion* write = only_region(s, block_sid, block->writes, buffer);
  if (!read || !write) {
    fail(s, kNotReadWriteError, {block_sid},
         "The target block {0} does not both read & write target buffer " + buffer->name + ".");
  }

  // Step 2. The regions to copy in and back, in the loops around the block (TVM copies the
  // block's regions as written, which may name the block's own iterators; their bindings are
  // substituted here). The copy back writes every element of the write region: those the block
  // does not write must hold what was copied in, so the read region must cover it.
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i].var.get()] = realize->iter_values[i];
  auto outer_region = [&](const BufferRegion& r) {
    std::vector<arith::Interval> out;
    for (const Range& range : r.region) {
      PrimExpr min = arith::simplify(substitute(range.min, bind));
      PrimExpr max =
          arith::simplify(substitute(sub(add(range.min, range.extent), make_int(1, range.extent->dtype)), bind));
      out.push_back({min, max});
    }
    return out;
  };
  std::vector<arith::Interval> read_region = outer_region(*read), write_region = outer_region(*write);
  for (size_t d = 0; d < read_region.size(); ++d) {
    int64_t below = 0, above = 0;
    bool covered = as_const_int(arith::simplify(sub(write_region[d].min, read_region[d].min)), &below) && below >= 0 &&
                   as_const_int(arith::simplify(sub(read_region[d].max, write_region[d].max)), &above) && above >= 0;
    if (!covered) {
      fail_not_supported(
          s, {block_sid},
          fmt::format("cache_inplace where the region of {} block {{0}} writes is not inside the region it reads",
                      buffer->name));
    }
  }

  // Step 3. Where the copies go (TVM's CacheInplaceLocDetector): around the block, in the
  // body of its innermost loop, else of its scope block.
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  StmtSid loc = loops.empty() ? StmtSid(scope) : StmtSid(loops.back());
  std::vector<Stmt> items = body_items(loc == scope ? s.block_at(scope).body : s.loop_at(loops.back()).body);
  size_t pos = items.size();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].get() == realize) pos = i;
  }
  if (pos == items.size()) {
    fail_not_supported(s, {block_sid},
                       "cache_inplace where block {0} is under a branch or binding inside its innermost loop");
  }

  // Step 4. Rewrite: copy in, the block on the copy, copy back; the scope allocates the copy.
  Buffer cache = buffer_with(buffer, cache_name(buffer->name, scope_name), buffer->shape, scope_name);
  BlockSid in_sid, out_sid;
  Stmt copy_in = copy_nest(s, buffer->name + "_" + scope_name, buffer, cache, read_region, in_sid);
  Stmt copy_out = copy_nest(s, buffer->name + "_" + scope_name, cache, buffer, write_region, out_sid);
  Stmt moved = replace_buffer(items[pos], buffer, cache);
  moved = substitute(moved, {{buffer->data.get(), cache->data}});  // opaque uses: call_impl(data_io.data)
  items[pos] = moved;
  items.insert(items.begin() + static_cast<long>(pos) + 1, copy_out);
  items.insert(items.begin() + static_cast<long>(pos), copy_in);
  if (loc == scope) {
    rebuild_scope(s, scope, [&](BlockNode& b) {
      b.body = rewrap(peel_decls(b.body).wrappers, make_seq(items));
      b.alloc_buffers.push_back(cache);
    });
  } else {
    auto new_loop = std::make_shared<ForNode>(s.loop_at(loops.back()));
    new_loop->body = make_seq(items);
    s.replace(loc, new_loop);
    rebuild_scope(s, scope, [&](BlockNode& b) { b.alloc_buffers.push_back(cache); });
  }
  return {in_sid, out_sid};
}

// ---- instruction kinds

void register_cache_inplace_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "CacheInplace", "cache_inplace",
      {input("block", ParamType::Block), attr("read_buffer_index", ParamType::ReadIndex),
       attr("storage_scope", ParamType::Str)},
      OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, cache_inplace(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].s));
      },
      "cache_inplace(block, read_buffer_index, storage_scope) -> [BlockRV, BlockRV]: a block reading and writing a "
      "buffer "
      "works on a copy in storage_scope, copied in before it and back after it.",
      "read_buffer_index names a buffer the block reads and also writes; the scope is a storage scope; the region it "
      "writes "
      "lies inside the region it reads",
      "ext_call reads and writes data_io  ->  data_io_local copied in, ext_call on data_io_local, copied back to "
      "data_io"));
}

}  // namespace tsch::schedule
