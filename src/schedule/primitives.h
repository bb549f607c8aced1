// The schedule primitives as functions of (state, handles, arguments). Each checks first and
// rewrites second: a refused primitive throws ScheduleError before touching the state.
// One file per primitive under primitive/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"

namespace tsch::schedule {

// Queries (primitive/get_block.cc).
uint64_t get_block(const ScheduleState& s, const std::string& name, const std::string& func);
std::vector<uint64_t> get_loops(const ScheduleState& s, uint64_t block);
std::vector<uint64_t> get_child_blocks(const ScheduleState& s, uint64_t block_or_loop);

// Loop transformations.
std::vector<uint64_t> split(ScheduleState& s, uint64_t loop, const std::vector<std::optional<int64_t>>& factors,
                            bool preserve_unit_iters, bool disable_predication);
uint64_t fuse(ScheduleState& s, const std::vector<uint64_t>& loops, bool preserve_unit_iters);
void reorder(ScheduleState& s, const std::vector<uint64_t>& loops);

// Loop kinds (primitive/loop_kind.cc): parallel, vectorize, unroll, bind.
void parallel(ScheduleState& s, uint64_t loop);
void vectorize(ScheduleState& s, uint64_t loop);
void unroll(ScheduleState& s, uint64_t loop);
void bind(ScheduleState& s, uint64_t loop, const std::string& thread_axis);

}  // namespace tsch::schedule
