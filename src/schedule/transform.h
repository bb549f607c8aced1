// Rewrites the primitives share (TVM's schedule transform): loop nests built around a
// body, statements inserted into a sequence, a block's subtree removed from its scope, one
// buffer replaced by another everywhere it appears.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"

namespace tsch::schedule {

// One loop of a nest built by make_loop_nest: serial, over [min, min + extent).
struct LoopSpec {
  ir::Var var;
  ir::PrimExpr min;  // null: 0 of the variable's dtype
  ir::PrimExpr extent;
};

// `body` inside new serial loops, outermost first, each with a fresh sid (returned in
// `sids`, outermost first, when given).
ir::Stmt make_loop_nest(ScheduleState& s, const std::vector<LoopSpec>& loops, ir::Stmt body,
                        std::vector<LoopSid>* sids = nullptr);

// `body` inside copies of `loops` (outermost first) that keep the loops' identities.
ir::Stmt wrap_in_loops(ir::Stmt body, const std::vector<const ir::ForNode*>& loops);

// A scope's body with its leading AllocateConst / DeclBuffer statements peeled off, as TVM
// peels them before inserting into or removing from the scope's sequence: `wrappers`
// outermost first (their bodies are replaced by rewrap), `inner` what they hold.
struct PeeledBody {
  std::vector<ir::Stmt> wrappers;
  ir::Stmt inner;
};
PeeledBody peel_decls(const ir::Stmt& body);
// `body` put back inside copies of `wrappers` (outermost first).
ir::Stmt rewrap(const std::vector<ir::Stmt>& wrappers, ir::Stmt body);

// The statements of a body (under its leading AllocateConst / DeclBuffer statements): a
// sequence's items, else the body itself.
std::vector<ir::Stmt> body_items(const ir::Stmt& body);
// `body` with `stmt` inserted before its item `pos` (clamped to the end), inside the
// body's leading AllocateConst / DeclBuffer statements.
ir::Stmt insert_into_body(const ir::Stmt& body, size_t pos, const ir::Stmt& stmt);

// Replaces the block `scope` by a copy that `edit` changed (same realize).
void rebuild_scope(ScheduleState& s, BlockSid scope, const std::function<void(ir::BlockNode&)>& edit);

// Removes the block's subtree (block_subtree) from the loop or block holding it, and `drop`
// (if set) from the allocations of the block's scope.
void remove_from_scope(ScheduleState& s, BlockSid block, const ir::Buffer& drop);

// How accesses move to the replacing buffer when its layout differs (transform_layout).
struct BufferReindex {
  std::function<std::vector<ir::PrimExpr>(const std::vector<ir::PrimExpr>&)> indices;
  std::function<std::vector<ir::Range>(const std::vector<ir::Range>&)> region;
};

// Replaces buffer `from` by `to` in loads, stores, block regions, allocations and match
// buffers under `s`, re-indexing accesses through `reindex` when given.
ir::Stmt replace_buffer(const ir::Stmt& s, const ir::Buffer& from, const ir::Buffer& to,
                        const BufferReindex* reindex = nullptr);

// A buffer's element type and/or storage scope changed everywhere under `s`, and the buffers
// matched to parts of it (match_buffer) with it; with a new type every store casts to it
// and every load back (unsafe_set_dtype, set_scope).
struct BufferChange {
  std::optional<ir::DataType> dtype;
  std::optional<std::string> scope;
  // set_axis_separator: a view of the same rank takes the same separators, another rank as
  // many zeros (TVM's rule); the buffers keep their data pointers.
  std::optional<std::vector<int64_t>> axis_separators;
};
// `replacement`, when given, receives the buffer that takes `from`'s place.
ir::Stmt change_buffer(const ir::Stmt& s, const ir::Buffer& from, const BufferChange& change,
                       ir::Buffer* replacement = nullptr);

}  // namespace tsch::schedule
