#include "schedule/error.h"

#include <fmt/format.h>

#include "ir/printer.h"

namespace tsch::schedule {

std::string describe(const ScheduleState& state, uint64_t sid) {
  if (const ir::ForNode* f = state.loop(sid)) return fmt::format("loop \"{}\"", f->loop_var->name);
  if (const ir::BlockNode* b = state.block(sid)) return fmt::format("block \"{}\"", b->name);
  return "a loop or block that is no longer in the schedule";
}

namespace {
[[noreturn]] void fail_with_fast(const std::string& primitive, std::vector<uint64_t> nodes, const std::string& message,
                                 const std::string& fast) {
  ScheduleError e(primitive, message, std::move(nodes));
  e.fast = "ScheduleError: " + fast;
  throw e;
}
}  // namespace

void fail_loop_not_start_with_zero(const ScheduleState& s, const std::string& primitive, uint64_t loop) {
  fail_with_fast(primitive, {loop}, fmt::format("The {} does not start with 0, which is not supported", describe(s, loop)),
                 "The primitive only supports loop starting with 0");
}

void fail_has_annotation_or_thread_binding(const ScheduleState& s, const std::string& primitive, uint64_t loop) {
  fail_with_fast(primitive, {loop}, fmt::format("The primitive can't be applied because the {} has annotation or thread binding", describe(s, loop)),
                 "The primitive can't be applied because the loop has annotation or thread binding");
}

void fail_output_block(const std::string& primitive, uint64_t block, const std::string& detail) {
  fail_with_fast(primitive, {block}, "Cannot operate on an output block: " + detail, "Cannot operate on an output block");
}

void fail_block_not_found(const std::string& primitive, const std::string& name) {
  fail_with_fast(primitive, {}, fmt::format("Cannot find a block with the name: {}", name), "Cannot find a block with the specified name");
}

std::string render_schedule_error(const ScheduleState& state, const ScheduleError& error) {
  ir::PrintOptions options;
  for (uint64_t sid : error.nodes) {
    if (const NodeInfo* i = state.info(sid)) options.highlight.push_back(i->node);
  }
  std::string ir = ir::script(state.mod(), options);
  return fmt::format("An error occurred in the schedule primitive '{}'.\nThe IR with diagnostic is:\n{}\nError message: {}",
                     error.primitive, ir, error.what());
}

}  // namespace tsch::schedule
