// Schedule errors: a refused primitive reports one condition (a ScheduleErrorKind, TVM's
// ScheduleError subclass), the loops and blocks concerned, and a message. The IR is left
// unchanged. Conditions several primitives share are declared here once; the others in the
// primitive's own file, with TSCH_SCHEDULE_ERROR_KIND.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "schedule/state.h"

namespace tsch::schedule {

// One condition a primitive refuses: TVM's class name, its FastErrorString (without the
// "ScheduleError: " prefix) and its DetailRenderTemplate, where {0}, {1}, ... stand for the
// error's loops and blocks ("tir.For#0" in the message, a "# tir.For#0" comment in the IR).
struct ScheduleErrorKind {
  const char* name;
  const char* fast;
  const char* detail;
};

// Lists `kind` among all_schedule_error_kinds() (what the coverage check walks) and returns
// the listed copy.
const ScheduleErrorKind& declare_schedule_error_kind(const ScheduleErrorKind& kind);
const std::vector<const ScheduleErrorKind*>& all_schedule_error_kinds();

#define TSCH_SCHEDULE_ERROR_KIND(var, name, fast, detail) \
  const ::tsch::schedule::ScheduleErrorKind& var =        \
      ::tsch::schedule::declare_schedule_error_kind(::tsch::schedule::ScheduleErrorKind{name, fast, detail})

class ScheduleError : public std::runtime_error {
 public:
  // `detail`: the message when it carries values (built by the caller, still with {0}, {1}
  // for the locations); the kind's template when empty. `fast` likewise (TVM's fast strings
  // sometimes name the primitive).
  ScheduleError(const ScheduleState& s, const ScheduleErrorKind& kind, std::vector<StmtSid> locations,
                const std::string& detail = "", std::string fast = "");

  const ScheduleErrorKind* kind;
  std::vector<StmtSid> locations;
  std::vector<std::string> location_names;  // "tir.For#0", "tir.Block#1"
  std::string primitive;                    // TVM's spelling ("compute-at"); set by Schedule::apply

  std::string fast_error_string() const { return "ScheduleError: " + (fast.empty() ? std::string(kind->fast) : fast); }

 private:
  std::string fast;
};

[[noreturn]] inline void fail(const ScheduleState& s, const ScheduleErrorKind& kind, std::vector<StmtSid> locations,
                              const std::string& detail = "", const std::string& fast = "") {
  throw ScheduleError(s, kind, std::move(locations), detail, fast);
}

// The conditions several primitives refuse (TVM's names).
extern const ScheduleErrorKind& kLoopNotStartWithZeroError;          // {0}: the loop
extern const ScheduleErrorKind& kHasAnnotationOrThreadBindingError;  // {0}: the loop
extern const ScheduleErrorKind& kRootBlockError;                     // {0}: the root block
extern const ScheduleErrorKind& kNotOutputBlockError;                // {0}: the block (output blocks refused)
extern const ScheduleErrorKind& kBlockNotFoundError;                 // no locations; message names the block
extern const ScheduleErrorKind& kNonAllocatedBufferError;            // {0}: the block; the message names the buffer
extern const ScheduleErrorKind& kNotInSameScopeError;
extern const ScheduleErrorKind&
    kNotOnlyChildError;  // {0}, {1}: the outer and the inner loop           // {0}, {1}: the block and the loop
// {0}: a loop bound to both spatial and reduction iterators of a block ({1}).
extern const ScheduleErrorKind& kLoopTouchedByBothKindsError;
extern const ScheduleErrorKind& kNotSupportedYet;
// An index map that is not a bijective affine map (transform_layout, transform_block_layout).
extern const ScheduleErrorKind& kNotBijectiveAffineIndexMapError;
// {0}: a loop that does not enclose block {1} (decompose_reduction, decompose_padding; the
// message names the primitive).
extern const ScheduleErrorKind& kLoopPositionError;
// {0}, {1}: two blocks writing a buffer only one may write (the cache primitives).
extern const ScheduleErrorKind& kNotSingleWriteBlock;
// {0}: a block that is not a reduction block (TVM's five conditions).
extern const ScheduleErrorKind& kNotReductionBlockError;
#define TSCH_REDUCTION_BLOCK_DEFINITION                                                                    \
  "Definition of a reduction block:\n"                                                                     \
  "1) The block has the `init` statement\n"                                                                \
  "2) All the block bindings are quasi-affine expressions\n"                                               \
  "3) All block vars are either data parallel block vars or reduction block vars\n"                        \
  "4) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n" \
  "5) The reduction block vars are not used to index the output buffers"
[[noreturn]] void fail_not_reduction_block(const ScheduleState& s, BlockSid block, int condition);
// Condition 5 of a reduction block: a reduction iterator of `block` used in `indices` (a
// store into its output), or null.
const ir::VarNode* reduction_var_in(
    const ir::BlockNode& block,
    const std::vector<ir::PrimExpr>& indices);  // tsch: a case tsch refuses that TVM may accept

// TVM's BufferIndexOutOfRangeError: `index` is not one of the block's read (write) regions.
[[noreturn]] void fail_buffer_index_out_of_range(const ScheduleState& s, BlockSid block, int64_t index, bool is_write);

// "not supported yet: <what>" at `locations`.
[[noreturn]] void fail_not_supported(const ScheduleState& s, std::vector<StmtSid> locations, const std::string& what);

// TVM's detailed report: the primitive, the module with the nodes underlined and annotated
// with their names, the message.
std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error);

}  // namespace tsch::schedule
