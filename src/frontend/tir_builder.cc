#include "frontend/tir_builder.h"

#include <fmt/format.h>

#include "arith/block_access.h"
#include "ir/op.h"
#include "script/exceptions.h"

namespace tsch::frontend {

using namespace ir;
using script::ExcKind;
using script::raise_at;

namespace {
thread_local TirBuilder* g_current = nullptr;
}

TirBuilder::TirBuilder() : previous_(g_current) { g_current = this; }
TirBuilder::~TirBuilder() { g_current = previous_; }

TirBuilder* TirBuilder::current() { return g_current; }

BlockFrame& TirBuilder::block(const std::string& what) {
  if (blocks.empty()) script::raise(script::ExcKind::ValueError, what + " must be used inside a `with T.block(...)`");
  return blocks.back();
}

std::vector<Buffer> TirBuilder::data_owners(const std::vector<MatchBufferRegion>& own_matches) const {
  std::vector<Buffer> out;
  for (const auto& [param, buffer] : buffer_map) out.push_back(buffer);
  out.insert(out.end(), root_allocs.begin(), root_allocs.end());
  for (const BlockFrame& f : blocks) {
    out.insert(out.end(), f.alloc_buffers.begin(), f.alloc_buffers.end());
    for (const auto& m : f.match_buffers) out.push_back(m.buffer);
  }
  out.insert(out.end(), decls.begin(), decls.end());
  for (const auto& m : own_matches) out.push_back(m.buffer);
  return out;
}

Stmt TirBuilder::close_block(std::vector<Stmt> stmts, SourceLoc loc) {
  BlockFrame frame = std::move(blocks.back());
  blocks.pop_back();
  auto block = std::make_shared<BlockNode>();
  block->name = frame.name;
  block->iter_vars = frame.iter_vars;
  block->alloc_buffers = frame.alloc_buffers;
  block->match_buffers = frame.match_buffers;
  block->annotations = frame.annotations;
  block->init = frame.init;
  block->body = make_seq(stmts);
  if (!block->body) block->body = std::make_shared<EvaluateNode>(make_int(0));
  if (!frame.reads || !frame.writes) {
    arith::AccessRegions regions = arith::infer_access_regions(block->body, block->init, {}, block->match_buffers,
                                                               data_owners(block->match_buffers));
    if (!regions.opaques.empty()) {
      raise_at(ExcKind::ValueError,
               fmt::format(
                   "block \"{}\": cannot infer its T.reads/T.writes: its body uses the data pointer of {} other than "
                   "through T.tvm_access_ptr with a read or write mask (write them explicitly)",
                   frame.name, regions.opaques[0].buffer->name),
               loc);
    }
    // Buffers allocated by the block itself are not part of its signature.
    auto drop_own = [&](std::vector<BufferRegion>& rs) {
      std::vector<BufferRegion> kept;
      for (auto& r : rs) {
        bool own = false;
        for (const auto& b : block->alloc_buffers) own |= b == r.buffer;
        if (!own) kept.push_back(r);
      }
      rs = kept;
    };
    drop_own(regions.reads);
    drop_own(regions.writes);
    block->reads = frame.reads ? *frame.reads : regions.reads;
    block->writes = frame.writes ? *frame.writes : regions.writes;
  } else {
    block->reads = *frame.reads;
    block->writes = *frame.writes;
  }
  if (frame.no_realize) return block;
  if (frame.iter_values.size() != frame.iter_vars.size()) {
    raise_at(ExcKind::ValueError, fmt::format("block \"{}\": every T.axis iterator needs a binding", frame.name), loc);
  }
  PrimExpr pred = frame.predicate ? frame.predicate : make_bool(true);
  return std::make_shared<BlockRealizeNode>(frame.iter_values, pred, block);
}

}  // namespace tsch::frontend
