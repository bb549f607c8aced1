#include "schedule/error.h"

#include <fmt/format.h>

#include <deque>
#include <mutex>

#include "ir/functor.h"
#include "ir/printer.h"

namespace tsch::schedule {

namespace {

struct KindRegistry {
  std::mutex mu;
  std::deque<ScheduleErrorKind> kinds;  // stable addresses
  std::vector<const ScheduleErrorKind*> list;
};

KindRegistry& registry() {
  static KindRegistry* r = new KindRegistry();
  return *r;
}

// TVM's names of the error's locations: the type key and the position ("tir.For#0").
std::string location_name(const ScheduleState& s, StmtSid sid, size_t i) {
  const char* key = s.loop(sid) ? "tir.For" : s.block(sid) ? "tir.Block" : "tir.Stmt";
  return fmt::format("{}#{}", key, i);
}

// Replaces {0}, {1}, ... by the location names.
std::string substitute(std::string text, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    std::string key = "{" + std::to_string(i) + "}";
    for (size_t pos; (pos = text.find(key)) != std::string::npos;) text.replace(pos, key.size(), names[i]);
  }
  return text;
}

}  // namespace

const ScheduleErrorKind& declare_schedule_error_kind(const ScheduleErrorKind& kind) {
  KindRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.kinds.push_back(kind);
  r.list.push_back(&r.kinds.back());
  return r.kinds.back();
}

const std::vector<const ScheduleErrorKind*>& all_schedule_error_kinds() { return registry().list; }

namespace {
std::vector<std::string> names_of(const ScheduleState& s, const std::vector<StmtSid>& locations) {
  std::vector<std::string> names;
  for (size_t i = 0; i < locations.size(); ++i) names.push_back(location_name(s, locations[i], i));
  return names;
}
}  // namespace

ScheduleError::ScheduleError(const ScheduleState& s, const ScheduleErrorKind& kind, std::vector<StmtSid> locations,
                             const std::string& detail, std::string fast)
    : std::runtime_error(substitute(detail.empty() ? kind.detail : detail, names_of(s, locations))),
      kind(&kind),
      locations(std::move(locations)),
      location_names(names_of(s, this->locations)),
      fast(std::move(fast)) {}

TSCH_SCHEDULE_ERROR_KIND(kNotBijectiveAffineIndexMapError, "NotBijectiveAffineIndexMapError",
                         "The index map is not bijective affine.", "The index map is not bijective affine.");
TSCH_SCHEDULE_ERROR_KIND(kLoopNotStartWithZeroError, "LoopNotStartWithZeroError",
                         "The primitive only supports loop starting with 0",
                         "The loop {0} does not start with 0, which is not supported");
TSCH_SCHEDULE_ERROR_KIND(kHasAnnotationOrThreadBindingError, "HasAnnotationOrThreadBindingError",
                         "The primitive can't be applied because the loop has annotation or thread binding",
                         "The primitive can't be applied because the loop {0} has annotation or thread binding");
TSCH_SCHEDULE_ERROR_KIND(kRootBlockError, "RootBlockError", "The primitive does not operate on the root block",
                         "The primitive does not operate on the root block");
TSCH_SCHEDULE_ERROR_KIND(kNotOutputBlockError, "OutputBlockError", "Cannot operate on an output block",
                         "The block {0} is an output block");
TSCH_SCHEDULE_ERROR_KIND(kBlockNotFoundError, "NotSingleResult", "Cannot find a block with the specified name",
                         "Cannot find a block with the specified name");
TSCH_SCHEDULE_ERROR_KIND(
    kNonAllocatedBufferError, "NonAllocatedBufferError",
    "The input buffer is not allocated by a block. This means the buffer is  either a function parameter or "
    "defined in `match_buffer` of a block.",
    "The input buffer is not allocated by a block.");
TSCH_SCHEDULE_ERROR_KIND(
    kNotInSameScopeError, "NotInSameScopeError",
    "Expected the block and loop to be under the same block scope, and loop not to be the ancestor of block",
    "ScheduleError: Expected the block {0} and loop {1} to be under the same block scope, and loop not to be "
    "the ancestor of block");
namespace {
TSCH_SCHEDULE_ERROR_KIND(
    kWriteBufferIndexOutOfRangeError, "BufferIndexOutOfRangeError",
    "The input `buffer_index` is out of range. It is required to be in range [0, num_write_regions) where "
    "`num_write_regions` is the number of buffer regions written by the block.",
    "The input `buffer_index` is out of range for block {0}");
TSCH_SCHEDULE_ERROR_KIND(
    kReadBufferIndexOutOfRangeError, "BufferIndexOutOfRangeError.read",
    "The input `buffer_index` is out of range. It is required to be in range [0, num_read_regions) where "
    "`num_read_regions` is the number of buffer regions read by the block.",
    "The input `buffer_index` is out of range for block {0}");
}  // namespace

void fail_buffer_index_out_of_range(const ScheduleState& s, BlockSid block, int64_t index, bool is_write) {
  const ir::BlockNode* b = &s.block_at(block);
  size_t num = is_write ? b->writes.size() : b->reads.size();
  fail(s, is_write ? kWriteBufferIndexOutOfRangeError : kReadBufferIndexOutOfRangeError, {block},
       fmt::format(
           "The block {{0}} has {} {} regions, so `buffer_index` is required to be in [0, {}). However, the input "
           "`buffer_index` is {}, which is out of the expected range.",
           num, is_write ? "write" : "read", num, index));
}
TSCH_SCHEDULE_ERROR_KIND(
    kNotReductionBlockError, "NotReductionBlockError", "Not a reduction block",
    "The block {0} is not a reduction block - it violates condition #1.\n" TSCH_REDUCTION_BLOCK_DEFINITION);
TSCH_SCHEDULE_ERROR_KIND(
    kNotOnlyChildError, "NotOnlyChildError", "The inner loop is not the only child of outer loop",
    "The loops can't be fused because the inner loop {1} is not the only child of outer loop {0}.");
TSCH_SCHEDULE_ERROR_KIND(
    kLoopTouchedByBothKindsError, "LoopPropertyError.both_kinds",
    "The loops outside of the reduction block are required not to be touched by both data parallel block "
    "iters and reduction block iters",
    "It is not allowed that the loop {0} is touched by both some data parallel block iters and some "
    "reduction block iters");
TSCH_SCHEDULE_ERROR_KIND(
    kLoopPositionError, "LoopPositionError", "decompose_reduction expect the loop to be an ancestor of block",
    "ScheduleError: The input loop {0} of decompose_reduction is required to be an ancestor of block {1}.");
TSCH_SCHEDULE_ERROR_KIND(kNotSingleWriteBlock, "NotSingleWriteBlock",
                         "The buffer is allowed to be written by single block.",
                         "The buffer is expected to be written by single block.");
TSCH_SCHEDULE_ERROR_KIND(kNotSupportedYet, "NotSupportedYet", "not supported yet", "not supported yet");

void fail_not_supported(const ScheduleState& s, std::vector<StmtSid> locations, const std::string& what) {
  fail(s, kNotSupportedYet, std::move(locations), "not supported yet: " + what);
}

std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error) {
  // TVM prints the module without syntax sugar, each location underlined and named in a
  // comment.
  ir::PrintOptions options;
  options.syntax_sugar = false;
  for (size_t i = 0; i < error.locations.size(); ++i) {
    if (const NodeInfo* info = state.info(error.locations[i])) {
      options.highlight.push_back(info->node);
      options.annotate.emplace_back(info->node, error.location_names[i]);
    }
  }
  std::string ir = ir::script(state.mod(), options);
  return fmt::format(
      "ScheduleError: An error occurred in the schedule primitive '{}'.\n\nThe IR with diagnostic is:\n{}\nError "
      "message: {}",
      error.primitive, ir, error.what());
}

void fail_not_reduction_block(const ScheduleState& s, BlockSid block, int condition) {
  fail(s, kNotReductionBlockError, {block},
       "The block {0} is not a reduction block - it violates condition #" + std::to_string(condition) +
           ".\n" TSCH_REDUCTION_BLOCK_DEFINITION);
}

const ir::VarNode* reduction_var_in(const ir::BlockNode& block, const std::vector<ir::PrimExpr>& indices) {
  for (const auto& iv : block.iter_vars) {
    if (iv.type != ir::IterType::CommReduce) continue;
    for (const auto& idx : indices) {
      if (ir::uses_var(idx, [&](const ir::VarNode* v) { return v == iv.var.get(); })) return iv.var.get();
    }
  }
  return nullptr;
}

}  // namespace tsch::schedule
