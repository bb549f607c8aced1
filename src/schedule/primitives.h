// The schedule primitives as functions of (state, handles, arguments). Each checks first and
// rewrites second: a refused primitive throws ScheduleError before touching the state.
// One file per primitive under primitive/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/stmt.h"
#include "schedule/state.h"

namespace tsch::schedule {

// Queries (primitive/get_block.cc).
BlockSid get_block(const ScheduleState& s, const std::string& name, const std::string& func);
std::vector<LoopSid> get_loops(const ScheduleState& s, BlockSid block);
std::vector<BlockSid> get_child_blocks(const ScheduleState& s, StmtSid block_or_loop);
std::vector<BlockSid> get_output_blocks(const ScheduleState& s, BlockSid scope_block);
// TVM's ReorderBlockIterVar: the block's iterators (and their bindings) in `new_order`.
void reorder_block_iter_var(ScheduleState& s, BlockSid block, const std::vector<int64_t>& new_order);

// Loop transformations.
std::vector<LoopSid> split(ScheduleState& s, LoopSid loop, const std::vector<std::optional<int64_t>>& factors,
                           bool preserve_unit_iters, bool disable_predication);
// split by factors of which some are expressions of T.vscale() (scalable vectors); a null
// factor is inferred. The product must provably cover the extent: with vscale, only for a
// scalable-vector target (the current `with tvm.target.Target(...)`), by vscale's values.
std::vector<LoopSid> split_scalable(ScheduleState& s, LoopSid loop, const std::vector<ir::PrimExpr>& factors,
                                    bool preserve_unit_iters, bool disable_predication);
// primitive/split.cc: consecutive loops over the factors' lengths; returns them.
std::vector<LoopSid> loop_partition(ScheduleState& s, LoopSid loop, const std::vector<std::optional<int64_t>>& factors);
LoopSid fuse(ScheduleState& s, const std::vector<LoopSid>& loops, bool preserve_unit_iters);
void reorder(ScheduleState& s, const std::vector<LoopSid>& loops);
// primitive/merge.cc: sibling nests of one shape into one; returns the innermost merged loop.
LoopSid merge(ScheduleState& s, const std::vector<LoopSid>& loops);

// Blocks (primitive/blockize.cc): returns the outer block.
BlockSid blockize(ScheduleState& s, LoopSid loop, bool preserve_unit_iters);
BlockSid blockize_blocks(ScheduleState& s, const std::vector<BlockSid>& blocks, bool preserve_unit_iters);
// primitive/tensorize.cc: the block (or the blockized loop) becomes the registered intrinsic.
void tensorize(ScheduleState& s, StmtSid block_or_loop, const std::string& intrin, bool preserve_unit_iters);

// Compute location (primitive/compute_at.cc). `index`: -1 the last valid position, -2 the
// first, k >= 0 that position in the loop body.
void compute_at(ScheduleState& s, BlockSid block, LoopSid loop, bool preserve_unit_loops, int64_t index);
void reverse_compute_at(ScheduleState& s, BlockSid block, LoopSid loop, bool preserve_unit_loops, int64_t index);

// Reductions: decompose_reduction returns the init block, rfactor the rf block.
BlockSid decompose_reduction(ScheduleState& s, BlockSid block, LoopSid loop);
BlockSid rfactor(ScheduleState& s, LoopSid loop, int64_t factor_axis);

// Annotations and small structural helpers (primitive/annotate.cc).
void annotate(ScheduleState& s, StmtSid block_or_loop, const std::string& key, const ir::AttrValue& value);
// The block's region of one read (write) buffer, [start, end) per dimension from `ranges`
// (functions of `params`, the block's iterators).
void annotate_buffer_access(ScheduleState& s, BlockSid block, int64_t index, bool write,
                            const std::vector<ir::Var>& params, const std::vector<ir::PrimExpr>& ranges);
void unannotate(ScheduleState& s, StmtSid block_or_loop, const std::string& key);
LoopSid add_unit_loop(ScheduleState& s, StmtSid block_or_loop);
std::vector<BlockSid> get_producers(const ScheduleState& s, BlockSid block);
std::vector<BlockSid> get_consumers(const ScheduleState& s, BlockSid block);

// Inlining (primitive/compute_inline.cc).
void compute_inline(ScheduleState& s, BlockSid block);
void reverse_compute_inline(ScheduleState& s, BlockSid block);

// Caches (primitive/cache.cc): return the new copy block.
BlockSid cache_read(ScheduleState& s, BlockSid block, int64_t read_buffer_index, const std::string& scope,
                    const std::vector<BlockSid>& consumer_blocks = {});
// cache_write's consumer_blocks read the cache itself; the copy-back then goes before the
// first block still reading the buffer.
BlockSid cache_write(ScheduleState& s, BlockSid block, int64_t write_buffer_index, const std::string& scope,
                     const std::vector<BlockSid>& consumer_blocks = {});
void set_scope(ScheduleState& s, BlockSid block, int64_t buffer_index, const std::string& scope);
// primitive/read_write_at.cc: a copy block (annotated auto_copy) at the top level of `loop`,
// before the first subtree reading (after the last subtree writing) the block's buffer, which
// the subtrees from (up to) there access in `scope` instead (TVM's ReadAt / WriteAt).
BlockSid read_at(ScheduleState& s, LoopSid loop, BlockSid block, int64_t read_buffer_index, const std::string& scope);
BlockSid write_at(ScheduleState& s, LoopSid loop, BlockSid block, int64_t write_buffer_index, const std::string& scope);
// primitive/cache_inplace.cc: a block that reads and writes a buffer works on a copy in
// `scope`: copied in before it and back after it, inside its innermost loop; returns the two
// copy blocks (TVM's CacheInplace).
std::vector<BlockSid> cache_inplace(ScheduleState& s, BlockSid block, int64_t read_buffer_index,
                                    const std::string& scope);
// primitive/cache_index.cc: the index expressions of the block's buffer accesses precomputed
// into int32 buffers in `scope` by blocks before it (TVM's CacheIndex); returns those blocks.
std::vector<BlockSid> cache_index(ScheduleState& s, BlockSid block, const std::string& scope, int64_t cse_thresh);
// primitive/reindex.cc: the block accesses the buffer through one indexed by its iterators;
// returns the copy block.
BlockSid reindex(ScheduleState& s, BlockSid block, int64_t buffer_index, bool is_write);
// primitive/set_dtype.cc: stores cast to `dtype`, loads cast back (TVM's UnsafeSetDType).
void unsafe_set_dtype(ScheduleState& s, BlockSid block, int64_t buffer_index, const std::string& dtype);
// Padding for transform_layout: the value of a padded element (null: none given), an
// expression of `indices` (one variable per dimension of the transformed buffer).
struct LayoutPadding {
  std::vector<ir::Var> indices;
  ir::PrimExpr value;
  bool assume_injective = false;
};
// primitive/transform_layout.cc: the buffer's physical layout split at `separators`.
void set_axis_separator(ScheduleState& s, BlockSid block, const ir::Buffer& buffer,
                        const std::vector<int64_t>& separators);
void transform_layout(ScheduleState& s, BlockSid block, const ir::Buffer& buffer, const std::vector<ir::Var>& params,
                      const std::vector<ir::PrimExpr>& outputs, const LayoutPadding& padding);
// primitive/transform_layout.cc: the block's iteration space re-indexed by a bijective affine map.
void transform_block_layout(ScheduleState& s, BlockSid block, const std::vector<ir::Var>& params,
                            const std::vector<ir::PrimExpr>& outputs);
void storage_align(ScheduleState& s, BlockSid block, int64_t buffer_index, int64_t axis, int64_t factor,
                   int64_t offset);
// primitive/decompose_padding.cc: a padding block split into a block filling the pad value
// before `loop` (returned) and the block itself writing the in-bound part only; with
// `check_only` nothing changes (can_decompose_padding: false where it would refuse).
BlockSid decompose_padding(ScheduleState& s, BlockSid block, LoopSid loop, bool check_only = false);
bool can_decompose_padding(ScheduleState& s, BlockSid block, LoopSid loop);

// primitive/pad_einsum.cc: the einsum block's iterators padded to multiples of `padding`, the
// buffers they index replaced by padded copies (inputs copied in, outputs copied back).
void pad_einsum(ScheduleState& s, BlockSid block, const std::vector<int64_t>& padding);

// primitive/reindex_cache.cc: a cache of the point the block accesses per instance, laid out
// by an index map over its iterators (`map_params` -> `map_outputs`); returns the copy block.
BlockSid reindex_cache_read(ScheduleState& s, BlockSid block, int64_t index, const std::string& scope,
                            const std::vector<ir::Var>& map_params, const std::vector<ir::PrimExpr>& map_outputs);
BlockSid reindex_cache_write(ScheduleState& s, BlockSid block, int64_t index, const std::string& scope,
                             const std::vector<ir::Var>& map_params, const std::vector<ir::PrimExpr>& map_outputs);

// primitive/rolling_buffer.cc: the written intermediate buffer kept as a rolling window along
// the outermost loop whose tiles overlap (TVM's RollingBuffer).
void rolling_buffer(ScheduleState& s, BlockSid block, int64_t write_buffer_index);
// primitive/fuse_reduction_epilogue.cc: an elementwise epilogue (bias, bias + ReLU, clipping)
// folded into the sum reduction producing its input (TVM's FuseReductionEpilogue).
void fuse_reduction_epilogue(ScheduleState& s, BlockSid reduction_block, BlockSid epilogue_block);

// Sampling (primitive/sampling.cc): TVM's SamplePerfectTile / SamplePartitionedTile /
// SampleCategorical over its random state, so a seed gives TVM's decisions.
std::vector<int64_t> sample_perfect_tile(int64_t extent, int64_t n, int64_t max_innermost_factor, int64_t& rand_state);
std::vector<int64_t> sample_partitioned_tile(int64_t extent, int64_t n, int64_t partition_pos, int64_t innerpart_factor,
                                             int64_t& rand_state);
int64_t sample_categorical(const std::vector<double>& probs, int64_t& rand_state);
// Where sample_compute_location may put a block (TVM's CollectComputeLocation): inline when
// compute_inline would succeed, and loops of the first consumer's nest where compute_at
// would (no unit loops, none after a reduction loop), each with its position in that nest.
struct ComputeLocations {
  bool can_inline = false;
  std::vector<std::pair<int64_t, LoopSid>> loops;  // (position, loop sid), outermost first
};
ComputeLocations compute_location_candidates(const ScheduleState& s, BlockSid block);

// Loop kinds (primitive/loop_kind.cc): parallel, vectorize, unroll, bind.
void parallel(ScheduleState& s, LoopSid loop);
void vectorize(ScheduleState& s, LoopSid loop);
void unroll(ScheduleState& s, LoopSid loop);
void bind(ScheduleState& s, LoopSid loop, const std::string& thread_axis);

}  // namespace tsch::schedule
