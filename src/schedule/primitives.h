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

// Compute location (primitive/compute_at.cc). `index`: -1 the last valid position, -2 the
// first, k >= 0 that position in the loop body.
void compute_at(ScheduleState& s, uint64_t block, uint64_t loop, bool preserve_unit_loops, int64_t index);
void reverse_compute_at(ScheduleState& s, uint64_t block, uint64_t loop, bool preserve_unit_loops, int64_t index);

// Reductions: returns the init block.
uint64_t decompose_reduction(ScheduleState& s, uint64_t block, uint64_t loop);

// Loop kinds (primitive/loop_kind.cc): parallel, vectorize, unroll, bind.
void parallel(ScheduleState& s, uint64_t loop);
void vectorize(ScheduleState& s, uint64_t loop);
void unroll(ScheduleState& s, uint64_t loop);
void bind(ScheduleState& s, uint64_t loop, const std::string& thread_axis);

}  // namespace tsch::schedule
