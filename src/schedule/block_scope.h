// TVM's BlockScope and BlockInfo flags over a schedule's state: the dependences among the
// child blocks of a scope (RAW, WAW, WAR, in program order), and per block the three cached
// flags TVM's ScheduleState keeps — affine_binding (the bindings are an affine map of the
// loops up to the scope), region_cover (each producer in the scope writes at least what the
// block reads of it, where they meet) and stage_pipeline (the block's own scope has neither
// write-after-read dependences nor a consumer its producers do not cover).
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/state.h"

namespace tsch::schedule {

enum class DepKind { RAW = 0, WAW = 1, WAR = 2, Opaque = 3 };

struct Dependency {
  BlockSid src, dst;
  DepKind kind = DepKind::RAW;
};

// The dependences among the child blocks of `scope` (blocks in its init excluded), in the
// order TVM's BlockScope adds them.
std::vector<Dependency> block_dependencies(const ScheduleState& s, BlockSid scope);

struct CachedFlags {
  bool affine_binding = false, region_cover = false, stage_pipeline = false;
};

// The flags of `block` (a root block included).
CachedFlags cached_flags(const ScheduleState& s, BlockSid block);

// Refuses a scope that is not a stage pipeline (TVM's GetScopeRoot with
// require_stage_pipeline: NotStagePipelineError), as the primitives that ask for it do —
// rfactor, pad_einsum, fuse_reduction_epilogue, read_at / write_at, reindex_cache_*.
void check_stage_pipeline(const ScheduleState& s, BlockSid scope);

}  // namespace tsch::schedule
